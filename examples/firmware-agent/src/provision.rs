//! What the device learns at start: the wall-clock time, the boot seed of its nonces and
//! (seal builds) the key ring's secrets, from the block scripts/dev-agent-qemu.sh loads at
//! `PROVISION` (memory.x). Layout (little-endian):
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 4 | magic `ELAG` |
//! | 4 | 1 | format version, 1 |
//! | 5 | 1 | number of keys, 0 to [`MAX_KEYS`] |
//! | 6 | 1 | hundredths of a second of the start time, 0 to 99 |
//! | 7 | 1 | zero |
//! | 8 | 8 | Unix time in seconds when the launcher started QEMU |
//! | 16 | 8 | boot seed: 8 bytes from the host's CSPRNG, fresh for every boot |
//! | 24 | … | each key: its length (1 byte, 32 to 128: `elicit_core::keyring`'s limits), then its bytes |
//!
//! # Time
//!
//! QEMU's board has no real-time clock, so `now` = the provisioned start time + the FPGA's
//! 100 Hz counter (which starts with the machine), in whole seconds (tokens carry
//! `iat`/`exp` as whole seconds; the expiry edge is then exact to a second), behind the host's
//! clock by QEMU's start-up time (tens of milliseconds), so a token's `iat` is never in
//! the future of a host server sharing the keys. A real device reads an RTC instead.
//!
//! # Nonces
//!
//! AES-GCM must never see one nonce twice under one key. QEMU's board has no entropy
//! source, so each 12-byte nonce is `boot seed (8 bytes) ‖ seal counter (4 bytes,
//! big-endian)`:
//!
//! * within one boot the counter makes every nonce distinct; it starts at 0 and the agent
//!   refuses to seal (JSON-RPC `-32603`) once 2^32 − 1 nonces are used, never wrapping;
//! * across boots (and devices) sharing a key, nonces are distinct as long as their boot
//!   seeds are: the launcher draws a fresh seed from the host's CSPRNG for every boot, so
//!   two of n boots collide with probability below n²/2^65 (2^-25 after a million boots),
//!   the same order as the 96-bit random nonces of a host server after 2^35 seals;
//! * the agent never resets itself (a panic halts it), because a reset would run again
//!   with the same provisioned seed; the launcher provisions every QEMU start afresh.
//!
//! Assumptions: the host's CSPRNG is sound and the launcher is the only way the agent is
//! started. A device without a host at boot would keep a boot counter in flash (fixed
//! field) or draw the seed from its TRNG.

#[cfg(feature = "seal")]
use elicit_core::seal::{Entropy, KeyRing, UnixTime, NONCE_LEN, PRINCIPAL_SALT_LEN};

use crate::board;

/// Most keys in the ring (rotation: the new key and the old one).
pub const MAX_KEYS: usize = 2;
// Shortest and longest key secret the block carries: the key ring's limits
// (elicit_core::keyring, which the launcher's checks follow).
#[cfg(feature = "seal")]
use elicit_core::keyring::{MAX_KEY_LEN, MIN_KEY_LEN};

const MAGIC: &[u8; 4] = b"ELAG";
const VERSION: u8 = 1;

/// The parsed block.
pub struct Provision {
    /// Unix time at start: seconds, and hundredths of a second.
    pub start: (u64, u32),
    /// The nonces' boot seed.
    pub seed: [u8; 8],
    #[cfg(feature = "seal")]
    keys: [(usize, usize); MAX_KEYS],
    #[cfg(feature = "seal")]
    key_count: usize,
}

/// Why the block was refused.
pub type Refused = &'static str;

