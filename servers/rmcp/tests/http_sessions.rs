//! HTTP sessions of elicit-rmcp-server: idle ones expire (`--session-keep-alive`), at
//! most `--max-sessions` are held (a new one past the cap ends the one used least
//! recently), and abandoned sessions' memory is bounded and reused.

// In a `#[cfg(test)]` module: the helpers unwrap, as tests do (clippy.toml).
#[cfg(test)]
mod common;

#[cfg(test)]
mod http {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::time::Duration;

    use crate::common::Http;

    /// The server over HTTP.
    struct Server(Http);

    impl Server {
        fn start(args: &[&str]) -> Server {
            Server(Http::start(args))
        }

        /// POST `body` to /mcp (in `session` when given): the status and the session id.
        fn post(&self, body: &str, session: Option<&str>) -> (u16, Option<String>) {
            let (status, session, _) = self.exchange("POST", body, session);
            (status, session)
        }

        /// `method` /mcp with `body` (in `session` when given): the status, the session id
        /// and the whole reply.
        fn exchange(
            &self,
            method: &str,
            body: &str,
            session: Option<&str>,
        ) -> (u16, Option<String>, String) {
            let headers = session.map_or_else(String::new, |id| {
                format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-11-25\r\n")
            });
            let reply = match method {
                "POST" => self.0.post(body, &headers),
                _ => self.0.request(method, body, &headers),
            };
            let status = reply
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap();
            let session = reply.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| v.trim().to_owned())
            });
            (status, session, reply)
        }

        /// POST a `greet` call in `session`: the connection its reply comes on.
        fn call(&self, session: &str) -> TcpStream {
            let mut tcp = TcpStream::connect(("127.0.0.1", self.0.port)).unwrap();
            // A guard against a hang, not a timing check.
            tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nConnection: close\r\n\
                 Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\n\
                 Content-Length: {}\r\n\r\n{GREET}",
                self.0.port,
                GREET.len()
            );
            tcp.write_all(head.as_bytes()).unwrap();
            tcp
        }

        /// Read the call's reply up to its question (`elicitation/create`): what was read,
        /// and the question's id (`None`: the reply ended first).
        fn question(tcp: &mut TcpStream) -> (String, Option<String>) {
            let mut seen = Vec::new();
            let mut chunk = [0u8; 4096];
            loop {
                let n = tcp.read(&mut chunk).unwrap_or_else(|e| {
                    panic!(
                        "no question in 30 s ({e}): {}",
                        String::from_utf8_lossy(&seen)
                    )
                });
                let text = String::from_utf8_lossy(&seen).into_owned();
                if n == 0 {
                    return (text, None);
                }
                seen.extend_from_slice(&chunk[..n]);
                let text = String::from_utf8_lossy(&seen).into_owned();
                if let Some(at) = text.find(r#""method":"elicitation/create""#) {
                    let asked = text[..at].rsplit(r#""id":"#).next().unwrap();
                    let asked = asked.trim_end_matches(',').to_owned();
                    return (text, Some(asked));
                }
            }
        }

        /// A `greet` call in `session`, its question answered with `name`: the whole reply
        /// to the call, and the status of the answer's POST (`None`: no question came).
        fn ask(&self, session: &str, name: &str) -> (String, Option<u16>) {
            let mut tcp = self.call(session);
            let (seen, asked) = Self::question(&mut tcp);
            let Some(asked) = asked else {
                return (seen, None);
            };
            let answer = format!(
                r#"{{"jsonrpc":"2.0","id":{asked},"result":{{"action":"accept","content":{{"value":"{name}"}}}}}}"#
            );
            let status = self.post(&answer, Some(session)).0;
            let mut rest = String::new();
            tcp.read_to_string(&mut rest)
                .unwrap_or_else(|e| panic!("no result in 30 s after the answer ({e}): {rest}"));
            (seen + &rest, Some(status))
        }

        /// `greet` in `session`, answering its question with `name`: the greeting.
        fn greet(&self, session: &str, name: &str) -> String {
            let (text, answered) = self.ask(session, name);
            assert_eq!(answered, Some(202), "{text}");
            let at = text.find("Hello, ").expect(&text);
            text[at..].split('"').next().unwrap().to_owned()
        }

        fn open_session(&self) -> String {
            let (status, id) = self.post(INITIALIZE, None);
            assert_eq!(status, 200);
            id.expect("initialize gives a session id")
        }

        fn ping(&self, session: &str) -> u16 {
            self.post(PING, Some(session)).0
        }

        /// Open a `GET` stream in `session` and close it once its head is read: the status.
        fn open_stream(&self, session: &str) -> u16 {
            let mut tcp = TcpStream::connect(("127.0.0.1", self.0.port)).unwrap();
            // A guard against a hang, not a timing check.
            tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            let head = format!(
                "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: text/event-stream\r\n\
                 Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n",
                self.0.port
            );
            tcp.write_all(head.as_bytes()).unwrap();
            let mut seen = Vec::new();
            let mut chunk = [0u8; 1024];
            while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = tcp
                    .read(&mut chunk)
                    .unwrap_or_else(|e| panic!("no head for the GET stream in 30 s ({e})"));
                assert!(n > 0, "the GET stream ended before its head");
                seen.extend_from_slice(&chunk[..n]);
            }
            let head = String::from_utf8_lossy(&seen).into_owned();
            head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap()
        }

        fn rss_mib(&self) -> f64 {
            let status =
                std::fs::read_to_string(format!("/proc/{}/status", self.0.child.id())).unwrap();
            let kib: f64 = status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
                .unwrap();
            kib / 1024.0
        }
    }

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"t","version":"1"}}}"#;
    const PING: &str = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    const TOOLS_LIST: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
    const GREET: &str = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"greet","arguments":{}}}"#;

    /// Runs `work(w)` for `w` in `0..n` on threads of their own, counts each in `done`
    /// however it ends (so the threads beside them stop), and re-raises the first
    /// worker's panic once all have ended.
    fn run_workers(n: usize, done: &AtomicUsize, work: impl Fn(usize) + Sync) {
        struct Done<'a>(&'a AtomicUsize);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
        let work = &work;
        let failed = std::thread::scope(|s| {
            let workers: Vec<_> = (0..n)
                .map(|w| {
                    s.spawn(move || {
                        let _done = Done(done);
                        work(w)
                    })
                })
                .collect();
            // Every worker joined, the first panic kept.
            let failed: Vec<_> = workers.into_iter().filter_map(|w| w.join().err()).collect();
            failed.into_iter().next()
        });
        if let Some(panic) = failed {
            std::panic::resume_unwind(panic);
        }
    }

    #[test]
    fn idle_sessions_expire_and_past_the_cap_the_least_recently_used_ends() {
        let server = Server::start(&["--session-keep-alive", "1.5", "--max-sessions", "3"]);
        let a = server.open_session();
        let b = server.open_session();
        let c = server.open_session();
        assert_eq!(server.ping(&a), 200);
        // Past the cap: `b` is the one used least recently.
        let d = server.open_session();
        assert_eq!(server.ping(&b), 404);
        for held in [&a, &c, &d] {
            assert_eq!(server.ping(held), 200);
        }
        std::thread::sleep(Duration::from_millis(2_500));
        for expired in [&a, &c, &d] {
            assert_eq!(server.ping(expired), 404);
        }
    }

    /// Past the 128 sessions used most recently, an idle session keeps only its handshake;
    /// its next request restores it (rmcp's session restore), and the client sees no
    /// difference. A `DELETE` of it ends it.
    #[test]
    fn a_parked_session_answers_its_next_request() {
        let server = Server::start(&[]);
        let parked = server.open_session();
        assert_eq!(server.post(INITIALIZED, Some(&parked)).0, 202);
        for _ in 0..140 {
            server.open_session();
        }
        assert_eq!(server.ping(&parked), 200);
        let (status, _, body) = server.exchange("POST", TOOLS_LIST, Some(&parked));
        assert_eq!(status, 200);
        assert!(body.contains("book_flight"), "{body}");
        // A handshake-era call on it: the question comes on the call's stream, the
        // answer in a POST of its own, the result on the same stream.
        for _ in 0..140 {
            server.open_session();
        }
        assert_eq!(server.greet(&parked, "Ann"), "Hello, Ann");
        assert_eq!(server.exchange("DELETE", "", Some(&parked)).0, 202);
        assert_eq!(server.ping(&parked), 404);
    }

    /// Parked and restored under concurrent use. One running session
    /// (`--running-sessions 1`) and new sessions opened all along, so nearly every request
    /// meets its session parked or parks another: each worker's session gets two requests
    /// at once (`tools/list` and `ping`: one restores it, the other races that restore), a call that
    /// asks its question on the call's stream and gets its answer in a POST of its own,
    /// and in its last round a `GET` stream beside a request. Every request is answered,
    /// as if nothing were parked: a hang fails the read (30 s), a lost session a status.
    #[test]
    fn parked_sessions_answer_every_request_under_concurrent_use() {
        const WORKERS: usize = 4;
        const ROUNDS: usize = 20;
        let server = Server::start(&["--running-sessions", "1"]);
        let server = &server;
        let done = AtomicUsize::new(0);
        let done = &done;
        std::thread::scope(|s| {
            s.spawn(|| {
                while done.load(Ordering::Relaxed) < WORKERS {
                    server.open_session();
                }
            });
            run_workers(WORKERS, done, |w| {
                let session = server.open_session();
                assert_eq!(server.post(INITIALIZED, Some(&session)).0, 202);
                for round in 0..ROUNDS {
                    std::thread::scope(|pair| {
                        pair.spawn(|| {
                            let (status, _, body) =
                                server.exchange("POST", TOOLS_LIST, Some(&session));
                            assert_eq!(status, 200, "{body}");
                            assert!(body.contains("book_flight"), "{body}");
                        });
                        if round + 1 == ROUNDS {
                            assert_eq!(server.open_stream(&session), 200);
                        } else {
                            assert_eq!(server.ping(&session), 200);
                        }
                    });
                    let name = format!("W{w}R{round}");
                    assert_eq!(server.greet(&session, &name), format!("Hello, {name}"));
                }
            });
        });
    }

    /// Sessions ending under concurrent use: the cap (`--max-sessions 8`, new sessions
    /// opened all along), expiry (`--session-keep-alive 0.2`) and a `DELETE` from beside
    /// now and then meet sessions being restored, parked, or in a call. A request may
    /// then get `404`, `500` (rmcp's answer to a restore cut short), or an error on its
    /// stream, but none is left without an answer: a `200` reply carries the request's
    /// own response, and every read ends (the 30 s guard).
    #[test]
    fn sessions_ending_under_concurrent_use_leave_no_request_unanswered() {
        const WORKERS: usize = 4;
        const ROUNDS: usize = 15;
        let server = Server::start(&[
            "--running-sessions",
            "1",
            "--max-sessions",
            "8",
            "--session-keep-alive",
            "0.2",
        ]);
        let server = &server;
        let done = AtomicUsize::new(0);
        let done = &done;
        let opened = Mutex::new(Vec::<String>::new());
        let opened = &opened;
        let fresh = || {
            let session = server.open_session();
            assert!(matches!(
                server.post(INITIALIZED, Some(&session)).0,
                202 | 404 | 500
            ));
            opened.lock().unwrap().push(session.clone());
            session
        };
        let status = |reply: &str| -> u16 { reply.split(' ').nth(1).unwrap().parse().unwrap() };
        std::thread::scope(|s| {
            s.spawn(|| {
                while done.load(Ordering::Relaxed) < WORKERS {
                    server.open_session();
                }
            });
            s.spawn(|| {
                for i in 0.. {
                    if done.load(Ordering::Relaxed) == WORKERS {
                        break;
                    }
                    // Pacing, so that the sessions live long enough to be used.
                    std::thread::sleep(Duration::from_millis(5));
                    let victim = {
                        let opened = opened.lock().unwrap();
                        opened.get(i % opened.len().max(1)).cloned()
                    };
                    if let Some(victim) = victim {
                        server.exchange("DELETE", "", Some(&victim));
                    }
                }
            });
            run_workers(WORKERS, done, |_| {
                let mut session = fresh();
                for _ in 0..ROUNDS {
                    std::thread::scope(|pair| {
                        pair.spawn(|| {
                            let (code, _, body) =
                                server.exchange("POST", TOOLS_LIST, Some(&session));
                            match code {
                                200 => assert!(body.contains(r#""id":3,"#), "{body}"),
                                _ => assert!(matches!(code, 404 | 500), "{body}"),
                            }
                        });
                        let (reply, _) = server.ask(&session, "Ann");
                        match status(&reply) {
                            200 => assert!(
                                reply.contains(r#""id":4,"result""#)
                                    || reply.contains(r#""id":4,"error""#),
                                "the call's stream ended without its answer: {reply}"
                            ),
                            code => assert!(matches!(code, 404 | 500), "{reply}"),
                        }
                    });
                    if server.ping(&session) == 404 {
                        session = fresh();
                    }
                }
            });
        });
    }

    /// A session that ends while a call on it waits for its answer (here a `DELETE`)
    /// answers the call with an error on its stream: the client is not left waiting for
    /// a response that never comes.
    #[test]
    fn a_call_in_flight_when_its_session_ends_is_answered() {
        let server = Server::start(&[]);
        let session = server.open_session();
        assert_eq!(server.post(INITIALIZED, Some(&session)).0, 202);
        let mut tcp = server.call(&session);
        let (seen, asked) = Server::question(&mut tcp);
        assert!(asked.is_some(), "{seen}");
        assert_eq!(server.exchange("DELETE", "", Some(&session)).0, 202);
        let mut rest = String::new();
        tcp.read_to_string(&mut rest)
            .unwrap_or_else(|e| panic!("the call was not answered in 30 s ({e}): {rest}"));
        assert!(
            rest.contains(r#""id":4"#) && rest.contains(r#""error""#),
            "the call's stream ended without its answer: {rest}"
        );
        assert_eq!(server.ping(&session), 404);
    }

    /// 1,000 sessions opened and abandoned; once they have expired, 1,000 more. The
    /// figures print (`--nocapture`). Issue 40's goals, as RSS deltas: the first 1,000
    /// grow it by at most 32 MiB, the next 1,000 (the first ones' memory reused) by at
    /// most 8 MiB. elicit-rmcp's session table parks all but the 128 sessions used most
    /// recently (a few MiB in all; rmcp's own session manager held ~60 KiB a session,
    /// +60 MiB then +30 MiB), so a leak (sessions that never free) or a heavier session
    /// fails the first bound, and memory not reused the second.
    #[test]
    fn abandoned_sessions_memory_is_bounded_and_reused() {
        // Long enough that none expires while the 1,000 are opened on a loaded machine.
        let server = Server::start(&["--session-keep-alive", "4"]);
        let open = |n: usize| {
            for _ in 0..n {
                server.open_session();
            }
        };
        open(10);
        let start = server.rss_mib();
        let oldest = server.open_session();
        open(999);
        let first = server.rss_mib() - start;
        std::thread::sleep(Duration::from_millis(5_500));
        assert_eq!(server.ping(&oldest), 404, "the first 1,000 have expired");
        let expired = server.rss_mib();
        open(1_000);
        let second = server.rss_mib() - expired;
        eprintln!(
            "RSS: {start:.1} MiB; +{first:.1} MiB for 1,000 abandoned sessions; \
             after expiry {expired:.1} MiB, +{second:.1} MiB for 1,000 more"
        );
        assert!(
            first <= 32.0,
            "1,000 abandoned sessions grew RSS by {first:.1} MiB"
        );
        assert!(
            second <= 8.0,
            "after expiry, 1,000 more sessions grew RSS by {second:.1} MiB (first 1,000: {first:.1})"
        );
    }
}
