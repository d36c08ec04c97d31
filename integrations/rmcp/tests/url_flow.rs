//! URL mode on a 2025-11-25 connection, end to end over rmcp (an in-process rmcp client
//! on a duplex pipe): the client accepts the URL question; the server waits for the
//! host's out-of-band flow (`Elicit::with_url_flow`) and only then sends
//! `notifications/elicitation/complete` with the request's `elicitationId`; a flow that
//! fails fails the call and sends nothing.

// Helpers unwrap as tests do (clippy.toml exempts test code).
#![cfg(test)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use elicit_core::decl::{AnswerType, Param, Tool as Decl};
use elicit_core::InputKind;
use elicit_rmcp::{
    resolver, Declared, Elicit, Resolution, StateCodec, StateKeys, UrlAccepted,
    ELICITATION_COMPLETE,
};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock,
    CustomNotification, ElicitRequestParams, ElicitResult, ErrorData, Implementation,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{tool_handler, ClientHandler, RoleClient, ServerHandler, ServiceExt};
use serde_json::json;
use tokio::sync::{oneshot, Notify};

/// The server: one tool declared at run time, dispatched by `#[tool_handler]`.
struct Server(ToolRouter<Server>);

#[tool_handler(router = self.0)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("url-flow-test", "1.0.0"))
    }
}

/// The client: accepts every URL question (recording its `elicitationId`) and records
/// the completion notifications.
#[derive(Clone, Default)]
struct Client {
    asked: Arc<Mutex<Vec<String>>>,
    completed: Arc<Mutex<Vec<String>>>,
    notified: Arc<Notify>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let caps: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}})).unwrap();
        ClientConfig::new(caps, Implementation::new("url-flow-client", "1.0.0"))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = serde_json::to_value(&request).unwrap();
        assert_eq!(params["mode"], "url", "{params}");
        assert_eq!(params["url"], "https://pay.example/orders/A17");
        self.asked
            .lock()
            .unwrap()
            .push(params["elicitationId"].as_str().unwrap().to_string());
        Ok(serde_json::from_value(json!({"action": "accept"})).unwrap())
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == ELICITATION_COMPLETE {
            let id = notification.params.unwrap()["elicitationId"]
                .as_str()
                .unwrap()
                .to_string();
            self.completed.lock().unwrap().push(id);
            self.notified.notify_one();
        }
    }
}

fn pay_tool() -> Declared {
    let decl = Decl::new("pay")
        .param(Param::argument("order").ty(AnswerType::String))
        .param(Param::resolver("paid", &["order"]).kind(InputKind::Url));
    let paid = resolver(|r| async move {
        Ok(Resolution::url(
            format!("Pay for order {}", r.text("order")),
            format!("https://pay.example/orders/{}", r.text("order")),
        ))
    });
    let schemas = vec![("order", json!({"type": "string"}))];
    Declared::build(decl.to_json(), vec![("paid", paid)], schemas).unwrap()
}

#[derive(serde::Deserialize)]
struct Pay {
    order: String,
    paid: bool,
}

/// A server whose URL flow is `flow`, and a connected client.
async fn connect<F, Fut>(flow: F) -> (rmcp::service::RunningService<RoleClient, Client>, Client)
where
    F: Fn(UrlAccepted) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<(), ErrorData>> + Send + 'static,
{
    let codec = StateCodec::sealed(StateKeys::ephemeral().unwrap()).unwrap();
    let elicit =
        Elicit::new(Implementation::new("url-flow-test", "1.0.0"), codec).with_url_flow(flow);
    let listing = Tool::new_with_raw("pay", None, rmcp::model::JsonObject::new());
    let route = pay_tool()
        .into_route(listing, Arc::new(elicit), |p: Pay, _call| async move {
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "order {} paid: {}",
                p.order, p.paid
            ))]))
        })
        .unwrap();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = Server(ToolRouter::new().with_route(route))
            .serve(server_io)
            .await
        {
            let _ = running.waiting().await;
        }
    });
    let client = Client::default();
    let running = client.clone().serve(client_io).await.unwrap();
    (running, client)
}

fn call() -> CallToolRequestParams {
    CallToolRequestParams::new("pay")
        .with_arguments(json!({"order": "A17"}).as_object().unwrap().clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_completion_follows_the_out_of_band_flow() {
    let (done_tx, done_rx) = oneshot::channel::<()>();
    let done_rx = Arc::new(Mutex::new(Some(done_rx)));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen_in_flow = seen.clone();
    let (running, client) = connect(move |a: UrlAccepted| {
        seen_in_flow.lock().unwrap().push((
            a.param.clone(),
            a.elicitation_id.clone(),
            a.url.clone(),
        ));
        let rx = done_rx.lock().unwrap().take();
        async move {
            // The out-of-band flow: done when the test says so.
            if let Some(rx) = rx {
                let _ = rx.await;
            }
            Ok(())
        }
    })
    .await;
    let peer = running.peer().clone();
    let call = tokio::spawn(async move { peer.call_tool(call()).await });
    // The client has accepted, the flow is running: no completion yet.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(client.asked.lock().unwrap().len(), 1);
    assert!(client.completed.lock().unwrap().is_empty());
    assert!(!call.is_finished());
    done_tx.send(()).unwrap();
    let result = call.await.unwrap().unwrap();
    tokio::time::timeout(Duration::from_secs(5), client.notified.notified())
        .await
        .ok();
    let id = client.asked.lock().unwrap()[0].clone();
    assert_eq!(id.len(), 22, "the question's digest: {id}");
    assert_eq!(*client.completed.lock().unwrap(), std::slice::from_ref(&id));
    assert_eq!(
        *seen.lock().unwrap(),
        [(
            "paid".to_string(),
            id,
            "https://pay.example/orders/A17".to_string()
        )]
    );
    let text = serde_json::to_value(&result.content[0]).unwrap();
    assert_eq!(text["text"], "order A17 paid: true");
    running.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_flow_fails_the_call_and_completes_nothing() {
    let (running, client) = connect(|a: UrlAccepted| async move {
        Err(ErrorData::internal_error(
            format!("payment for {} was not completed", a.param),
            None,
        ))
    })
    .await;
    let err = running.peer().call_tool(call()).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("payment for paid was not completed"),
        "{err}"
    );
    assert_eq!(client.asked.lock().unwrap().len(), 1);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(client.completed.lock().unwrap().is_empty());
    running.cancel().await.unwrap();
}
