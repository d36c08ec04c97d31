//! Handshake-era sessions, held in memory: at most `max` at once (a new session past the
//! cap ends the one used least recently), and one nobody has used for `keep_alive` ends.
//!
//! Our own [`SessionManager`] rather than rmcp's `LocalSessionManager`, for memory (an
//! abandoned rmcp session, a worker task and seven channels, held ~60 KiB; 1,000 here
//! grow RSS by a few MiB: PERF.md, "Abandoned HTTP sessions"):
//!
//! * a session's service reads one small inbox, its replies go straight to the HTTP
//!   request they answer (no worker);
//! * only the [`Sessions::running`] sessions used most recently keep a running service; a
//!   less recent idle one is *parked*, keeping only its `initialize` parameters, and the
//!   next message for it restores it here: a new handler from the factory, with the
//!   handshake replayed into its new inbox ahead of the message (so every request meets
//!   an initialized service);
//! * one janitor task ends idle sessions, oldest first (one order of last use serves
//!   the cap and the expiry).
//!
//! rmcp's own restore (`SessionStore::load`, `restore_session`) is not used: rmcp marks a
//! finished restore in a table of its own that a spawned task clears later, and a request
//! finding the session parked again before that task ran took the stale "restored" for
//! its own and met the parked session (`500`). Here a held session is always there for
//! rmcp (`has_session`), parked or not, and restored by the one lock that parks it.
//!
//! Parking races the requests on their way, so a session is not parked while: a request
//! naming it is in rmcp's hands ([`Pinned`], from before rmcp looks the session up until
//! rmcp has passed the request to it, refused it, or the request is dropped); a message
//! taken for it is not yet in its inbox (a sender out); a request is unanswered (the
//! replayed `initialize` among them) or a stream open. A session that ends (`DELETE`,
//! cap, expiry) answers its open requests with an error. `http_sessions`'s stress tests
//! (`--running-sessions 1`) drive these.
//!
//! Routing, as rmcp's manager: a response goes to the stream of the request it answers;
//! a server request or progress notification made for a client request to that
//! request's stream; everything else to the standalone `GET` stream, if open. No event
//! cache: this configuration sends no event ids, so `Last-Event-ID` gets what comes next.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::http::request::Parts;
use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, GetMeta as _, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionState, SessionStore, SessionStoreError,
};
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

mod routes;
mod table;

pub(crate) use routes::SessionTransport;
use routes::{Messages, Route, Routes, STREAM};
use table::{parts_of, Held, Live, Table};

/// How long an idle handshake-era session lives and how many are held at once
/// (2026-07-28 exchanges hold none); see `McpHttp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sessions {
    /// A session nobody has used for this long ends (as rmcp's `keep_alive`). Default
    /// 5 minutes.
    pub keep_alive: Duration,
    /// The most sessions held at once, at least 1; a new one past it ends the session
    /// used least recently (whose next request gets `404`). Default 1,000.
    pub max: usize,
    /// How many of the held sessions, the ones used most recently, keep a running
    /// service (rmcp's service task and a handler), at least 1; an idle one past them is
    /// parked and restored when next used. Default 128.
    pub running: usize,
}

impl Sessions {
    /// rmcp's default idle expiry.
    pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(300);
    /// The default cap.
    pub const DEFAULT_MAX: usize = 1_000;
    /// The default number of running sessions.
    pub const DEFAULT_RUNNING: usize = 128;
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            keep_alive: Self::DEFAULT_KEEP_ALIVE,
            max: Self::DEFAULT_MAX,
            running: Self::DEFAULT_RUNNING,
        }
    }
}

/// Client messages waiting for a session's service (a faster client waits).
const INBOX: usize = 16;

/// In the extensions of the `initialize` and `initialized` replayed to a restored
/// session's new handler (rmcp's own restore marks them with its `SessionRestoreMarker`,
/// which only rmcp can make): a handler tells a replay from a client's handshake by it.
#[derive(Debug, Clone)]
pub struct Restored {
    /// The session restored.
    pub id: SessionId,
}

/// Runs a restored session's service on its transport until the service ends (a new
/// handler from `McpHttp`'s factory).
pub(crate) type Serve =
    Arc<dyn Fn(SessionTransport) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// Why a session could not be used. rmcp answers a request that meets one with `500`;
