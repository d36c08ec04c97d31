//! Where the keys that seal `requestState` come from: [`StateKeys`].
//!
//! A key ring is 1 to [`MAX_KEYS`] secrets of 32 to 128 bytes. **Rotation order: the first
//! key seals, every key opens.** To rotate without dropping a round in flight, roll out
//! each phase to every instance before the next: `[old, new]`, then `[new, old]`, then
//! `[new]` once a token lifetime (600 s by default) has passed.
//!
//! The text form (a variable, a file) is comma-separated hex ([`elicit_core::keyring`]);
//! errors name where the keys came from, never the key.
//!
//! ```
//! use elicit_rmcp::{StateCodec, StateKeys};
//!
//! let keys = StateKeys::from_bytes(&[&[7u8; 32]]).unwrap();
//! let codec = StateCodec::sealed(keys).unwrap();
//! assert!(codec.is_sealed());
//!
//! let err = StateKeys::from_var("ELICIT_DOC_UNSET_VARIABLE").unwrap_err();
//! assert!(err.is_missing());
//! assert!(err.to_string().starts_with("ELICIT_DOC_UNSET_VARIABLE: "));
//! ```
//!
//! Processes serving one client (behind a load balancer) must share a ring; one process
//! alone (a stdio server) may use [`StateKeys::ephemeral`].

use std::fmt;
use std::path::Path;

use elicit_core::keyring::{self, MAX_KEY_LEN, MAX_RING_BYTES, MIN_KEY_LEN};
use zeroize::Zeroizing;

pub use elicit_core::keyring::MAX_KEYS;

/// The variable the example server and the other elicit servers read the ring from.
pub const ENV_VAR: &str = "ELICIT_STATE_KEYS";

/// A key ring for [`StateCodec::sealed`](crate::StateCodec::sealed) and its origin; wiped
/// on drop, its `Debug` shows the origin and key lengths only.
pub struct StateKeys {
    keys: Vec<Zeroizing<Vec<u8>>>,
    origin: String,
    ephemeral: bool,
}

/// A refused key ring: its `Display` starts with the origin, then why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct KeyError {
    origin: String,
    message: String,
    missing: bool,
}

impl KeyError {
    pub(crate) fn new(origin: &str, message: impl Into<String>) -> Self {
        KeyError {
            origin: origin.to_owned(),
            message: message.into(),
            missing: false,
        }
    }

    /// Where the keys came from (a variable's name, a file's path, ...).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether the variable was unset or blank ([`StateKeys::from_var`]).
    pub fn is_missing(&self) -> bool {
        self.missing
    }
}

impl StateKeys {
    /// Keys given as bytes (`keys[0]` seals, all open): 1 to [`MAX_KEYS`] keys of 32 to
    /// 128 bytes.
    pub fn from_bytes(keys: &[&[u8]]) -> Result<Self, KeyError> {
        let origin = "StateKeys::from_bytes";
        if keys.is_empty() || keys.len() > MAX_KEYS {
            return Err(KeyError::new(
                origin,
                format!("{} keys given; a ring holds 1 to {MAX_KEYS}", keys.len()),
            ));
        }
        for (i, k) in keys.iter().enumerate() {
            if !(MIN_KEY_LEN..=MAX_KEY_LEN).contains(&k.len()) {
                return Err(KeyError::new(
                    origin,
                    format!(
                        "key {i} is {} bytes; a key is {MIN_KEY_LEN} to {MAX_KEY_LEN} bytes",
                        k.len()
                    ),
                ));
            }
        }
        Ok(StateKeys {
            keys: keys.iter().map(|k| Zeroizing::new(k.to_vec())).collect(),
            origin: origin.into(),
            ephemeral: false,
        })
    }

    /// Keys from the environment variable `name` (e.g. [`ENV_VAR`]), in the ring's text
    /// form. Unset or blank is an error whose [`KeyError::is_missing`] is true.
    pub fn from_var(name: &str) -> Result<Self, KeyError> {
        match std::env::var(name) {
            Ok(text) if !text.trim().is_empty() => Self::parse(&text, name),
            Ok(_) | Err(std::env::VarError::NotPresent) => Err(KeyError {
                missing: true,
                ..KeyError::new(
                    name,
                    "not set; give comma-separated hex keys (the first seals)",
                )
            }),
            Err(std::env::VarError::NotUnicode(_)) => Err(KeyError::new(
                name,
                "is not text; give comma-separated hex keys",
            )),
        }
    }