impl Provision {
    /// Parse `block`.
    pub fn parse(block: &[u8; board::PROVISION_LEN]) -> Result<Provision, Refused> {
        if &block[..4] != MAGIC || block[4] != VERSION {
            return Err("no provisioning block: start the agent with scripts/dev-agent-qemu.sh");
        }
        let mut start = [0u8; 8];
        start.copy_from_slice(&block[8..16]);
        let mut seed = [0u8; 8];
        seed.copy_from_slice(&block[16..24]);
        let count = usize::from(block[5]);
        #[cfg(feature = "seal")]
        let mut keys = [(0usize, 0usize); MAX_KEYS];
        #[cfg(feature = "seal")]
        {
            if count == 0 || count > MAX_KEYS {
                return Err("the provisioning block must carry 1 or 2 keys");
            }
            let mut at = 24;
            for key in keys.iter_mut().take(count) {
                let len = usize::from(block.get(at).copied().unwrap_or(0));
                if !(MIN_KEY_LEN..=MAX_KEY_LEN).contains(&len) || at + 1 + len > block.len() {
                    return Err("a provisioned key must be 32 to 128 bytes");
                }
                *key = (at + 1, len);
                at += 1 + len;
            }
        }
        #[cfg(not(feature = "seal"))]
        let _ = count;
        Ok(Provision {
            start: (u64::from_le_bytes(start), u32::from(block[6] % 100)),
            seed,
            #[cfg(feature = "seal")]
            keys,
            #[cfg(feature = "seal")]
            key_count: count,
        })
    }

    /// The key ring from the provisioned secrets (HKDF-SHA256 on the device, as
    /// `ELICIT_STATE_KEYS` is read by elicit-rmcp-server: the first key seals, all unseal).
    #[cfg(feature = "seal")]
    pub fn ring(&self, block: &[u8; board::PROVISION_LEN]) -> Result<KeyRing<MAX_KEYS>, Refused> {
        let k = |i: usize| {
            let (at, len) = self.keys.get(i).copied().unwrap_or((0, 0));
            block.get(at..at + len).unwrap_or(&[])
        };
        let secrets: &[&[u8]] = if self.key_count == 1 {
            &[k(0)]
        } else {
            &[k(0), k(1)]
        };
        KeyRing::new(secrets).map_err(|_| "the provisioned keys do not form a key ring")
    }
}

#[cfg(feature = "seal")]
/// Wall-clock time: the provisioned start plus the 100 Hz counter, extended past its
/// 32-bit wrap (read at least once every 497 days: every request reads it).
pub struct Clock {
    secs: u64,
    hundredths: u32,
    last: u32,
}

#[cfg(feature = "seal")]
impl Clock {
    /// A clock starting at `start` (seconds, hundredths).
    pub fn new(start: (u64, u32)) -> Clock {
        Clock {
            secs: start.0,
            hundredths: start.1,
            last: 0,
        }
    }

    /// Now, in whole seconds (the claims' `iat`/`exp` need no fraction; 32-bit
    /// arithmetic only: the device links no 64-bit or floating-point division).
    pub fn now(&mut self) -> UnixTime {
        let t = board::ticks_100hz();
        let delta = t.wrapping_sub(self.last);
        self.last = t;
        let h = self.hundredths + delta % 100;
        self.secs += u64::from(delta / 100 + h / 100);
        self.hundredths = h % 100;
        UnixTime::from_secs(self.secs)
    }
}

/// The nonce source: `seed ‖ counter` (see the module documentation).
#[cfg(feature = "seal")]
pub struct Nonces {
    seed: [u8; 8],
    next: u32,
}

#[cfg(feature = "seal")]
impl Nonces {
    /// Nonces for the boot with this `seed`.
    pub fn new(seed: [u8; 8]) -> Nonces {
        Nonces { seed, next: 0 }
    }

    /// The next nonce, or `None` once the counter is spent (2^32 − 1 seals this boot).
    pub fn next(&mut self) -> Option<Entropy> {
        if self.next == u32::MAX {
            return None;
        }
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..8].copy_from_slice(&self.seed);
        nonce[8..].copy_from_slice(&self.next.to_be_bytes());
        self.next += 1;
        // No principal on stdio: the salt is unused.
        Some(Entropy {
            nonce,
            principal_salt: [0; PRINCIPAL_SALT_LEN],
        })
    }
}
