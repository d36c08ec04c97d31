//! `elicit-rmcp-server`: the booking tools (`book_flight`, `greet`, `order`) on rmcp, the
//! official Rust MCP SDK, with every user-supplied parameter declared once through
//! elicit-rmcp. Both protocol eras, over stdio and streamable HTTP; texts and sealed
//! state as FastMCP's declared elicitation gives them, so processes sharing a key ring
//! (this server, the firmware agent, the Python reference server) serve each other's
//! rounds.
//!
//! ```text
//! cargo run -q --release -p elicit-rmcp-server -- --stdio
//! cargo run -q --release -p elicit-rmcp-server -- --http 127.0.0.1:8000   # endpoint /mcp
//! ```
//!
//! Keys: `ELICIT_STATE_KEYS` or `--state-keys-file PATH` — comma-separated hex secrets
//! (32 to 128 bytes each, 1 to 8); the first seals, all open. Without either, stdio uses
//! one ephemeral key (one process serves its client alone), and HTTP refuses to start
//! unless `--alone` says this is the only instance (several instances behind a balancer
//! must share a ring, or every round that lands elsewhere fails).

mod booking;
mod conformance;
mod http;
mod ops;

use std::net::SocketAddr;
use std::sync::Arc;

use elicit_rmcp::{StateCodec, StateKeys};

const USAGE: &str = "usage: elicit-rmcp-server (--stdio | --http 127.0.0.1:PORT) \
[--state-keys-file PATH] [--alone] [--state-ttl SECS] [--insecure-plaintext-state] \
[--workers N] [--conformance] [--fallback arguments] [--drain-grace SECS] [--drain-timeout SECS] \
[--session-keep-alive SECS] [--max-sessions N] [--running-sessions N]

  --stdio                      serve MCP over stdin/stdout
  --http ADDR                  serve streamable HTTP at http://ADDR/mcp (loopback only;
                               port 0 picks a free port, printed on stderr)
  --state-keys-file PATH       read the key ring from PATH (instead of ELICIT_STATE_KEYS)
  --alone                      HTTP without a key ring: this is the only instance, seal
                               with an ephemeral key (tokens die with the process)
  --state-ttl SECS             lifetime of a sealed requestState (default 600)
  --insecure-plaintext-state   DEVELOPMENT ONLY: do not seal requestState
  --workers N                  HTTP worker threads (default: available cores)
  --session-keep-alive SECS    HTTP: a handshake-era session unused this long ends
                               (default 300)
  --max-sessions N             HTTP: the most sessions held at once (default 1000); a new
                               one past it ends the session used least recently
  --running-sessions N         HTTP: how many held sessions, the ones used most recently,
                               keep a running service (default 128); an idle one past them
                               keeps only its handshake until its next request
  --conformance                also serve the fixtures the official MCP conformance suite
                               names (test_* tools, a prompt, a static resource listed
                               first); scripts/test-mcp-conformance.sh runs the suite against them
  --fallback arguments         the booking tools declare the fallback (docs/fallback.md): a
                               client that cannot be asked answers through the model, as
                               the tools' optional arguments

environment:
  ELICIT_STATE_KEYS            comma-separated hex keys (32 to 128 bytes each), the first
                               seals, all open; unset: stdio uses an ephemeral key, HTTP
                               needs it, --state-keys-file or --alone";

enum Transport {
    Stdio,
    Http(SocketAddr),
}

struct Options {
    transport: Transport,
    ttl: Option<f64>,
    keys_file: Option<String>,
    alone: bool,
    plaintext: bool,
    workers: Option<usize>,
    conformance: bool,
    fallback: bool,
    drain: ops::Drain,
    sessions: elicit_rmcp::http::Sessions,
}

