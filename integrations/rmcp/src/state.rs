//! `requestState` on the wire: sealed by elicit-core's `seal` (AES-256-GCM, HKDF key
//! ring, claims bound to method, target, arguments digest and audience — the MCP Python
//! SDK's `AESGCMRequestStateCodec` + `RequestStateBoundary`), or, behind an explicit
//! development switch, the engine's plaintext as is.

use std::time::{SystemTime, UNIX_EPOCH};

use elicit_core::json::Value as JValue;
use elicit_core::seal::{
    Binding, Entropy, KeyRing, Sealer, UnixTime, NONCE_LEN, PRINCIPAL_SALT_LEN,
};

/// Most keys a key ring may hold.
pub const MAX_KEYS: usize = 8;

/// How the server protects `requestState`.
pub struct StateCodec {
    inner: Inner,
    key_id: Option<String>,
}

enum Inner {
    Sealed(Box<Sealer<'static, MAX_KEYS>>),
    InsecurePlaintext,
}

/// Why an inbound `requestState` was refused. The wire error is always the frozen
/// `-32602 "Invalid or expired requestState"`; this reason is for the host's log.
#[derive(Debug, Clone)]
pub struct Rejected(pub String);

/// The request a token belongs to: `tools/call` or `prompts/get` with a name and
/// arguments, or `resources/read` with a URI.
pub(crate) struct Target<'a> {
    pub method: &'a str,
    pub target: &'a str,
    /// The arguments as the client sent them (re-serialized compactly); `None` for
    /// `resources/read`.
    pub arguments: Option<&'a str>,
}

impl Target<'_> {
    fn binding(&self) -> Result<Binding<'_>, String> {
        let args = match self.arguments {
            Some(text) => Some(
                JValue::parse(text)
                    .map_err(|e| format!("arguments are not readable JSON: {e:?}"))?,
            ),
            None => None,
        };
        Ok(Binding::new(self.method, self.target, args))
    }
}

/// The first 8 hex digits of SHA-256 of `key`.
fn key_id(key: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(key);
    digest.iter().take(4).map(|b| format!("{b:02x}")).collect()
}

fn now() -> UnixTime {
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    UnixTime::from_micros(micros)
}

fn random<const L: usize>() -> Result<[u8; L], String> {
    let mut b = [0u8; L];
    getrandom::fill(&mut b)
        .map_err(|e| format!("the operating system's random source failed: {e}"))?;
    Ok(b)
}

/// Parse a key list in the form `ELICIT_STATE_KEYS` takes: comma-separated hex secrets,
/// each at least 32 bytes; the first seals, every one unseals.
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
            let digits = std::str::from_utf8(pair)
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok())
                .ok_or_else(|| format!("ELICIT_STATE_KEYS: key {i} is not hex"))?;
            bytes.push(digits);
        }
        keys.push(bytes);
    }
    Ok(keys)
}

impl StateCodec {
    /// A sealing codec for `audience` (the server's name: only servers with the same name
    /// and a shared key accept each other's tokens). `keys`: the ring (first seals, all
    /// unseal), or `None` for one ephemeral random key (tokens die with the process).
    /// `ttl_secs`: token lifetime (default 600 s).
    pub fn sealed(
        keys: Option<Vec<Vec<u8>>>,
        audience: &str,
        ttl_secs: Option<f64>,
    ) -> Result<Self, String> {
        let keys = match keys {
            Some(k) => k,
            None => vec![random::<32>()?.to_vec()],
        };
        if keys.len() > MAX_KEYS {
            return Err(format!(
                "ELICIT_STATE_KEYS: {} keys given, at most {MAX_KEYS} are kept; drop retired ones",
                keys.len()
            ));
        }
        let key_id = keys.first().map(|k| key_id(k));
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        let ring =
            KeyRing::<MAX_KEYS>::new(&refs).map_err(|e| format!("ELICIT_STATE_KEYS: {e}"))?;
        // The audience lives as long as the server; a codec is made once per process.
        let audience: &'static str = Box::leak(audience.to_owned().into_boxed_str());
        let mut sealer = Sealer::new(ring, Some(audience));
        if let Some(ttl) = ttl_secs {
            sealer = sealer
                .with_ttl(ttl)
                .map_err(|e| format!("state TTL {ttl}: {e}"))?;
        }
        Ok(StateCodec {
            inner: Inner::Sealed(Box::new(sealer)),
            key_id,
        })
    }

