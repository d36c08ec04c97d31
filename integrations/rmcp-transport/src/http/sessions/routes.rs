//! Where a session's messages go: the client's into its service's inbox, the service's
//! to the HTTP request each belongs to (the module above says how they are routed).

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures_core::Stream;
use rmcp::model::{
    ClientJsonRpcMessage, ErrorData, GetExtensions as _, ProgressToken, RequestId,
    ServerJsonRpcMessage, ServerNotification,
};
use rmcp::service::{OriginatingRequestId, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::SessionId;
use rmcp::transport::Transport;
use rmcp::RoleServer;
use tokio::sync::{mpsc, oneshot};

use super::{lock, Shared};

/// Messages waiting on one response stream for its HTTP client to read them.
pub(super) const STREAM: usize = 16;
/// Standalone streams held beside the first (rmcp's manager keeps as many).
const MAX_SHADOWS: usize = 32;

/// Where a session's server messages go.
#[derive(Debug, Default)]
pub(super) struct Routes {
    state: Mutex<RouteState>,
}

#[derive(Debug, Default)]
struct RouteState {
    /// The client request each open request answers to.
    requests: HashMap<RequestId, Route>,
    /// Progress token → the request it came with.
    progress: HashMap<ProgressToken, RequestId>,
    standalone: Option<mpsc::Sender<ServerSseMessage>>,
    shadows: Vec<mpsc::Sender<ServerSseMessage>>,
    /// The session ended ([`Routes::close`]): nothing more is routed.
    closed: bool,
}

#[derive(Debug)]
pub(super) enum Route {
    /// `initialize`: its response is returned by `initialize_session`.
    Initialize(oneshot::Sender<ServerJsonRpcMessage>),
    /// A request's response stream.
    Stream(mpsc::Sender<ServerSseMessage>),
}

/// What [`Routes::route`] decided for one server message.
enum Target {
    Initialize(oneshot::Sender<ServerJsonRpcMessage>),
    Stream(mpsc::Sender<ServerSseMessage>),
    Nowhere,
}

impl Routes {
    /// Route the answers to request `id`; `false` when the session has ended (a request
    /// that took it just before its end, which would then wait for an answer no service
    /// gives).
    #[must_use]
    pub(super) fn add(&self, id: RequestId, route: Route, progress: Option<ProgressToken>) -> bool {
        let mut state = lock(&self.state);
        if state.closed {
            return false;
        }
        if let Some(token) = progress {
            state.progress.insert(token, id.clone());
        }
        state.requests.insert(id, route);
        true
    }

    /// The request `id` is answered (or cancelled): its stream ends once its last message
    /// is sent.
    fn finish(state: &mut RouteState, id: &RequestId) -> Option<Route> {
        let route = state.requests.remove(id)?;
        state.progress.retain(|_, of| of != id);
        Some(route)
    }

    pub(super) fn cancel(&self, id: &RequestId) {
        Self::finish(&mut lock(&self.state), id);
    }

    fn stream_of(state: &RouteState, id: &RequestId) -> Option<mpsc::Sender<ServerSseMessage>> {
        match state.requests.get(id)? {
            Route::Stream(tx) => Some(tx.clone()),
            Route::Initialize(_) => None,
        }
    }

    fn standalone(state: &mut RouteState) -> Target {
        match &state.standalone {
            Some(tx) if !tx.is_closed() => Target::Stream(tx.clone()),
            _ => Target::Nowhere,
        }
    }

    fn route(&self, message: &ServerJsonRpcMessage) -> Target {
        let mut state = lock(&self.state);
        let answered = match message {
            ServerJsonRpcMessage::Response(r) => Some(&r.id),
            ServerJsonRpcMessage::Error(e) => e.id.as_ref(),
            ServerJsonRpcMessage::Request(r) => {
                let on = r.request.extensions().get::<OriginatingRequestId>();
                return match on.and_then(|on| Self::stream_of(&state, &on.0)) {
                    Some(tx) => Target::Stream(tx),
                    None => Self::standalone(&mut state),
                };
            }
            ServerJsonRpcMessage::Notification(n) => {
                let of = match &n.notification {
                    ServerNotification::ProgressNotification(p) => {
                        state.progress.get(&p.params.progress_token).cloned()
                    }
                    ServerNotification::CancelledNotification(c) => c.params.request_id.clone(),
                    _ => None,
                };
                return match of.and_then(|id| Self::stream_of(&state, &id)) {
                    Some(tx) => Target::Stream(tx),
                    None => Self::standalone(&mut state),
                };
            }
        };
        match answered.and_then(|id| Self::finish(&mut state, id)) {
            Some(Route::Initialize(tx)) => Target::Initialize(tx),
            Some(Route::Stream(tx)) => Target::Stream(tx),
            None => Self::standalone(&mut state),
        }
    }

    /// A standalone (`GET`) stream: the first open one gets the messages; more are held
    /// open, sent nothing (competing reconnections do not end each other).
    pub(super) fn open_standalone(&self) -> mpsc::Receiver<ServerSseMessage> {
        let mut state = lock(&self.state);
        if state.closed {
            // Ended at once: the client's next request meets `404`.
            return mpsc::channel(1).1;
        }
        if state.standalone.as_ref().is_some_and(|tx| !tx.is_closed()) {
            let (tx, rx) = mpsc::channel(1);
            state.shadows.retain(|tx| !tx.is_closed());
            if state.shadows.len() >= MAX_SHADOWS {
                state.shadows.remove(0);
            }
            state.shadows.push(tx);
            rx
        } else {
            let (tx, rx) = mpsc::channel(STREAM);
            state.standalone = Some(tx);
            rx
        }
    }

    /// The session `id` ended: each request still open is answered with an error (a
    /// stream that just ended would leave its client waiting for the answer), every
    /// stream ends, and a pending `initialize` fails.
    pub(super) fn close(&self, id: &SessionId) {
        let closed = RouteState {
            closed: true,
            ..RouteState::default()
        };
        let state = std::mem::replace(&mut *lock(&self.state), closed);
        for (request, route) in state.requests {
            if let Route::Stream(tx) = route {
                let error = ErrorData::internal_error(
                    format!(
                        "session {id} ended (it expired, was evicted or closed) before this request was answered: start over with initialize"
                    ),
                    None,
                );
                let message = ServerJsonRpcMessage::error(error, Some(request));
                // A stream whose client reads nothing (full) loses nothing it would read.
                let _ = tx.try_send(ServerSseMessage::from_message(message));
            }
        }
    }

    /// No request unanswered and no stream open.
    pub(super) fn idle(&self) -> bool {
        let state = lock(&self.state);
        state.requests.is_empty()
            && state
                .standalone
                .as_ref()
                .is_none_or(mpsc::Sender::is_closed)
            && state.shadows.iter().all(mpsc::Sender::is_closed)
    }
}

/// A response or standalone stream.
pub(super) struct Messages(pub(super) mpsc::Receiver<ServerSseMessage>);

impl Stream for Messages {
    type Item = ServerSseMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx)
    }
}

/// The transport of one session's service: the client's messages from its inbox, its
/// own routed to the HTTP requests they belong to.
#[derive(Debug)]
pub(crate) struct SessionTransport {
    pub(super) inbox: mpsc::Receiver<Box<ClientJsonRpcMessage>>,
    pub(super) routes: Arc<Routes>,
    pub(super) shared: Arc<Shared>,
    pub(super) id: SessionId,
}

impl Transport<RoleServer> for SessionTransport {
    type Error = std::convert::Infallible;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        lock(&self.shared.table).touch(&self.id);
        let target = self.routes.route(&item);
        async move {
            // A client gone before its answer (a closed stream) loses nothing it could
            // still read; rmcp's manager drops such a message too.
            match target {
                Target::Initialize(tx) => {
                    let _ = tx.send(item);
                }
                Target::Stream(tx) => {
                    let _ = tx.send(ServerSseMessage::from_message(item)).await;
                }
                Target::Nowhere => {
                    tracing::debug!("no open stream for a server message: dropped");
                }
            }
            Ok(())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.inbox.recv().await.map(|message| *message)
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inbox.close();
        Ok(())
    }
}
