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
//!   less recent idle one is *parked*, keeping only its `initialize` parameters, and its
//!   next request restores it through rmcp's session restore (a new handler, the
//!   handshake replayed);
//! * one janitor task ends idle sessions, oldest first (one order of last use serves
//!   the cap and the expiry).
//!
//! Parking races the requests on their way, so a session is not parked while: a request
//! naming it is in rmcp's hands ([`Pinned`], from before rmcp looks the session up until
//! rmcp has passed the request to it, refused it, or the request is dropped); a message
//! taken for it is not yet in its inbox (a sender out); a request is unanswered or a
//! stream open. A restored service takes requests only once rmcp's replay of the
//! handshake is in its inbox (`Live::ready`); a restore that finds the session serving
//! again replays to a service of its own (`Held::replay`). A session that ends (`DELETE`,
//! cap, expiry) answers its open requests with an error. `http_sessions`'s stress tests
//! (`--running-sessions 1`) drive these.
//!
//! Known race left, in rmcp 3.11: a finished restore's entry in rmcp's table of restores
//! under way is removed by a task of its own, and until that task runs, a request that
//! finds the session parked (`has_session` false) takes the old restore's "restored" for
//! its own and goes to the parked session without restoring it: it is answered `500`
//! (`SessionError::NotFound`). It needs the session restored, its request answered, the
//! session parked and the next request to come within that gap: a loaded machine makes
//! it now and then (`parked_sessions_answer_every_request_under_concurrent_use`).
//!
//! Routing, as rmcp's manager: a response goes to the stream of the request it answers;
//! a server request or progress notification made for a client request to that
//! request's stream; everything else to the standalone `GET` stream, if open. No event
//! cache: this configuration sends no event ids, so `Last-Event-ID` gets what comes next.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures_core::Stream;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, GetExtensions as _, GetMeta as _,
    InitializeRequestParams, ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionRestoreMarker, SessionState, SessionStore, SessionStoreError,
};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

mod routes;
mod table;

pub(crate) use routes::SessionTransport;
use routes::{Messages, Route, Routes, STREAM};
use table::{Held, Live, Table};

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
/// the configuration's `SessionStore`, so that rmcp restores parked sessions.
#[derive(Debug, Clone)]
pub(crate) struct Capped {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    keep_alive: Duration,
    max: usize,
    live: usize,
    table: Mutex<Table>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Capped {
    pub(crate) fn new(sessions: Sessions) -> Self {
        Capped {
            shared: Arc::new(Shared {
                keep_alive: sessions.keep_alive,
                max: sessions.max.max(1),
                live: sessions.running.max(1),
                table: Mutex::new(Table::default()),
            }),
        }
    }

    /// The `SessionStore` rmcp restores parked sessions from (this manager's table).
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

    /// The session's inbox and routes, marking it used. The sender keeps the session
    /// from being parked until it is dropped (once the message is in the inbox, or the
    /// stream registered). The messages of a handshake replay go to the replay's
    /// service when it has one of its own (`Held::replay`), which is let go with the
    /// replay's last message.
    fn session(
        &self,
        id: &SessionId,
        taking: Taking,
    ) -> Result<(mpsc::Sender<Box<ClientJsonRpcMessage>>, Arc<Routes>), SessionError> {
        let mut table = lock(&self.shared.table);
        table.touch(id);
        let held = table
            .held
            .get_mut(id)
            .ok_or_else(|| SessionError::NotFound(id.clone()))?;
        let live = match &held.replay {
            Some(replay) if taking != Taking::Request => replay,
            _ => held
                .service
                .as_ref()
                .ok_or_else(|| SessionError::NotFound(id.clone()))?,
        };
        let taken = (live.inbox.clone(), live.routes.clone());
        if taking == Taking::ReplayEnd {
            held.replay = None;
        }
        Ok(taken)
    }

    /// The replay's last message is in the inbox of the service with `routes`: requests
    /// may follow it.
    fn replayed(&self, id: &SessionId, routes: &Arc<Routes>) {
        let mut table = lock(&self.shared.table);
        let live = table
            .held
            .get_mut(id)
            .and_then(|held| held.service.as_mut());
        if let Some(live) = live.filter(|live| Arc::ptr_eq(&live.routes, routes)) {
            live.ready = true;
        }
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
}

/// A request naming a session, in rmcp's hands: the session is not parked until this is
/// dropped (`Held::pins`), which `McpHttp`'s endpoint does when rmcp's handling of the
/// request ends: it has reached the session (its message is in the inbox or its stream
/// registered, which keep the session running from then on), or rmcp refused it, or the
/// request was dropped (its client went away). Between rmcp's look-up (`has_session`)
/// and the session, rmcp may restore a parked session for the request, or validate it
/// and refuse it; each ends with the handling, so no pin outlives its request. (It is
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

/// What a message takes its session for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Taking {
    /// A client's request, notification or answer, or a `GET` stream.
    Request,
    /// rmcp replaying a parked session's handshake (`SessionRestoreMarker`): the
    /// `initialize`, then its last message, `initialized`.
    Replay,
    ReplayEnd,
}

impl Taking {
    fn of(message: &ClientJsonRpcMessage) -> Taking {
        let marked = match message {
            ClientJsonRpcMessage::Request(r) => {
                r.request.extensions().get::<SessionRestoreMarker>()
            }
            ClientJsonRpcMessage::Notification(n) => {
                n.notification.extensions().get::<SessionRestoreMarker>()
            }
            _ => None,
        };
        match (marked, message) {
            (None, _) => Taking::Request,
            (Some(_), ClientJsonRpcMessage::Notification(_)) => Taking::ReplayEnd,
            (Some(_), _) => Taking::Replay,
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
                    replay: None,
                },
            );
            table.order.insert(tick, id.clone());
            let transport = table.start(&id, &self.shared, false);
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
        let (inbox, routes) = self.session(id, Taking::of(&message))?;
        let (tx, rx) = oneshot::channel();
        if let ClientJsonRpcMessage::Request(request) = &message {
            if !routes.add(request.id.clone(), Route::Initialize(tx), None) {
                return Err(SessionError::Ended(id.clone()));
            }
        }
        Self::push(id, inbox, message).await?;
        rx.await.map_err(|_| SessionError::Ended(id.clone()))
    }

