//! `booking-load`: a small load client for an MCP server's 2026-07-28 HTTP endpoint serving
//! the booking tools (elicit-rmcp-server, the Python reference server).
//!
//! ```text
//! booking-load --url http://127.0.0.1:PORT/mcp [--url ...] [--calls 200] [--concurrency 200]
//! ```
//!
//! Every call is a `book_flight` driven to completion the way `fastmcp.Client` drives it
//! (the `_meta` envelope, the routing headers, `inputResponses` plus the echoed
//! `requestState`). With several `--url`s each call's rounds go to the servers in turn,
//! as behind a round-robin balancer. Each task keeps one HTTP/1.1 keep-alive connection
//! per server, opened before the clock starts; all calls start together. Prints the
//! latency of each round (one POST and its reply) as p50/p99 and exits non-zero unless
//! every call returned the expected booking. Loopback URLs only.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::Barrier;

const DESTINATIONS: [&str; 4] = ["Paris", "London", "Tokyo", "Lima"];

struct Target {
    host: String,
    path: String,
}

fn parse_url(url: &str) -> Result<Target, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: only http:// URLs"))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/mcp"),
    };
    let addr: std::net::SocketAddr = host
        .parse()
        .map_err(|_| format!("{url}: use an IP:PORT host, e.g. 127.0.0.1:8000"))?;
    if !addr.ip().is_loopback() {
        return Err(format!("{url}: refusing a non-loopback address"));
    }
    Ok(Target {
        host: host.to_string(),
        path: path.to_string(),
    })
}

struct Conn {
    stream: BufReader<TcpStream>,
    host: String,
    path: String,
}

impl Conn {
    async fn open(t: &Target) -> std::io::Result<Conn> {
        let s = TcpStream::connect(&t.host).await?;
        s.set_nodelay(true)?;
        Ok(Conn {
            stream: BufReader::new(s),
            host: t.host.clone(),
            path: t.path.clone(),
        })
    }

    /// POST one JSON-RPC request; returns (status, body).
    async fn post(
        &mut self,
        method: &str,
        name: Option<&str>,
        body: &Value,
    ) -> Result<(u16, Value), String> {
        let body = serde_json::to_vec(body).map_err(|e| format!("request body: {e}"))?;
        let mut head = format!(
            "POST {} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
             mcp-method: {method}\r\ncontent-length: {}\r\n",
            self.path,
            self.host,
            body.len()
        );
        if let Some(n) = name {
            head.push_str(&format!("mcp-name: {n}\r\n"));
        }
        head.push_str("\r\n");
        let w = self.stream.get_mut();
        w.write_all(head.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        w.write_all(&body).await.map_err(|e| e.to_string())?;
        let mut status_line = String::new();
        self.stream
            .read_line(&mut status_line)
            .await
            .map_err(|e| e.to_string())?;
        let status: u16 = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("bad status line {status_line:?}"))?;
        let mut len = None;
        loop {
            let mut line = String::new();
            self.stream
                .read_line(&mut line)
                .await
                .map_err(|e| e.to_string())?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse::<usize>().ok();
                }
            }
        }
        let len = len.ok_or("reply without content-length")?;
        let mut buf = vec![0u8; len];
        self.stream
            .read_exact(&mut buf)
            .await
            .map_err(|e| e.to_string())?;
        let v = serde_json::from_slice(&buf).map_err(|e| e.to_string())?;
        Ok((status, v))
    }
}

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "booking-load", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}, "url": {}}},
    })
}

fn answer(message: &str, destination: &str, n: usize) -> Result<Value, String> {
    Ok(match message {
        "Where would you like to fly?" => json!(destination),
        "When would you like to fly?" => json!(format!("2026-08-{:02}", n % 28 + 1)),
        "Window or aisle?" => json!(if n % 2 == 1 { "aisle" } else { "window" }),
        m if m.starts_with("Which airport in ") => json!(destination[..3].to_uppercase()),
        m if m.starts_with("Book a flight to ") => json!(true),
        m => return Err(format!("unexpected question {m:?}")),
    })
}

fn expected(destination: &str, n: usize) -> String {
    let airport = if destination == "London" {
        "LHR".to_string()
    } else {
        destination[..3].to_uppercase()
    };
    let seat = if n % 2 == 1 { "aisle" } else { "window" };
    format!(
        "Booked {destination} ({airport}) on 2026-08-{:02}, seat {seat}",
        n % 28 + 1
    )
}

