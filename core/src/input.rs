//! Input kinds and client capabilities.
//!
//! A declared parameter is asked by one of four kinds of request, each carried in an
//! `InputRequiredResult`'s `inputRequests` (2026-07-28) or sent as a server-to-client
//! request one at a time (handshake era):
//!
//! | kind | method | params | the answer | the parameter settles to |
//! |---|---|---|---|---|
//! | [`InputKind::Form`] | `elicitation/create` | `{mode:"form", message, requestedSchema}` | ElicitResult | the accepted content, validated against the answer type |
//! | [`InputKind::Url`] | `elicitation/create` | `{mode:"url", message, url}` (+ `elicitationId` on the handshake era) | ElicitResult without content | `true` once accepted |
//! | [`InputKind::Sampling`] | `sampling/createMessage` | CreateMessageRequest params | CreateMessageResult | the whole CreateMessageResult |
//! | [`InputKind::Roots`] | `roots/list` | ListRootsRequest params (usually `{}`) | ListRootsResult | its `roots` array |
//!
//! A sampling parameter settles to the whole `CreateMessageResult` rather than its text:
//! the content may be an image, audio or several blocks, and `model` / `stopReason` say
//! how the text came about; a tool that wants the text reads `content.text`. A declined
//! or cancelled request (an ElicitResult with `decline`/`cancel`, which is also how a
//! host reports that the client refused a sampling or roots request) settles to the
//! parameter's default, or fails the call when there is none, as for every kind.
//!
//! # Capabilities
//!
//! A client declares which kinds it takes in its `ClientCapabilities`
//! (`_meta["io.modelcontextprotocol/clientCapabilities"]` on 2026-07-28, `initialize` on
//! the handshake era). [`Capabilities::from_client_json`] reads that object as the MCP
//! Python SDK does: `elicitation: {}` means form only, URL mode needs `elicitation.url`,
//! sampling and roots need their own keys. A round never shows a question of a kind the
//! client did not declare: it fails with [`crate::Error::MissingCapability`] (JSON-RPC
//! `-32021`, whose `data.requiredCapabilities` is [`Capabilities::write_json`] of the
//! missing kinds).

use crate::error::Problem;
use crate::json::{Kind, Sink, Value};

/// Whether this build has `kind` (feature `input-kinds` for all but form).
pub(crate) fn available(kind: InputKind) -> Result<(), Problem> {
    if kind == InputKind::Form || cfg!(feature = "input-kinds") {
        Ok(())
    } else {
        Err(Problem::INPUT_KINDS_LEFT_OUT)
    }
}

/// How a parameter is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum InputKind {
    /// Form elicitation: a question with a requested schema.
    Form,
    /// URL-mode elicitation: the user is sent to a URL; the answer is the action alone.
    Url,
    /// Sampling: the client's model answers a `CreateMessageRequest`.
    Sampling,
    /// Roots: the client lists its roots.
    Roots,
}

impl InputKind {
    /// Every kind, in the order of their numbering (see [`InputKind::code`]).
    pub const ALL: [InputKind; 4] = [
        InputKind::Form,
        InputKind::Url,
        InputKind::Sampling,
        InputKind::Roots,
    ];

