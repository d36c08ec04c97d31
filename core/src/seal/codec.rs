//! The token codec: the SDK's `AESGCMRequestStateCodec`, byte for byte.

use core::fmt;

use crate::digest::{b64_decode, b64_decoded_len, b64_encode, b64_len, Sha256};
use crate::json::Sink;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::gcm::Gcm;
use super::{Reason, SealError, UnsealError};

/// The format prefix every token starts with; it is also bound into the GCM associated data.
pub const TOKEN_PREFIX: &str = "v1.";
/// Length of the public key fingerprint (kid) that follows the prefix.
pub const KID_LEN: usize = 4;
/// Length of the AES-GCM nonce.
pub const NONCE_LEN: usize = 12;
/// Length of the AES-GCM authentication tag.
pub const TAG_LEN: usize = 16;
/// Shortest operator secret a [`KeyRing`] accepts (the SDK refuses shorter ones).
pub const MIN_KEY_LEN: usize = crate::keyring::MIN_KEY_LEN;

const KDF_INFO: &[u8] = b"mcp/request-state/v1/aes-256-gcm";
const KID_INFO: &[u8] = b"mcp/request-state/v1/kid:";
const HEADER_LEN: usize = KID_LEN + NONCE_LEN;
/// Shortest decoded token body: kid, nonce and tag around an empty ciphertext.
const MIN_RAW_LEN: usize = HEADER_LEN + TAG_LEN;
const PREFIX_LEN: usize = TOKEN_PREFIX.len();

/// Stretch an operator secret into the AES-256 key, as the SDK's `_derive_key` does:
/// HKDF-SHA256 with no salt (RFC 5869: 32 zero bytes) and info
/// `mcp/request-state/v1/aes-256-gcm`, 32 bytes of output.
///
/// On the engine's own SHA-256 (the question digests'): the hkdf and hmac crates' generic
/// digest plumbing cost about 1 KB of flash on a device for these two HMACs.
///
/// The result is wiped when dropped.
pub fn derive_key(secret: &[u8]) -> Zeroizing<[u8; 32]> {
    // Extract: PRK = HMAC(salt, secret), the absent salt being HashLen zero bytes.
    let prk = hmac_sha256(&[0; 32], &[secret]);
    // Expand: 32 bytes are the first block, T(1) = HMAC(PRK, info ‖ 0x01).
    hmac_sha256(&prk, &[KDF_INFO, &[1]])
}

/// HMAC-SHA256 (RFC 2104) under a 32-byte key (shorter than the block: zero-padded, never
/// hashed) over the concatenation of `parts`.
fn hmac_sha256(key: &[u8; 32], parts: &[&[u8]]) -> Zeroizing<[u8; 32]> {
    const IPAD: u8 = 0x36;
    const OPAD: u8 = 0x5c;
    let mut pad = Zeroizing::new([IPAD; 64]);
    for (p, k) in pad.iter_mut().zip(key) {
        *p ^= k;
    }
    let mut inner = Sha256::new();
    inner.put(&pad[..]);
    for part in parts {
        inner.put(part);
    }
    let inner = Zeroizing::new(inner.finish());
    for p in pad.iter_mut() {
        *p ^= IPAD ^ OPAD;
    }
    let mut outer = Sha256::new();
    outer.put(&pad[..]);
    outer.put(&inner[..]);
    Zeroizing::new(outer.finish())
}

/// The public fingerprint of a derived key: the first 4 bytes of
/// SHA-256(`mcp/request-state/v1/kid:` ‖ key).
pub fn key_id(key: &[u8; 32]) -> [u8; KID_LEN] {
    let mut h = Sha256::new();
    h.put(KID_INFO);
    h.put(key);
    let [a, b, c, d, ..] = h.finish();
    [a, b, c, d]
}

/// Length of the token sealing a payload of `payload_len` bytes.
pub const fn token_len(payload_len: usize) -> usize {
    PREFIX_LEN + b64_len(MIN_RAW_LEN + payload_len)
}

