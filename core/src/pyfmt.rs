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

/// Writes pydantic's default title for a field name: `name.title().replace("_", " ").strip()`.
pub(crate) fn write_field_title<W: FnMut(&str)>(name: &str, mut out: W) {
    let mut buf = [0u8; 4];
    let mut prev_cased = false;
    let trimmed_start = name.trim_start_matches(|c: char| c.is_whitespace());
    let trimmed = trimmed_start.trim_end_matches(|c: char| c.is_whitespace() || c == '_');
    // `replace("_", " ")` happens before `strip()`, so leading/trailing underscores
    // become spaces and are stripped too.
    let trimmed = trimmed.trim_start_matches(|c: char| c.is_whitespace() || c == '_');
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
    fn titles_like_pydantic() {
        assert_eq!(title("code"), "Code");
        assert_eq!(title("gate_count"), "Gate Count");
        assert_eq!(title("gateCount"), "Gatecount");
        assert_eq!(title("x2y"), "X2Y");
        assert_eq!(title("_private"), "Private");
    }
}
