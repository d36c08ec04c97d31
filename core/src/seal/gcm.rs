//! AES-256-GCM (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag, in place, on an
//! AES-256 block cipher and GHASH, both constant-time in software.
//!
//! Why not the aes-gcm crate: its generic counter-mode and tag plumbing (the ctr and
//! cipher crates' stream-cipher layers) took about 1.1 KB of flash on a device; this is
//! the same construction in a few dozen lines. The tests check it against aes-gcm.

use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::{NONCE_LEN, TAG_LEN};

/// Which AES-256 and GHASH seal and open tokens: two implementations, chosen by target.
///
/// - Hosts (any target with an operating system) use the aes and ghash crates: they
///   detect the CPU's AES and carry-less multiply instructions (AES-NI and CLMUL, the Arm
///   crypto extensions) and use them, or a constant-time fixsliced software form where
///   the CPU has none. That is the fast path a server needs.
/// - Bare-metal devices (`target_os = "none"`: the firmware examples, the no-alloc C
///   library on a microcontroller) use [`compact`](super::compact): AES on 32-bit words
///   with the S-box computed (four bytes at a time), bit-serial GHASH, both
///   constant-time. Microcontrollers have no
///   such instructions, so the crates would run their software forms there too, and those
///   take 2.6 KB (Cortex-M4F) to 5 KB (RV32IMC) more flash than the compact ones, which
///   are 11 to 15 times slower (examples/firmware-agent/README.md has the figures for
///   each board).
///
/// Both produce the same bytes: the compact forms are compiled and tested on every host
/// run, against FIPS-197's and NIST's vectors and against the crates (`compact`'s tests,
/// and this module's, which run the GCM construction on both).
#[cfg(not(target_os = "none"))]
pub(super) type Gcm = Construction<aes::Aes256, ghash::GHash>;
/// See the host's alias above: on a device, the compact forms.
#[cfg(target_os = "none")]
pub(super) type Gcm = Construction<super::compact::Aes256, super::compact::Ghash>;

/// The forward AES-256 block cipher (GCM never decrypts a block).
pub(super) trait Cipher {
    /// The key, expanded.
    fn new(key: &[u8; 32]) -> Self;
    /// Encrypt one block in place.
    fn encrypt(&self, block: &mut [u8; 16]);
}

/// GHASH, keyed once and cloned per message.
pub(super) trait Hash: Clone {
    /// Keyed with the hash key H.
    fn new(h: &[u8; 16]) -> Self;
    /// Hash `data` in 16-byte blocks, the last one padded with zeros.
    fn update_padded(&mut self, data: &[u8]);
    /// The hash.
    fn finalize(self) -> [u8; 16];
}

#[cfg(not(target_os = "none"))]
impl Cipher for aes::Aes256 {
    fn new(key: &[u8; 32]) -> Self {
        aes::cipher::KeyInit::new(key.into())
    }
    fn encrypt(&self, block: &mut [u8; 16]) {
        aes::cipher::BlockEncrypt::encrypt_block(self, block.into());
    }
}

#[cfg(not(target_os = "none"))]
impl Hash for ghash::GHash {
    fn new(h: &[u8; 16]) -> Self {
        ghash::universal_hash::KeyInit::new(h.into())
    }
    fn update_padded(&mut self, data: &[u8]) {
        ghash::universal_hash::UniversalHash::update_padded(self, data);
    }
    fn finalize(self) -> [u8; 16] {
        ghash::universal_hash::UniversalHash::finalize(self).into()
    }
}

#[cfg(any(test, target_os = "none"))]
impl Cipher for super::compact::Aes256 {
    fn new(key: &[u8; 32]) -> Self {
        Self::new(key)
    }
    fn encrypt(&self, block: &mut [u8; 16]) {
        self.encrypt(block);
    }
}

#[cfg(any(test, target_os = "none"))]
impl Hash for super::compact::Ghash {
    fn new(h: &[u8; 16]) -> Self {
        Self::new(h)
    }
    fn update_padded(&mut self, data: &[u8]) {
        self.update_padded(data);
    }
    fn finalize(self) -> [u8; 16] {
        self.finalize()
    }
}

/// GCM's largest plaintext: 2^32 − 2 counter blocks (2^36 − 32 bytes).
const MAX_LEN: u64 = (1 << 36) - 32;