/// The GCM associated data: `v1.` ‖ kid.
fn aad(kid: &[u8; KID_LEN]) -> [u8; PREFIX_LEN + KID_LEN] {
    let mut aad = [0u8; PREFIX_LEN + KID_LEN];
    aad[..PREFIX_LEN].copy_from_slice(TOKEN_PREFIX.as_bytes());
    aad[PREFIX_LEN..].copy_from_slice(kid);
    aad
}

/// Why a [`KeyRing`] cannot be built. These mirror the `ValueError`s of the SDK's
/// `AESGCMRequestStateCodec` constructor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRingError {
    /// No key was given.
    Empty,
    /// More keys were given than the ring's capacity `N`.
    TooMany {
        /// The capacity.
        max: usize,
    },
    /// A secret is shorter than [`MIN_KEY_LEN`] bytes.
    KeyTooShort {
        /// Position of the offending key.
        index: usize,
        /// Its length in bytes.
        len: usize,
    },
    /// A secret derives the same key fingerprint as an earlier one (in practice: the same
    /// secret twice).
    DuplicateKey {
        /// Position of the repeated key.
        index: usize,
    },
}

impl fmt::Display for KeyRingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            KeyRingError::Empty => f.write_str("request-state key ring requires at least one key"),
            KeyRingError::TooMany { max } => {
                write!(f, "request-state key ring holds at most {max} keys")
            }
            KeyRingError::KeyTooShort { index, len } => write!(
                f,
                "request-state keys must be at least {MIN_KEY_LEN} bytes of secret randomness; \
                 keys[{index}] is {len} bytes"
            ),
            KeyRingError::DuplicateKey { index } => {
                write!(f, "keys[{index}] duplicates an earlier ring key")
            }
        }
    }
}

impl core::error::Error for KeyRingError {}

/// One ring key: its fingerprint and the cipher, expanded once when the ring is built
/// (the AES round keys and the GHASH key, wiped on drop), so sealing and unsealing do
/// not expand the key again on the stack each time.
struct RingKey {
    kid: [u8; KID_LEN],
    cipher: Gcm,
}

impl RingKey {
    fn new(key: &Zeroizing<[u8; 32]>) -> Self {
        RingKey {
            kid: key_id(key),
            cipher: Gcm::new(key),
        }
    }

    fn cipher(&self) -> &Gcm {
        &self.cipher
    }
}

/// A rotation ring of up to `N` AES-256-GCM keys: the first key seals, every key unseals.
///
/// This is the SDK's `AESGCMRequestStateCodec`. Each operator secret (at least 32 bytes; a
/// `str` key in Python is its UTF-8 bytes) is stretched with [`derive_key`] and looked up
/// by its public [`key_id`]. The ring keeps each key expanded (AES-256 round keys and the
/// GHASH key, about 0.5 KB per key on a 32-bit target without AES instructions) rather than
/// expanding it again on the stack for every seal and unseal; the derived key is wiped
/// once expanded, and the expanded keys are wiped when the ring is dropped.
///
/// Zero-downtime rotation, as the SDK documents it, each phase fully rolled out before the
/// next: `[old, new]`, then `[new, old]`, then `[new]` after one TTL.
///
/// The codec level ([`KeyRing::seal_payload`] / [`KeyRing::unseal_payload`]) seals opaque
/// bytes; [`Sealer`](super::Sealer) adds the claims envelope on top.
pub struct KeyRing<const N: usize> {
    keys: heapless::Vec<RingKey, N>,
}

impl<const N: usize> fmt::Debug for KeyRing<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Kid([u8; KID_LEN]);
        impl fmt::Debug for Kid {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for b in self.0 {
                    write!(f, "{b:02x}")?;
                }
                Ok(())
            }
        }
        f.debug_struct("KeyRing")
            .field("kids", &f_list(self.keys.iter().map(|k| Kid(k.kid))))
            .finish_non_exhaustive()
    }
}