    /// A sealing codec with keys from the environment variable `ELICIT_STATE_KEYS`
    /// (unset or blank: one ephemeral key). Returns the codec and a line for the log
    /// saying where the keys came from.
    pub fn from_env(audience: &str, ttl_secs: Option<f64>) -> Result<(Self, String), String> {
        let keys = match std::env::var("ELICIT_STATE_KEYS") {
            Ok(v) if !v.trim().is_empty() => Some(parse_keys(&v)?),
            _ => None,
        };
        let source = match &keys {
            Some(k) => format!("{} key(s) from ELICIT_STATE_KEYS", k.len()),
            None => {
                "an ephemeral key (set ELICIT_STATE_KEYS to share state across processes)".into()
            }
        };
        Ok((Self::sealed(keys, audience, ttl_secs)?, source))
    }

    /// DEVELOPMENT ONLY: the engine's plaintext state travels to the client and back
    /// unprotected, so a client can forge answers. Never use it in production.
    pub fn insecure_plaintext() -> Self {
        StateCodec {
            inner: Inner::InsecurePlaintext,
            key_id: None,
        }
    }

    /// The sealing key's short, non-secret id: the first 8 hex digits of its SHA-256
    /// (`None` for plaintext state). Telemetry's `key_id`.
    pub fn key_id(&self) -> Option<&str> {
        self.key_id.as_deref()
    }

    /// Whether tokens are sealed.
    pub fn is_sealed(&self) -> bool {
        matches!(self.inner, Inner::Sealed(_))
    }

    /// The inbound step: `Ok(None)` without a state, the plaintext otherwise.
    pub(crate) fn open(
        &self,
        token: Option<&str>,
        target: &Target<'_>,
    ) -> Result<Option<String>, Rejected> {
        let Some(token) = token else {
            return Ok(None);
        };
        match &self.inner {
            Inner::Sealed(sealer) => {
                let binding = target.binding().map_err(Rejected)?;
                sealer
                    .unseal_to_string(token, &binding, None, now())
                    .map(Some)
                    .map_err(|e| Rejected(e.reason().as_str().to_string()))
            }
            Inner::InsecurePlaintext => Ok(Some(token.to_owned())),
        }
    }

    /// The outbound step: seal this round's plaintext for the same request.
    pub(crate) fn seal(&self, plaintext: &str, target: &Target<'_>) -> Result<String, String> {
        match &self.inner {
            Inner::Sealed(sealer) => {
                let binding = target.binding()?;
                let entropy = Entropy {
                    nonce: random::<NONCE_LEN>()?,
                    principal_salt: random::<PRINCIPAL_SALT_LEN>()?,
                };
                sealer
                    .seal_to_string(plaintext, &binding, None, now(), &entropy)
                    .map_err(|e| e.to_string())
            }
            Inner::InsecurePlaintext => Ok(plaintext.to_owned()),
        }
    }
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
        let short = parse_keys(&"01".repeat(31)).unwrap();
        assert!(StateCodec::sealed(Some(short), "booking", None).is_err());
    }

    #[test]
    fn a_token_opens_only_for_its_own_request() {
        let codec = StateCodec::sealed(None, "booking", None).unwrap();
        let greet = Target {
            method: "tools/call",
            target: "greet",
            arguments: Some("{}"),
        };
        let token = codec.seal("{\"v\":1}", &greet).unwrap();
        assert!(token.starts_with("v1."));
        assert_eq!(
            codec.open(Some(&token), &greet).unwrap().as_deref(),
            Some("{\"v\":1}")
        );
        let other = Target {
            method: "tools/call",
            target: "book_flight",
            arguments: Some("{}"),
        };
        assert!(codec.open(Some(&token), &other).is_err());
        let prompt = Target {
            method: "prompts/get",
            target: "greet",
            arguments: Some("{}"),
        };
        assert!(codec.open(Some(&token), &prompt).is_err());
        assert!(codec.open(Some("v1.AAAA"), &greet).is_err());
        assert!(codec.open(None, &greet).unwrap().is_none());
    }
}