/// a request naming a session not held is answered `404` before it gets here.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SessionError {
    #[error(
        "no session {0} is held (it expired, was evicted or closed): start over with initialize"
    )]
    NotFound(SessionId),
    #[error("session {0} ended while this request was passed to it: start over with initialize")]
    Ended(SessionId),
}

/// The session manager of [`crate::http::McpHttp`]; [`Capped::session_store`] must be
/// the configuration's `SessionStore` (what hears of a finished handshake and of a
/// `DELETE`).
#[derive(Debug, Clone)]
pub(crate) struct Capped {
    shared: Arc<Shared>,
}

struct Shared {
    keep_alive: Duration,
    max: usize,
    live: usize,
    serve: Serve,
    table: Mutex<Table>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Capped {
    pub(crate) fn new(sessions: Sessions, serve: Serve) -> Self {
        Capped {
            shared: Arc::new(Shared {
                keep_alive: sessions.keep_alive,
                max: sessions.max.max(1),
                live: sessions.running.max(1),
                serve,
                table: Mutex::new(Table::default()),
            }),
        }
    }

    /// The `SessionStore` rmcp reports finished handshakes and `DELETE`s to.
    pub(crate) fn session_store(&self) -> Arc<dyn SessionStore> {
        Arc::new(self.clone())
    }

    /// Pin the session `id` for a request naming it, before rmcp handles the request:
    /// `None` if no such session is held. Held for as long as rmcp handles the request
    /// (see [`Pinned`]).
    pub(crate) fn pin(&self, id: &SessionId) -> Option<Pinned> {
        let mut table = lock(&self.shared.table);
        table.held.get_mut(id)?.pins += 1;
        Some(Pinned {
            shared: self.shared.clone(),
            id: id.clone(),
        })
    }

    /// The session's inbox and routes, marking it used; a parked session (or one whose
    /// service has ended) is restored first, its handshake replayed into the new inbox
    /// ahead of anything sent after (`parts`: the HTTP request's, which the replayed
    /// messages carry as rmcp's restore gives them). The sender keeps the session from
    /// being parked until it is dropped (once the message is in the inbox, or the stream
    /// registered).
    fn session(
        &self,
        id: &SessionId,
        parts: Option<&Parts>,
    ) -> Result<(mpsc::Sender<Box<ClientJsonRpcMessage>>, Arc<Routes>), SessionError> {
        let (taken, restored, parked) = {
            let mut table = lock(&self.shared.table);
            table.touch(id);
            let held = table
                .held
                .get(id)
                .ok_or_else(|| SessionError::NotFound(id.clone()))?;
            let restored = if held.service.as_ref().is_some_and(Live::serving) {
                None
            } else {
                let restored = table.restore(id, &self.shared, parts);
                Some(restored.ok_or_else(|| SessionError::NotFound(id.clone()))?)
            };
            let live = table
                .held
                .get(id)
                .and_then(|held| held.service.as_ref())
                .ok_or_else(|| SessionError::NotFound(id.clone()))?;
            let taken = (live.inbox.clone(), live.routes.clone());
            // A restored service is one more running: the least recent idle one past them
            // is parked.
            let parked = match restored {
                Some(_) => table.park(self.shared.live),
                None => Vec::new(),
            };
            (taken, restored, parked)
        };
        drop(parked);
        if let Some(transport) = restored {
            tracing::debug!(session = %id, "parked session restored");
            let (serve, this, id) = (self.shared.serve.clone(), self.clone(), id.clone());
            tokio::spawn(async move {
                serve(transport).await;
                this.ended(&id);
            });
        }
        Ok(taken)
    }

    async fn push(
        id: &SessionId,
        inbox: mpsc::Sender<Box<ClientJsonRpcMessage>>,
        message: ClientJsonRpcMessage,
    ) -> Result<(), SessionError> {
        inbox
            .send(Box::new(message))
            .await
            .map_err(|_| SessionError::Ended(id.clone()))
    }

    /// A session's service has ended (rmcp's task, or this manager's for a restored
    /// service, says so; a `DELETE` too, then [`SessionStore::delete`] forgets it). A
    /// session whose service is gone is parked, or forgotten if it never finished its
    /// handshake; one running a newer service is left as it is.
    fn ended(&self, id: &SessionId) {
        let mut table = lock(&self.shared.table);
        let ended = table.held.get(id).and_then(|held| {
            let live = held.service.as_ref()?;
            Some((live.inbox.is_closed(), held.init.is_some(), held.tick))
        });
        match ended {
            Some((true, true, tick)) => {
                table.live.remove(&tick);
                if let Some(held) = table.held.get_mut(id) {
                    held.service = None;
                }
            }
            Some((true, false, _)) => {
                table.remove(id);
            }
            _ => {}
        }
    }
}

/// A request naming a session, in rmcp's hands: the session is not parked until this is
/// dropped (`Held::pins`), which `McpHttp`'s endpoint does when rmcp's handling of the
/// request ends: it has reached the session (its message is in the inbox or its stream
/// registered, which keep the session running from then on), or rmcp refused it, or the
/// request was dropped (its client went away). So no pin outlives its request. (It is
/// taken before rmcp reads a `POST`'s body: a client sending one slowly keeps its session
/// running meanwhile, as an open stream of its own does.)
#[derive(Debug)]
pub(crate) struct Pinned {
    shared: Arc<Shared>,
    id: SessionId,
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let Some(held) = lock(&self.shared.table).held.get_mut(&self.id) {
            held.pins = held.pins.saturating_sub(1);
        }
    }
}

