//! Digests: the one SHA-256 front end ([`Sha256`], a [`Sink`] over sha2's block function)
//! and the one base64url (unpadded) codec.
//!
//! Everything the engine hashes goes through [`Sha256`]: question digests, the type
//! identity check, and the seal's argument digest, key id and principal tag. Only HKDF
//! (seal's key derivation) hashes through `sha2::Sha256` itself, because the `hkdf` crate
//! is generic over sha2's `Digest` type.
//!
//! A question's digest (the reference's `_digest`) is SHA-256 over the sorted-key,
//! compact, ASCII-escaped JSON of the request params, first 16 bytes ([`short`]),
//! written as 22 characters of base64url ([`question`]).
//!
//! The base64url codec is hand-written rather than the `base64` crate's engine: the crate
//! costs a firmware about 1 KB of flash. Its tests check it against the crate.

use crate::json::Sink;
use sha2::digest::generic_array::GenericArray;
use sha2::digest::typenum::U64;

/// SHA-256 over many small writes, on the block function directly: short writes gather
/// in one 64-byte block (no second buffer, no per-`update` bookkeeping), whole blocks of
/// a long write go straight to the compressor.
pub(crate) struct Sha256 {
    state: [u32; 8],
    block: [u8; 64],
    /// Bytes in `block` (always below 64).
    len: usize,
    /// Blocks compressed so far (a `usize`, not a byte count in a `u64`: the sink stays
    /// 4-byte aligned on 32-bit targets, so creating one clears it with the same routine
    /// as every other buffer; 2^32 blocks are 256 GiB).
    blocks: usize,
}

/// SHA-256's initial hash value.
const SHA256_H0: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

fn compress(state: &mut [u32; 8], block: &[u8; 64]) {
    let block: &sha2::digest::generic_array::GenericArray<u8, _> = block.into();
    sha2::compress256(state, core::slice::from_ref(block));
}

impl Sha256 {
    pub(crate) fn new() -> Self {
        Sha256 {
            state: SHA256_H0,
            block: [0; 64],
            len: 0,
            blocks: 0,
        }
    }

    /// [`Sink::put`] of `bytes` that fill the block (`room` bytes left in it): out of
    /// line, so the common write into the block saves and restores no registers.
    #[inline(never)]
    fn put_filling(&mut self, mut bytes: &[u8], room: usize) {
        // Fill the block and compress it, then whole blocks straight from `bytes`.
        let (head, rest) = bytes.split_at(room);
        if let Some(dst) = self.block.get_mut(self.len..) {
            dst.copy_from_slice(head);
        }
        compress(&mut self.state, &self.block);
        self.blocks += 1;
        bytes = rest;
        let (whole, tail) = bytes.as_chunks::<64>();
        for b in whole {
            compress(&mut self.state, b);
            self.blocks += 1;
        }
        if let Some(dst) = self.block.get_mut(..tail.len()) {
            dst.copy_from_slice(tail);
        }
        self.len = tail.len();
    }

    /// The digest of everything written.
    pub(crate) fn finish(&mut self) -> [u8; 32] {
        let bits = (self.blocks as u64 * 64 + self.len as u64).wrapping_mul(8);
        // The padding, in place: 0x80, zeros, and the bit length in the last 8 bytes of
        // the block (of a second block when fewer than 9 bytes are left in this one).
        // Zeros are copied from a constant (a fill would link one more routine on
        // devices).
        const PAD: [u8; 64] = {
            let mut p = [0u8; 64];
            p[0] = 0x80;
            p
        };
        let len = self.len;
        if len >= 56 {
            if let (Some(rest), Some(pad)) = (self.block.get_mut(len..), PAD.get(..64 - len)) {
                rest.copy_from_slice(pad);
            }
            compress(&mut self.state, &self.block);
            if let (Some(head), Some(zeros)) = (self.block.get_mut(..56), PAD.get(8..)) {
                head.copy_from_slice(zeros);
            }
        } else if let (Some(rest), Some(pad)) = (self.block.get_mut(len..56), PAD.get(..56 - len)) {
            rest.copy_from_slice(pad);
        }
        if let Some(tail) = self.block.get_mut(56..) {
            tail.copy_from_slice(&bits.to_be_bytes());
        }
        compress(&mut self.state, &self.block);
        let mut out = [0u8; 32];
        for (o, w) in out.chunks_exact_mut(4).zip(self.state) {
            o.copy_from_slice(&w.to_be_bytes());
        }
        out
    }
}

