//! Where writers put bytes: the [`Sink`] trait, a caller buffer ([`SliceSink`]), a
//! counter ([`CountSink`]), SHA-256 and (with `alloc`) `Vec<u8>`.

/// Where writers put bytes. Writing never fails; a bounded sink records overflow itself.
pub trait Sink {
    /// Append `bytes`.
    fn put(&mut self, bytes: &[u8]);
}

/// A sink over a caller buffer that keeps counting past its end, so a too-small buffer
/// can report the size it needed.
#[derive(Debug)]
pub struct SliceSink<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> SliceSink<'b> {
    /// A sink writing into `buf` from its start.
    pub fn new(buf: &'b mut [u8]) -> Self {
        SliceSink { buf, len: 0 }
    }
    /// Bytes written (or that would have been written) so far.
    pub fn needed(&self) -> usize {
        self.len
    }
    /// `Ok(len)` when everything fit, else `Err(needed)`.
    pub fn finish(&self) -> Result<usize, usize> {
        if self.len <= self.buf.len() {
            Ok(self.len)
        } else {
            Err(self.len)
        }
    }
    /// The bytes written so far (only the part that fit).
    pub fn written(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(self.buf)
    }
}

impl Sink for SliceSink<'_> {
    fn put(&mut self, bytes: &[u8]) {
        let start = self.len;
        self.len += bytes.len();
        if let Some(dst) = self.buf.get_mut(start..start + bytes.len()) {
            copy_bytes(dst, bytes);
        }
    }
}

/// `dst.copy_from_slice(src)` (equal lengths), with the short copies the renderers make
/// all the time (a quote, a key, a few bytes of text) done by overlapping fixed-size
/// moves instead of a call to `memcpy`.
///
/// An inlining hint, not a demand: an optimized host build inlines it where the engine
/// spends its time (the buffer sink's `put`), a size-optimized one keeps one shared copy
/// (inlined at each of its call sites the size switch cost about 300 B of flash per
/// site, measured with `scripts/test-firmware.sh`). The round's workspace copies (whole
/// answers) do not use it.
#[inline]
pub(crate) fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if dst.len() != n {
        return;
    }
    match n {
        0 => {}
        1..=3 => {
            // First, middle and last byte (they overlap below 3).
            if let (Some(d), Some(s)) = (dst.first_mut(), src.first()) {
                *d = *s;
            }
            if let (Some(d), Some(s)) = (dst.get_mut(n / 2), src.get(n / 2)) {
                *d = *s;
            }
            if let (Some(d), Some(s)) = (dst.last_mut(), src.last()) {
                *d = *s;
            }
        }
        4..=7 => copy_ends::<4>(dst, src),
        8..=16 => copy_ends::<8>(dst, src),
        17..=32 => copy_ends::<16>(dst, src),
        33..=64 => copy_ends::<32>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// Copy `src` (`K..=2K` bytes) into `dst` (as long) as two overlapping `K`-byte moves: the
/// first `K` bytes and the last `K` (the length checks fold away at the call sites).
#[inline(always)]
fn copy_ends<const K: usize>(dst: &mut [u8], src: &[u8]) {
    if let (Some(d), Some(s)) = (dst.get_mut(..K), src.get(..K)) {
        d.copy_from_slice(s);
    }
    let tail = src.len().saturating_sub(K);
    if let (Some(d), Some(s)) = (dst.get_mut(tail..), src.get(tail..)) {
        d.copy_from_slice(s);
    }
}

/// A sink that only counts.
#[derive(Debug, Default, Clone, Copy)]
pub struct CountSink(pub usize);

impl Sink for CountSink {
    fn put(&mut self, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

#[cfg(feature = "alloc")]
impl Sink for alloc::vec::Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// The inline copy writes exactly the source at every length it special-cases (and
    /// past them), and nothing when the lengths differ.
    #[test]
    fn copy_bytes_copies() {
        let src: Vec<u8> = (0..100u8)
            .map(|i| i.wrapping_mul(37).wrapping_add(1))
            .collect();
        let step = if cfg!(miri) { 5 } else { 1 };
        for n in (0..=100).step_by(step) {
            let mut dst = vec![0u8; n];
            copy_bytes(&mut dst, &src[..n]);
            assert_eq!(dst, &src[..n], "{n}");
            let mut short = vec![0u8; n.saturating_sub(1)];
            copy_bytes(&mut short, &src[..n]);
            assert!(n == 0 || short.iter().all(|&b| b == 0), "{n}");
        }
    }

    #[test]
    fn slice_sink_copies_every_length_exactly() {
        let src: [u8; 40] = core::array::from_fn(|i| i as u8 + 1);
        for n in 0..=src.len() {
            for at in 0..3 {
                let mut buf = [0u8; 48];
                let mut s = SliceSink::new(&mut buf);
                s.put(&[0xEE; 2][..at]);
                s.put(&src[..n]);
                assert_eq!(s.finish(), Ok(at + n));
                assert_eq!(&buf[..at], &[0xEE; 2][..at]);
                assert_eq!(&buf[at..at + n], &src[..n], "length {n} at {at}");
                assert!(buf[at + n..].iter().all(|&b| b == 0), "length {n} at {at}");
            }
        }
        // A copy that does not fit writes nothing past the buffer, and counts.
        let mut buf = [0u8; 10];
        let mut s = SliceSink::new(&mut buf);
        s.put(&src[..7]);
        s.put(&src[..7]);
        assert_eq!(s.finish(), Err(14));
        assert_eq!(&buf[..7], &src[..7]);
    }
}
