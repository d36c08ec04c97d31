//! Writing a type's `requestedSchema` the way FastMCP renders it (wire form, UTF-8, in
//! its key order) or as the digest hashes it (sorted keys, ASCII escapes).

use super::{Shape, Ty};
use crate::json::{write_json_str, write_value, Kind, Sink, Str, Style, Value};
use crate::pyfmt::write_field_title;

/// Which form of a `requestedSchema` to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Render {
    /// Sorted keys, ASCII escapes: the digest input.
    pub digest: bool,
    /// Leave out what the MCP SDK's 2026-07-28 serializer drops (top-level title).
    pub client_view: bool,
}

impl Render {
    pub(crate) const DIGEST: Render = Render {
        digest: true,
        client_view: false,
    };
    pub(crate) fn wire(client_view: bool) -> Render {
        Render {
            digest: false,
            client_view,
        }
    }
}

/// What a form question's params hold after its message: `","mode":"form","requestedSchema":`
/// (the wire form's, `","requestedSchema":`, [`MODE_LEN`] bytes in), then, for a
/// shorthand scalar, the start of its schema up to its type name ([`Ty::shorthand_tail`]
/// has the rest).
pub(crate) const PARAMS_TAIL_HEAD: &[u8] =
    b"\",\"mode\":\"form\",\"requestedSchema\":{\"properties\":{\"value\":{\"title\":\"Value\",\"type\":\"";
/// The length of `","mode":"form` in [`PARAMS_TAIL_HEAD`]: the wire form's tail starts
/// at the closing quote of `"form"`, `","requestedSchema":`.
pub(crate) const MODE_LEN: usize = b"\",\"mode\":\"form".len();
/// The length of `","mode":"form","requestedSchema":` in [`PARAMS_TAIL_HEAD`].
pub(crate) const SCHEMA_AT: usize = b"\",\"mode\":\"form\",\"requestedSchema\":".len();

const STRING_TAIL: &[u8] = b"string\"}},\"required\":[\"value\"],\"type\":\"object\"}}";
const INTEGER_TAIL: &[u8] = b"integer\"}},\"required\":[\"value\"],\"type\":\"object\"}}";
const NUMBER_TAIL: &[u8] = b"number\"}},\"required\":[\"value\"],\"type\":\"object\"}}";
const BOOLEAN_TAIL: &[u8] = b"boolean\"}},\"required\":[\"value\"],\"type\":\"object\"}}";
const STRING_PARAMS_TAIL: [u8; PARAMS_TAIL_HEAD.len() + STRING_TAIL.len()] = joined(STRING_TAIL);
const INTEGER_PARAMS_TAIL: [u8; PARAMS_TAIL_HEAD.len() + INTEGER_TAIL.len()] = joined(INTEGER_TAIL);
const NUMBER_PARAMS_TAIL: [u8; PARAMS_TAIL_HEAD.len() + NUMBER_TAIL.len()] = joined(NUMBER_TAIL);
const BOOLEAN_PARAMS_TAIL: [u8; PARAMS_TAIL_HEAD.len() + BOOLEAN_TAIL.len()] = joined(BOOLEAN_TAIL);

/// [`PARAMS_TAIL_HEAD`] and `tail` end to end (evaluated at compile time: an index out
/// of bounds is a build error).
#[allow(clippy::indexing_slicing)]
const fn joined<const N: usize>(tail: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < PARAMS_TAIL_HEAD.len() {
            PARAMS_TAIL_HEAD[i]
        } else {
            tail[i - PARAMS_TAIL_HEAD.len()]
        };
        i += 1;
    }
    out
}