impl Sink for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        let room = 64 - self.len;
        if bytes.len() < room {
            if let Some(dst) = self.block.get_mut(self.len..self.len + bytes.len()) {
                crate::json::copy_bytes(dst, bytes);
            }
            self.len += bytes.len();
            return;
        }
        self.put_filling(bytes, room);
    }
}

/// A question's digest as the state and the wire carry it: 22 characters of base64url
/// (16 bytes of SHA-256). Kept as text from the moment it is computed, so rounds compare
/// and write it without encoding it again.
pub(crate) type QDigest = [u8; 22];

/// The digest of the question whose request params `write` writes (in their digest
/// form), as text ([`short`], then base64url) into `out`.
///
/// Written into the caller's memory rather than returned: 22 bytes come back as two
/// overlapping moves, and reading them straight after was a store-forwarding stall once
/// per resolver question (PERF.md).
pub(crate) fn question(write: impl FnOnce(&mut dyn Sink), out: &mut QDigest) {
    b64_encode(&short(write), out);
}

/// The digest of a form question that is a message alone with a shorthand schema, as
/// text into `out`, when `message` renders as it is in the digest form (no escape,
/// nothing past `~`): its digest form, `{"message":"`, `message` and `tail`, is laid
/// out in sha2's blocks with SHA-256's padding (the message checked word by word first)
/// and hashed by one call of the block function, with no sink between. `false` (`out`
/// untouched) when the message needs escapes or the whole takes more than five blocks (a
/// message over some 160 bytes); the caller then checks it and writes it through
/// [`question`].
///
/// A second writer of one digest form, for the one case that sits on the hottest path
/// (`Round::resolve_message`, which firmware does not link): against the sink, it saves
/// the scan that checks the message, a call per piece, the block bookkeeping and the
/// state's store and load between blocks (chain-8 final −9 % natively, PERF.md). A test
/// pins it to the sink's digest for every shorthand type and length.
pub(crate) fn message_question(message: &[u8], tail: &[u8], out: &mut QDigest) -> bool {
    let len = MESSAGE_HEAD.len() + message.len() + tail.len();
    // The 0x80 byte and the 8-byte length follow the text: three blocks hold a message
    // of some 30 bytes, five one of some 160 (as few blocks as will do are cleared).
    let state = match len + 9 {
        n if n > 5 * 64 || !crate::json::verbatim_ascii(message) => return false,
        n if n > 3 * 64 => hash_message::<5>(message, tail, len),
        _ => hash_message::<3>(message, tail, len),
    };
    let mut short = [0u8; 16];
    for (o, w) in short.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    b64_encode(&short, out);
    true
}

/// What a form question's digest form starts with (its message follows).
const MESSAGE_HEAD: &[u8] = b"{\"message\":\"";

/// SHA-256's state after hashing [`MESSAGE_HEAD`], `message` and `tail` (`len` bytes in
/// all, which with the padding fit `B` blocks), laid out in sha2's blocks and hashed by
/// one call of the block function (a call per block stores and loads the state between
/// blocks).
fn hash_message<const B: usize>(message: &[u8], tail: &[u8], len: usize) -> [u32; 8] {
    let mut blocks: [GenericArray<u8, U64>; B] = core::array::from_fn(|_| GenericArray::default());
    let mut at = 0;
    for part in [MESSAGE_HEAD, message, tail, &[0x80]] {
        put_across(&mut blocks, at, part);
        at += part.len();
    }
    let end = (len + 9).div_ceil(64);
    put_across(&mut blocks, end * 64 - 8, &(len as u64 * 8).to_be_bytes());
    let mut state = SHA256_H0;
    sha2::compress256(&mut state, blocks.get(..end).unwrap_or_default());
    state
}

/// Copy `bytes` into `blocks` from byte `at` of them end to end (what does not fit is
/// left out).
fn put_across(blocks: &mut [GenericArray<u8, U64>], mut at: usize, mut bytes: &[u8]) {
    while let (Some(block), false) = (blocks.get_mut(at / 64), bytes.is_empty()) {
        let off = at % 64;
        let n = (64 - off).min(bytes.len());
        let (head, rest) = bytes.split_at(n);
        if let Some(dst) = block.get_mut(off..off + n) {
            dst.copy_from_slice(head);
        }
        at += n;
        bytes = rest;
    }
}

/// The first 16 bytes of the SHA-256 of what `write` writes: a digest as the reference
/// pins answers to it.
pub(crate) fn short(write: impl FnOnce(&mut dyn Sink)) -> [u8; 16] {
    let mut h = Sha256::new();
    write(&mut h);
    let full = h.finish();
    let mut out = [0u8; 16];
    for (o, b) in out.iter_mut().zip(full) {
        *o = b;
    }
    out
}