fn f_list<I: Iterator<Item = T> + Clone, T: fmt::Debug>(items: I) -> impl fmt::Debug {
    struct L<I>(I);
    impl<I: Iterator<Item = T> + Clone, T: fmt::Debug> fmt::Debug for L<I> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_list().entries(self.0.clone()).finish()
        }
    }
    L(items)
}

impl<const N: usize> KeyRing<N> {
    /// Build a ring from operator secrets; `secrets[0]` seals.
    ///
    /// Refuses an empty list, more than `N` secrets, a secret shorter than
    /// [`MIN_KEY_LEN`] bytes, and two secrets with the same fingerprint.
    pub fn new(secrets: &[&[u8]]) -> Result<Self, KeyRingError> {
        if secrets.is_empty() {
            return Err(KeyRingError::Empty);
        }
        if secrets.len() > N {
            return Err(KeyRingError::TooMany { max: N });
        }
        for (index, secret) in secrets.iter().enumerate() {
            if secret.len() < MIN_KEY_LEN {
                return Err(KeyRingError::KeyTooShort {
                    index,
                    len: secret.len(),
                });
            }
        }
        let mut keys = heapless::Vec::new();
        for (index, secret) in secrets.iter().enumerate() {
            let key = derive_key(secret);
            let kid = key_id(&key);
            if keys.iter().any(|k: &RingKey| bool::from(k.kid.ct_eq(&kid))) {
                return Err(KeyRingError::DuplicateKey { index });
            }
            if keys.push(RingKey::new(&key)).is_err() {
                return Err(KeyRingError::TooMany { max: N });
            }
        }
        Ok(KeyRing { keys })
    }

    /// Number of keys in the ring (at least 1).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always false: a ring holds at least one key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The fingerprint of the sealing key (the first one).
    pub fn sealing_kid(&self) -> [u8; KID_LEN] {
        // `new` refuses an empty ring, so the first key is always there.
        self.keys.first().map_or([0; KID_LEN], |k| k.kid)
    }