fn seconds(flag: &str, v: Option<String>) -> Result<std::time::Duration, String> {
    let v = v.ok_or_else(|| format!("{flag} needs seconds"))?;
    v.parse::<f64>()
        .ok()
        .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| format!("{flag}: {v:?} is not a number of seconds >= 0"))
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut transport = None;
    let mut ttl = None;
    let mut keys_file = None;
    let mut alone = false;
    let mut plaintext = false;
    let mut workers = None;
    let mut conformance = false;
    let mut fallback = false;
    let mut drain = ops::Drain::default();
    let mut sessions = elicit_rmcp::http::Sessions::default();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--stdio" => transport = Some(Transport::Stdio),
            "--http" => {
                let v = args
                    .next()
                    .ok_or("--http needs an address, e.g. 127.0.0.1:8000")?;
                let addr: SocketAddr = v
                    .parse()
                    .map_err(|_| format!("--http: {v:?} is not an IP:PORT address"))?;
                if !addr.ip().is_loopback() {
                    return Err(format!(
                        "--http: {addr} is not a loopback address; this example serves \
                         127.0.0.1/::1 only"
                    ));
                }
                transport = Some(Transport::Http(addr));
            }
            "--state-ttl" => {
                let v = args.next().ok_or("--state-ttl needs seconds")?;
                let secs: f64 = v
                    .parse()
                    .map_err(|_| format!("--state-ttl: {v:?} is not a number"))?;
                if !(secs.is_finite() && secs > 0.0) {
                    return Err("--state-ttl must be positive".into());
                }
                ttl = Some(secs);
            }
            "--state-keys-file" => {
                keys_file = Some(
                    args.next()
                        .ok_or("--state-keys-file needs a path to a key ring file")?,
                );
            }
            "--alone" => alone = true,
            "--insecure-plaintext-state" => plaintext = true,
            "--conformance" => conformance = true,
            "--fallback" => match args.next().as_deref() {
                Some("arguments") => fallback = true,
                other => {
                    return Err(format!(
                        "--fallback: {other:?} is not a fallback; the one there is: --fallback arguments"
                    ))
                }
            },
            "--drain-grace" => drain.grace = seconds("--drain-grace", args.next())?,
            "--drain-timeout" => drain.timeout = seconds("--drain-timeout", args.next())?,
            "--session-keep-alive" => {
                sessions.keep_alive = seconds("--session-keep-alive", args.next())?;
                if sessions.keep_alive.is_zero() {
                    return Err("--session-keep-alive must be more than 0 seconds".into());
                }
            }
            "--max-sessions" => {
                let v = args.next().ok_or("--max-sessions needs a number")?;
                sessions.max =
                    v.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                        format!("--max-sessions: {v:?} is not a whole number >= 1")
                    })?;
            }
            "--running-sessions" => {
                let v = args.next().ok_or("--running-sessions needs a number")?;
                sessions.running =
                    v.parse().ok().filter(|n| *n >= 1).ok_or_else(|| {
                        format!("--running-sessions: {v:?} is not a whole number >= 1")
                    })?;
            }
            "--workers" => {
                let v = args.next().ok_or("--workers needs a number")?;
                workers = Some(
                    v.parse()
                        .map_err(|_| format!("--workers: {v:?} is not a number"))?,
                );
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Options {
        transport: transport.ok_or("choose a transport: --stdio or --http ADDR")?,
        ttl,
        keys_file,
        alone,
        plaintext,
        workers,
        conformance,
        fallback,
        drain,
        sessions,
    })
}

fn codec(opts: &Options) -> Result<StateCodec, String> {
    if opts.plaintext {
        eprintln!(
            "elicit-rmcp-server: WARNING: --insecure-plaintext-state: requestState is NOT \
             sealed; clients can forge answers. Development only."
        );
        return Ok(StateCodec::insecure_plaintext());
    }
    let from_var = StateKeys::from_var(elicit_rmcp::keys::ENV_VAR);
    let keys = match (&opts.keys_file, from_var) {
        (Some(_), Ok(_)) => {
            return Err(format!(
                "both {} and --state-keys-file give a key ring; give one",
                elicit_rmcp::keys::ENV_VAR
            ))
        }
        (Some(path), Err(e)) if e.is_missing() => StateKeys::from_file(path),
        (_, Err(e)) if !e.is_missing() => Err(e),
        (None, Ok(keys)) => Ok(keys),
        (_, Err(_)) => match opts.transport {
            Transport::Http(_) if !opts.alone => {
                return Err(format!(
                    "--http needs the key ring every instance shares: set {} (comma-separated \
                     hex keys, the first seals) or pass --state-keys-file PATH; pass --alone \
                     if this is the only instance (an ephemeral key: tokens die with the process)",
                    elicit_rmcp::keys::ENV_VAR
                ))
            }
            _ => StateKeys::ephemeral(),
        },
    }
    .map_err(|e| e.to_string())?;
    eprintln!(
        "elicit-rmcp-server: sealing requestState with {}",
        keys.describe()
    );
    let codec = StateCodec::sealed(keys).map_err(|e| e.to_string())?;
    match opts.ttl {
        Some(ttl) => codec.with_ttl(ttl),
        None => Ok(codec),
    }
}

fn main() {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("elicit-rmcp-server: {e}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    let codec = match codec(&opts) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("elicit-rmcp-server: {e}");
            std::process::exit(2);
        }
    };
    let server = match booking::Booking::new(codec, opts.conformance, opts.fallback) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("elicit-rmcp-server: {e}");
            std::process::exit(2);
        }
    };
    let runtime = |b: &mut tokio::runtime::Builder| {
        b.enable_all().build().unwrap_or_else(|e| {
            eprintln!("elicit-rmcp-server: cannot start the tokio runtime: {e}");
            std::process::exit(1);
        })
    };
    match opts.transport {
        Transport::Stdio => {
            let rt = runtime(&mut tokio::runtime::Builder::new_current_thread());
            // Warnings and developer errors (elicit-rmcp's `tracing` events) to stderr;
            // stdout is the protocol's.
            let _ = tracing::subscriber::set_global_default(ops::log_subscriber());
            rt.block_on(async move {
                if let Err(e) =
                    elicit_rmcp::stdio::serve(server, elicit_rmcp::stdio::MAX_LINE).await
                {
                    eprintln!("elicit-rmcp-server: stdio: {e}");
                }
            });
        }
        Transport::Http(addr) => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            if let Some(n) = opts.workers {
                b.worker_threads(n.max(1));
            }
            let rt = runtime(&mut b);
            // The rounds' spans feed /metrics; warnings go to stderr (src/ops.rs).
            let ops = ops::Ops::new();
            let _ = tracing::subscriber::set_global_default(ops.subscriber());
            if let Err(e) = rt.block_on(http::run(
                Arc::new(server),
                addr,
                ops,
                opts.drain,
                opts.sessions,
            )) {
                eprintln!("elicit-rmcp-server: {addr}: {e}");
                std::process::exit(1);
            }
        }
    }
}