impl SessionManager for Capped {
    type Error = SessionError;
    type Transport = SessionTransport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let id = rmcp::transport::common::server_side_http::session_id();
        let (transport, evicted, start_janitor, parked) = {
            let mut table = lock(&self.shared.table);
            table.tick += 1;
            let tick = table.tick;
            table.held.insert(
                id.clone(),
                Held {
                    tick,
                    used: Instant::now(),
                    init: None,
                    service: None,
                    pins: 0,
                },
            );
            table.order.insert(tick, id.clone());
            let transport = table.start(&id, &self.shared);
            let evicted = if table.held.len() > self.shared.max {
                let oldest = table.oldest().map(|(oldest, _)| oldest.clone());
                oldest.filter(|oldest| table.remove(oldest).is_some())
            } else {
                None
            };
            let parked = table.park(self.shared.live);
            let start_janitor = !std::mem::replace(&mut table.janitor, true);
            (transport, evicted, start_janitor, parked)
        };
        drop(parked);
        if let Some(oldest) = evicted {
            tracing::info!(session = %oldest, max = self.shared.max, "session cap reached: ending the session used least recently");
        }
        if start_janitor {
            tokio::spawn(Shared::janitor(Arc::downgrade(&self.shared)));
        }
        let transport = transport.ok_or_else(|| SessionError::NotFound(id.clone()))?;
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let (inbox, routes) = self.session(id, parts_of(&message))?;
        let (tx, rx) = oneshot::channel();
        if let ClientJsonRpcMessage::Request(request) = &message {
            if !routes.add(request.id.clone(), Route::Initialize(tx), None) {
                return Err(SessionError::Ended(id.clone()));
            }
        }
        Self::push(id, inbox, message).await?;
        rx.await.map_err(|_| SessionError::Ended(id.clone()))
    }

    /// Whether the session is held: a parked one too, restored by the message that
    /// follows ([`Capped::session`]; the request is pinned already, [`Pinned`]).
    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(lock(&self.shared.table).held.contains_key(id))
    }

    /// rmcp calls this when a session's service has ended, and for a `DELETE`.
    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.ended(id);
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let (inbox, routes) = self.session(id, parts_of(&message))?;
        let (tx, rx) = mpsc::channel(STREAM);
        if let ClientJsonRpcMessage::Request(request) = &message {
            let progress = request.request.get_meta().get_progress_token();
            if !routes.add(request.id.clone(), Route::Stream(tx), progress) {
                return Err(SessionError::Ended(id.clone()));
            }
        }
        Self::push(id, inbox, message).await?;
        Ok(Messages(rx))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        let (inbox, routes) = self.session(id, parts_of(&message))?;
        if let ClientJsonRpcMessage::Notification(n) = &message {
            if let ClientNotification::CancelledNotification(c) = &n.notification {
                if let Some(request) = &c.params.request_id {
                    routes.cancel(request);
                }
            }
        }
        Self::push(id, inbox, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // The sender is held until the stream is registered (`session`).
        let (_inbox, routes) = self.session(id, None)?;
        Ok(Messages(routes.open_standalone()))
    }

    async fn resume(
        &self,
        id: &SessionId,
        _last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // No event cache (the module's doc): what comes next.
        let (_inbox, routes) = self.session(id, None)?;
        Ok(Messages(routes.open_standalone()))
    }
}

