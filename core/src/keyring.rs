//! The key ring's text form, as `ELICIT_STATE_KEYS` (or a key file) holds it, and its one
//! parser.
//!
//! The text is comma-separated hex keys; white space around each key is ignored. The first
//! key seals, every key opens. Each key is [`MIN_KEY_LEN`] to [`MAX_KEY_LEN`] bytes (64 to
//! 256 hex digits, either case); a ring has 1 to [`MAX_KEYS`] keys, and a holder with
//! room for fewer (the no-alloc C surface and the firmware agent hold 2) passes its
//! capacity and gets an error naming it when the text has more.
//!
//! [`parse`] decodes into caller memory (no heap): a buffer of [`MAX_RING_BYTES`] holds
//! any ring. The buffer then holds the secrets: wipe it (e.g. `zeroize`) once the
//! `seal` key ring is derived from [`Keys::refs`]. Its errors name where the text came
//! from (the caller's `source` label: the variable's name, a file's path) and the key,
//! counted from 0, as every launcher and server reports it:
//!
//! ```
//! use elicit_core::keyring::{parse, MAX_KEYS, MAX_RING_BYTES};
//!
//! let text = format!(" {} ,{}", "ab".repeat(32), "CD".repeat(40));
//! let mut buf = [0u8; MAX_RING_BYTES];
//! let keys = parse(&text, "ELICIT_STATE_KEYS", MAX_KEYS, &mut buf).unwrap();
//! assert_eq!(keys.len(), 2);
//! assert_eq!(keys.get(1), Some(&[0xcd; 40][..]));
//!
//! let e = parse("ab,", "ELICIT_STATE_KEYS", MAX_KEYS, &mut buf).unwrap_err();
//! assert_eq!(e.to_string(), "ELICIT_STATE_KEYS: key 0 is 1 bytes; a key is 32 to 128 bytes (64 to 256 hex digits)");
//! ```

use core::fmt;
use core::ops::Deref;

/// Fewest bytes in a key (the MCP Python SDK's minimum for request-state secrets).
pub const MIN_KEY_LEN: usize = 32;
/// Most bytes in a key.
pub const MAX_KEY_LEN: usize = 128;
/// Most keys in a ring.
pub const MAX_KEYS: usize = 8;
/// Bytes that hold any ring: [`MAX_KEYS`] keys of [`MAX_KEY_LEN`] bytes.
pub const MAX_RING_BYTES: usize = MAX_KEYS * MAX_KEY_LEN;

/// A parsed ring: the keys, decoded into the caller's buffer, in the order given.
#[derive(Clone, Copy)]
pub struct Keys<'b> {
    bytes: &'b [u8],
    lens: [u8; MAX_KEYS],
    count: usize,
}

impl<'b> Keys<'b> {
    /// Number of keys (1 to [`MAX_KEYS`]).
    pub fn len(&self) -> usize {
        self.count
    }

    /// Never true: a parsed ring has at least one key.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Key `i` (0 seals), if there is one.
    pub fn get(&self, i: usize) -> Option<&'b [u8]> {
        self.iter().nth(i)
    }

    /// The keys in order.
    pub fn iter(&self) -> impl Iterator<Item = &'b [u8]> + '_ {
        let mut rest = self.bytes;
        self.lens.iter().take(self.count).map(move |&n| {
            let (key, tail) = rest.split_at(usize::from(n).min(rest.len()));
            rest = tail;
            key
        })
    }

    /// The keys as a slice of slices (what `seal::KeyRing::new` takes).
    pub fn refs(&self) -> Refs<'b> {
        let mut keys: [&'b [u8]; MAX_KEYS] = [&[]; MAX_KEYS];
        for (slot, key) in keys.iter_mut().zip(self.iter()) {
            *slot = key;
        }
        Refs {
            keys,
            count: self.count,
        }
    }
}

impl fmt::Debug for Keys<'_> {
    /// The key lengths only: the secrets stay out of logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keys")
            .field("lens", &self.lens.get(..self.count).unwrap_or(&[]))
            .finish()
    }
}

/// [`Keys::refs`]: the keys as `&[&[u8]]`.
#[derive(Clone, Copy)]
pub struct Refs<'b> {
    keys: [&'b [u8]; MAX_KEYS],
    count: usize,
}

impl<'b> Deref for Refs<'b> {
    type Target = [&'b [u8]];
    fn deref(&self) -> &Self::Target {
        self.keys.get(..self.count).unwrap_or(&[])
    }
}

/// What is wrong with a ring's text ([`ParseError::problem`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// The text holds no key at all (empty or white space).
    NoKeys,
    /// More keys than the holder keeps.
    TooMany {
        /// Keys in the text.
        count: usize,
        /// Keys the holder keeps.
        capacity: usize,
    },
    /// Key `key` is empty (two commas in a row, or a trailing comma).
    EmptyKey {
        /// Its index, from 0.
        key: usize,
    },
    /// Key `key` has an odd number of hex digits.
    OddDigits {
        /// Its index, from 0.
        key: usize,
    },
    /// Key `key` has a character that is not a hex digit.
    NotHex {
        /// Its index, from 0.
        key: usize,
    },
    /// Key `key` is shorter than [`MIN_KEY_LEN`] or longer than [`MAX_KEY_LEN`] bytes.
    KeyLength {
        /// Its index, from 0.
        key: usize,
        /// Its length in bytes.
        bytes: usize,
    },
    /// The caller's buffer is smaller than the keys ([`MAX_RING_BYTES`] always fits).
    Buffer {
        /// Bytes the keys need.
        needed: usize,
    },
}