    /// The fingerprints of all keys, sealing key first.
    pub fn kids(&self) -> impl Iterator<Item = [u8; KID_LEN]> + '_ {
        self.keys.iter().map(|k| k.kid)
    }

    fn find(&self, kid: &[u8; KID_LEN]) -> Option<&RingKey> {
        // The kid is public, but scan the whole ring anyway so the lookup time does not
        // depend on which slot matched.
        let mut found = None;
        for key in self.keys.iter() {
            if bool::from(key.kid.ct_eq(kid)) && found.is_none() {
                found = Some(key);
            }
        }
        found
    }

    /// Seal `payload` under the sealing key with the given `nonce`, writing the token
    /// (`v1.` + base64url(kid ‖ nonce ‖ ciphertext ‖ tag)) into `out`.
    ///
    /// `out` needs [`token_len`]`(payload.len())` bytes; a shorter buffer gives
    /// [`SealError::BufferTooSmall`] with that size. The nonce must be fresh random bytes
    /// for every call: reusing a nonce under one key breaks AES-GCM.
    pub fn seal_payload<'o>(
        &self,
        payload: &[u8],
        nonce: [u8; NONCE_LEN],
        out: &'o mut [u8],
    ) -> Result<&'o str, SealError> {
        self.seal_with(
            payload.len(),
            |buf, at| {
                let dst = buf.get_mut(at..)?.get_mut(..payload.len())?;
                dst.copy_from_slice(payload);
                Some(())
            },
            &nonce,
            out,
        )
    }

    /// Seal a payload of `payload_len` bytes that `write` puts at `buf[at..at +
    /// payload_len]` of the token's buffer it is given (`out[..token_len]`), so a caller can
    /// render straight into `out`. `write` runs before anything else is written to `out`,
    /// so it may read what the caller left there (see `Sealer::seal_in_place`). `write`
    /// answers `None` when a range it needs lies outside `buf` (never, when its sizes are
    /// `payload_len`'s parts), which is [`SealError::InvalidState`].
    pub(crate) fn seal_with<'o>(
        &self,
        payload_len: usize,
        write: impl FnOnce(&mut [u8], usize) -> Option<()>,
        nonce: &[u8; NONCE_LEN],
        out: &'o mut [u8],
    ) -> Result<&'o str, SealError> {
        let raw_len = MIN_RAW_LEN + payload_len;
        let total = PREFIX_LEN + b64_len(raw_len);
        let Some(buf) = out.get_mut(..total) else {
            return Err(SealError::BufferTooSmall { needed: total });
        };
        // Lay kid ‖ nonce ‖ payload ‖ tag at the end of the buffer, encrypt in place, then
        // base64-encode forwards over it: the text never overtakes the bytes still unread.
        let start = total - raw_len;
        // `new` refuses an empty ring, so the sealing key is always there.
        let mint = self.keys.first().ok_or(SealError::InvalidState)?;
        write(buf, start + HEADER_LEN).ok_or(SealError::InvalidState)?;
        // `buf` is exactly `total` bytes, so none of the ranges below can miss.
        let broken = || SealError::BufferTooSmall { needed: total };
        {
            // `buf[start..]` is `raw_len` bytes: kid ‖ nonce ‖ payload ‖ tag.
            let raw = buf.get_mut(start..).ok_or_else(broken)?;
            let (kid_out, rest) = raw.split_first_chunk_mut::<KID_LEN>().ok_or_else(broken)?;
            let (nonce_out, rest) = rest
                .split_first_chunk_mut::<NONCE_LEN>()
                .ok_or_else(broken)?;
            *kid_out = mint.kid;
            *nonce_out = *nonce;
            let (body, tag_out) = rest.split_at_mut_checked(payload_len).ok_or_else(broken)?;
            let tag = mint
                .cipher()
                .seal(nonce, &aad(&mint.kid), body)
                .ok_or(SealError::PayloadTooLarge)?;
            tag_out.copy_from_slice(&tag);
        }
        if let Some(prefix) = buf.get_mut(..PREFIX_LEN) {
            prefix.copy_from_slice(TOKEN_PREFIX.as_bytes());
        }
        encode_in_place(buf, start, PREFIX_LEN).ok_or_else(broken)?;
        // Base64url text after the ASCII prefix: always UTF-8.
        core::str::from_utf8(buf).map_err(|_| SealError::InvalidState)
    }

    /// Reverse [`KeyRing::seal_payload`]: check and decode `token`, find its key and open
    /// it, leaving the payload in `out` and returning it.
    ///
    /// The steps and their reasons are the SDK's: no `v1.` prefix, non-canonical base64url
    /// (padding, stray characters, non-zero trailing bits) or a body under 32 bytes is
    /// [`Reason::Malformed`]; a kid not in the ring is [`Reason::UnknownKey`]; a failed
    /// GCM open is [`Reason::Seal`]. `out` needs the decoded body length (less than
    /// `token.len()`); otherwise [`Reason::TooLarge`].
    pub fn unseal_payload<'o>(
        &self,
        token: &str,
        out: &'o mut [u8],
    ) -> Result<&'o [u8], UnsealError> {
        let raw_len = decode_token(token, out)?;
        let range = self.open(out, raw_len)?;
        Ok(out.get(range).ok_or(Reason::Malformed)?)
    }

    /// [`KeyRing::unseal_payload`] in place: the token's text lies in `buf[..len]`; it is
    /// decoded and opened there, and the payload returned is a slice of `buf`. The
    /// reasons are `unseal_payload`'s; [`Reason::TooLarge`] only when `len` exceeds
    /// `buf.len()`. The token is consumed (`buf` holds the decoded bytes afterwards).
    pub fn unseal_payload_in_place<'b>(
        &self,
        buf: &'b mut [u8],
        len: usize,
    ) -> Result<&'b [u8], UnsealError> {
        if len > buf.len() {
            return Err(Reason::TooLarge { needed: len }.into());
        }
        let raw_len = decode_token_in_place(buf, len)?;
        let range = self.open(buf, raw_len)?;
        Ok(buf.get(range).ok_or(Reason::Malformed)?)
    }

    /// Open the decoded token body `out[..raw_len]` in place; returns where the payload
    /// now lies.
    pub(crate) fn open(
        &self,
        out: &mut [u8],
        raw_len: usize,
    ) -> Result<core::ops::Range<usize>, Reason> {
        if raw_len < MIN_RAW_LEN {
            return Err(Reason::Malformed);
        }
        let raw = out.get_mut(..raw_len).ok_or(Reason::Malformed)?;
        let (kid, rest) = raw
            .split_first_chunk_mut::<KID_LEN>()
            .ok_or(Reason::Malformed)?;
        let (nonce, rest) = rest
            .split_first_chunk_mut::<NONCE_LEN>()
            .ok_or(Reason::Malformed)?;
        let (body, tag) = rest
            .split_last_chunk_mut::<TAG_LEN>()
            .ok_or(Reason::Malformed)?;
        let key = self.find(kid).ok_or(Reason::UnknownKey)?;
        if !key.cipher().open(nonce, &aad(kid), body, tag) {
            return Err(Reason::Seal);
        }
        Ok(HEADER_LEN..raw_len - TAG_LEN)
    }
}