/// The base64url alphabet.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The character for the low 6 bits of `n`.
fn sextet_char(n: u32) -> u8 {
    // In bounds (a 6-bit index): the check compiles away.
    ALPHABET.get((n & 63) as usize).copied().unwrap_or(b'A')
}

/// base64url (no padding) of a 16-byte digest: 22 ASCII bytes (sealing's arguments
/// digest; a question's digest is written in place by [`question`]).
#[cfg(any(feature = "seal", feature = "test-helpers", test))]
pub(crate) fn digest_text(d: &[u8; 16]) -> [u8; 22] {
    // Starts as a copy of a constant, not zeroed: zeroing 22 bytes links one more
    // memset variant on small targets.
    let mut out = *b"AAAAAAAAAAAAAAAAAAAAAA";
    b64_encode(d, &mut out);
    out
}

/// Length of the base64url (unpadded) text for `n` bytes.
#[cfg(any(feature = "seal", test))]
pub(crate) const fn b64_len(n: usize) -> usize {
    n / 3 * 4
        + match n % 3 {
            0 => 0,
            1 => 2,
            _ => 3,
        }
}

/// Base64url-encode `src` without padding into the first [`b64_len`]`(src.len())` bytes
/// of `dst` (what does not fit is left out); returns that length.
pub(crate) fn b64_encode(src: &[u8], dst: &mut [u8]) -> usize {
    let (whole, rest) = src.as_chunks::<3>();
    let mut w = 0;
    let mut out = dst.iter_mut();
    // Whole 3-byte groups: 4 characters each.
    for &[a, b, c] in whole {
        let n = (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c);
        for shift in [18, 12, 6, 0] {
            if let Some(o) = out.next() {
                *o = sextet_char(n >> shift);
            }
        }
        w += 4;
    }
    // 1 or 2 bytes left: 2 or 3 characters.
    if !rest.is_empty() {
        let mut n = 0u32;
        for (i, &b) in rest.iter().enumerate() {
            n |= u32::from(b) << (16 - 8 * i);
        }
        for k in 0..=rest.len() {
            if let Some(o) = out.next() {
                *o = sextet_char(n >> (18 - 6 * k));
            }
            w += 1;
        }
    }
    w
}

/// Strictly decode unpadded base64url `src` into `dst` (exactly
/// [`b64_decoded_len`]`(src.len())` bytes long), as the base64 crate's `URL_SAFE_NO_PAD`
/// engine does: no padding, no character outside the alphabet, no length of 1 mod 4,
/// no nonzero bits after the last byte (a non-canonical text). `None` when it is not.
#[cfg(feature = "seal")]
pub(crate) fn b64_decode(src: &[u8], dst: &mut [u8]) -> Option<()> {
    if Some(dst.len()) != b64_decoded_len(src.len()) {
        return None;
    }
    // Per group of 4 (the last may be 2 or 3): a table load a character, then one
    // check: no character outside the alphabet (bit 6 of a sextet) and no nonzero bits
    // below the last whole byte (a canonical text).
    for (group, out) in src.chunks(4).zip(dst.chunks_mut(3)) {
        let (mut n, mut bad) = (0u32, 0u32);
        for (i, &c) in group.iter().enumerate() {
            let s = sextet(c);
            bad |= s;
            n |= (s & 63) << (18 - 6 * i);
        }
        if bad & 64 != 0 || n & (0xFF_FFFF >> (8 * out.len())) != 0 {
            return None;
        }
        for (i, b) in out.iter_mut().enumerate() {
            *b = (n >> (16 - 8 * i)) as u8;
        }
    }
    Some(())
}

/// The 6 bits of the base64url characters from `-` to `z` (the alphabet's span), 64 for
/// the bytes between them outside the alphabet: a table load a character is as fast on
/// a server as comparisons and, at 78 bytes, smaller on the firmware than comparisons
/// inlined at each use.
#[cfg(feature = "seal")]
// Built at compile time: an index out of bounds fails the build, it cannot panic.
#[allow(clippy::indexing_slicing)]
static SEXTETS: [u8; 78] = {
    let mut t = [64u8; 78];
    let mut i = 0;
    while i < 64 {
        t[(ALPHABET[i] - b'-') as usize] = i as u8;
        i += 1;
    }
    t
};

/// The 6 bits of one base64url character, with bit 6 set when it is outside the
/// alphabet.
#[cfg(feature = "seal")]
#[inline(always)]
fn sextet(c: u8) -> u32 {
    u32::from(
        SEXTETS
            .get(usize::from(c.wrapping_sub(b'-')))
            .copied()
            .unwrap_or(64),
    )
}