impl Ty<'_> {
    /// The end of a form question's params for a shorthand scalar (`"string"`, ...)
    /// without title or description, after [`PARAMS_TAIL_HEAD`]: its type name and the
    /// rest of its schema, and the params' closing brace. The same bytes in the digest and
    /// wire forms (the schema's keys are already sorted): the params' tail is two writes,
    /// on the hot path of every round. `None` for any other type.
    pub(crate) fn shorthand_tail(&self) -> Option<&'static [u8]> {
        Some(match self.0 {
            Shape::String(None) => STRING_TAIL,
            Shape::Integer(None) => INTEGER_TAIL,
            Shape::Number(None) => NUMBER_TAIL,
            Shape::Boolean(None) => BOOLEAN_TAIL,
            _ => return None,
        })
    }

    /// [`PARAMS_TAIL_HEAD`] and [`Ty::shorthand_tail`] end to end, as one constant: all of
    /// a form question's digest form after its message, for a shorthand scalar without
    /// title or description (`digest::message_question` lays it out in one copy).
    pub(crate) fn shorthand_params_tail(&self) -> Option<&'static [u8]> {
        Some(match self.0 {
            Shape::String(None) => &STRING_PARAMS_TAIL,
            Shape::Integer(None) => &INTEGER_PARAMS_TAIL,
            Shape::Number(None) => &NUMBER_PARAMS_TAIL,
            Shape::Boolean(None) => &BOOLEAN_PARAMS_TAIL,
            _ => return None,
        })
    }

    /// Render the `requestedSchema` object. `digest` selects the sorted, ASCII-escaped
    /// digest form; otherwise the wire form in FastMCP's key order, UTF-8.
    pub(crate) fn write_schema(
        &self,
        title: Option<Str<'_>>,
        description: Option<Str<'_>>,
        render: Render,
        out: &mut dyn Sink,
    ) {
        let digest = render.digest;
        let style = if digest { Style::DIGEST } else { Style::WIRE };
        match self.0 {
            // Never built without the feature (see `available`).
            Shape::Schema(_) if !cfg!(feature = "raw-schema") => {}
            Shape::Schema(s) => {
                if render.client_view {
                    // The SDK's 2026-07-28 wire model keeps only these top-level keys.
                    out.put(b"{");
                    let mut first = true;
                    for (k, v) in s.members() {
                        if ["$schema", "properties", "required", "type"]
                            .iter()
                            .any(|x| k.eq_str(x))
                        {
                            if !first {
                                out.put(b",");
                            }
                            first = false;
                            write_json_str(k, false, out);
                            out.put(b":");
                            write_value(v, style, out);
                        }
                    }
                    out.put(b"}");
                } else {
                    write_value(s, style, out);
                }
            }
            Shape::Object { .. } if !cfg!(feature = "object-types") => {}
            Shape::Object { spec, props } => {
                out.put(b"{\"properties\":{");
                // The digest form sorts the field names too (`sort_keys` is recursive);
                // names are distinct (checked at compile), so pick the next one each time.
                let mut last: Option<Str<'_>> = None;
                for (i, member) in props.members().enumerate() {
                    let (name, field) = if digest {
                        props
                            .members()
                            .filter(|(k, _)| last.is_none_or(|l| k.cmp_decoded(l).is_gt()))
                            .min_by(|(x, _), (y, _)| x.cmp_decoded(*y))
                            .unwrap_or(member)
                    } else {
                        member
                    };
                    last = Some(name);
                    if i > 0 {
                        out.put(b",");
                    }
                    write_json_str(name, style.ascii, out);
                    out.put(b":");
                    // Every field compiled when the type did.
                    if let Ok(fty) = Ty::compile(field, true) {
                        fty.write_property(Some(field), FieldTitle::Name(name), None, digest, out);
                    }
                }
                out.put(b"}");
                let mut any_required = false;
                for (name, field) in props.members() {
                    if field.kind() == Kind::Object && field.get("default").is_some() {
                        continue;
                    }
                    out.put(if any_required {
                        b","
                    } else {
                        b",\"required\":["
                    });
                    any_required = true;
                    write_json_str(name, style.ascii, out);
                }
                if any_required {
                    out.put(b"]");
                }
                if let Some(t) = spec.get("title").filter(|_| !render.client_view) {
                    out.put(b",\"title\":");
                    write_value(t, style, out);
                }
                out.put(b",\"type\":\"object\"}");
            }
            _ => {
                out.put(b"{\"properties\":{\"value\":");
                let t = match title {
                    Some(t) => FieldTitle::Given(t),
                    None => FieldTitle::Value,
                };
                self.write_property(self.spec(), t, description, digest, out);
                out.put(b"},\"required\":[\"value\"],\"type\":\"object\"}");
            }
        }
    }

    /// One property schema, keys sorted as pydantic sorts them. `extra_description` is
    /// FastMCP's `response_description`, which it appends after the sorted keys (the
    /// digest form sorts it into place).
    fn write_property(
        &self,
        field: Option<Value<'_>>,
        title: FieldTitle<'_>,
        extra_description: Option<Str<'_>>,
        digest: bool,
        out: &mut dyn Sink,
    ) {
        let style = if digest { Style::DIGEST } else { Style::WIRE };
        let mut w = ObjWriter {
            out,
            first: true,
            style,
        };
        // A single-choice enum renders as `const`.
        let (enum_choices, single) = match self.0 {
            Shape::Enum { choices, .. } => match one_item(choices) {
                Some(c) => (None, Some(c)),
                None => (Some(choices), None),
            },
            _ => (None, None),
        };
        if let Some(c) = single {
            w.key("const");
            write_value(c, style, w.out);
        }
        if let Some(d) = field.and_then(|f| f.get("default")) {
            w.key("default");
            write_value(d, style, w.out);
        }
        let desc_in_field = field
            .and_then(|f| f.get("description"))
            .and_then(|d| d.as_str());
        let desc_sorted = if digest {
            extra_description.or(desc_in_field)
        } else {
            desc_in_field
        };
        if let Some(d) = desc_sorted {
            w.key("description");
            write_json_str(d, style.ascii, w.out);
        }
        if let Some(choices) = enum_choices {
            w.key("enum");
            write_value(choices, style, w.out);
        }
        if let Some(f) = self.key("format") {
            w.key("format");
            write_value(f, style, w.out);
        }
        if let Shape::Multi { choices, .. } = self.0 {
            w.key("items");
            if let Some(c) = one_item(choices) {
                w.out.put(b"{\"const\":");
                write_value(c, style, w.out);
            } else {
                w.out.put(b"{\"enum\":");
                write_value(choices, style, w.out);
            }
            w.out.put(b",\"type\":\"string\"}");
        }
        for k in [
            "maxItems",
            "maxLength",
            "maximum",
            "minItems",
            "minLength",
            "minimum",
        ] {
            if let Some(v) = self.key(k) {
                w.key(k);
                write_value(v, style, w.out);
            }
        }
        w.key("title");
        match title {
            FieldTitle::Value => w.out.put(b"\"Value\""),
            FieldTitle::Given(t) => write_json_str(t, style.ascii, w.out),
            FieldTitle::Name(n) => {
                if let Some(t) = field.and_then(|f| f.get("title")).and_then(|t| t.as_str()) {
                    write_json_str(t, style.ascii, w.out);
                } else {
                    write_title_of(n, style.ascii, w.out);
                }
            }
        }
        w.key("type");
        w.out.put(match self.0 {
            Shape::String(_) | Shape::Enum { .. } => b"\"string\"",
            Shape::Integer(_) => b"\"integer\"",
            Shape::Number(_) => b"\"number\"",
            Shape::Boolean(_) => b"\"boolean\"",
            Shape::Multi { .. } => b"\"array\"",
            Shape::Object { .. } | Shape::Schema(_) => b"\"object\"",
        });
        if !digest {
            if let Some(d) = extra_description {
                w.key("description");
                write_json_str(d, style.ascii, w.out);
            }
        }
        w.out.put(b"}");
    }
}

