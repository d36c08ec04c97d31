//! rmcp's in-memory sessions with a cap: at most `max` live at once; a new session past
//! the cap ends the one used least recently. Idle sessions end after rmcp's `keep_alive`.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};

/// How long an idle handshake-era session lives and how many live at once (2026-07-28
/// exchanges are stateless and hold no session).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sessions {
    /// A session nobody has used for this long ends (rmcp's `keep_alive`). Default 5
    /// minutes.
    pub keep_alive: Duration,
    /// The most sessions held at once, at least 1; a new one past it ends the session
    /// used least recently (its client's next request gets `404`, and a client starts
    /// over with `initialize`, as the transport spec says). Default 1,000.
    pub max: usize,
}

impl Sessions {
    /// rmcp's default idle expiry.
    pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(300);
    /// The default cap.
    pub const DEFAULT_MAX: usize = 1_000;
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            keep_alive: Self::DEFAULT_KEEP_ALIVE,
            max: Self::DEFAULT_MAX,
        }
    }
}

/// [`LocalSessionManager`] under [`Sessions`]' cap.
#[derive(Debug)]
pub(crate) struct Capped {
    inner: LocalSessionManager,
    max: usize,
    /// Each held session and the tick of its last use.
    used: Mutex<Used>,
}

#[derive(Debug, Default)]
struct Used {
    tick: u64,
    at: HashMap<SessionId, u64>,
}

impl Used {
    fn touch(&mut self, id: &SessionId) {
        self.tick += 1;
        if let Some(at) = self.at.get_mut(id) {
            *at = self.tick;
        }
    }
}

impl Capped {
    pub(crate) fn new(sessions: Sessions) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(sessions.keep_alive);
        Capped {
            inner,
            max: sessions.max.max(1),
            used: Mutex::new(Used::default()),
        }
    }

    fn used(&self) -> std::sync::MutexGuard<'_, Used> {
        self.used.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many sessions are held.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.used().at.len()
    }
}

impl SessionManager for Capped {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.inner.create_session().await?;
        let evicted = {
            let mut used = self.used();
            used.tick += 1;
            let tick = used.tick;
            used.at.insert(id.clone(), tick);
            let oldest = (used.at.len() > self.max)
                .then(|| {
                    used.at
                        .iter()
                        .filter(|(held, _)| **held != id)
                        .min_by_key(|(_, at)| **at)
                        .map(|(held, _)| held.clone())
                })
                .flatten();
            if let Some(oldest) = &oldest {
                used.at.remove(oldest);
            }
            oldest
        };
        if let Some(oldest) = evicted {
            tracing::info!(session = %oldest, max = self.max, "session cap reached: ending the session used least recently");
            // Its worker may have ended already; either way it is gone.
            let _ = self.inner.close_session(&oldest).await;
        }
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.used().touch(id);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.used().at.remove(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.used().touch(id);
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.used().touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.used().touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.used().touch(id);
        self.inner.resume(id, last_event_id).await
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        // rmcp asks only when its configuration has a session store.
        let outcome = self.inner.restore_session(id.clone()).await?;
        if let RestoreOutcome::Restored(_) = &outcome {
            let mut used = self.used();
            used.tick += 1;
            let tick = used.tick;
            used.at.insert(id, tick);
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn past_the_cap_the_session_used_least_recently_ends() {
        let capped = Capped::new(Sessions {
            keep_alive: Duration::from_secs(60),
            max: 2,
        });
        let (a, _ta) = capped.create_session().await.unwrap();
        let (b, _tb) = capped.create_session().await.unwrap();
        // `a` is used again, so `b` is the one idle longest.
        capped.used().touch(&a);
        let (c, _tc) = capped.create_session().await.unwrap();
        assert_eq!(capped.held(), 2);
        assert!(capped.has_session(&a).await.unwrap());
        assert!(!capped.has_session(&b).await.unwrap());
        assert!(capped.has_session(&c).await.unwrap());
        capped.close_session(&a).await.unwrap();
        assert_eq!(capped.held(), 1);
        let (_d, _td) = capped.create_session().await.unwrap();
        assert!(capped.has_session(&c).await.unwrap());
        assert_eq!(capped.held(), 2);
    }
}
