//! The session table: each held session, running or parked, in order of last use, and the
//! janitor that ends the idle ones.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Weak};

use axum::http::request::Parts;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetExtensions as _, InitializeRequest,
    InitializeRequestParams, RequestId,
};
use rmcp::transport::streamable_http_server::SessionId;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::routes::{Route, Routes, SessionTransport};
use super::{lock, Restored, Shared, INBOX};

/// The held sessions, and their order of last use.
#[derive(Debug, Default)]
pub(super) struct Table {
    pub(super) tick: u64,
    pub(super) held: HashMap<SessionId, Held>,
    /// Tick of last use → session: the first entry is the session used least recently.
    pub(super) order: BTreeMap<u64, SessionId>,
    /// The same for the sessions with a running service.
    pub(super) live: BTreeMap<u64, SessionId>,
    /// Whether the janitor task runs.
    pub(super) janitor: bool,
}

#[derive(Debug)]
pub(super) struct Held {
    pub(super) tick: u64,
    pub(super) used: Instant,
    /// The handshake's parameters, once it is done: what a restore replays.
    pub(super) init: Option<Arc<InitializeRequestParams>>,
    /// The running service; `None` while parked.
    pub(super) service: Option<Live>,
    /// Requests naming the session that rmcp is handling ([`super::Pinned`], one each,
    /// taken before rmcp looks the session up, let go when rmcp's handling of the
    /// request ends or the request is dropped): while any is on its way the session is
    /// not parked (its message would find the service it was passed to ended).
    pub(super) pins: usize,
}

#[derive(Debug)]
pub(super) struct Live {
    /// The service's inbox. Dropping the last sender ends the service's `receive`, and
    /// with it the session's service task.
    pub(super) inbox: mpsc::Sender<Box<ClientJsonRpcMessage>>,
    pub(super) routes: Arc<Routes>,
}

impl Live {
    /// Nothing in flight: no message on its way to the service (a request holds a sender
    /// from the moment it takes the session until its message is in the inbox), none
    /// waiting in the inbox, no request unanswered, no stream open.
    pub(super) fn idle(&self) -> bool {
        self.inbox.strong_count() == 1
            && self.inbox.capacity() == self.inbox.max_capacity()
            && self.routes.idle()
    }

    /// Whether the service still reads its inbox.
    pub(super) fn serving(&self) -> bool {
        !self.inbox.is_closed()
    }

    fn new(shared: &Arc<Shared>, id: &SessionId) -> (Live, SessionTransport) {
        let (inbox, rx) = mpsc::channel(INBOX);
        let routes = Arc::new(Routes::default());
        let transport = SessionTransport {
            inbox: rx,
            routes: routes.clone(),
            shared: shared.clone(),
            id: id.clone(),
        };
        (Live { inbox, routes }, transport)
    }
}

impl Table {
    pub(super) fn touch(&mut self, id: &SessionId) {
        self.tick += 1;
        let tick = self.tick;
        if let Some(held) = self.held.get_mut(id) {
            self.order.remove(&held.tick);
            self.order.insert(tick, id.clone());
            if held.service.is_some() {
                self.live.remove(&held.tick);
                self.live.insert(tick, id.clone());
            }
            held.tick = tick;
            held.used = Instant::now();
        }
    }

    /// Forget the session; its service (if running) ends, each request still open on it
    /// is answered with an error, and its streams close.
    pub(super) fn remove(&mut self, id: &SessionId) -> Option<Held> {
        let held = self.held.remove(id)?;
        self.order.remove(&held.tick);
        self.live.remove(&held.tick);
        if let Some(live) = &held.service {
            live.routes.close(id);
        }
        Some(held)
    }

    pub(super) fn oldest(&self) -> Option<(&SessionId, &Held)> {
        let (_, id) = self.order.first_key_value()?;
        Some((id, self.held.get(id)?))
    }

    /// The transport of a new session's service (rmcp runs it).
    pub(super) fn start(
        &mut self,
        id: &SessionId,
        shared: &Arc<Shared>,
    ) -> Option<SessionTransport> {
        let held = self.held.get_mut(id)?;
        let (live, transport) = Live::new(shared, id);
        held.service = Some(live);
        self.live.insert(held.tick, id.clone());
        Some(transport)
    }