/// The only item of a one-item array.
fn one_item(choices: Value<'_>) -> Option<Value<'_>> {
    if choices.len() == 1 {
        choices.items().next()
    } else {
        None
    }
}

enum FieldTitle<'x> {
    Value,
    Given(Str<'x>),
    Name(Str<'x>),
}

struct ObjWriter<'o> {
    out: &'o mut dyn Sink,
    first: bool,
    style: Style,
}

impl ObjWriter<'_> {
    fn key(&mut self, k: &str) {
        self.out.put(if self.first { b"{" } else { b"," });
        self.first = false;
        crate::json::write_str(k, self.style.ascii, self.out);
        self.out.put(b":");
    }
}

/// How many bytes of title one byte of field name can become at most: 3 with the
/// `unicode-titles` feature (ΐ, 2 bytes, is titled Ϊ́, 6 bytes), 1 without (only ASCII
/// letters change, to ASCII).
const TITLE_GROWTH: usize = if cfg!(feature = "unicode-titles") {
    3
} else {
    1
};

/// pydantic's title for a field name, as a quoted JSON string. Out of line: its buffers
/// (1 KB, 512 bytes without `unicode-titles`) would otherwise sit in the frame of every
/// property written.
#[inline(never)]
fn write_title_of(name: Str<'_>, ascii: bool, out: &mut dyn Sink) {
    // Field names are plain in practice; decode into a small stack buffer.
    let mut buf = [0u8; 256];
    let Some(decoded) = super::decode_small(name, &mut buf) else {
        write_json_str(name, ascii, out);
        return;
    };
    // Room for the longest title of a name that fits `buf`.
    let mut tbuf = [0u8; 256 * TITLE_GROWTH];
    let mut tlen = 0usize;
    write_field_title(decoded, |p| {
        let room = tbuf.len() - tlen;
        let part = p.as_bytes();
        let part = part.get(..room).unwrap_or(part);
        if let Some(dst) = tbuf.get_mut(tlen..tlen + part.len()) {
            dst.copy_from_slice(part);
            tlen += part.len();
        }
    });
    let title = tbuf
        .get(..tlen)
        .and_then(|t| core::str::from_utf8(t).ok())
        .unwrap_or("");
    crate::json::write_str(title, ascii, out);
}

