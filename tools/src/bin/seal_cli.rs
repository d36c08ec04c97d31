//! A tiny driver for [`elicit_core::seal`], used by `scripts/test-seal-interop.sh` to check
//! tokens against the MCP Python SDK.
//!
//! Reads one JSON request per line on stdin and answers one JSON line per request:
//!
//! ```text
//! {"op":"seal","keys":["<hex>",...],"audience":"svc"|null,"ttl":600,"method":"tools/call",
//!  "params":{...},"principal":"..."|null,"now":1780000000.5,"state":"...",
//!  "nonce":"<24 hex>"?,"salt":"<16 hex>"?}
//!   -> {"token":"v1...."}            (nonce/salt from /dev/urandom when omitted)
//! {"op":"unseal", ...same..., "params":{..., "requestState": ...}}
//!   -> {"ok":true,"state":"..."|null} | {"ok":false,"reason":"<log reason>","code":-32602,"message":"..."}
//! ```
//!
//! Run: `cargo run -p elicit-tools --bin seal_cli < requests.jsonl`.

use std::io::{BufRead, BufWriter, Read, Write};

use elicit_core::json::Value;
use elicit_core::seal::{Binding, Entropy, KeyRing, Sealer, UnixTime, UnsealError};
use serde_json::{json, Value as J};

const MAX_KEYS: usize = 8;

fn hex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd-length hex {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

fn fixed<const L: usize>(req: &J, field: &str) -> Result<[u8; L], String> {
    let mut out = [0u8; L];
    match req.get(field).and_then(J::as_str) {
        Some(h) => {
            out = hex(h)?
                .try_into()
                .map_err(|_| format!("{field} must be {L} bytes"))?;
        }
        None => std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut out))
            .map_err(|e| format!("/dev/urandom: {e}"))?,
    }
    Ok(out)
}

fn handle(req: &J) -> Result<J, String> {
    let keys = req["keys"]
        .as_array()
        .ok_or("keys: array of hex strings")?
        .iter()
        .map(|k| hex(k.as_str().ok_or("key must be a hex string")?))
        .collect::<Result<Vec<_>, _>>()?;
    let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let ring = KeyRing::<MAX_KEYS>::new(&keys).map_err(|e| e.to_string())?;
    let mut sealer = Sealer::new(ring, req["audience"].as_str());
    if let Some(ttl) = req.get("ttl").and_then(J::as_f64) {
        sealer = sealer.with_ttl(ttl).map_err(|e| e.to_string())?;
    }
    let method = req["method"].as_str().ok_or("method: string")?;
    let params_text = serde_json::to_string(&req["params"]).map_err(|e| e.to_string())?;
    let params = Value::parse(&params_text).map_err(|e| format!("params: {e:?}"))?;
    let binding = Binding::from_params(method, Some(params)).map_err(|e| e.to_string())?;
    let principal = req["principal"].as_str();
    let now = req["now"]
        .as_f64()
        .and_then(UnixTime::from_secs_f64)
        .ok_or("now: non-negative number")?;
    match req["op"].as_str() {
        Some("seal") => {
            let state = req["state"].as_str().ok_or("state: string")?;
            let entropy = Entropy {
                nonce: fixed(req, "nonce")?,
                principal_salt: fixed(req, "salt")?,
            };
            let token = sealer
                .seal_to_string(state, &binding, principal, now, &entropy)
                .map_err(|e| e.to_string())?;
            Ok(json!({ "token": token }))
        }
        Some("unseal") => {
            let mut out = vec![0u8; params_text.len()];
            let state = params.get("requestState");
            let verdict = sealer.unseal_param(state, &binding, principal, now, &mut out);
            // A plain string token also goes through the in-place path, which must agree.
            if let Some(token) = state.and_then(Value::as_str).and_then(|s| s.as_plain()) {
                let mut buf = token.as_bytes().to_vec();
                let in_place =
                    sealer.unseal_in_place(&mut buf, token.len(), &binding, principal, now);
                if in_place.map(Some) != verdict {
                    return Err(format!(
                        "unseal_in_place disagrees with unseal_param: {in_place:?} vs {verdict:?}"
                    ));
                }
            }
            Ok(match verdict {
                Ok(state) => json!({ "ok": true, "state": state }),
                Err(err) => json!({
                    "ok": false,
                    "reason": err.reason().as_str(),
                    "code": UnsealError::CODE,
                    "message": err.to_string(),
                    "data": { "reason": UnsealError::DATA_REASON },
                }),
            })
        }
        other => Err(format!("unknown op {other:?}")),
    }
}

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut failed = false;
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = serde_json::from_str::<J>(&line)
            .map_err(|e| e.to_string())
            .and_then(|req| handle(&req))
            .unwrap_or_else(|e| {
                failed = true;
                json!({ "error": e })
            });
        writeln!(out, "{answer}")?;
    }
    out.flush()?;
    if failed {
        std::process::exit(2);
    }
    Ok(())
}
