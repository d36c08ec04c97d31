//! The idempotency key across replicas (issue 31, item 3): a final 2026-07-28 round
//! retried after the body ran — on another replica holding the same ring, or on the same
//! one — reaches the body with the same key; other replies give another key.

// Helpers unwrap as tests do (clippy.toml exempts test code).
#![cfg(test)]

use std::sync::{Arc, Mutex};

use elicit_rmcp::{Call, Elicit, ErrorData, StateCodec, StateKeys};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
};
use rmcp::service::{RunningService, ServiceExt};
use rmcp::{tool, tool_handler, tool_router, RoleClient, ServerHandler};
use serde_json::{json, Value};

#[derive(serde::Deserialize, elicit_rmcp::Elicit)]
struct Order {
    item: String,
    #[elicit(message = "How many?")]
    quantity: i64,
}

/// One replica: its own `Elicit` on the shared ring, and the keys its body saw.
#[derive(Clone)]
struct Replica {
    elicit: Arc<Elicit>,
    keys: Arc<Mutex<Vec<Option<String>>>>,
}

#[tool_router]
impl Replica {
    #[tool(description = "Order", input_schema = <Order as elicit_rmcp::ElicitArgs>::input_schema())]
    async fn order(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        let keys = self.keys.clone();
        self.elicit
            .run(call, |o: Order, call| async move {
                keys.lock()
                    .unwrap()
                    .push(call.idempotency_key().map(str::to_owned));
                let text = format!("{} x {}", o.quantity, o.item);
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            })
            .await
    }
}

#[tool_handler]
impl ServerHandler for Replica {
    elicit_rmcp::hooks!(elicit);
}

fn replica() -> Replica {
    let keys = StateKeys::from_bytes(&[&[9; 32]]).unwrap();
    let codec = StateCodec::sealed(keys).unwrap();
    Replica {
        elicit: Arc::new(Elicit::new(Implementation::new("orders", "1.0.0"), codec)),
        keys: Arc::default(),
    }
}

async fn connect(server: Replica) -> RunningService<RoleClient, ()> {
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(s) = server.serve(a).await {
            let _ = s.waiting().await;
        }
    });
    ().serve(b).await.unwrap()
}

async fn round(client: &RunningService<RoleClient, ()>, params: &CallToolRequestParams) -> Value {
    match client.peer().call_tool_once(params.clone()).await.unwrap() {
        CallToolResponse::InputRequired(r) => serde_json::to_value(&r).unwrap(),
        CallToolResponse::Complete(r) => serde_json::to_value(&r).unwrap(),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_retried_final_round_reaches_the_body_with_the_same_key_on_any_replica() {
    let (a, b) = (replica(), replica());
    let (to_a, to_b) = (connect(a.clone()).await, connect(b.clone()).await);
    let mut first = CallToolRequestParams::new("order");
    first.arguments = json!({"item": "pears"}).as_object().cloned();
    first.meta = serde_json::from_value(json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "idempotency-test", "version": "1.0.0"},
    }))
    .ok();
    let asked = round(&to_a, &first).await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let state = asked["requestState"].as_str().unwrap().to_owned();
    let final_round = |quantity: i64| {
        let mut p = first.clone();
        p.request_state = Some(state.clone());
        p.input_responses = serde_json::from_value(
            json!({"quantity": {"action": "accept", "content": {"value": quantity}}}),
        )
        .unwrap();
        p
    };
    // The final round on replica B, retried on A (the balancer's retry), then on B again.
    for client in [&to_b, &to_a, &to_b] {
        let done = round(client, &final_round(3)).await;
        assert_eq!(done["content"][0]["text"], "3 x pears", "{done}");
    }
    // Other replies to the same question: another key.
    round(&to_a, &final_round(4)).await;
    let seen_a = a.keys.lock().unwrap().clone();
    let seen_b = b.keys.lock().unwrap().clone();
    assert_eq!(seen_b.len(), 2);
    assert_eq!(seen_a.len(), 2);
    let key = seen_b[0].clone().expect("a final modern round has a key");
    assert_eq!(key.len(), 64);
    assert_eq!(seen_b[1].as_deref(), Some(key.as_str()));
    assert_eq!(seen_a[0].as_deref(), Some(key.as_str()));
    assert!(seen_a[1].is_some());
    assert_ne!(seen_a[1].as_deref(), Some(key.as_str()));
}
