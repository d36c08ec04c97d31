//! AES-256 (encryption only: GCM needs no inverse cipher) and GHASH in the smallest
//! constant-time form we know, for devices without AES or carry-less multiply
//! instructions: `gcm.rs` says where and why they are used instead of the aes and ghash
//! crates.
//!
//! Constant time: no table is indexed and no branch is taken by secret data. AES works on
//! the state's four columns as 32-bit words, four bytes at a time; its S-box is computed
//! (the inverse in GF(2^8) as x^254 by shifts, masks and XORs, then the affine map), not
//! looked up. GHASH multiplies one bit at a time, each bit turned into an all-ones or
//! all-zero mask. The masks made from a single secret bit go through
//! [`core::hint::black_box`], so the optimiser cannot see that they are 0 or 1 and turn
//! `value & mask` back into a select, which cores without conditional moves (Cortex-M0,
//! RV32IMC) compile as a branch. Loops run a fixed number of times; the only branches
//! depend on the round number or the data's length, both public.
//!
//! The trade, measured on the firmware agent (examples/firmware-agent/README.md): 2.6 KB
//! (Cortex-M4F) to 5 KB (RV32IMC) less flash and ~2 KB less stack than the crates'
//! fixsliced software forms, for 11 to 15 times their instructions (~100,000 per AES
//! block and ~7,400 per GHASH block on a Cortex-M4F).

use core::hint::black_box;
use zeroize::Zeroize;

/// Four GF(2^8) elements, one per byte: each doubled (multiplied by x, reduced by the AES
/// polynomial x^8 + x^4 + x^3 + x + 1).
fn double(a: u32) -> u32 {
    ((a & 0x7f7f_7f7f) << 1) ^ ((a >> 7) & 0x0101_0101).wrapping_mul(0x1b)
}

/// Four GF(2^8) products, byte by byte, shift-and-add over the 8 bits of `b`.
fn multiply(mut a: u32, b: u32) -> u32 {
    let mut product = 0;
    for bit in 0..8 {
        // Each byte's bit spread to the whole byte: 0x00 or 0xff, four lanes at once.
        product ^= a & ((b >> bit) & 0x0101_0101).wrapping_mul(0xff);
        a = double(a);
    }
    product
}

/// The AES S-box on each of the four bytes: the inverse x^254 (0 stays 0) as
/// x^2 · x^4 · … · x^128, then the affine map b ⊕ rotl(b, 1..=4) ⊕ 0x63.
fn sub_word(x: u32) -> u32 {
    let mut square = multiply(x, x);
    let mut inverse = square;
    for _ in 0..6 {
        square = multiply(square, square);
        inverse = multiply(inverse, square);
    }
    let mut out = inverse ^ 0x6363_6363;
    let mut rotated = inverse;
    for _ in 0..4 {
        rotated = ((rotated << 1) & 0xfefe_fefe) | ((rotated >> 7) & 0x0101_0101);
        out ^= rotated;
    }
    out
}

/// MixColumns on one column (row r in byte r): 2·a_r ⊕ 3·a_(r+1) ⊕ a_(r+2) ⊕ a_(r+3).
fn mix_column(w: u32) -> u32 {
    let next = w.rotate_right(8);
    double(w ^ next) ^ next ^ w.rotate_right(16) ^ w.rotate_right(24)
}

/// Four little-endian words (the state's columns, row r in byte r).
fn words(bytes: &[u8]) -> [u32; 4] {
    let mut out = [0u32; 4];
    for (w, b) in out.iter_mut().zip(bytes.as_chunks::<4>().0) {
        *w = u32::from_le_bytes(*b);
    }
    out
}

/// AES-256's 15 round keys, four columns each (wiped on drop).
#[derive(Clone)]
pub(super) struct Aes256 {
    round_keys: [[u32; 4]; 15],
}

impl Aes256 {
    /// FIPS-197's key expansion, two round keys (eight words) per step.
    pub(super) fn new(key: &[u8; 32]) -> Self {
        let (low, high) = key.split_at(16);
        let mut round_keys = [[0u32; 4]; 15];
        let (mut before, mut last) = (words(low), words(high));
        let mut rcon = 1;
        for (i, slot) in round_keys.iter_mut().enumerate() {
            let next = match i {
                0 => before,
                1 => last,
                _ => {
                    let [_, _, _, prev] = last;
                    // Even round keys start with SubWord(RotWord(w)) ⊕ Rcon, odd ones with
                    // SubWord(w).
                    let mut carry = if i % 2 == 0 {
                        let t = sub_word(prev.rotate_right(8)) ^ rcon;
                        rcon <<= 1;
                        t
                    } else {
                        sub_word(prev)
                    };
                    let mut next = before;
                    for w in next.iter_mut() {
                        *w ^= carry;
                        carry = *w;
                    }
                    before = last;
                    last = next;
                    next
                }
            };
            *slot = next;
        }
        before.zeroize();
        last.zeroize();
        Aes256 { round_keys }
    }