/// A ring's text was refused: where it came from and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError<'s> {
    /// The caller's label for the text (`"ELICIT_STATE_KEYS"`, a file path).
    pub source: &'s str,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for ParseError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.source;
        match self.problem {
            Problem::NoKeys => write!(
                f,
                "{s}: no key; give 1 to {MAX_KEYS} comma-separated hex keys of {MIN_KEY_LEN} to {MAX_KEY_LEN} bytes"
            ),
            Problem::TooMany { count, capacity } => write!(
                f,
                "{s}: {count} keys given, at most {capacity} are held here; drop retired ones (the first seals, every key opens)"
            ),
            Problem::EmptyKey { key } => write!(f, "{s}: key {key} is empty"),
            Problem::OddDigits { key } => {
                write!(f, "{s}: key {key} has an odd number of hex digits")
            }
            Problem::NotHex { key } => write!(f, "{s}: key {key} is not hex"),
            Problem::KeyLength { key, bytes } => write!(
                f,
                "{s}: key {key} is {bytes} bytes; a key is {MIN_KEY_LEN} to {MAX_KEY_LEN} bytes ({} to {} hex digits)",
                2 * MIN_KEY_LEN,
                2 * MAX_KEY_LEN
            ),
            Problem::Buffer { needed } => write!(
                f,
                "{s}: the keys need a {needed}-byte buffer; pass one of MAX_RING_BYTES ({MAX_RING_BYTES})"
            ),
        }
    }
}

impl core::error::Error for ParseError<'_> {}

