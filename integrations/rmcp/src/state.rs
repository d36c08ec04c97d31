//! `requestState` on the wire: sealed by elicit-core's `seal` (the MCP Python SDK's
//! `AESGCMRequestStateCodec`), or, in development only, the engine's plaintext as is.

use std::time::{SystemTime, UNIX_EPOCH};

use elicit_core::json::Value as JValue;
use elicit_core::seal::{
    Binding, Entropy, KeyRing, Reason, Sealer, UnixTime, NONCE_LEN, PRINCIPAL_SALT_LEN,
};

use crate::keys::{KeyError, StateKeys, MAX_KEYS};

/// How the server protects `requestState`: sealed under a [`StateKeys`] ring for an
/// audience (by default the server's name, given by `Elicit::new`), or, in development
/// only, not at all.
pub struct StateCodec {
    inner: Inner,
    key_id: Option<String>,
}

enum Inner {
    /// Keys given, the audience not yet: `Elicit::new` gives the server's name.
    Keys {
        ring: Box<KeyRing<MAX_KEYS>>,
        audience: Option<String>,
        ttl_secs: Option<f64>,
    },
    Sealed(Box<Sealing>),
    /// Cannot seal (why): every token is refused.
    Unusable(String),
    InsecurePlaintext,
}

self_cell::self_cell!(
    /// A sealer and the audience it borrows, owned together.
    struct Sealing {
        owner: Box<str>,
        #[covariant]
        dependent: AudienceSealer,
    }
);

/// The engine's sealer, its audience borrowed for `'a`.
type AudienceSealer<'a> = Sealer<'a, MAX_KEYS>;

const UNBOUND: &str = "the state codec has no audience yet: give it to Elicit::new";

/// Why an inbound `requestState` was refused, for the host's log (the wire error is
/// always the frozen `-32602`).
#[derive(Debug, Clone)]
pub struct Rejected {
    /// elicit-core's reason as the SDK logs it, or what kept the codec from opening.
    pub why: String,
    /// The seal's reason (`None`: the codec could not open any token, or the request's
    /// arguments were unreadable).
    pub reason: Option<Reason>,
}

impl Rejected {
    fn other(why: impl Into<String>) -> Self {
        Rejected {
            why: why.into(),
            reason: None,
        }
    }
}

/// The request a token belongs to: its method, name or URI, and arguments as the client
/// sent them (`None` for `resources/read`).
pub(crate) struct Target<'a> {
    pub method: &'a str,
    pub target: &'a str,
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

impl StateCodec {
    /// A sealing codec on `keys` (the first seals, all open) for the server's audience
    /// unless [`StateCodec::with_audience`] says otherwise. Refuses a key given twice.
    pub fn sealed(keys: StateKeys) -> Result<Self, KeyError> {
        let secrets = keys.secrets();
        let ring = KeyRing::<MAX_KEYS>::new(&secrets)
            .map_err(|e| KeyError::new(keys.origin(), e.to_string()))?;
        Ok(StateCodec {
            inner: Inner::Keys {
                ring: Box::new(ring),
                audience: None,
                ttl_secs: None,
            },
            key_id: secrets.first().map(|k| key_id(k)),
        })
    }

    /// Seal for `audience` instead of the server's name (a fleet of differently named
    /// servers sharing tokens).
    pub fn with_audience(mut self, audience: &str) -> Self {
        if let Inner::Keys { audience: a, .. } = &mut self.inner {
            *a = Some(audience.to_owned());
        }
        self
    }

    /// Token lifetime in seconds (default 600; positive and finite).
    pub fn with_ttl(mut self, secs: f64) -> Result<Self, String> {
        if !(secs.is_finite() && secs > 0.0) {
            return Err(format!(
                "state TTL {secs}: give a positive number of seconds"
            ));
        }
        if let Inner::Keys { ttl_secs, .. } = &mut self.inner {
            *ttl_secs = Some(secs);
        }
        Ok(self)
    }

