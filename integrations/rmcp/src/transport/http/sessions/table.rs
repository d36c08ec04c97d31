//! The session table: each held session, running or parked, in order of last use.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, InitializeRequestParams};
use rmcp::transport::streamable_http_server::SessionId;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::routes::{Routes, SessionTransport};
use super::{Shared, INBOX};

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
}

#[derive(Debug)]
pub(super) struct Live {
    /// The service's inbox. Dropping the last sender ends the service's `receive`, and
    /// with it the session's service task.
    pub(super) inbox: mpsc::Sender<Box<ClientJsonRpcMessage>>,
    pub(super) routes: Arc<Routes>,
}

impl Live {
    /// Nothing in flight: no message waiting for the service, no request unanswered, no
    /// stream open.
    pub(super) fn idle(&self) -> bool {
        self.inbox.capacity() == self.inbox.max_capacity() && self.routes.idle()
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

    /// Forget the session; its service (if running) ends and its streams close.
    pub(super) fn remove(&mut self, id: &SessionId) -> Option<Held> {
        let held = self.held.remove(id)?;
        self.order.remove(&held.tick);
        self.live.remove(&held.tick);
        if let Some(live) = &held.service {
            live.routes.close();
        }
        Some(held)
    }

    pub(super) fn oldest(&self) -> Option<(&SessionId, &Held)> {
        let (_, id) = self.order.first_key_value()?;
        Some((id, self.held.get(id)?))
    }

    /// Start a service for `id` (a new session, or a parked one restored), replacing one
    /// still running (which ends once what it holds is answered).
    pub(super) fn start(
        &mut self,
        id: &SessionId,
        shared: &Arc<Shared>,
    ) -> Option<SessionTransport> {
        let (inbox, rx) = mpsc::channel(INBOX);
        let routes = Arc::new(Routes::default());
        let held = self.held.get_mut(id)?;
        held.service = Some(Live {
            inbox,
            routes: routes.clone(),
        });
        self.live.insert(held.tick, id.clone());
        Some(SessionTransport {
            inbox: rx,
            routes,
            shared: shared.clone(),
            id: id.clone(),
        })
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
            if held.init.is_some() && held.service.as_ref().is_some_and(Live::idle) {
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