    /// Encrypt one block in place.
    pub(super) fn encrypt(&self, block: &mut [u8; 16]) {
        let mut state = words(block);
        for (round, key) in self.round_keys.iter().enumerate() {
            if round > 0 {
                // SubBytes, then ShiftRows (row r of column c from column c + r), then
                // MixColumns in all rounds but the last.
                let [a, b, c, d] = state.map(sub_word);
                let pick = |w0: u32, w1: u32, w2: u32, w3: u32| {
                    (w0 & 0xff) | (w1 & 0xff00) | (w2 & 0xff_0000) | (w3 & 0xff00_0000)
                };
                state = [
                    pick(a, b, c, d),
                    pick(b, c, d, a),
                    pick(c, d, a, b),
                    pick(d, a, b, c),
                ];
                if round < 14 {
                    state = state.map(mix_column);
                }
            }
            for (s, k) in state.iter_mut().zip(key) {
                *s ^= k;
            }
        }
        for (out, w) in block.as_chunks_mut::<4>().0.iter_mut().zip(state) {
            *out = w.to_le_bytes();
        }
        state.zeroize();
    }
}

impl Drop for Aes256 {
    fn drop(&mut self) {
        self.round_keys.zeroize();
    }
}

/// GHASH (NIST SP 800-38D): the key H and the running value Y, as big-endian integers, so
/// the field's x^0 is the top bit (both wiped on drop).
#[derive(Clone)]
pub(super) struct Ghash {
    h: u128,
    y: u128,
}

/// GCM's reduction: x^128 = x^7 + x^2 + x + 1, in the reflected bit order.
const R: u128 = 0xe1 << 120;

/// All ones when `bit` (0 or 1) is 1, else zero, hidden from the optimiser (module docs).
fn mask(bit: u32) -> u128 {
    black_box(bit).wrapping_neg() as i32 as i128 as u128
}

impl Ghash {
    /// GHASH keyed with `h` (the zero block, encrypted).
    pub(super) fn new(h: &[u8; 16]) -> Self {
        Ghash {
            h: u128::from_be_bytes(*h),
            y: 0,
        }
    }

    /// Y = (Y ⊕ block) · H for each 16-byte block of `data`, the last one padded with zeros.
    pub(super) fn update_padded(&mut self, data: &[u8]) {
        for chunk in data.chunks(16) {
            let mut block = [0u8; 16];
            for (b, c) in block.iter_mut().zip(chunk) {
                *b = *c;
            }
            // Y · H one bit of Y at a time, top bit (x^0) first: Z ⊕= V where the bit is
            // set; V = V · x.
            let mut x = self.y ^ u128::from_be_bytes(block);
            let mut v = self.h;
            let mut z = 0;
            for _ in 0..128 {
                z ^= v & mask((x >> 127) as u32);
                x <<= 1;
                v = (v >> 1) ^ (R & mask(v as u32 & 1));
            }
            self.y = z;
            block.zeroize();
        }
    }

    /// The hash.
    pub(super) fn finalize(self) -> [u8; 16] {
        self.y.to_be_bytes()
    }
}

impl Drop for Ghash {
    fn drop(&mut self) {
        self.h.zeroize();
        self.y.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::{BlockEncrypt, KeyInit};
    use ghash::universal_hash::UniversalHash;
    use proptest::prelude::*;

    fn hex<const N: usize>(s: &str) -> [u8; N] {
        let mut out = [0u8; N];
        for (o, pair) in out.iter_mut().zip(s.as_bytes().chunks(2)) {
            *o = u8::from_str_radix(core::str::from_utf8(pair).unwrap(), 16).unwrap();
        }
        out
    }

    #[test]
    fn fips_197_aes_256() {
        // FIPS-197 appendix C.3.
        let key = hex::<32>("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
        let mut block = hex::<16>("00112233445566778899aabbccddeeff");
        Aes256::new(&key).encrypt(&mut block);
        assert_eq!(block, hex::<16>("8ea2b7ca516745bfeafc49904b496089"));
    }

    #[test]
    fn s_box_is_fips_197() {
        // A few entries of FIPS-197's figure 7, four at a time.
        assert_eq!(sub_word(0x5300_0100), 0xed63_7c63);
        assert_eq!(sub_word(0xffc9_1011), 0x16dd_ca82);
    }

    #[test]
    fn ghash_test_case_2() {
        // McGrew and Viega's GCM test case 2 (AES-128, zero key, one zero block):
        // H = 66e94bd4ef8a2c3b884cfa59ca342b2e, GHASH(H, {}, C) = f38cbb1ad69223dcc3457ae5b6b0f885.
        let mut g = Ghash::new(&hex::<16>("66e94bd4ef8a2c3b884cfa59ca342b2e"));
        g.update_padded(&hex::<16>("0388dace60b6a392f328c2b971b2fe78"));
        let mut lengths = [0u8; 16];
        lengths[15] = 0x80;
        g.update_padded(&lengths);
        assert_eq!(g.finalize(), hex::<16>("f38cbb1ad69223dcc3457ae5b6b0f885"));
    }

    proptest! {
        #[test]
        fn aes_is_the_aes_crate(key in any::<[u8; 32]>(), block in any::<[u8; 16]>()) {
            let mut ours = block;
            Aes256::new(&key).encrypt(&mut ours);
            let mut theirs = block.into();
            aes::Aes256::new(&key.into()).encrypt_block(&mut theirs);
            prop_assert_eq!(&ours[..], &theirs[..]);
        }

        #[test]
        fn ghash_is_the_ghash_crate(
            h in any::<[u8; 16]>(),
            parts in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..4),
        ) {
            let mut ours = Ghash::new(&h);
            let mut theirs = ghash::GHash::new(&h.into());
            for part in &parts {
                ours.update_padded(part);
                theirs.update_padded(part);
            }
            prop_assert_eq!(&ours.finalize()[..], &theirs.finalize()[..]);
        }
    }
}
