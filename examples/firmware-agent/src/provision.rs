//! What the device learns at start: the wall-clock time, the boot seed of its nonces,
//! the rate of its timer where the board needs it, and (seal builds) the key ring's
//! secrets. They arrive over UART0 as the first line, before any JSON-RPC: the block below
//! in hexadecimal, which scripts/dev-agent-qemu.sh writes ahead of the client's stdin. So
//! no byte of the device's RAM is set aside for them (on the 16 KiB boards every byte is
//! the agent's) and no secret is kept in flash: the agent decodes the line in place in
//! its line buffer, derives its key ring and wipes the buffer. Layout (little-endian):
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 4 | magic `ELAG` |
//! | 4 | 1 | format version, 2 |
//! | 5 | 1 | number of keys, 0 to [`MAX_KEYS`] |
//! | 6 | 1 | hundredths of a second of the start time, 0 to 99 |
//! | 7 | 1 | zero |
//! | 8 | 8 | Unix time in seconds when the launcher started QEMU |
//! | 16 | 8 | boot seed: 8 bytes from the host's CSPRNG, fresh for every boot |
//! | 24 | 4 | the board timer's rate in Hz where QEMU's version sets it (sifive_e's `mtime`), else 0 |
//! | 28 | … | each key: its length (1 byte, 32 to 128: `elicit_core::keyring`'s limits), then its bytes |
//!
//! A first line that is not a provisioning line (it does not start with `ELAG` in hex)
//! is served as a request, and every request is answered with the reason the agent is
//! not provisioned.
//!
//! # Time
//!
//! QEMU's boards have no real-time clock, so `now` = the provisioned start time + the
//! board's counter since power-on (`board::ticks_100hz`), in whole seconds (tokens carry
//! `iat`/`exp` as whole seconds; the expiry edge is then exact to a second), behind the
//! host's clock by QEMU's start-up time (tens of milliseconds), so a token's `iat` is
//! never in the future of a host server sharing the keys. A real device reads an RTC
//! instead.
//!
//! # Nonces
//!
//! AES-GCM must never see one nonce twice under one key. QEMU's boards have no entropy
//! source the agent relies on, so each 12-byte nonce is `boot seed (8 bytes) ‖ seal
//! counter (4 bytes, big-endian)`:
//!
//! * within one boot the counter makes every nonce distinct; it starts at 0 and the agent
//!   refuses to seal (JSON-RPC `-32603`) once 2^32 − 1 nonces are used, never wrapping;
//! * across boots (and devices) sharing a key, nonces are distinct as long as their boot
//!   seeds are: the launcher draws a fresh seed from the host's CSPRNG for every boot, so
//!   two of n boots collide with probability below n²/2^65 (2^-25 after a million boots),
//!   the same order as the 96-bit random nonces of a host server after 2^35 seals;
//! * the agent never resets itself (a panic halts it), and it reads one provisioning line
//!   per boot: a second one is an ordinary (bad) request.
//!
//! Assumptions: the host's CSPRNG is sound and the launcher is the only way the agent is
//! started. A device without a host at boot would keep a boot counter in flash (fixed
//! field) or draw the seed from its TRNG.

#[cfg(feature = "seal")]
use elicit_core::seal::{Entropy, KeyRing, UnixTime, NONCE_LEN, PRINCIPAL_SALT_LEN};

#[cfg(feature = "seal")]
use crate::board;

/// Most keys in the ring (rotation: the new key and the old one).
pub const MAX_KEYS: usize = 2;
// Shortest and longest key secret the block carries: the key ring's limits
// (elicit_core::keyring, which the launcher's checks follow).
#[cfg(feature = "seal")]
use elicit_core::keyring::{MAX_KEY_LEN, MIN_KEY_LEN};

const MAGIC: &[u8; 4] = b"ELAG";
/// [`MAGIC`] in hexadecimal: how a provisioning line starts.
const MAGIC_HEX: &[u8; 8] = b"454c4147";
const VERSION: u8 = 2;
/// Where the keys start.
const KEYS_AT: usize = 28;

/// The parsed block.
pub struct Provision {
    /// Unix time at start: seconds, and hundredths of a second.
    pub start: (u64, u32),
    /// The nonces' boot seed.
    pub seed: [u8; 8],
    /// The board timer's rate in Hz (0: the board's counter has a fixed rate).
    pub timer_hz: u32,
    #[cfg(feature = "seal")]
    keys: [(usize, usize); MAX_KEYS],
    #[cfg(feature = "seal")]
    key_count: usize,
}

/// Why the block was refused.
pub type Refused = &'static str;

/// Whether `line` (the first line the agent reads) is a provisioning line.
pub fn is_line(line: &[u8]) -> bool {
    line.starts_with(MAGIC_HEX)
}

/// Decode the provisioning `line` (hexadecimal) in place: the block is its first half.
pub fn decode(line: &mut [u8]) -> Result<&[u8], Refused> {
    const BAD: Refused = "the provisioning line is not hexadecimal";
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(BAD),
    };
    if !line.len().is_multiple_of(2) {
        return Err(BAD);
    }
    let n = line.len() / 2;
    for i in 0..n {
        // Byte i is written after digits 2i and 2i + 1 are read; i <= 2i.
        let (Some(&hi), Some(&lo)) = (line.get(2 * i), line.get(2 * i + 1)) else {
            return Err(BAD);
        };
        let byte = (nibble(hi)? << 4) | nibble(lo)?;
        if let Some(slot) = line.get_mut(i) {
            *slot = byte;
        }
    }
    line.get(..n).ok_or(BAD)
}

impl Provision {
    /// Parse `block` (see the module documentation).
    pub fn parse(block: &[u8]) -> Result<Provision, Refused> {
        const NONE: Refused =
            "no provisioning block: start the agent with scripts/dev-agent-qemu.sh";
        let h: [u8; KEYS_AT] = block
            .get(..KEYS_AT)
            .and_then(|h| h.try_into().ok())
            .ok_or(NONE)?;
        let [m0, m1, m2, m3, version, count, hundredths, _, rest @ ..] = h;
        if [m0, m1, m2, m3] != *MAGIC || version != VERSION {
            return Err(NONE);
        }
        let [s0, s1, s2, s3, s4, s5, s6, s7, n0, n1, n2, n3, n4, n5, n6, n7, r0, r1, r2, r3] = rest;
        let start = u64::from_le_bytes([s0, s1, s2, s3, s4, s5, s6, s7]);
        let seed = [n0, n1, n2, n3, n4, n5, n6, n7];
        let timer_hz = u32::from_le_bytes([r0, r1, r2, r3]);
        let count = usize::from(count);
        #[cfg(feature = "seal")]
        let mut keys = [(0usize, 0usize); MAX_KEYS];
        #[cfg(feature = "seal")]
        {
            if count == 0 || count > MAX_KEYS {
                return Err("the provisioning block must carry 1 or 2 keys");
            }
            let mut at = KEYS_AT;
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
            start: (start, u32::from(hundredths % 100)),
            seed,
            timer_hz,
            #[cfg(feature = "seal")]
            keys,
            #[cfg(feature = "seal")]
            key_count: count,
        })
    }

    /// The key ring from the provisioned secrets (HKDF-SHA256 on the device, as
    /// `ELICIT_STATE_KEYS` is read by elicit-rmcp-server: the first key seals, all unseal).
    #[cfg(feature = "seal")]
    pub fn ring(&self, block: &[u8]) -> Result<KeyRing<MAX_KEYS>, Refused> {
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
/// Wall-clock time: the provisioned start plus the board's 100 Hz count, extended past its
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