    /// Fix the audience to `server_name` unless one was given (from `Elicit::new`).
    pub(crate) fn for_server(self, server_name: &str) -> Self {
        let key_id = self.key_id;
        let Inner::Keys {
            ring,
            audience,
            ttl_secs,
        } = self.inner
        else {
            return StateCodec {
                inner: self.inner,
                key_id,
            };
        };
        let audience = audience.unwrap_or_else(|| server_name.to_owned());
        let sealing = Sealing::try_new(audience.into_boxed_str(), |audience| {
            let sealer = Sealer::new(*ring, Some(audience));
            match ttl_secs {
                // `with_ttl` above checked the value as `Sealer::with_ttl` does.
                Some(ttl) => sealer
                    .with_ttl(ttl)
                    .map_err(|e| format!("state TTL {ttl}: {e}")),
                None => Ok(sealer),
            }
        });
        let sealer = match sealing {
            Ok(s) => s,
            Err(why) => {
                return StateCodec {
                    inner: Inner::Unusable(why),
                    key_id: None,
                }
            }
        };
        StateCodec {
            inner: Inner::Sealed(Box::new(sealer)),
            key_id,
        }
    }

    /// DEVELOPMENT ONLY: plaintext state, which a client can forge.
    pub fn insecure_plaintext() -> Self {
        StateCodec {
            inner: Inner::InsecurePlaintext,
            key_id: None,
        }
    }

    /// The sealing key's non-secret id (first 8 hex digits of its SHA-256; `None` for
    /// plaintext), telemetry's `key_id`.
    pub fn key_id(&self) -> Option<&str> {
        self.key_id.as_deref()
    }

    /// Whether tokens are sealed.
    pub fn is_sealed(&self) -> bool {
        matches!(self.inner, Inner::Sealed(_) | Inner::Keys { .. })
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
            Inner::Sealed(sealing) => {
                let sealer = sealing.borrow_dependent();
                let binding = target.binding().map_err(Rejected::other)?;
                sealer
                    .unseal_to_string(token, &binding, None, now())
                    .map(Some)
                    .map_err(|e| Rejected {
                        why: e.reason().as_str().to_string(),
                        reason: Some(e.reason()),
                    })
            }
            Inner::InsecurePlaintext => Ok(Some(token.to_owned())),
            Inner::Keys { .. } => Err(Rejected::other(UNBOUND)),
            Inner::Unusable(why) => Err(Rejected::other(why.clone())),
        }
    }

    /// The outbound step: seal this round's plaintext for the same request.
    pub(crate) fn seal(&self, plaintext: &str, target: &Target<'_>) -> Result<String, String> {
        match &self.inner {
            Inner::Sealed(sealing) => {
                let sealer = sealing.borrow_dependent();
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
            Inner::Keys { .. } => Err(UNBOUND.into()),
            Inner::Unusable(why) => Err(why.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_refused_naming_its_origin_and_the_audience_is_the_servers() {
        let k = [7u8; 32];
        let e = StateCodec::sealed(StateKeys::from_bytes(&[&k, &k]).unwrap())
            .err()
            .unwrap();
        assert!(e.to_string().starts_with("StateKeys::from_bytes: "), "{e}");
        let ring = || StateKeys::from_bytes(&[&k]).unwrap();
        let target = Target {
            method: "tools/call",
            target: "greet",
            arguments: None,
        };
        let a = StateCodec::sealed(ring()).unwrap().for_server("a");
        let b = StateCodec::sealed(ring()).unwrap().for_server("b");
        let b_as_a = StateCodec::sealed(ring())
            .unwrap()
            .with_audience("a")
            .for_server("b");
        let token = a.seal("{}", &target).unwrap();
        assert!(b.open(Some(&token), &target).is_err());
        assert!(b_as_a.open(Some(&token), &target).is_ok());
        assert!(StateCodec::sealed(ring()).unwrap().with_ttl(0.0).is_err());
        // The key id names the sealing (first) key, never the secret; plaintext has none.
        let id = StateCodec::sealed(ring()).unwrap().for_server("a");
        assert_eq!(id.key_id().map(str::len), Some(8));
        assert_ne!(
            id.key_id(),
            StateCodec::sealed(StateKeys::from_bytes(&[&[8u8; 32]]).unwrap())
                .unwrap()
                .key_id()
        );
        assert!(StateCodec::insecure_plaintext().key_id().is_none());
        // Without a server name nothing is sealed.
        assert!(StateCodec::sealed(ring())
            .unwrap()
            .seal("{}", &target)
            .is_err());
    }

    #[test]
    fn a_token_opens_only_for_its_own_request() {
        let codec = StateCodec::sealed(StateKeys::ephemeral().unwrap())
            .unwrap()
            .for_server("booking");
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