    /// Whether the session runs a service; a parked one is `false`, and rmcp then
    /// restores it from [`Capped::session_store`]. The request is pinned ([`Pinned`])
    /// already, so the answer holds until it reaches the session.
    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        let table = lock(&self.shared.table);
        Ok(table
            .held
            .get(id)
            .is_some_and(|held| held.service.as_ref().is_some_and(Live::serving)))
    }

    /// rmcp calls this when a session's service has ended, and for a `DELETE` (then
    /// [`SessionStore::delete`] forgets it). A session whose service is gone is parked,
    /// or forgotten if it never finished its handshake.
    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
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
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let (inbox, routes) = self.session(id, Taking::of(&message))?;
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
        let taking = Taking::of(&message);
        let (inbox, routes) = self.session(id, taking)?;
        if let ClientJsonRpcMessage::Notification(n) = &message {
            if let ClientNotification::CancelledNotification(c) = &n.notification {
                if let Some(request) = &c.params.request_id {
                    routes.cancel(request);
                }
            }
        }
        Self::push(id, inbox, message).await?;
        if taking == Taking::ReplayEnd {
            self.replayed(id, &routes);
        }
        Ok(())
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // The sender is held until the stream is registered (`session`).
        let (_inbox, routes) = self.session(id, Taking::Request)?;
        Ok(Messages(routes.open_standalone()))
    }

    async fn resume(
        &self,
        id: &SessionId,
        _last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // No event cache (the module's doc): what comes next.
        let (_inbox, routes) = self.session(id, Taking::Request)?;
        Ok(Messages(routes.open_standalone()))
    }

    /// A parked session gets a new service (rmcp then replays the handshake to it). A
    /// session running again by now (another restore finished between this request's
    /// `has_session` and here) keeps its service: the replay gets one of its own
    /// (`Table::start`).
    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        let (transport, parked) = {
            let mut table = lock(&self.shared.table);
            table.touch(&id);
            let transport = table.start(&id, &self.shared, true);
            (transport, table.park(self.shared.live))
        };
        drop(parked);
        // Ended since rmcp loaded it: rmcp then answers `404`, as for a session not held.
        Ok(transport.map_or(RestoreOutcome::NotSupported, RestoreOutcome::Restored))
    }
}

/// The parked sessions' handshakes, for rmcp's restore.
#[async_trait::async_trait]
impl SessionStore for Capped {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let init = lock(&self.shared.table)
            .held
            .get(id)
            .and_then(|held| held.init.clone());
        Ok(init.map(|init| SessionState::new(InitializeRequestParams::clone(&init))))
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
    use std::future::Future as _;

    use rmcp::model::{ClientRequest, InitializeRequest, RequestId};
    use rmcp::transport::streamable_http_server::StreamableHttpService;
    use rmcp::transport::Transport as _;

    fn handshake() -> SessionState {
        SessionState::new(
            InitializeRequestParams::default()
                .with_protocol_version(rmcp::model::ProtocolVersion::V_2025_06_18),
        )
    }