    /// A parked session's new service (or one in place of a service that has ended, whose
    /// open requests are answered with an error): its inbox starts with the handshake
    /// replayed, `initialize` (its answer routed nowhere) and `initialized`, each with
    /// [`Restored`] and the HTTP request's `parts` in its extensions. `None`
    /// when the session is not held or never finished its handshake.
    pub(super) fn restore(
        &mut self,
        id: &SessionId,
        shared: &Arc<Shared>,
        parts: Option<&Parts>,
    ) -> Option<SessionTransport> {
        let held = self.held.get_mut(id)?;
        let init = held.init.clone()?;
        let (live, transport) = Live::new(shared, id);
        let replayed = RequestId::String(format!("elicit-restore-{}", held.tick).into());
        let mut messages = [
            ClientJsonRpcMessage::request(
                ClientRequest::InitializeRequest(InitializeRequest::new(
                    InitializeRequestParams::clone(&init),
                )),
                replayed.clone(),
            ),
            ClientJsonRpcMessage::notification(ClientNotification::InitializedNotification(
                Default::default(),
            )),
        ];
        for message in &mut messages {
            message.insert_extension(Restored { id: id.clone() });
            if let Some(parts) = parts {
                message.insert_extension(parts.clone());
            }
        }
        let (answer, _) = oneshot::channel();
        if !live.routes.add(replayed, Route::Initialize(answer), None) {
            return None;
        }
        for message in messages {
            // A new inbox has room for both (INBOX).
            live.inbox.try_send(Box::new(message)).ok()?;
        }
        if let Some(ended) = held.service.replace(live) {
            ended.routes.close(id);
        }
        self.live.insert(held.tick, id.clone());
        Some(transport)
    }

    /// Park the least recently used idle sessions past `keep` running ones.
    pub(super) fn park(&mut self, keep: usize) -> Vec<Live> {
        let mut parked = Vec::new();
        let mut over = self.live.len().saturating_sub(keep);
        let mut ids = Vec::new();
        for id in self.live.values() {
            if over == 0 {
                break;
            }
            let Some(held) = self.held.get(id) else {
                continue;
            };
            if held.init.is_some()
                && held.pins == 0
                && held.service.as_ref().is_some_and(Live::idle)
            {
                ids.push(id.clone());
                over -= 1;
            }
        }
        for id in ids {
            if let Some(held) = self.held.get_mut(&id) {
                self.live.remove(&held.tick);
                parked.extend(held.service.take());
            }
        }
        parked
    }
}

impl Shared {
    /// Ends idle sessions, oldest first, while any is held (the next session starts it
    /// again).
    pub(super) async fn janitor(shared: Weak<Shared>) {
        loop {
            let Some(this) = shared.upgrade() else { return };
            let mut expired = Vec::new();
            let next = {
                let mut table = lock(&this.table);
                loop {
                    let Some((id, held)) = table.oldest() else {
                        table.janitor = false;
                        break None;
                    };
                    let deadline = held.used + this.keep_alive;
                    if deadline > Instant::now() {
                        break Some(deadline);
                    }
                    let id = id.clone();
                    expired.extend(table.remove(&id).map(|_| id));
                }
            };
            drop(this);
            for id in expired {
                tracing::debug!(session = %id, "session idle past keep_alive: ended");
            }
            // A session used since only moves its deadline later: it is looked at again
            // then.
            let Some(deadline) = next else { return };
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// The HTTP request's parts a message carries (rmcp puts them in its extensions).
pub(super) fn parts_of(message: &ClientJsonRpcMessage) -> Option<&Parts> {
    match message {
        ClientJsonRpcMessage::Request(r) => r.request.extensions().get::<Parts>(),
        ClientJsonRpcMessage::Notification(n) => n.notification.extensions().get::<Parts>(),
        _ => None,
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("max", &self.max)
            .field("live", &self.live)
            .finish_non_exhaustive()
    }
}