/// Length of the bytes an unpadded base64url text of `chars` characters decodes to, or
/// `None` when no canonical text has that length.
#[cfg(feature = "seal")]
pub(crate) const fn b64_decoded_len(chars: usize) -> Option<usize> {
    match chars % 4 {
        1 => None,
        2 => Some(chars / 4 * 3 + 1),
        3 => Some(chars / 4 * 3 + 2),
        _ => Some(chars / 4 * 3),
    }
}

/// The digest of arbitrary ElicitRequest params (a JSON object): SHA-256 over the
/// sorted-key, compact, ASCII-escaped rendering, first 16 bytes, base64url without
/// padding — exactly the reference's `_digest`. A test and oracle helper (feature
/// `test-helpers`).
#[cfg(feature = "test-helpers")]
pub fn digest_params(params: crate::json::Value<'_>) -> [u8; 22] {
    digest_text(&short(|h| {
        crate::json::write_value(params, crate::json::Style::DIGEST, h)
    }))
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    use sha2::Digest;

    /// The block-level hasher agrees with sha2's own for every length around the
    /// padding boundaries, written in one piece or in pieces of every size.
    #[test]
    fn sha256_is_sha2s() {
        let data: [u8; 300] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        // Every length natively; under miri every 7th (and the padding edges).
        let lengths =
            (0..data.len()).filter(|n| !cfg!(miri) || n % 7 == 0 || (54..=66).contains(n));
        for n in lengths {
            let want: [u8; 32] = sha2::Sha256::digest(&data[..n]).into();
            for piece in [1, 3, 13, 63, 64, 65, 129, 300] {
                let mut h = Sha256::new();
                for chunk in data[..n].chunks(piece) {
                    h.put(chunk);
                }
                assert_eq!(h.finish(), want, "length {n} in pieces of {piece}");
            }
        }
    }

    #[test]
    fn b64_encode_is_the_crates() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in 0..70 {
            let src: std::vec::Vec<u8> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let mut want = [0u8; 96];
            let m = URL_SAFE_NO_PAD.encode_slice(&src, &mut want).expect("room");
            let want = &want[..m];
            let mut dst = [0u8; 96];
            let w = b64_encode(&src, &mut dst);
            assert_eq!(w, b64_len(n));
            assert_eq!(&dst[..w], want, "{n} bytes");
            // A short destination keeps what fits and still reports the full length.
            let mut short_dst = [0u8; 5];
            assert_eq!(b64_encode(&src, &mut short_dst), b64_len(n));
            let k = w.min(5);
            assert_eq!(&short_dst[..k], &want[..k]);
        }
    }

    #[cfg(feature = "seal")]
    #[test]
    fn b64_decode_is_the_crates() {
        const CH: &[u8] = b"AQgw_-9zaZ=+/. \x80";
        let mut x = 0x2545_F491u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut ok = 0;
        // Fewer under miri (hours for all).
        let rounds = if cfg!(miri) { 2_000 } else { 200_000 };
        for _ in 0..rounds {
            let n = (next() % 12) as usize;
            let text: std::vec::Vec<u8> = (0..n)
                .map(|_| {
                    let r = next();
                    // Mostly alphabet characters, some of them junk.
                    if r % 8 == 0 {
                        CH[(r >> 8) as usize % CH.len()]
                    } else {
                        CH[(r >> 8) as usize % 6]
                    }
                })
                .collect();
            let Some(m) = b64_decoded_len(n) else {
                continue;
            };
            let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
            let mine = b64_decode(&text, &mut a[..m]);
            let theirs = URL_SAFE_NO_PAD.decode_slice(&text, &mut b[..m]);
            assert_eq!(mine.is_some(), theirs == Ok(m), "{text:?}");
            assert_eq!(a, b);
            ok += usize::from(mine.is_some());
        }
        assert!(ok > rounds / 200);
    }

    #[cfg(feature = "seal")]
    #[test]
    fn lengths() {
        for n in 0..100usize {
            let chars = b64_len(n);
            assert_eq!(b64_decoded_len(chars), Some(n));
        }
        assert_eq!(b64_decoded_len(5), None);
    }

    #[test]
    fn digest_text_is_the_crates() {
        for seed in 0..64u8 {
            let d: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ seed);
            let mut want = [0u8; 22];
            let m = URL_SAFE_NO_PAD.encode_slice(d, &mut want).expect("room");
            assert_eq!(m, 22);
            assert_eq!(digest_text(&d), want);
        }
    }
}