/// What rmcp tells a session store: a new session's handshake is done, a `DELETE`.
/// Nothing is loaded from it (`load` finds nothing): parked sessions are restored by
/// [`Capped::session`], never by rmcp.
#[async_trait::async_trait]
impl SessionStore for Capped {
    async fn load(&self, _id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        Ok(None)
    }

    /// After a new session's handshake: what restoring it replays. It may be parked from
    /// now on.
    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let parked = {
            let mut table = lock(&self.shared.table);
            if let Some(held) = table.held.get_mut(id) {
                held.init = Some(Arc::new(state.initialize_params.clone()));
            }
            table.park(self.shared.live)
        };
        drop(parked);
        Ok(())
    }

    /// A `DELETE`: the session is forgotten, its service ends.
    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        let held = lock(&self.shared.table).remove(&SessionId::from(id));
        drop(held);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Capped {
        /// Whether the session is held, running or parked.
        fn holds(&self, id: &str) -> bool {
            lock(&self.shared.table).held.contains_key(id)
        }

        /// Whether the session runs a service.
        fn running(&self, id: &str) -> bool {
            let table = lock(&self.shared.table);
            table
                .held
                .get(id)
                .is_some_and(|held| held.service.is_some())
        }

        /// Whether the session's service has nothing in flight.
        fn idle(&self, id: &str) -> bool {
            let table = lock(&self.shared.table);
            table
                .held
                .get(id)
                .and_then(|held| held.service.as_ref())
                .is_some_and(Live::idle)
        }

        /// How many sessions are held, and how many of them run a service.
        fn counts(&self) -> (usize, usize) {
            let table = lock(&self.shared.table);
            (table.held.len(), table.live.len())
        }
    }
    use rmcp::model::{
        ClientRequest, GetExtensions as _, InitializeRequestParams, PingRequest, RequestId,
    };
    use rmcp::transport::streamable_http_server::StreamableHttpService;
    use rmcp::transport::Transport as _;
    use rmcp::ServiceExt as _;

    /// A manager whose restored services are handed to the test (the receiver) instead
    /// of being run.
    fn collecting(sessions: Sessions) -> (Capped, mpsc::UnboundedReceiver<SessionTransport>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let serve: Serve = Arc::new(move |transport| {
            let _ = tx.send(transport);
            Box::pin(async {})
        });
        (Capped::new(sessions, serve), rx)
    }

    fn ping_message(id: i64) -> ClientJsonRpcMessage {
        ClientJsonRpcMessage::request(
            ClientRequest::PingRequest(PingRequest::default()),
            RequestId::Number(id),
        )
    }

    fn handshake() -> SessionState {
        SessionState::new(
            InitializeRequestParams::default()
                .with_protocol_version(rmcp::model::ProtocolVersion::V_2025_06_18),
        )
    }

    #[tokio::test]
    async fn past_the_cap_the_session_used_least_recently_ends() {
        let (capped, _restored) = collecting(Sessions {
            keep_alive: Duration::from_secs(60),
            max: 2,
            ..Sessions::default()
        });
        let (a, _ta) = capped.create_session().await.unwrap();
        let (b, _tb) = capped.create_session().await.unwrap();
        // `a` is used again, so `b` is the one idle longest.
        lock(&capped.shared.table).touch(&a);
        let (c, _tc) = capped.create_session().await.unwrap();
        assert_eq!(capped.counts().0, 2);
        assert!(capped.running(&a));
        assert!(!capped.running(&b));
        assert!(!capped.holds(&b));
        assert!(capped.running(&c));
        capped.delete(&a).await.unwrap();
        assert_eq!(capped.counts().0, 1);
        let (_d, _td) = capped.create_session().await.unwrap();
        assert!(capped.running(&c));
        assert_eq!(capped.counts().0, 2);
    }

    #[tokio::test]
    async fn past_the_live_ones_an_idle_session_is_parked_and_restored() {
        let (capped, mut restored) = collecting(Sessions {
            keep_alive: Duration::from_secs(60),
            max: 10,
            running: 2,
        });
        let mut transports = Vec::new();
        let mut ids = Vec::new();
        for _ in 0..3 {
            let (id, t) = capped.create_session().await.unwrap();
            capped.store(&id, &handshake()).await.unwrap();
            ids.push(id);
            transports.push(t);
        }
        // Three held, two running: the first (used least recently) is parked, its
        // service's inbox closed.
        assert_eq!(capped.counts(), (3, 2));
        assert!(!capped.running(&ids[0]));
        assert!(capped.holds(&ids[0]));
        assert!(transports[0].receive().await.is_none());
        // Its service's end (rmcp's close_session) keeps it held, parked; rmcp is told it
        // is there, and never restores it itself.
        capped.close_session(&ids[0]).await.unwrap();
        assert!(capped.holds(&ids[0]));
        assert!(capped.has_session(&ids[0]).await.unwrap());
        assert!(capped.load(&ids[0]).await.unwrap().is_none());
        // Its next message restores it: running again, and the session used least
        // recently since is parked.
        let _stream = capped
            .create_stream(&ids[0], ping_message(7))
            .await
            .unwrap();
        assert!(capped.running(&ids[0]));
        assert!(!capped.running(&ids[1]));
        assert_eq!(capped.counts(), (3, 2));
        // The new service reads the handshake replayed (marked), then the message.
        let mut service = restored
            .recv()
            .await
            .expect("a new service for the session");
        let Some(ClientJsonRpcMessage::Request(init)) = service.receive().await else {
            panic!("the replayed initialize first");
        };
        let ClientRequest::InitializeRequest(params) = &init.request else {
            panic!("an initialize");
        };
        assert_eq!(
            params.params.protocol_version,
            rmcp::model::ProtocolVersion::V_2025_06_18
        );
        assert!(init.request.extensions().get::<Restored>().is_some());
        let Some(ClientJsonRpcMessage::Notification(done)) = service.receive().await else {
            panic!("then initialized");
        };
        assert!(done.notification.extensions().get::<Restored>().is_some());
        let Some(ClientJsonRpcMessage::Request(ping)) = service.receive().await else {
            panic!("then the message");
        };
        assert_eq!(ping.id, RequestId::Number(7));
        // A session with a request in flight is not parked.
        for _ in 0..2 {
            let (id, _t) = capped.create_session().await.unwrap();
            capped.store(&id, &handshake()).await.unwrap();
        }
        assert!(capped.running(&ids[0]));
        // A DELETE forgets it.
        capped.delete(&ids[0]).await.unwrap();
        assert!(!capped.holds(&ids[0]));
        assert!(!capped.has_session(&ids[0]).await.unwrap());
        assert!(matches!(
            capped.accept_message(&ids[0], ping_message(8)).await,
            Err(SessionError::NotFound(_))
        ));
    }

    fn initialized() -> ClientJsonRpcMessage {
        ClientJsonRpcMessage::notification(ClientNotification::InitializedNotification(
            Default::default(),
        ))
    }

    /// A request in rmcp's hands (`Pinned`) keeps its session running until rmcp is done
    /// with it, and a sender taken for a message until the message is in the inbox:
    /// parking it then would leave the request to a service that has ended.
    #[tokio::test]
    async fn a_request_on_its_way_keeps_its_session_running() {
        let (capped, _restored) = collecting(Sessions {
            running: 1,
            ..Sessions::default()
        });
        let (a, mut ta) = capped.create_session().await.unwrap();
        capped.store(&a, &handshake()).await.unwrap();
        let pinned = capped.pin(&a).expect("a is held");
        assert!(capped.has_session(&a).await.unwrap());
        let (b, _tb) = capped.create_session().await.unwrap();
        capped.store(&b, &handshake()).await.unwrap();
        assert!(capped.running(&a), "pinned by the request on its way");
        let (inbox, _) = capped.session(&a, None).unwrap();
        drop(pinned);
        let (c, _tc) = capped.create_session().await.unwrap();
        capped.store(&c, &handshake()).await.unwrap();
        assert!(capped.running(&a), "a message on its way to the service");
        Capped::push(&a, inbox, initialized()).await.unwrap();
        assert!(ta.receive().await.is_some());
        // Reached and served: `a` is idle, and parked by the next session.
        let (d, _td) = capped.create_session().await.unwrap();
        capped.store(&d, &handshake()).await.unwrap();
        assert!(!capped.running(&a));
        assert!(ta.receive().await.is_none());
    }

    /// A server with no tools: what the session tests below drive through rmcp.
    #[derive(Clone)]
    struct Plain;

    impl rmcp::ServerHandler for Plain {}

    /// A manager whose restored sessions run `Plain`, as `McpHttp` runs the factory's.
    fn plain(sessions: Sessions) -> Capped {
        let serve: Serve = Arc::new(|transport| {
            Box::pin(async move {
                if let Ok(running) = Plain.serve(transport).await {
                    let _ = running.waiting().await;
                }
            })
        });
        Capped::new(sessions, serve)
    }

    /// rmcp's endpoint over `capped`, as `McpHttp` mounts it.
    fn endpoint(capped: &Capped) -> StreamableHttpService<Plain, Capped> {
        let mut config = crate::http::config();
        config.session_store = Some(capped.session_store());
        StreamableHttpService::new(|| Ok(Plain), Arc::new(capped.clone()), config)
    }

    fn post(session: Option<&str>, body: &'static str) -> axum::extract::Request {
        let mut request = axum::http::Request::post(crate::http::PATH)
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18");
        if let Some(id) = session {
            request = request.header("mcp-session-id", id);
        }
        request.body(axum::body::Body::from(body)).unwrap()
    }

    /// A session opened through rmcp, its handshake done.
    async fn open(capped: &Capped, service: &StreamableHttpService<Plain, Capped>) -> SessionId {
        const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let response = crate::http::mcp(capped, service, post(None, INITIALIZE)).await;
        let id = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let response = crate::http::mcp(capped, service, post(Some(&id), INITIALIZED)).await;
        assert_eq!(response.status(), 202);
        SessionId::from(id)
    }

    const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    /// A ping through rmcp, answered.
    async fn ping(capped: &Capped, service: &StreamableHttpService<Plain, Capped>, id: &str) {
        let response = crate::http::mcp(capped, service, post(Some(id), PING)).await;
        assert_eq!(response.status(), 200);
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let body = std::str::from_utf8(&body).unwrap();
        assert!(body.contains(r#""result":{}"#), "{body}");
    }

    /// Through rmcp's endpoint: a request for a parked session restores it (rmcp is told
    /// the session is there, and the table restores it), and a request whose client goes
    /// away unanswered leaves no pin: the session, idle again, is parked as any other.
    #[tokio::test]
    async fn a_parked_session_restored_by_a_request_is_parked_again_when_idle() {
        let capped = plain(Sessions {
            running: 1,
            ..Sessions::default()
        });
        let service = endpoint(&capped);
        let a = open(&capped, &service).await;
        let b = open(&capped, &service).await;
        assert!(!capped.running(&a), "parked by b");
        // A request for `a`, its response dropped unread (its client gone).
        let response = crate::http::mcp(&capped, &service, post(Some(&a), PING)).await;
        assert_eq!(response.status(), 200);
        drop(response);
        assert!(capped.running(&a), "restored by the request");
        // The restored service reads the replayed `initialize`, then waits idle.
        while !capped.idle(&a) {
            tokio::task::yield_now().await;
        }
        // Another session opened: `a`, idle, is parked.
        let c = open(&capped, &service).await;
        assert!(!capped.running(&a), "the dropped request left no pin");
        // Each answers its next request.
        for id in [&a, &b, &c] {
            ping(&capped, &service, id).await;
        }
    }
}
