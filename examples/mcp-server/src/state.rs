//! `requestState` on the wire: sealed (the default, compatible with the MCP Python SDK's
//! `AESGCMRequestStateCodec` + `RequestStateBoundary`) or, behind the development switch
//! `--insecure-plaintext-state`, the engine's plaintext as is.

use std::time::{SystemTime, UNIX_EPOCH};

use elicit_core::json::Value as JValue;
use elicit_core::seal::{
    Binding, Entropy, KeyRing, Sealer, UnixTime, NONCE_LEN, PRINCIPAL_SALT_LEN,
};

/// Most keys `ELICIT_STATE_KEYS` may hold.
pub const MAX_KEYS: usize = 8;

/// How the server protects `requestState`.
pub enum StateCodec {
    /// AES-256-GCM sealed claims bound to method, tool, arguments and audience.
    Sealed(Box<Sealer<'static, MAX_KEYS>>),
    /// Development only: the plaintext state travels to the client and back unprotected,
    /// so a client can forge answers. Never use it in production.
    InsecurePlaintext,
}

/// Why an inbound `requestState` was refused (for the log; the wire error is frozen).
pub struct Rejected(pub String);

pub fn now() -> UnixTime {
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0);
    UnixTime::from_micros(micros)
}

fn random<const L: usize>() -> [u8; L] {
    let mut b = [0u8; L];
    getrandom::fill(&mut b).expect("the operating system's random source failed");
    b
}

/// Parse `ELICIT_STATE_KEYS`: comma-separated hex secrets, each at least 32 bytes; the
/// first seals, every one unseals.
pub fn parse_keys(text: &str) -> Result<Vec<Vec<u8>>, String> {
    let mut keys = Vec::new();
    for (i, part) in text.split(',').enumerate() {
        let hex = part.trim();
        if hex.is_empty() {
            return Err(format!("ELICIT_STATE_KEYS: key {i} is empty"));
        }
        if hex.len() % 2 != 0 {
            return Err(format!(
                "ELICIT_STATE_KEYS: key {i} has an odd number of hex digits"
            ));
        }
        let mut bytes = Vec::with_capacity(hex.len() / 2);
        for pair in hex.as_bytes().chunks(2) {
            let s = std::str::from_utf8(pair)
                .map_err(|_| format!("ELICIT_STATE_KEYS: key {i} is not hex"))?;
            bytes.push(
                u8::from_str_radix(s, 16)
                    .map_err(|_| format!("ELICIT_STATE_KEYS: key {i} is not hex"))?,
            );
        }
        keys.push(bytes);
    }
    Ok(keys)
}

impl StateCodec {
    /// A sealing codec for `audience` (the server name). `keys` from `ELICIT_STATE_KEYS`,
    /// or `None` for one ephemeral random key (tokens die with the process).
    pub fn sealed(
        keys: Option<Vec<Vec<u8>>>,
        audience: &'static str,
        ttl_secs: Option<f64>,
    ) -> Result<Self, String> {
        let keys = keys.unwrap_or_else(|| vec![random::<32>().to_vec()]);
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        let ring =
            KeyRing::<MAX_KEYS>::new(&refs).map_err(|e| format!("ELICIT_STATE_KEYS: {e}"))?;
        let mut sealer = Sealer::new(ring, Some(audience));
        if let Some(ttl) = ttl_secs {
            sealer = sealer.with_ttl(ttl).map_err(|e| e.to_string())?;
        }
        Ok(StateCodec::Sealed(Box::new(sealer)))
    }

    /// The inbound step on `params` of a `tools/call`: `Ok(None)` when the request carries
    /// no state (absent or `null`), the plaintext otherwise.
    pub fn open(&self, params: JValue<'_>) -> Result<Option<String>, Rejected> {
        let raw = params.get("requestState");
        match self {
            StateCodec::Sealed(sealer) => {
                let binding = Binding::from_params("tools/call", Some(params))
                    .map_err(|e| Rejected(e.to_string()))?;
                let need = raw.map(|v| v.raw().len()).unwrap_or(0).max(1);
                let mut buf = vec![0u8; need];
                sealer
                    .unseal_param(raw, &binding, None, now(), &mut buf)
                    .map(|s| s.map(str::to_owned))
                    .map_err(|e| Rejected(e.reason().as_str().to_string()))
            }
            StateCodec::InsecurePlaintext => match raw.filter(|v| !v.is_null()) {
                None => Ok(None),
                Some(v) => match v.as_str() {
                    Some(s) => Ok(Some(decode(s))),
                    None => Err(Rejected("non-string requestState".into())),
                },
            },
        }
    }

    /// The outbound step: seal this round's plaintext for the same request.
    pub fn seal(&self, plaintext: &str, params: JValue<'_>) -> Result<String, String> {
        match self {
            StateCodec::Sealed(sealer) => {
                let binding =
                    Binding::from_params("tools/call", Some(params)).map_err(|e| e.to_string())?;
                let entropy = Entropy {
                    nonce: random::<NONCE_LEN>(),
                    principal_salt: random::<PRINCIPAL_SALT_LEN>(),
                };
                sealer
                    .seal_to_string(plaintext, &binding, None, now(), &entropy)
                    .map_err(|e| e.to_string())
            }
            StateCodec::InsecurePlaintext => Ok(plaintext.to_owned()),
        }
    }
}

/// A JSON string's decoded contents.
fn decode(s: elicit_core::json::Str<'_>) -> String {
    if let Some(p) = s.as_plain() {
        return p.to_owned();
    }
    s.units()
        .map(|u| char::from_u32(u).unwrap_or('\u{fffd}'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_as_comma_separated_hex() {
        let k = parse_keys(&format!("{} , {}", "00".repeat(32), "ab".repeat(40))).unwrap();
        assert_eq!(k.len(), 2);
        assert_eq!(k[1].len(), 40);
        assert!(parse_keys("zz").is_err());
        assert!(parse_keys("abc").is_err());
        assert!(parse_keys("").is_err());
    }

    #[test]
    fn short_keys_are_refused() {
        let short = parse_keys(&"01".repeat(31)).unwrap();
        assert!(StateCodec::sealed(Some(short), "booking", None).is_err());
    }

    #[test]
    fn a_sealed_state_opens_only_for_its_own_call() {
        let codec = StateCodec::sealed(None, "booking", None).unwrap();
        let p1 = r#"{"name":"greet","arguments":{}}"#;
        let token = codec.seal("{\"v\":1}", JValue::parse(p1).unwrap()).unwrap();
        assert!(token.starts_with("v1."));
        let back = format!(r#"{{"name":"greet","arguments":{{}},"requestState":"{token}"}}"#);
        assert_eq!(
            codec
                .open(JValue::parse(&back).unwrap())
                .ok()
                .flatten()
                .as_deref(),
            Some("{\"v\":1}")
        );
        let other =
            format!(r#"{{"name":"book_flight","arguments":{{}},"requestState":"{token}"}}"#);
        assert!(codec.open(JValue::parse(&other).unwrap()).is_err());
    }
}