fn nibble(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Parse the ring `text` (from `source`, the label errors carry) into `buf`, keeping at
/// most `capacity` keys (clamped to [`MAX_KEYS`]). The first error in text order wins:
/// the key count, then each key from the first.
pub fn parse<'b, 's>(
    text: &str,
    source: &'s str,
    capacity: usize,
    buf: &'b mut [u8],
) -> Result<Keys<'b>, ParseError<'s>> {
    let fail = |problem| ParseError { source, problem };
    if text.trim().is_empty() {
        return Err(fail(Problem::NoKeys));
    }
    let capacity = capacity.min(MAX_KEYS);
    let count = text.split(',').count();
    if count > capacity {
        return Err(fail(Problem::TooMany { count, capacity }));
    }
    let mut lens = [0u8; MAX_KEYS];
    let mut used = 0usize;
    for ((key, part), len) in text.split(',').enumerate().zip(lens.iter_mut()) {
        let hex = part.trim().as_bytes();
        if hex.is_empty() {
            return Err(fail(Problem::EmptyKey { key }));
        }
        if hex.len() % 2 != 0 {
            return Err(fail(Problem::OddDigits { key }));
        }
        if hex.iter().any(|&b| nibble(b).is_none()) {
            return Err(fail(Problem::NotHex { key }));
        }
        let bytes = hex.len() / 2;
        if !(MIN_KEY_LEN..=MAX_KEY_LEN).contains(&bytes) {
            return Err(fail(Problem::KeyLength { key, bytes }));
        }
        let needed = used + bytes;
        let Some(out) = buf.get_mut(used..needed) else {
            // Report what the whole ring needs.
            let rest: usize = text.split(',').skip(key).map(|p| p.trim().len() / 2).sum();
            return Err(fail(Problem::Buffer {
                needed: used + rest,
            }));
        };
        for (o, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
            if let [hi, lo] = *pair {
                *o = (nibble(hi).unwrap_or(0) << 4) | nibble(lo).unwrap_or(0);
            }
        }
        *len = bytes as u8;
        used = needed;
    }
    Ok(Keys {
        bytes: buf.get(..used).unwrap_or(&[]),
        lens,
        count,
    })
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::{String, ToString};

    const SRC: &str = "ELICIT_STATE_KEYS";

    fn key(b: &str, n: usize) -> String {
        b.repeat(n)
    }

    fn err(text: &str, capacity: usize) -> ParseError<'static> {
        let mut buf = [0u8; MAX_RING_BYTES];
        parse(text, SRC, capacity, &mut buf).unwrap_err()
    }

    #[test]
    fn parses_in_order_with_white_space_around_keys() {
        let text = std::format!("\t{}\n , {} ", key("0f", 32), key("A1", 128));
        let mut buf = [0u8; MAX_RING_BYTES];
        let keys = parse(&text, SRC, MAX_KEYS, &mut buf).unwrap();
        assert_eq!(keys.len(), 2);
        assert_eq!(keys.get(0), Some(&[0x0f; 32][..]));
        assert_eq!(keys.get(1), Some(&[0xa1; 128][..]));
        assert_eq!(keys.get(2), None);
        let refs = keys.refs();
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[1].len(), 128);
        assert_eq!(std::format!("{keys:?}"), "Keys { lens: [32, 128] }");
    }

    #[test]
    fn eight_keys_of_the_largest_size_fill_the_buffer() {
        let text = std::vec![key("ff", 128); MAX_KEYS].join(",");
        let mut buf = [0u8; MAX_RING_BYTES];
        assert_eq!(parse(&text, SRC, MAX_KEYS, &mut buf).unwrap().len(), 8);
        let nine = std::format!("{text},{}", key("ff", 32));
        assert_eq!(
            err(&nine, 100).problem,
            Problem::TooMany {
                count: 9,
                capacity: 8
            }
        );
    }

    #[test]
    fn errors_name_the_source_and_the_key() {
        let good = key("ab", 32);
        let cases = [
            ("", "ELICIT_STATE_KEYS: no key; give 1 to 8 comma-separated hex keys of 32 to 128 bytes"),
            (" \n", "ELICIT_STATE_KEYS: no key; give 1 to 8 comma-separated hex keys of 32 to 128 bytes"),
            (&std::format!("{good},"), "ELICIT_STATE_KEYS: key 1 is empty"),
            (&std::format!("{good}, ,{good}"), "ELICIT_STATE_KEYS: key 1 is empty"),
            (&std::format!("{good}a"), "ELICIT_STATE_KEYS: key 0 has an odd number of hex digits"),
            (&std::format!("{good},{}", key("zz", 32)), "ELICIT_STATE_KEYS: key 1 is not hex"),
            (&key("ab", 16), "ELICIT_STATE_KEYS: key 0 is 16 bytes; a key is 32 to 128 bytes (64 to 256 hex digits)"),
            (&std::format!("{good},{}", key("ab", 129)), "ELICIT_STATE_KEYS: key 1 is 129 bytes; a key is 32 to 128 bytes (64 to 256 hex digits)"),
            // Inner white space is not around the key.
            (&std::format!("{} {}", key("ab", 16), key("ab", 16)), "ELICIT_STATE_KEYS: key 0 has an odd number of hex digits"),
            (&std::format!("{}  {}", key("ab", 16), key("ab", 16)), "ELICIT_STATE_KEYS: key 0 is not hex"),
            // A sign or prefix is not hex either.
            (&std::format!("0x{}", key("ab", 32)), "ELICIT_STATE_KEYS: key 0 is not hex"),
        ];
        for (text, want) in cases {
            assert_eq!(err(text, MAX_KEYS).to_string(), want, "{text:?}");
        }
    }

    #[test]
    fn a_smaller_holder_reports_its_capacity() {
        let good = key("ab", 32);
        let e = err(&std::format!("{good},{good},{good}"), 2);
        assert_eq!(
            e.to_string(),
            "ELICIT_STATE_KEYS: 3 keys given, at most 2 are held here; drop retired ones (the first seals, every key opens)"
        );
        let mut buf = [0u8; MAX_RING_BYTES];
        let e = parse(&good, "/etc/elicit/keys", 2, &mut buf);
        assert_eq!(e.map(|k| k.len()), Ok(1));
    }

    #[test]
    fn a_short_buffer_reports_the_size_needed() {
        let text = std::format!("{},{}", key("ab", 32), key("cd", 40));
        let mut buf = [0u8; 50];
        let e = parse(&text, SRC, MAX_KEYS, &mut buf).unwrap_err();
        assert_eq!(e.problem, Problem::Buffer { needed: 72 });
        let mut buf = [0u8; 72];
        assert_eq!(
            parse(&text, SRC, MAX_KEYS, &mut buf).map(|k| k.len()),
            Ok(2)
        );
    }

    #[test]
    fn every_last_byte_is_checked() {
        // Every byte value as a key's last: only [0-9a-fA-F] decode; white space is
        // trimmed (leaving an odd count); anything else is not hex.
        let mut buf = [0u8; MAX_RING_BYTES];
        for b in (0..=127u8).filter(|&b| b != b',') {
            let mut bytes = key("00", 32).into_bytes();
            bytes[63] = b;
            let text = std::str::from_utf8(&bytes).unwrap();
            let got = parse(text, SRC, 1, &mut buf).map(|k| k.get(0).map(|k| k[31]));
            let want = match (b as char).to_digit(16) {
                Some(d) => Ok(Some(d as u8)),
                None if (b as char).is_whitespace() => Err(Problem::OddDigits { key: 0 }),
                None => Err(Problem::NotHex { key: 0 }),
            };
            assert_eq!(got.map_err(|e| e.problem), want, "{b:#x}");
        }
    }
}