    #[tokio::test]
    async fn past_the_cap_the_session_used_least_recently_ends() {
        let capped = Capped::new(Sessions {
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
        let capped = Capped::new(Sessions {
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
        // Its service's end (rmcp's close_session) keeps it held, parked.
        capped.close_session(&ids[0]).await.unwrap();
        assert!(capped.holds(&ids[0]));
        let state = capped
            .load(&ids[0])
            .await
            .unwrap()
            .expect("a parked session loads");
        assert_eq!(
            state.initialize_params.protocol_version,
            rmcp::model::ProtocolVersion::V_2025_06_18
        );
        // Restored: running again, and the session used least recently since is parked.
        let RestoreOutcome::Restored(mut restored) =
            capped.restore_session(ids[0].clone()).await.unwrap()
        else {
            panic!("a parked session is restored");
        };
        assert!(capped.running(&ids[0]));
        assert!(!capped.running(&ids[1]));
        assert_eq!(capped.counts(), (3, 2));
        // Messages reach the new service; a session with a request in flight is not parked.
        let init = ClientJsonRpcMessage::request(
            ClientRequest::InitializeRequest(InitializeRequest::default()),
            RequestId::Number(0),
        );
        let _stream = capped.create_stream(&ids[0], init).await.unwrap();
        assert!(restored.receive().await.is_some());
        for _ in 0..2 {
            let (id, _t) = capped.create_session().await.unwrap();
            capped.store(&id, &handshake()).await.unwrap();
        }
        assert!(capped.running(&ids[0]));
        // A DELETE forgets it.
        capped.delete(&ids[0]).await.unwrap();
        assert!(!capped.holds(&ids[0]));
        assert!(capped.load(&ids[0]).await.unwrap().is_none());
        // Ended between rmcp's load and its restore: rmcp answers 404.
        assert!(matches!(
            capped.restore_session(ids[0].clone()).await.unwrap(),
            RestoreOutcome::NotSupported
        ));
    }

    fn initialized() -> ClientJsonRpcMessage {
        ClientJsonRpcMessage::notification(ClientNotification::InitializedNotification(
            Default::default(),
        ))
    }

    /// What rmcp's replay of the handshake ends with (its `initialized`, which carries a
    /// `SessionRestoreMarker` only rmcp can make).
    async fn replay_end(capped: &Capped, id: &SessionId) {
        let (inbox, routes) = capped.session(id, Taking::ReplayEnd).unwrap();
        Capped::push(id, inbox, initialized()).await.unwrap();
        capped.replayed(id, &routes);
    }

    /// A request in rmcp's hands (`Pinned`) keeps its session running until rmcp is done
    /// with it, and a sender taken for a message until the message is in the inbox:
    /// parking it then would leave the request to a service that has ended.
    #[tokio::test]
    async fn a_request_on_its_way_keeps_its_session_running() {
        let capped = Capped::new(Sessions {
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
        let (inbox, _) = capped.session(&a, Taking::Request).unwrap();
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

    /// A request that rmcp looks its session up for and then never passes to it (here its
    /// client goes away while rmcp restores the parked session for it) leaves the session
    /// as any other: parked when idle past the running ones (as a new session parks it).
    #[tokio::test]
    async fn a_request_dropped_on_its_way_leaves_its_session_parkable() {
        let capped = Capped::new(Sessions {
            running: 1,
            ..Sessions::default()
        });
        let service = endpoint(&capped);
        let a = open(&capped, &service).await;
        let b = open(&capped, &service).await;
        assert!(!capped.running(&a), "parked by b");
        // A request for `a`: rmcp looks it up, restores it, and its client is gone
        // while the handshake is replayed.
        let mut request = Box::pin(crate::http::mcp(&capped, &service, post(Some(&a), PING)));
        let pending = std::future::poll_fn(|cx| {
            std::task::Poll::Ready(request.as_mut().poll(cx).is_pending())
        })
        .await;
        assert!(pending, "the request waits for the replay");
        drop(request);
        assert!(capped.running(&a));
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

    /// A restore that finds its session serving again (another restore finished between
    /// this request's `has_session` and here) leaves the service as it is: the replayed
    /// handshake goes to a service of its own, let go after the replay's last message. A
    /// restored service takes requests only once the replay is in its inbox.
    #[tokio::test]
    async fn a_replay_to_a_serving_session_gets_a_service_of_its_own() {
        let capped = Capped::new(Sessions::default());
        let (a, mut ta) = capped.create_session().await.unwrap();
        capped.store(&a, &handshake()).await.unwrap();
        let RestoreOutcome::Restored(mut replay) = capped.restore_session(a.clone()).await.unwrap()
        else {
            panic!("rmcp replays the handshake to the transport returned");
        };
        capped.accept_message(&a, initialized()).await.unwrap();
        assert!(
            ta.receive().await.is_some(),
            "a request goes to the service"
        );
        replay_end(&capped, &a).await;
        assert!(replay.receive().await.is_some(), "the replay to its own");
        assert!(replay.receive().await.is_none(), "then it is let go");
        assert!(capped.has_session(&a).await.unwrap());
        // A parked session restored: not serving until its replay is in.
        let parked = Capped::new(Sessions {
            running: 1,
            ..Sessions::default()
        });
        let (b, _tb) = parked.create_session().await.unwrap();
        parked.store(&b, &handshake()).await.unwrap();
        let (c, _tc) = parked.create_session().await.unwrap();
        parked.store(&c, &handshake()).await.unwrap();
        assert!(!parked.has_session(&b).await.unwrap());
        let RestoreOutcome::Restored(mut restored) =
            parked.restore_session(b.clone()).await.unwrap()
        else {
            panic!("a parked session is restored");
        };
        assert!(!parked.has_session(&b).await.unwrap());
        replay_end(&parked, &b).await;
        assert!(restored.receive().await.is_some());
        assert!(parked.has_session(&b).await.unwrap());
    }
}