    /// Keys from a file holding the ring's text form (readable by the server only).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, KeyError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map(Zeroizing::new)
            .map_err(|e| KeyError::new(&origin, format!("cannot read the key file: {e}")))?;
        Self::parse(&text, &origin)
    }

    /// One random 32-byte key: tokens open only in this process (never behind a load
    /// balancer).
    pub fn ephemeral() -> Result<Self, KeyError> {
        let mut key = Zeroizing::new(vec![0u8; MIN_KEY_LEN]);
        getrandom::fill(&mut key).map_err(|e| {
            KeyError::new(
                "StateKeys::ephemeral",
                format!("the operating system's random source failed: {e}"),
            )
        })?;
        Ok(StateKeys {
            keys: vec![key],
            origin: "StateKeys::ephemeral".into(),
            ephemeral: true,
        })
    }

    fn parse(text: &str, origin: &str) -> Result<Self, KeyError> {
        let mut buf = Zeroizing::new([0u8; MAX_RING_BYTES]);
        let parsed = keyring::parse(text, origin, MAX_KEYS, &mut buf[..]).map_err(|e| {
            KeyError::new(
                origin,
                e.to_string().replacen(&format!("{origin}: "), "", 1),
            )
        })?;
        let keys = parsed.iter().map(|k| Zeroizing::new(k.to_vec())).collect();
        Ok(StateKeys {
            keys,
            origin: origin.into(),
            ephemeral: false,
        })
    }

    /// Where the keys came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Number of keys (the first seals).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Never true: a ring has at least one key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether this is [`StateKeys::ephemeral`].
    pub fn is_ephemeral(&self) -> bool {
        self.ephemeral
    }

    /// A line for the log: how many keys, from where.
    pub fn describe(&self) -> String {
        if self.ephemeral {
            "an ephemeral key (tokens die with this process)".into()
        } else {
            format!(
                "{} key(s) from {} (the first seals)",
                self.keys.len(),
                self.origin
            )
        }
    }

    pub(crate) fn secrets(&self) -> Vec<&[u8]> {
        self.keys.iter().map(|k| k.as_slice()).collect()
    }
}

impl fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateKeys")
            .field("origin", &self.origin)
            .field(
                "lens",
                &self.keys.iter().map(|k| k.len()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_names_itself_in_its_errors() {
        let e = StateKeys::parse("abc", "KEYS_X").unwrap_err();
        assert_eq!(
            e.to_string(),
            "KEYS_X: key 0 has an odd number of hex digits"
        );
        let e = StateKeys::parse(&"01".repeat(31), "/etc/k").unwrap_err();
        assert!(
            e.to_string().starts_with("/etc/k: key 0 is 31 bytes"),
            "{e}"
        );
        assert_eq!(e.origin(), "/etc/k");
        let e = StateKeys::from_file("/nonexistent/elicit-keys").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/elicit-keys: cannot read"),
            "{e}"
        );
        let e = StateKeys::from_bytes(&[&[1u8; 16]]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "StateKeys::from_bytes: key 0 is 16 bytes; a key is 32 to 128 bytes"
        );
        let e = StateKeys::from_var("ELICIT_TEST_SURELY_UNSET_VAR").unwrap_err();
        assert!(e.is_missing());
        assert!(e
            .to_string()
            .starts_with("ELICIT_TEST_SURELY_UNSET_VAR: not set"));
    }

    #[test]
    fn a_file_ring_keeps_its_order_and_the_debug_form_hides_secrets() {
        let path = std::env::temp_dir().join(format!("elicit-keys-{}", std::process::id()));
        std::fs::write(&path, format!("{},{}\n", "ab".repeat(32), "cd".repeat(40))).unwrap();
        let keys = StateKeys::from_file(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(keys.len(), 2);
        assert_eq!(keys.secrets()[0], &[0xab; 32][..]);
        assert_eq!(keys.secrets()[1], &[0xcd; 40][..]);
        assert!(keys.describe().starts_with("2 key(s) from "));
        // Neither the key bytes (0xab = 171, 0xcd = 205) nor their hex appear; the
        // path's own digits (a process id) may, so they are taken out first.
        let debug = format!("{keys:?}").replace(&path.display().to_string(), "");
        for secret in ["171", "205", "abab", "cdcd"] {
            assert!(!debug.contains(secret), "{secret} in {debug}");
        }
        assert!(StateKeys::ephemeral().unwrap().is_ephemeral());
    }
}