    /// The JSON-RPC method of the request: `elicitation/create`,
    /// `sampling/createMessage` or `roots/list`.
    pub fn method(self) -> &'static str {
        match self {
            InputKind::Form | InputKind::Url => "elicitation/create",
            InputKind::Sampling => "sampling/createMessage",
            InputKind::Roots => "roots/list",
        }
    }

    /// `":{"method":"<method>","params":` — what an `inputRequests` entry writes between
    /// its key's contents and its params (the key's closing quote included), in one piece
    /// (spelled beside [`InputKind::method`]).
    pub(crate) fn request_head(self) -> &'static [u8] {
        match self {
            InputKind::Form | InputKind::Url => {
                b"\":{\"method\":\"elicitation/create\",\"params\":"
            }
            InputKind::Sampling => b"\":{\"method\":\"sampling/createMessage\",\"params\":",
            InputKind::Roots => b"\":{\"method\":\"roots/list\",\"params\":",
        }
    }

    /// The kind's name in declarations (`"kind"` of a resolver): `form`, `url`,
    /// `sampling`, `roots`.
    pub fn as_str(self) -> &'static str {
        match self {
            InputKind::Form => "form",
            InputKind::Url => "url",
            InputKind::Sampling => "sampling",
            InputKind::Roots => "roots",
        }
    }

    /// The kind called `name` in declarations.
    pub fn from_name(name: &str) -> Option<InputKind> {
        InputKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// A stable number for the kind (0 form, 1 url, 2 sampling, 3 roots), as the C ABI
    /// reports it.
    pub const fn code(self) -> u32 {
        match self {
            InputKind::Form => 0,
            InputKind::Url => 1,
            InputKind::Sampling => 2,
            InputKind::Roots => 3,
        }
    }

    /// The capability it needs, as a message names it ("form elicitation", "url
    /// elicitation", "sampling", "roots").
    pub fn capability_name(self) -> &'static str {
        match self {
            InputKind::Form => "form elicitation",
            InputKind::Url => "url elicitation",
            InputKind::Sampling => "sampling",
            InputKind::Roots => "roots",
        }
    }

    const fn bit(self) -> u8 {
        1 << self.code()
    }
}

/// The input kinds a client declared (a set of [`InputKind`]s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Capabilities(u8);

impl Capabilities {
    /// Nothing declared.
    pub const NONE: Capabilities = Capabilities(0);
    /// Form elicitation only (what `elicitation: {}` declares): the default of
    /// [`crate::Inputs`].
    pub const FORM: Capabilities = Capabilities(1);
    /// Every kind.
    pub const ALL: Capabilities = Capabilities(0b1111);

    /// The set holding `kind` too.
    pub const fn with(self, kind: InputKind) -> Capabilities {
        Capabilities(self.0 | kind.bit())
    }