/// One call, driven to completion: per-round latencies, or the failure.
async fn book(conns: &mut [Conn], n: usize) -> Result<Vec<Duration>, String> {
    let destination = DESTINATIONS
        .get(n % DESTINATIONS.len())
        .copied()
        .ok_or("no destinations")?;
    let mut params = json!({"name": "book_flight", "arguments": {}});
    let mut lat = Vec::new();
    for round in 0..10usize {
        if let Some(p) = params.as_object_mut() {
            p.insert("_meta".into(), envelope());
        }
        let req =
            json!({"jsonrpc": "2.0", "id": round + 1, "method": "tools/call", "params": params});
        let at = (n + round) % conns.len().max(1);
        let conn = conns.get_mut(at).ok_or("no connection to send on")?;
        let t0 = Instant::now();
        let (status, reply) = conn.post("tools/call", Some("book_flight"), &req).await?;
        lat.push(t0.elapsed());
        if status != 200 {
            return Err(format!("HTTP {status}: {reply}"));
        }
        let result = reply
            .get("result")
            .ok_or_else(|| format!("error reply: {reply}"))?;
        let at = |pointer: &str| result.pointer(pointer).cloned().unwrap_or(Value::Null);
        if at("/resultType") == "input_required" {
            let mut responses = serde_json::Map::new();
            for (key, req) in result
                .get("inputRequests")
                .and_then(Value::as_object)
                .ok_or("no inputRequests")?
            {
                let msg = req
                    .pointer("/params/message")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                responses.insert(
                    key.clone(),
                    json!({"action": "accept", "content": {"value": answer(msg, destination, n)?}}),
                );
            }
            params = json!({"name": "book_flight", "arguments": {},
                            "inputResponses": responses, "requestState": at("/requestState")});
            continue;
        }
        let want = expected(destination, n);
        let text = at("/content/0/text");
        let text = text.as_str().unwrap_or_default();
        if at("/isError") != json!(false)
            || text != want
            || at("/structuredContent/result") != json!(want)
        {
            return Err(format!("call {n}: got {text:?}, want {want:?}"));
        }
        return Ok(lat);
    }
    Err(format!("call {n}: more than 10 rounds"))
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let k = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted
        .get(k.min(sorted.len() - 1))
        .map_or(f64::NAN, |d| d.as_secs_f64() * 1000.0)
}

fn usage(problem: &str) -> ! {
    eprintln!("usage: booking-load --url http://127.0.0.1:PORT/mcp [--url ...] [--calls N] [--concurrency N]\n{problem}");
    std::process::exit(2);
}

fn main() {
    let mut urls = Vec::new();
    let mut calls = 200usize;
    let mut concurrency = 200usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = |what: &str| {
            args.next()
                .unwrap_or_else(|| usage(&format!("{what} needs a value")))
        };
        let mut number = |what: &str| {
            val(what)
                .parse()
                .unwrap_or_else(|_| usage(&format!("{what}: a whole number")))
        };
        match a.as_str() {
            "--url" => urls.push(val("--url")),
            "--calls" => calls = number("--calls"),
            "--concurrency" => concurrency = number("--concurrency"),
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    if urls.is_empty() {
        eprintln!("booking-load: give at least one --url");
        std::process::exit(2);
    }
    let targets: Vec<Target> = match urls.iter().map(|u| parse_url(u)).collect() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("booking-load: {e}");
            std::process::exit(2);
        }
    };
    let concurrency = concurrency.clamp(1, calls.max(1));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| {
            eprintln!("booking-load: cannot start the tokio runtime: {e}");
            std::process::exit(1);
        });
    let (ok, failures, mut rounds, wall) = rt.block_on(async move {
        let targets = Arc::new(targets);
        let barrier = Arc::new(Barrier::new(concurrency + 1));
        let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for _ in 0..concurrency {
            let (targets, barrier, next) = (targets.clone(), barrier.clone(), next.clone());
            tasks.push(tokio::spawn(async move {
                let mut conns = Vec::new();
                for t in targets.iter() {
                    conns.push(
                        Conn::open(t)
                            .await
                            .map_err(|e| format!("connect {}: {e}", t.host)),
                    );
                }
                barrier.wait().await;
                let mut conns: Vec<Conn> = match conns.into_iter().collect() {
                    Ok(c) => c,
                    Err(e) => return vec![Err(e)],
                };
                let mut out = Vec::new();
                loop {
                    let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if n >= calls {
                        break;
                    }
                    out.push(book(&mut conns, n).await);
                }
                out
            }));
        }
        barrier.wait().await;
        let t0 = Instant::now();
        let mut ok = 0usize;
        let mut failures = Vec::new();
        let mut rounds: Vec<Vec<Duration>> = Vec::new();
        for t in tasks {
            let done = t
                .await
                .unwrap_or_else(|e| vec![Err(format!("a load task ended: {e}"))]);
            for r in done {
                match r {
                    Ok(lat) => {
                        ok += 1;
                        for (i, d) in lat.into_iter().enumerate() {
                            if rounds.len() <= i {
                                rounds.push(Vec::new());
                            }
                            if let Some(round) = rounds.get_mut(i) {
                                round.push(d);
                            }
                        }
                    }
                    Err(e) => failures.push(e),
                }
            }
        }
        (ok, failures, rounds, t0.elapsed())
    });
    println!(
        "booking-load: {ok}/{calls} book_flight calls correct, {concurrency} concurrent, {} server(s), {:.3}s wall, {:.0} calls/s",
        urls.len(),
        wall.as_secs_f64(),
        ok as f64 / wall.as_secs_f64()
    );
    let mut all = Vec::new();
    for (i, r) in rounds.iter_mut().enumerate() {
        r.sort();
        all.extend_from_slice(r);
        println!(
            "  round {}: n={:4}  p50={:8.3} ms  p99={:8.3} ms  max={:8.3} ms",
            i + 1,
            r.len(),
            pct(r, 50.0),
            pct(r, 99.0),
            pct(r, 100.0)
        );
    }
    all.sort();
    println!(
        "  all rounds: n={}  p50={:.3} ms  p99={:.3} ms",
        all.len(),
        pct(&all, 50.0),
        pct(&all, 99.0)
    );
    for f in failures.iter().take(10) {
        println!("  FAILED {f}");
    }
    if ok != calls || !failures.is_empty() {
        std::process::exit(1);
    }
}