/// A sink that drops the first byte put through it: a schema's opening brace, so that
/// the schema's members continue an object already opened.
#[cfg(feature = "fallback")]
struct AfterBrace<'o> {
    out: &'o mut dyn Sink,
    skip: bool,
}

#[cfg(feature = "fallback")]
impl Sink for AfterBrace<'_> {
    fn put(&mut self, bytes: &[u8]) {
        let bytes = match (self.skip, bytes.split_first()) {
            (true, Some((_, rest))) => {
                self.skip = false;
                rest
            }
            _ => bytes,
        };
        self.out.put(bytes);
    }
}

#[cfg(feature = "fallback")]
impl Ty<'_> {
    /// The JSON schema of a call argument that stands in for an answer of this type (a
    /// declared fallback, docs/fallback.md), UTF-8: `description` first (its contents,
    /// already escaped, written by `describe`), then what the answer schema says of the
    /// answer: a wrapped type's `value` property, titled after the parameter `name` as
    /// pydantic titles a field; an object type's or raw schema's whole schema.
    pub(crate) fn write_argument_schema(
        &self,
        name: &str,
        describe: &mut dyn FnMut(&mut dyn Sink),
        out: &mut dyn Sink,
    ) {
        out.put(b"{\"description\":\"");
        describe(out);
        out.put(b"\",");
        let mut rest = AfterBrace { out, skip: true };
        if self.wrapped() {
            // A declaration's names are plain (no escapes); a hand-made plan's might not be.
            let plain = name.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
            let title = match plain {
                true => FieldTitle::Name(Str::validated(name)),
                false => FieldTitle::Value,
            };
            self.write_property(self.spec(), title, None, false, &mut rest);
        } else {
            self.write_schema(None, None, Render::wire(false), &mut rest);
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// The longest name that fits the decoding buffer gets its whole title, however much
    /// longer the title is (CPython 3.11: 85 × "ΐ1", 255 bytes, titles as 85 × "Ϊ́1",
    /// 595 bytes).
    #[test]
    fn a_title_longer_than_its_name_is_whole() {
        let name = "\u{390}1".repeat(85);
        let mut out = std::vec::Vec::new();
        write_title_of(Str::validated(&name), false, &mut out);
        let unit = if cfg!(feature = "unicode-titles") {
            "\u{399}\u{308}\u{301}1"
        } else {
            "\u{390}1"
        };
        assert_eq!(out, std::format!("\"{}\"", unit.repeat(85)).into_bytes());
    }
}