    /// Whether `kind` is in the set.
    pub fn contains(self, kind: InputKind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// The kinds in this set that are not in `other`.
    pub(crate) const fn without(self, other: Capabilities) -> Capabilities {
        Capabilities(self.0 & !other.0)
    }

    /// True when the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The kinds in the set.
    pub fn kinds(self) -> impl Iterator<Item = InputKind> {
        InputKind::ALL
            .into_iter()
            .filter(move |k| self.contains(*k))
    }

    /// Read a `ClientCapabilities` object (JSON text) as the MCP Python SDK reads it:
    /// - `elicitation` present (not `null`): form when it is not an object, or has
    ///   `form`, or has no `url` (the pre-modes shape `elicitation: {}`); URL mode when
    ///   it has `url`;
    /// - `sampling`, `roots` present (not `null`): sampling, roots.
    ///
    /// Anything that is not a JSON object declares nothing.
    pub fn from_client_json(json: &str) -> Capabilities {
        match Value::parse(json) {
            Ok(v) => Self::from_value(v),
            Err(_) => Capabilities::NONE,
        }
    }

    pub(crate) fn from_value(v: Value<'_>) -> Capabilities {
        let mut caps = Capabilities::NONE;
        if v.kind() != Kind::Object {
            return caps;
        }
        let present = |key: &str| v.get(key).filter(|x| !x.is_null());
        if let Some(e) = present("elicitation") {
            if e.kind() == Kind::Object {
                let url = e.get("url").is_some_and(|x| !x.is_null());
                let form = e.get("form").is_some_and(|x| !x.is_null());
                if form || !url {
                    caps = caps.with(InputKind::Form);
                }
                if url {
                    caps = caps.with(InputKind::Url);
                }
            } else {
                caps = caps.with(InputKind::Form);
            }
        }
        if present("sampling").is_some() {
            caps = caps.with(InputKind::Sampling);
        }
        if present("roots").is_some() {
            caps = caps.with(InputKind::Roots);
        }
        caps
    }

    /// The set as a `ClientCapabilities` object, the `requiredCapabilities` of a
    /// `-32021` error: e.g. `{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}`
    /// for every kind, `{}` for none.
    pub fn write_json(self, out: &mut dyn Sink) {
        out.put(b"{");
        let mut first = true;
        let mut sep = |out: &mut dyn Sink| {
            if !first {
                out.put(b",");
            }
            first = false;
        };
        if self.contains(InputKind::Form) || self.contains(InputKind::Url) {
            sep(out);
            out.put(b"\"elicitation\":{");
            if self.contains(InputKind::Form) {
                out.put(b"\"form\":{}");
            }
            if self.contains(InputKind::Url) {
                if self.contains(InputKind::Form) {
                    out.put(b",");
                }
                out.put(b"\"url\":{}");
            }
            out.put(b"}");
        }
        if self.contains(InputKind::Sampling) {
            sep(out);
            out.put(b"\"sampling\":{}");
        }
        if self.contains(InputKind::Roots) {
            sep(out);
            out.put(b"\"roots\":{}");
        }
        out.put(b"}");
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    fn caps(json: &str) -> Vec<&'static str> {
        Capabilities::from_client_json(json)
            .kinds()
            .map(InputKind::as_str)
            .collect()
    }

    fn json(c: Capabilities) -> String {
        let mut out = Vec::new();
        c.write_json(&mut out);
        String::from_utf8(out).unwrap()
    }

    /// The MCP Python SDK's reading of ClientCapabilities, kind by kind.
    #[test]
    fn client_capabilities_read_as_the_sdk_reads_them() {
        assert_eq!(caps(r#"{"elicitation":{}}"#), ["form"]);
        assert_eq!(caps(r#"{"elicitation":{"form":{}}}"#), ["form"]);
        assert_eq!(caps(r#"{"elicitation":{"url":{}}}"#), ["url"]);
        assert_eq!(
            caps(r#"{"elicitation":{"form":{},"url":{}}}"#),
            ["form", "url"]
        );
        assert_eq!(caps(r#"{"elicitation":true}"#), ["form"]);
        assert_eq!(caps(r#"{"elicitation":null}"#), Vec::<&str>::new());
        assert_eq!(
            caps(r#"{"sampling":{},"roots":{"listChanged":true},"elicitation":{}}"#),
            ["form", "sampling", "roots"]
        );
        assert_eq!(
            caps(r#"{"sampling":null,"roots":null}"#),
            Vec::<&str>::new()
        );
        assert_eq!(caps("{}"), Vec::<&str>::new());
        assert_eq!(caps("[]"), Vec::<&str>::new());
        assert_eq!(caps("not json"), Vec::<&str>::new());
    }

    #[test]
    fn required_capabilities_are_client_capabilities_objects() {
        assert_eq!(json(Capabilities::NONE), "{}");
        assert_eq!(json(Capabilities::FORM), r#"{"elicitation":{"form":{}}}"#);
        assert_eq!(
            json(Capabilities::NONE.with(InputKind::Url)),
            r#"{"elicitation":{"url":{}}}"#
        );
        assert_eq!(
            json(Capabilities::ALL),
            r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#
        );
        assert_eq!(
            json(Capabilities::NONE.with(InputKind::Sampling)),
            r#"{"sampling":{}}"#
        );
        // What it writes reads back as the same set.
        for bits in 0..16u8 {
            let c = Capabilities(bits);
            assert_eq!(Capabilities::from_client_json(&json(c)), c, "{bits}");
        }
    }

    #[test]
    fn kinds_have_methods_names_and_codes() {
        for k in InputKind::ALL {
            assert_eq!(InputKind::from_name(k.as_str()), Some(k));
            assert_eq!(InputKind::ALL[k.code() as usize], k);
        }
        assert_eq!(InputKind::Url.method(), "elicitation/create");
        assert_eq!(InputKind::Sampling.method(), "sampling/createMessage");
        assert_eq!(InputKind::Roots.method(), "roots/list");
        assert_eq!(InputKind::from_name("nope"), None);
        // The inputRequests head spells the same method.
        for k in InputKind::ALL {
            let head = std::format!("\":{{\"method\":\"{}\",\"params\":", k.method());
            assert_eq!(k.request_head(), head.as_bytes());
        }
    }
}
