//! The few Python renderings the reference's messages and schemas depend on.

use core::fmt::{self, Write};

/// Formats a string as Python's `repr(str)` does (used for names in messages).
pub struct PyRepr<'a>(pub &'a str);

impl fmt::Display for PyRepr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        let quote = if s.contains('\'') && !s.contains('"') {
            '"'
        } else {
            '\''
        };
        f.write_char(quote)?;
        for c in s.chars() {
            match c {
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                c if c == quote => {
                    f.write_char('\\')?;
                    f.write_char(c)?;
                }
                c if (c as u32) < 0x20 || c as u32 == 0x7f => write!(f, "\\x{:02x}", c as u32)?,
                c if (0x80..0xa0).contains(&(c as u32)) => write!(f, "\\x{:02x}", c as u32)?,
                c => f.write_char(c)?,
            }
        }
        f.write_char(quote)
    }
}

/// Length in bytes of the white space character `b` starts with (`char::is_whitespace`,
/// the Unicode `White_Space` property), 0 if it starts with another character. `b` is
/// UTF-8 from a char boundary. Byte patterns instead of decoding: core's version links
/// a 256-byte table and the decoder.
pub(crate) fn white_space_len(b: &[u8]) -> usize {
    match b {
        [b'\t'..=b'\r' | b' ', ..] => 1,
        // U+0085, U+00A0
        [0xC2, 0x85 | 0xA0, ..] => 2,
        // U+1680; U+2000..=U+200A, U+2028, U+2029, U+202F; U+205F; U+3000
        [0xE1, 0x9A, 0x80, ..]
        | [0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF, ..]
        | [0xE2, 0x81, 0x9F, ..]
        | [0xE3, 0x80, 0x80, ..] => 3,
        _ => 0,
    }
}

/// `s` without leading (`start`) or trailing characters that are white space or, with
/// `underscore`, `_` (the bounds stay on char boundaries: every match is whole).
fn trim(s: &str, start: bool, underscore: bool) -> &str {
    let b = s.as_bytes();
    let (mut lo, mut hi) = (0, b.len());
    let strip = |t: &[u8]| {
        if underscore && t.first() == Some(&b'_') {
            1
        } else {
            white_space_len(t)
        }
    };
    if start {
        while lo < hi {
            match b.get(lo..hi).map_or(0, strip) {
                0 => break,
                n => lo += n,
            }
        }
    } else {
        // The last character is 1 to 3 bytes long (a white space one at most 3): try
        // each; a match starts at a lead byte, so it is that whole character.
        'outer: while lo < hi {
            for n in 1..=3.min(hi - lo) {
                if b.get(hi - n..hi).map_or(0, strip) == n {
                    hi -= n;
                    continue 'outer;
                }
            }
            break;
        }
    }
    s.get(lo..hi).unwrap_or("")
}

/// Writes pydantic's default title for a field name: `name.title().replace("_", " ").strip()`.
pub(crate) fn write_field_title<W: FnMut(&str)>(name: &str, mut out: W) {
    let mut buf = [0u8; 4];
    let mut prev_cased = false;
    let trimmed_start = trim(name, true, false);
    let trimmed = trim(trimmed_start, false, true);
    // `replace("_", " ")` happens before `strip()`, so leading/trailing underscores
    // become spaces and are stripped too.
    let trimmed = trim(trimmed, true, true);
    for c in trimmed.chars() {
        if c == '_' {
            out(" ");
            prev_cased = false;
            continue;
        }
        let cased = is_cased(c);
        if cased && prev_cased {
            for_lower(c, |l| out(l.encode_utf8(&mut buf)));
        } else if cased {
            for_upper(c, |u| out(u.encode_utf8(&mut buf)));
        } else {
            out(c.encode_utf8(&mut buf));
        }
        prev_cased = cased;
    }
}

// Python's `str.title()` knows every cased character. With the `unicode-titles`
// feature (on by default) so do we; without it (firmware builds) only ASCII letters are
// cased, which keeps core's ~28 KB of Unicode case tables out of the image. Field names
// are ASCII in practice; a non-ASCII letter is then kept as written.
#[cfg(feature = "unicode-titles")]
fn is_cased(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase()
}
#[cfg(feature = "unicode-titles")]
fn for_lower(c: char, mut f: impl FnMut(char)) {
    c.to_lowercase().for_each(&mut f)
}
#[cfg(feature = "unicode-titles")]
fn for_upper(c: char, mut f: impl FnMut(char)) {
    c.to_uppercase().for_each(&mut f)
}
#[cfg(not(feature = "unicode-titles"))]
fn is_cased(c: char) -> bool {
    c.is_ascii_alphabetic()
}
#[cfg(not(feature = "unicode-titles"))]
fn for_lower(c: char, mut f: impl FnMut(char)) {
    f(c.to_ascii_lowercase())
}
#[cfg(not(feature = "unicode-titles"))]
fn for_upper(c: char, mut f: impl FnMut(char)) {
    f(c.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::String;

    fn title(s: &str) -> String {
        let mut o = String::new();
        write_field_title(s, |p| o.push_str(p));
        o
    }

    #[test]
    fn repr_quotes_like_python() {
        assert_eq!(std::format!("{}", PyRepr("seat")), "'seat'");
        assert_eq!(std::format!("{}", PyRepr("it's")), "\"it's\"");
        assert_eq!(std::format!("{}", PyRepr("a'\"b")), "'a\\'\"b'");
        assert_eq!(std::format!("{}", PyRepr("a\nb")), "'a\\nb'");
    }

    #[test]
    fn white_space_bytes_are_char_is_whitespace() {
        let mut b = [0u8; 4];
        // Every char natively; under miri (hours for all) every 97th.
        let step = if cfg!(miri) { 97 } else { 1 };
        for c in (0..=0x10FFFFu32).step_by(step).filter_map(char::from_u32) {
            let e = c.encode_utf8(&mut b).as_bytes();
            let want = if c.is_whitespace() { e.len() } else { 0 };
            assert_eq!(white_space_len(e), want, "{c:?}");
        }
        for s in [
            "",
            " a\u{3000}",
            "\u{85}_x_\u{2029}",
            "__",
            "a b",
            "\u{e9}\u{1680}",
        ] {
            assert_eq!(
                trim(s, true, false),
                s.trim_start_matches(char::is_whitespace)
            );
            let u = |c: char| c.is_whitespace() || c == '_';
            assert_eq!(trim(s, false, true), s.trim_end_matches(u), "{s:?}");
            assert_eq!(trim(s, true, true), s.trim_start_matches(u));
        }
    }

    #[test]
    fn titles_like_pydantic() {
        assert_eq!(title("code"), "Code");
        assert_eq!(title("gate_count"), "Gate Count");
        assert_eq!(title("gateCount"), "Gatecount");
        assert_eq!(title("x2y"), "X2Y");
        assert_eq!(title("_private"), "Private");
    }
}
