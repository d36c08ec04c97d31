//! AES-256-GCM (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag, in place, on the
//! aes crate's block cipher and the ghash crate's GHASH (both constant-time in software,
//! hardware-accelerated where the CPU has AES and carry-less multiply instructions).
//!
//! Why not the aes-gcm crate: its generic counter-mode and tag plumbing (the ctr and
//! cipher crates' stream-cipher layers) took about 1.1 KB of flash on a device; this is
//! the same construction in a few dozen lines. The tests check it against aes-gcm.

use aes::cipher::{BlockEncrypt, KeyInit};
use aes::Aes256;
use ghash::universal_hash::UniversalHash;
use ghash::{Block, GHash};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::{NONCE_LEN, TAG_LEN};

/// GCM's largest plaintext: 2^32 − 2 counter blocks (2^36 − 32 bytes).
const MAX_LEN: u64 = (1 << 36) - 32;

/// A key, expanded once: the AES-256 round keys and the GHASH key (both wiped on drop).
#[derive(Clone)]
pub(super) struct Gcm {
    aes: Aes256,
    ghash: GHash,
}

impl Gcm {
    pub(super) fn new(key: &[u8; 32]) -> Self {
        let aes = Aes256::new(key.into());
        // The GHASH key: the zero block, encrypted.
        let mut h = Block::default();
        aes.encrypt_block(&mut h);
        let ghash = GHash::new(&h);
        h.as_mut_slice().zeroize();
        Gcm { aes, ghash }
    }

    /// Encrypt `body` in place; the tag, or `None` when `body` is longer than GCM allows.
    pub(super) fn seal(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        body: &mut [u8],
    ) -> Option<[u8; TAG_LEN]> {
        if body.len() as u64 > MAX_LEN {
            return None;
        }
        self.ctr(nonce, body);
        Some(self.tag(nonce, aad, body))
    }

    /// Check `tag` over the ciphertext `body` (in constant time), then decrypt it in
    /// place; false (and `body` untouched) when the tag does not match.
    pub(super) fn open(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        body: &mut [u8],
        tag: &[u8; TAG_LEN],
    ) -> bool {
        if body.len() as u64 > MAX_LEN || !bool::from(self.tag(nonce, aad, body).ct_eq(tag)) {
            return false;
        }
        self.ctr(nonce, body);
        true
    }

    /// The counter block `nonce ‖ counter` (big-endian), encrypted.
    fn keystream(&self, nonce: &[u8; NONCE_LEN], counter: u32) -> Block {
        let mut block = [0u8; 16];
        if let Some((head, tail)) = block.split_first_chunk_mut::<NONCE_LEN>() {
            *head = *nonce;
            tail.copy_from_slice(&counter.to_be_bytes());
        }
        let mut block = Block::from(block);
        self.aes.encrypt_block(&mut block);
        block
    }

    /// Counter mode from counter 2 (1 masks the tag).
    fn ctr(&self, nonce: &[u8; NONCE_LEN], body: &mut [u8]) {
        let mut counter = 2u32;
        for chunk in body.chunks_mut(16) {
            let mut ks = self.keystream(nonce, counter);
            for (b, k) in chunk.iter_mut().zip(ks.iter()) {
                *b ^= k;
            }
            ks.as_mut_slice().zeroize();
            counter = counter.wrapping_add(1);
        }
    }

    /// GHASH over the padded `aad`, the padded ciphertext and their bit lengths, masked
    /// with the first counter block.
    fn tag(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], ciphertext: &[u8]) -> [u8; TAG_LEN] {
        let mut ghash = self.ghash.clone();
        ghash.update_padded(aad);
        ghash.update_padded(ciphertext);
        // The two bit lengths, 64 bits each, big-endian.
        let bits = |n: usize| u128::from(n as u64 * 8);
        let lengths = (bits(aad.len()) << 64 | bits(ciphertext.len())).to_be_bytes();
        ghash.update(&[Block::from(lengths)]);
        let mask = self.keystream(nonce, 1);
        let mut tag = [0u8; TAG_LEN];
        for ((t, s), m) in tag.iter_mut().zip(ghash.finalize().iter()).zip(mask.iter()) {
            *t = s ^ m;
        }
        tag
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes_gcm::aead::generic_array::GenericArray;
    use aes_gcm::aead::AeadInPlace;
    use aes_gcm::Aes256Gcm;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn is_aes_gcm(
            key in any::<[u8; 32]>(),
            nonce in any::<[u8; 12]>(),
            aad in proptest::collection::vec(any::<u8>(), 0..40),
            plain in proptest::collection::vec(any::<u8>(), 0..100),
            flip in any::<usize>(),
        ) {
            let gcm = Gcm::new(&key);
            let theirs = Aes256Gcm::new(GenericArray::from_slice(&key));
            let mut ours = plain.clone();
            let tag = gcm.seal(&nonce, &aad, &mut ours).unwrap();
            let mut want = plain.clone();
            let want_tag = theirs
                .encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut want)
                .unwrap();
            prop_assert_eq!(&ours, &want);
            prop_assert_eq!(&tag[..], &want_tag[..]);
            // A flipped bit anywhere (ciphertext, tag or associated data) fails the open
            // and leaves the ciphertext as it was.
            let mut bad = ours.clone();
            let mut bad_tag = tag;
            let mut bad_aad = aad.clone();
            let spots = bad.len() + TAG_LEN + bad_aad.len();
            let at = flip % spots;
            if at < bad.len() {
                bad[at] ^= 1;
            } else if at < bad.len() + TAG_LEN {
                bad_tag[at - bad.len()] ^= 0x80;
            } else {
                bad_aad[at - bad.len() - TAG_LEN] ^= 4;
            }
            let before = bad.clone();
            prop_assert!(!gcm.open(&nonce, &bad_aad, &mut bad, &bad_tag));
            prop_assert_eq!(&bad, &before);
            prop_assert!(gcm.open(&nonce, &aad, &mut ours, &tag));
            prop_assert_eq!(&ours, &plain);
        }
    }
}
