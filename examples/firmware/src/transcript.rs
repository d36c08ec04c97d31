//! The transcript: lines go to the host over semihosting, and every line that is not a
//! measurement (`# ...`) is hashed so the device can compare its own transcript with
//! `expected.txt` (whose hash build.rs computed).

use core::fmt;

use cortex_m_semihosting::hio::{self, HostStream};
#[cfg(not(feature = "stub"))]
use sha2::{Digest, Sha256};

/// `say!(t, "...", args)`: one transcript line.
macro_rules! say {
    ($t:expr, $($arg:tt)*) => {{
        let _ = core::fmt::Write::write_fmt(&mut *$t, format_args!($($arg)*));
        let _ = core::fmt::Write::write_str(&mut *$t, "\n");
    }};
}

/// A line-buffered semihosting writer that hashes the checked lines.
pub struct Transcript {
    host: Option<HostStream>,
    buf: [u8; 128],
    len: usize,
    line_start: bool,
    measuring: bool,
    /// Checked (non-`#`) lines written.
    pub lines: u32,
    /// Mismatches found by the device's own checks.
    pub failures: u32,
    #[cfg(not(feature = "stub"))]
    sha: Sha256,
}

impl Transcript {
    pub fn new() -> Self {
        Transcript {
            host: hio::hstdout().ok(),
            buf: [0; 128],
            len: 0,
            line_start: true,
            measuring: false,
            lines: 0,
            failures: 0,
            #[cfg(not(feature = "stub"))]
            sha: Sha256::new(),
        }
    }

    fn flush(&mut self) {
        if let Some(h) = self.host.as_mut() {
            let _ = h.write_all(self.buf.get(..self.len).unwrap_or(&[]));
        }
        self.len = 0;
    }

    /// Record a failed check (the line is part of the transcript, so the hash differs too).
    pub fn fail(&mut self, what: fmt::Arguments<'_>) {
        self.failures += 1;
        say!(self, "MISMATCH: {}", what);
    }

    /// SHA-256 of the checked lines so far.
    #[cfg(not(feature = "stub"))]
    pub fn digest(&mut self) -> [u8; 32] {
        self.flush();
        self.sha.clone().finalize().into()
    }
}

impl fmt::Write for Transcript {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            if self.line_start {
                self.measuring = b == b'#';
                self.line_start = false;
            }
            if !self.measuring {
                #[cfg(not(feature = "stub"))]
                self.sha.update([b]);
            }
            if let Some(slot) = self.buf.get_mut(self.len) {
                *slot = b;
            }
            self.len += 1;
            if b == b'\n' {
                self.line_start = true;
                if !self.measuring {
                    self.lines += 1;
                }
            }
            if b == b'\n' || self.len == self.buf.len() {
                self.flush();
            }
        }
        Ok(())
    }
}