/// Check the prefix of `token` and decode its body into `out`; returns the body length.
pub(crate) fn decode_token(token: &str, out: &mut [u8]) -> Result<usize, Reason> {
    let body = token.strip_prefix(TOKEN_PREFIX).ok_or(Reason::Malformed)?;
    let raw_len = b64_decoded_len(body.len()).ok_or(Reason::Malformed)?;
    if raw_len < MIN_RAW_LEN {
        return Err(Reason::Malformed);
    }
    let dst = out
        .get_mut(..raw_len)
        .ok_or(Reason::TooLarge { needed: raw_len })?;
    b64_decode(body.as_bytes(), dst).ok_or(Reason::Malformed)?;
    Ok(raw_len)
}

/// Decode a token whose text (prefix included) already sits in `buf[..text_len]`, in
/// place; returns the body length, now at `buf[..body_len]`.
pub(crate) fn decode_token_in_place(buf: &mut [u8], text_len: usize) -> Result<usize, Reason> {
    let text = buf.get(..text_len).ok_or(Reason::Malformed)?;
    if !text.starts_with(TOKEN_PREFIX.as_bytes()) {
        return Err(Reason::Malformed);
    }
    let chars = text_len - PREFIX_LEN;
    let raw_len = b64_decoded_len(chars).ok_or(Reason::Malformed)?;
    if raw_len < MIN_RAW_LEN {
        return Err(Reason::Malformed);
    }
    // Decode forwards in whole 4-character groups through a small stack copy; the
    // output (3 bytes per 4 characters) never overtakes the characters still unread.
    let mut tmp = [0u8; 64];
    let (mut r, mut w) = (PREFIX_LEN, 0usize);
    while r < text_len {
        let n = (text_len - r).min(tmp.len());
        let chunk = tmp.get_mut(..n).ok_or(Reason::Malformed)?;
        chunk.copy_from_slice(buf.get(r..r + n).ok_or(Reason::Malformed)?);
        r += n;
        let m = b64_decoded_len(n).ok_or(Reason::Malformed)?;
        let dst = buf.get_mut(w..w + m).ok_or(Reason::Malformed)?;
        b64_decode(chunk, dst).ok_or(Reason::Malformed)?;
        w += m;
    }
    Ok(raw_len)
}