/// A key, expanded once: the AES-256 round keys and the GHASH key (both wiped on drop).
#[derive(Clone)]
pub(super) struct Construction<A, G> {
    aes: A,
    ghash: G,
}

impl<A: Cipher, G: Hash> Construction<A, G> {
    pub(super) fn new(key: &[u8; 32]) -> Self {
        let aes = A::new(key);
        // The GHASH key: the zero block, encrypted.
        let mut h = [0u8; 16];
        aes.encrypt(&mut h);
        let ghash = G::new(&h);
        h.zeroize();
        Construction { aes, ghash }
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
    fn keystream(&self, nonce: &[u8; NONCE_LEN], counter: u32) -> [u8; 16] {
        let mut block = [0u8; 16];
        if let Some((head, tail)) = block.split_first_chunk_mut::<NONCE_LEN>() {
            *head = *nonce;
            tail.copy_from_slice(&counter.to_be_bytes());
        }
        self.aes.encrypt(&mut block);
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
            ks.zeroize();
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
        ghash.update_padded(&lengths);
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
    use aes_gcm::aead::{AeadInPlace, KeyInit};
    use aes_gcm::Aes256Gcm;
    use proptest::prelude::*;
    use std::vec::Vec;

    // The host's form (the crates) and the device's (compact) run on the same inputs.
    use super::super::compact;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len() / 2)
            .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }

    /// One NIST vector (gcmEncryptExtIV256.rsp), sealed and opened by `Construction<A, G>`.
    fn vector<A: Cipher, G: Hash>(
        key: &str,
        nonce: &str,
        plain: &str,
        aad: &str,
        cipher: &str,
        tag: &str,
    ) {
        let gcm = Construction::<A, G>::new(&hex(key).try_into().unwrap());
        let nonce: [u8; NONCE_LEN] = hex(nonce).try_into().unwrap();
        let mut body = hex(plain);
        let got = gcm.seal(&nonce, &hex(aad), &mut body).unwrap();
        assert_eq!(body, hex(cipher));
        assert_eq!(got.to_vec(), hex(tag));
        assert!(gcm.open(&nonce, &hex(aad), &mut body, &got));
        assert_eq!(body, hex(plain));
    }

    fn vectors<A: Cipher, G: Hash>() {
        vector::<A, G>(
            "b52c505a37d78eda5dd34f20c22540ea1b58963cf8e5bf8ffa85f9f2492505b4",
            "516c33929df5a3284ff463d7",
            "",
            "",
            "",
            "bdc1ac884d332457a1d2664f168c76f0",
        );
        vector::<A, G>(
            "5853c020946b35f2c58ec427152b840420c40029636adcbb027471378cfdde0f",
            "eec313dd07cc1b3e6b068a47",
            "ce7458e56aef9061cb0c42ec2315565e6168f5a6249ffd31610b6d17ab64935e",
            "1389b522c24a774181700553f0246bbabdd38d6f",
            "eadc3b8766a77ded1a58cb727eca2a9790496c298654cda78febf0da16b6903b",
            "3d49a5b32fde7eafcce90079217ffb57",
        );
    }

    #[test]
    fn nist_vectors_crates() {
        vectors::<aes::Aes256, ghash::GHash>();
    }

    #[test]
    fn nist_vectors_compact() {
        vectors::<compact::Aes256, compact::Ghash>();
    }

    /// `Construction<A, G>` against aes-gcm, and its open against a flipped bit.
    fn is_aes_gcm<A: Cipher, G: Hash>(
        key: [u8; 32],
        nonce: [u8; 12],
        aad: Vec<u8>,
        plain: Vec<u8>,
        flip: usize,
    ) -> Result<(), TestCaseError> {
        let gcm = Construction::<A, G>::new(&key);
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
        Ok(())
    }

    proptest! {
        #[test]
        fn both_forms_are_aes_gcm(
            key in any::<[u8; 32]>(),
            nonce in any::<[u8; 12]>(),
            aad in proptest::collection::vec(any::<u8>(), 0..40),
            plain in proptest::collection::vec(any::<u8>(), 0..100),
            flip in any::<usize>(),
        ) {
            is_aes_gcm::<aes::Aes256, ghash::GHash>(key, nonce, aad.clone(), plain.clone(), flip)?;
            is_aes_gcm::<compact::Aes256, compact::Ghash>(key, nonce, aad, plain, flip)?;
        }
    }
}
