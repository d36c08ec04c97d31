#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod boundary;
mod call;
mod checks;
mod client;
mod declared;
pub mod keys;
mod kind;
mod resolve;
mod round;
mod serve;
mod state;
#[cfg(feature = "testing")]
pub mod testing;

use std::future::Future;
use std::pin::Pin;

use rmcp::model::ErrorCode;
use serde_json::{json, Value};

pub use call::Call;
pub use client::{UrlAccepted, ELICITATION_COMPLETE};
pub use declared::{schema_of, Declared, ElicitArgs};
pub use keys::{KeyError, StateKeys, MAX_KEYS};
pub use resolve::{resolver, Resolution, Resolve, Resolver};
pub use serve::Elicit;
pub use state::{Rejected, StateCodec};
// The transports are a crate of their own (integrations/rmcp-transport says why).
#[cfg(feature = "http")]
pub use elicit_rmcp_transport::http;
#[cfg(feature = "stdio")]
pub use elicit_rmcp_transport::stdio;
pub use elicit_rmcp_transport::wire;

pub use elicit_core as core;
pub use elicit_derive::{Choice, Elicit};
pub use rmcp::model::ErrorData;
pub use {rmcp, schemars, serde, serde_json};

/// JSON-RPC code of "Missing Required Client Capability" (`data.requiredCapabilities`
/// names what is missing, as a ClientCapabilities object).
pub const MISSING_CAPABILITY: i32 = -32021;

/// Most parameters one declaration may have.
pub const CAP: usize = 16;

/// A boxed, sendable future (what resolvers and bodies return once stored).
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The `ServerHandler` hooks an elicit server needs, inside `impl ServerHandler`:
/// `on_custom_request` answering with [`Elicit::unparsed_request`]. `$field` is the
/// server struct's `Arc<Elicit>` field.
#[macro_export]
macro_rules! hooks {
    ($field:ident) => {
        async fn on_custom_request(
            &self,
            request: $crate::rmcp::model::CustomRequest,
            _context: $crate::rmcp::service::RequestContext<$crate::rmcp::RoleServer>,
        ) -> ::core::result::Result<$crate::rmcp::model::CustomResult, $crate::ErrorData> {
            ::core::result::Result::Err(self.$field.unparsed_request(&request))
        }
    };
}

/// A unit enum that is a single-select answer (`#[derive(Choice)]`).
pub trait Choice {
    /// The values the user chooses from, in declaration order.
    const CHOICES: &'static [&'static str];
}

/// The frozen rejection of a bad `requestState` (MCP Python SDK `RequestStateBoundary`).
pub fn invalid_state() -> ErrorData {
    ErrorData::new(
        ErrorCode(elicit_core::seal::ERROR_CODE),
        elicit_core::seal::ERROR_MESSAGE,
        Some(json!({"reason": elicit_core::seal::ERROR_DATA_REASON})),
    )
}

/// A developer error (a declaration, resolver or body that disagree; a key ring that
/// cannot seal): the advice goes to `tracing`, the client reads `-32603 "Internal
/// error"`. Every such site answers through here.
fn developer_error(advice: impl std::fmt::Display) -> ErrorData {
    tracing::error!("elicit-rmcp: {advice}");
    ErrorData::internal_error("Internal error", None)
}

/// A JSON value as text: strings unquoted, everything else as JSON.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

// The derive's paths (`::elicit_rmcp::…`) in this crate's own unit tests.
#[cfg(test)]
extern crate self as elicit_rmcp;