/// Base64url-encode `buf[src..]` into `buf[dst..]` (which ends exactly at `buf.len()`);
/// `None` when the text would not fit there.
fn encode_in_place(buf: &mut [u8], src: usize, dst: usize) -> Option<()> {
    let mut tmp = [0u8; 48];
    let (mut r, mut w) = (src, dst);
    let end = buf.len();
    while r < end {
        let n = (end - r).min(tmp.len());
        let chunk = tmp.get_mut(..n)?;
        chunk.copy_from_slice(buf.get(r..r + n)?);
        r += n;
        let m = b64_len(n);
        w += b64_encode(chunk, buf.get_mut(w..w + m)?);
    }
    debug_assert_eq!(w, end);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derive_key_is_rfc_5869_hkdf() {
        // RFC 5869 A.3 (no salt) takes info "" and 42 bytes; the same extract, and the
        // hkdf crate for this info, over secrets of every length around the block size.
        let prk = hmac_sha256(&[0; 32], &[&[0x0b; 22]]);
        let okm = hmac_sha256(&prk, &[&[1]]);
        assert_eq!(
            okm[..16],
            [
                0x8d, 0xa4, 0xe7, 0x75, 0xa5, 0x63, 0xc1, 0x8f, 0x71, 0x5f, 0x80, 0x2a, 0x06, 0x3c,
                0x5a, 0x31
            ]
        );
        for len in 0..200 {
            let secret: std::vec::Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            let mut want = [0u8; 32];
            hkdf::Hkdf::<sha2::Sha256>::new(None, &secret)
                .expand(KDF_INFO, &mut want)
                .unwrap();
            assert_eq!(*derive_key(&secret), want, "secret of {len} bytes");
        }
    }

    #[test]
    fn token_lengths() {
        assert_eq!(token_len(0), 3 + 43);
        assert_eq!(token_len(2), 3 + 46);
    }

    #[test]
    fn round_trip_all_sizes() {
        let ring = KeyRing::<2>::new(&[&[7u8; 32], &[9u8; 40]]).unwrap();
        let mut payload = [0u8; 300];
        for (i, b) in payload.iter_mut().enumerate() {
            *b = i as u8;
        }
        for n in 0..payload.len() {
            let mut out = [0u8; 512];
            let token = ring
                .seal_payload(&payload[..n], [n as u8; 12], &mut out)
                .unwrap();
            let token_buf: heapless::String<512> = token.try_into().unwrap();
            assert_eq!(token_buf.len(), token_len(n));
            let mut plain = [0u8; 512];
            assert_eq!(
                ring.unseal_payload(&token_buf, &mut plain).unwrap(),
                &payload[..n]
            );
            // In-place decoding gives the same body.
            let mut buf = [0u8; 512];
            buf[..token_buf.len()].copy_from_slice(token_buf.as_bytes());
            let raw_len = decode_token_in_place(&mut buf, token_buf.len()).unwrap();
            let mut direct = [0u8; 512];
            assert_eq!(decode_token(&token_buf, &mut direct).unwrap(), raw_len);
            assert_eq!(buf[..raw_len], direct[..raw_len]);
        }
    }

    #[test]
    fn ring_errors() {
        assert_eq!(KeyRing::<2>::new(&[]).unwrap_err(), KeyRingError::Empty);
        assert_eq!(
            KeyRing::<1>::new(&[&[1u8; 32], &[2u8; 32]]).unwrap_err(),
            KeyRingError::TooMany { max: 1 }
        );
        assert_eq!(
            KeyRing::<2>::new(&[&[1u8; 32], &[2u8; 31]]).unwrap_err(),
            KeyRingError::KeyTooShort { index: 1, len: 31 }
        );
        assert_eq!(
            KeyRing::<3>::new(&[&[1u8; 32], &[2u8; 32], &[1u8; 32]]).unwrap_err(),
            KeyRingError::DuplicateKey { index: 2 }
        );
    }

    #[test]
    fn buffer_too_small_reports_needed() {
        let ring = KeyRing::<1>::new(&[&[7u8; 32]]).unwrap();
        let mut out = [0u8; 10];
        assert_eq!(
            ring.seal_payload(b"hello", [0; 12], &mut out).unwrap_err(),
            SealError::BufferTooSmall {
                needed: token_len(5)
            }
        );
    }
}
