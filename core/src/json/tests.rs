//! The JSON reader and writers together: parsing, navigation, rendering in every
//! style, robustness, and a differential run against CPython's `json`.

extern crate std;

use core::cmp::Ordering;

use super::*;
use std::format;
use std::string::String;
use std::vec;
use std::vec::Vec;

struct Buf(Vec<u8>);

impl Sink for Buf {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

const STYLES: [Style; 4] = [Style::STATE, Style::DIGEST, Style::WIRE, Style::PY_UTF8];

fn render(v: Value<'_>, style: Style) -> String {
    let mut b = Buf(Vec::new());
    write_value(v, style, &mut b);
    String::from_utf8(b.0).expect("writer output is UTF-8")
}

fn dump(text: &str, style: Style) -> String {
    let v = Value::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
    render(v, style)
}

fn f64_repr(f: f64) -> String {
    let mut b = Buf(Vec::new());
    write_f64(f, &mut b);
    String::from_utf8(b.0).unwrap()
}

/// `write_str`'s text, checked against `write_str_contents` (the same without the quotes).
fn str_out(s: &str, ascii: bool) -> String {
    let mut b = Buf(Vec::new());
    write_str(s, ascii, &mut b);
    let mut contents = Buf(Vec::new());
    write_str_contents(s, ascii, &mut contents);
    let quoted = [b"\"".as_slice(), &contents.0, b"\""].concat();
    assert_eq!(b.0, quoted, "{s:?}");
    String::from_utf8(b.0).unwrap()
}

fn err(text: &str) -> JsonError {
    match Value::parse(text) {
        Ok(v) => panic!("{text:?} accepted as {:?}", v.raw()),
        Err(e) => e,
    }
}

/// xorshift64*
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

// ----- reader -----

#[test]
fn json_parse_accepts_and_trims() {
    let ok = [
        ("null", "null"),
        (" true ", "true"),
        ("\t\n\r false\n", "false"),
        ("0", "0"),
        ("-0", "-0"),
        ("-0.0e-0", "-0.0e-0"),
        ("1E+5", "1E+5"),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567890",
        ),
        ("\"\"", "\"\""),
        ("\"\\ud800\"", "\"\\ud800\""),
        (
            "\"\\u0000\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
            "\"\\u0000\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
        ),
        ("\"\u{7f}é😀\"", "\"\u{7f}é😀\""),
        (" [ ] ", "[ ]"),
        ("{ }", "{ }"),
        (
            "[1, [2, {\"a\": [null]}], \"x\"]  ",
            "[1, [2, {\"a\": [null]}], \"x\"]",
        ),
        ("{\"a\" : 1 , \"a\":2}", "{\"a\" : 1 , \"a\":2}"),
    ];
    for (doc, raw) in ok {
        let v = Value::parse(doc).unwrap_or_else(|e| panic!("{doc:?}: {e:?}"));
        assert_eq!(v.raw(), raw, "{doc:?}");
    }
}

#[test]
fn json_parse_rejects() {
    let bad = [
        ("", 0),
        ("   ", 3),
        ("[1,]", 3),
        ("{\"a\":1,}", 7),
        ("[01]", 2),
        ("-01", 2),
        ("[1.]", 3),
        ("[.1]", 1),
        ("1e", 2),
        ("1e+", 3),
        ("-", 1),
        ("+1", 0),
        ("0x10", 1),
        ("\"\\x41\"", 2),
        ("\"\\u12\"", 5),
        ("\"\\u12G4\"", 5),
        ("\"a\tb\"", 2),
        ("\"\u{1f}\"", 1),
        ("\"\\'\"", 2),
        ("'a'", 0),
        ("[1 2]", 3),
        ("{\"a\" 1}", 5),
        ("{1:2}", 1),
        ("{\"a\":}", 5),
        ("tru", 3),
        ("nul", 3),
        ("nulll", 4),
        ("[]]", 2),
        ("[[]", 3),
        ("{}}", 2),
        ("\u{feff}[]", 0),
        ("[1]x", 3),
        ("[,1]", 1),
        ("[1,,2]", 3),
        ("{,}", 1),
        ("\"abc", 4),
        ("\"\\\"", 3),
        ("NaN", 0),
        ("[Infinity]", 1),
        ("-Infinity", 1),
        ("[True]", 1),
        ("\u{c}[]", 0),
        ("[1\u{c}]", 2),
        ("[\u{a0}1]", 1),
        ("1 2", 2),
        ("{\"a\":1 \"b\":2}", 7),
        ("[1.0e+-5]", 6),
        ("{\"a\":1]", 6),
        ("[1}", 2),
    ];
    for (doc, offset) in bad {
        let e = err(doc);
        assert_eq!(e.kind, JsonErrorKind::Syntax, "{doc:?}");
        assert_eq!(e.offset, offset, "{doc:?}");
    }
}

#[test]
fn json_depth_limit() {
    let mut doc = String::new();
    for _ in 0..MAX_DEPTH {
        doc.push('[');
    }
    for _ in 0..MAX_DEPTH {
        doc.push(']');
    }
    assert!(Value::parse(&doc).is_ok());
    let deeper = format!("[{doc}]");
    assert_eq!(
        err(&deeper),
        JsonError {
            offset: MAX_DEPTH,
            kind: JsonErrorKind::TooDeep
        }
    );
    let objs = format!("{}1{}", "{\"a\":".repeat(65), "}".repeat(65));
    assert_eq!(err(&objs).kind, JsonErrorKind::TooDeep);
    let objs = format!("{}1{}", "{\"a\":[".repeat(32), "]}".repeat(32));
    assert!(Value::parse(&objs).is_ok());
    // No recursion: a huge opening run just fails.
    let huge = "[".repeat(1_000_000);
    assert_eq!(err(&huge).kind, JsonErrorKind::TooDeep);
    let huge = "[1,".repeat(60) + &"[{\"k\":".repeat(500_000);
    assert_eq!(err(&huge).kind, JsonErrorKind::TooDeep);
}

#[test]
fn json_navigation() {
    let v = Value::parse(
        r#" {"a": 1, "b": [true, null, "x", {"c": -2.5e3}], "a": {"z": []}, "\u0061": "last", "e": {}} "#,
    )
    .unwrap();
    assert_eq!(v.kind(), Kind::Object);
    assert_eq!(v.len(), 3);
    assert!(!v.is_empty());
    let keys: Vec<&str> = v.members().map(|(k, _)| k.raw()).collect();
    assert_eq!(keys, ["a", "b", "a", "\\u0061", "e"]);
    assert_eq!(v.get("a").unwrap().raw(), "\"last\"");
    assert!(v.get("zz").is_none());
    let b = v.get("b").unwrap();
    assert_eq!(b.kind(), Kind::Array);
    assert_eq!(b.len(), 4);
    let items: Vec<&str> = b.items().map(Value::raw).collect();
    assert_eq!(items, ["true", "null", "\"x\"", "{\"c\": -2.5e3}"]);
    let it: Vec<Value<'_>> = b.items().collect();
    assert_eq!(it[0].as_bool(), Some(true));
    assert!(it[1].is_null());
    assert_eq!(it[1].as_bool(), None);
    assert!(it[2].as_str().unwrap().eq_str("x"));
    assert_eq!(
        it[3].get("c").unwrap().as_number(),
        Some(Number::Float(-2500.0))
    );
    assert!(v.get("e").unwrap().is_empty());
    assert_eq!(v.get("e").unwrap().members().count(), 0);
    assert_eq!(Value::parse("[]").unwrap().items().count(), 0);
    assert_eq!(Value::parse("[ ]").unwrap().len(), 0);
    // Scalars have no members or items.
    let s = Value::parse("\"a,b\"").unwrap();
    assert_eq!(s.len(), 0);
    assert_eq!(s.items().count(), 0);
    assert_eq!(s.members().count(), 0);
    assert!(s.as_number().is_none());
    assert!(b.as_str().is_none());
    // Strings containing structural characters do not confuse the scanner.
    let t = Value::parse(r#"{"k]}\"": "v,}]\\", "n": [ "[" , "{" ]}"#).unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(t.get("k]}\"").unwrap().raw(), r#""v,}]\\""#);
    assert_eq!(t.get("n").unwrap().len(), 2);
    // Top-level scalars with whitespace.
    assert_eq!(
        Value::parse(" 12 ").unwrap().as_number(),
        Some(Number::Int("12"))
    );
    assert_eq!(Value::parse("\n-7\t").unwrap().kind(), Kind::Number);
}

#[test]
fn json_numbers() {
    let n = |s: &'static str| Value::parse(s).unwrap().as_number().unwrap();
    assert_eq!(n("0"), Number::Int("0"));
    assert_eq!(n("-0"), Number::Int("-0"));
    assert_eq!(
        n("99999999999999999999999"),
        Number::Int("99999999999999999999999")
    );
    assert_eq!(n("1.5"), Number::Float(1.5));
    assert_eq!(n("1e2"), Number::Float(100.0));
    assert_eq!(n("1E-2"), Number::Float(0.01));
    assert_eq!(n("1e400"), Number::Float(f64::INFINITY));
    assert_eq!(n("-1e400"), Number::Float(f64::NEG_INFINITY));
    assert_eq!(n("1e-400"), Number::Float(0.0));
    match n("-0.0") {
        Number::Float(f) => assert!(f == 0.0 && f.is_sign_negative()),
        other => panic!("{other:?}"),
    }
    assert_eq!(n("0.1"), Number::Float(0.1));
    assert_eq!(n("5e-324"), Number::Float(5e-324));
    assert_eq!(n("2.4703282292062328e-324"), Number::Float(5e-324));
}

#[test]
fn json_units() {
    let units =
        |s: &str| -> Vec<u32> { Value::parse(s).unwrap().as_str().unwrap().units().collect() };
    assert_eq!(units(r#""aé😀""#), [0x61, 0xE9, 0x1F600]);
    assert_eq!(units(r#""\ud83d\ude00""#), [0x1F600]);
    assert_eq!(units(r#""\uD83D\uDE00""#), [0x1F600]);
    assert_eq!(units(r#""\ud800""#), [0xD800]);
    assert_eq!(units(r#""\udc00\ud800""#), [0xDC00, 0xD800]);
    assert_eq!(units(r#""\ud83d\u0041""#), [0xD83D, 0x41]);
    assert_eq!(units(r#""\ud83d\ud83d\ude00""#), [0xD83D, 0x1F600]);
    assert_eq!(units(r#""\ud83dx\ude00""#), [0xD83D, 0x78, 0xDE00]);
    assert_eq!(
        units(r#""\"\\\/\b\f\n\r\t""#),
        [0x22, 0x5C, 0x2F, 8, 12, 10, 13, 9]
    );
    assert_eq!(units(r#""\u0000\uffff""#), [0, 0xFFFF]);
    let s = Value::parse(r#""a\u00e9\ud83d\ude00\ud800""#)
        .unwrap()
        .as_str()
        .unwrap();
    assert_eq!(s.char_len(), 4);
    assert!(s.as_plain().is_none());
    let p = Value::parse(r#""plain é""#).unwrap().as_str().unwrap();
    assert_eq!(p.as_plain(), Some("plain é"));
    assert_eq!(p.char_len(), 7);
    let e = Value::parse(r#""\u00e9\ud83d\ude00""#)
        .unwrap()
        .as_str()
        .unwrap();
    assert!(e.eq_str("é😀"));
    assert!(!e.eq_str("é"));
    assert!(!e.eq_str("é😀x"));
    let lone = Value::parse(r#""\ud800""#).unwrap().as_str().unwrap();
    assert!(!lone.eq_str("\u{fffd}"));
    // Python str order: code points, so U+E000 < U+1F600 although UTF-16 disagrees.
    let s = |t: &'static str| Value::parse(t).unwrap().as_str().unwrap();
    assert_eq!(s(r#""\ue000""#).cmp_decoded(s(r#""😀""#)), Ordering::Less);
    assert_eq!(
        s(r#""\ud800""#).cmp_decoded(s(r#""\ue000""#)),
        Ordering::Less
    );
    assert_eq!(
        s(r#""😀""#).cmp_decoded(s(r#""\ud83d\ude00""#)),
        Ordering::Equal
    );
    assert_eq!(s(r#""ab""#).cmp_decoded(s(r#""a""#)), Ordering::Greater);
    assert_eq!(s(r#""""#).cmp_decoded(s(r#""\u0000""#)), Ordering::Less);
    assert_eq!(s(r#""B""#).cmp_decoded(s(r#""a""#)), Ordering::Less);
}

// ----- writers -----

#[test]
fn json_float_repr() {
    let cases: &[(f64, &str)] = &[
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1.0, "1.0"),
        (3.0, "3.0"),
        (-3.0, "-3.0"),
        (100.0, "100.0"),
        (0.1, "0.1"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (0.000123, "0.000123"),
        (0.0000123, "1.23e-05"),
        (1.5e-7, "1.5e-07"),
        (1e16, "1e+16"),
        (1.5e16, "1.5e+16"),
        (1234567890123456.0, "1234567890123456.0"),
        (12345678901234567.0, "1.2345678901234568e+16"),
        (9999999999999998.0, "9999999999999998.0"),
        (1e15, "1000000000000000.0"),
        (2.5e300, "2.5e+300"),
        (1e100, "1e+100"),
        (1e-100, "1e-100"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (2.2250738585072014e-308, "2.2250738585072014e-308"),
        (123.456, "123.456"),
        (0.30000000000000004, "0.30000000000000004"),
        (1.0 / 3.0, "0.3333333333333333"),
        (2.0 / 3.0, "0.6666666666666666"),
        (-1.25e-5, "-1.25e-05"),
        (f64::INFINITY, "Infinity"),
        (f64::NEG_INFINITY, "-Infinity"),
        (f64::NAN, "NaN"),
    ];
    for &(f, want) in cases {
        assert_eq!(f64_repr(f), want, "{f:e}");
    }
}

#[test]
fn json_write_i64() {
    for (i, want) in [
        (0i64, "0"),
        (7, "7"),
        (-7, "-7"),
        (1234567890, "1234567890"),
        (i64::MAX, "9223372036854775807"),
        (i64::MIN, "-9223372036854775808"),
    ] {
        let mut b = Buf(Vec::new());
        write_i64(i, &mut b);
        assert_eq!(b.0, want.as_bytes());
    }
}

#[test]
fn json_escaping() {
    assert_eq!(str_out("plain", true), "\"plain\"");
    assert_eq!(str_out("q\"b\\s/", true), r#""q\"b\\s/""#);
    assert_eq!(
        str_out("\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}", true),
        r#""\n\r\t\b\f\u0000\u001f\u007f""#
    );
    assert_eq!(
        str_out("\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}", false),
        "\"\\n\\r\\t\\b\\f\\u0000\\u001f\u{7f}\""
    );
    assert_eq!(
        str_out("é€😀\u{ffff}", true),
        r#""\u00e9\u20ac\ud83d\ude00\uffff""#
    );
    assert_eq!(str_out("é€😀\u{ffff}", false), "\"é€😀\u{ffff}\"");
    assert_eq!(str_out("\u{10ffff}", true), r#""\udbff\udfff""#);
    assert_eq!(str_out("", false), "\"\"");
    let j = |s: &str, ascii: bool| {
        let v = Value::parse(s).unwrap();
        let mut b = Buf(Vec::new());
        write_json_str(v.as_str().unwrap(), ascii, &mut b);
        String::from_utf8(b.0).unwrap()
    };
    assert_eq!(
        j(r#""\u0041\/\ud83d\ude00\ud800é""#, true),
        r#""A/\ud83d\ude00\ud800\u00e9""#
    );
    assert_eq!(
        j(r#""\u0041\/\ud83d\ude00\ud800é""#, false),
        "\"A/😀\\ud800é\""
    );
    assert_eq!(j(r#""\u00E9\u001F\u0022""#, false), "\"é\\u001f\\\"\"");
    assert_eq!(j(r#""x\\""#, true), r#""x\\""#);
}

#[test]
fn json_write_value() {
    let doc = r#" { "b" : [1, -0, 2.50, 1e2, -0.0, "x", true, null, [], {}],
        "a": {"y": 1, "x": 2}, "b": "again", "\u00e9": "é", "😀": 0 } "#;
    assert_eq!(
        dump(doc, Style::STATE),
        r#"{"b":"again","a":{"y":1,"x":2},"\u00e9":"\u00e9","\ud83d\ude00":0}"#
    );
    assert_eq!(
        dump(doc, Style::DIGEST),
        r#"{"a":{"x":2,"y":1},"b":"again","\u00e9":"\u00e9","\ud83d\ude00":0}"#
    );
    assert_eq!(
        dump(doc, Style::WIRE),
        r#"{"b":"again","a":{"y":1,"x":2},"é":"é","😀":0}"#
    );
    assert_eq!(
        dump(doc, Style::PY_UTF8),
        r#"{"b": "again", "a": {"y": 1, "x": 2}, "é": "é", "😀": 0}"#
    );
    assert_eq!(
        dump(
            r#"[1, -0, 2.50, 1e2, -0.0, "x", true, null, [], {}, 1E400]"#,
            Style::PY_UTF8
        ),
        r#"[1, 0, 2.5, 100.0, -0.0, "x", true, null, [], {}, Infinity]"#
    );
    // Duplicate keys: first position, last value, also through escapes.
    assert_eq!(
        dump(r#"{"a":1,"b":2,"\u0061":3,"c":4,"b":5}"#, Style::STATE),
        r#"{"a":3,"b":5,"c":4}"#
    );
    assert_eq!(
        dump(r#"{"c":1,"b":2,"c":3,"a":4,"b":5}"#, Style::DIGEST),
        r#"{"a":4,"b":5,"c":3}"#
    );
    // Sorting is by code point (not UTF-16), recursive.
    assert_eq!(
        dump(
            r#"{"😀":1,"\ue000":2,"\ud800":3,"Z":{"b":1,"a":2},"":0}"#,
            Style::DIGEST
        ),
        r#"{"":0,"Z":{"a":2,"b":1},"\ud800":3,"\ue000":2,"\ud83d\ude00":1}"#
    );
    assert_eq!(dump(" \"\\ud800\" ", Style::WIRE), r#""\ud800""#);
}

#[test]
fn json_sinks() {
    let v = Value::parse(r#"{"k": [1, 2, 3]}"#).unwrap();
    let mut c = CountSink::default();
    write_value(v, Style::STATE, &mut c);
    assert_eq!(c.0, r#"{"k":[1,2,3]}"#.len());
    let mut small = [0u8; 5];
    let mut s = SliceSink::new(&mut small);
    write_value(v, Style::STATE, &mut s);
    assert_eq!(s.finish(), Err(13));
    assert_eq!(s.written(), b"{\"k\":");
    let mut big = [0u8; 64];
    let mut s = SliceSink::new(&mut big);
    write_value(v, Style::STATE, &mut s);
    assert_eq!(s.finish(), Ok(13));
    assert_eq!(s.written(), br#"{"k":[1,2,3]}"#);
}

/// A string value written whole (when it renders as is) reads exactly as one
/// re-rendered through its decoded contents, in both styles.
#[test]
fn string_values_written_whole_match_re_rendering() {
    let pieces = [
        "a", "abcdefgh", "\\n", "\\u0041", "\\\\", "\\/", "é", "\u{7f}", "~", " ", "😀", "\\ud800",
    ];
    let mut texts = vec![String::from("\"\"")];
    for a in pieces {
        for b in pieces {
            for c in ["", "xyz12345", "é"] {
                texts.push(format!("\"{a}{c}{b}\""));
            }
        }
    }
    for t in &texts {
        let v = Value::parse(t).unwrap();
        for style in [Style::WIRE, Style::DIGEST, Style::STATE] {
            let mut whole = Buf(Vec::new());
            write_value(v, style, &mut whole);
            let mut again = Buf(Vec::new());
            write_json_str(v.as_str().unwrap(), style.ascii, &mut again);
            assert_eq!(whole.0, again.0, "{t} {style:?}");
        }
    }
}

// ----- robustness -----

/// Walk everything a Value offers; must not panic.
fn touch(v: Value<'_>, depth: usize) {
    assert!(depth <= MAX_DEPTH + 1);
    let _ = (v.kind(), v.is_null(), v.as_bool(), v.as_number(), v.len());
    if let Some(s) = v.as_str() {
        let _ = (s.char_len(), s.as_plain(), s.eq_str("a"), s.units().count());
    }
    for item in v.items() {
        touch(item, depth + 1);
    }
    for (k, val) in v.members() {
        let _ = (k.char_len(), k.cmp_decoded(k), v.get("a"));
        touch(val, depth + 1);
    }
    for style in STYLES {
        let mut c = CountSink::default();
        write_value(v, style, &mut c);
        let mut buf = [0u8; 7];
        let mut s = SliceSink::new(&mut buf);
        write_value(v, style, &mut s);
        assert_eq!(s.needed(), c.0);
    }
}

const ALPHABET: &[&str] = &[
    "{", "}", "[", "]", ",", ":", "\"", "\\", "u", "0", "1", "9", "-", "+", ".", "e", "E", "a",
    "d", "8", "t", "r", "f", "n", "l", "s", " ", "\n", "\t", "\u{1}", "é", "😀", "true", "null",
    "\\u", "\\ud83d", "\\ude00", "\"a\":", "[]", "{}",
];

#[test]
fn json_fuzz_never_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0usize;
    for round in 0..6000 {
        let text = if round % 2 == 0 {
            let len = rng.below(48);
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            let len = rng.below(40);
            (0..len).map(|_| rng.pick(ALPHABET)).collect()
        };
        if let Ok(v) = Value::parse(&text) {
            accepted += 1;
            touch(v, 0);
        }
    }
    // Mutations of valid documents exercise deeper paths.
    for _ in 0..3000 {
        let mut doc = String::new();
        gen_value(&mut rng, 0, &mut doc);
        let mutated = mutate(&mut rng, &doc);
        if let Ok(v) = Value::parse(&mutated) {
            accepted += 1;
            touch(v, 0);
        }
        touch(Value::parse(&doc).unwrap(), 0);
    }
    assert!(accepted > 50, "{accepted}");
}

// ----- generators shared with the CPython comparison -----

const STR_PIECES: &[&str] = &[
    "a",
    "b",
    "z",
    "k",
    "0",
    " ",
    "/",
    "é",
    "€",
    "😀",
    "\u{7f}",
    "\u{80}",
    "\u{ffff}",
    "\u{10ffff}",
    "\u{e000}",
    "\u{2028}",
    "\\n",
    "\\t",
    "\\r",
    "\\b",
    "\\f",
    "\\\"",
    "\\\\",
    "\\/",
    "\\u0000",
    "\\u001f",
    "\\u001F",
    "\\u007f",
    "\\u0041",
    "\\u00e9",
    "\\u20AC",
    "\\ud83d\\ude00",
    "\\uD83D\\uDE00",
    "\\ud800",
    "\\udc00",
    "\\udbff\\udfff",
    "\\ud83d\\u0041",
    "\\ud83d\\ud83d\\ude00",
    "\\ude00\\ud83d",
    "\\uffff",
    "\\u2028",
];

const KEYS: &[&str] = &[
    "a",
    "b",
    "\\u0061",
    "A",
    "",
    "aa",
    "ab",
    "é",
    "\\u00e9",
    "😀",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\udc00",
    "\u{e000}",
    "\\ue000",
    "\\u0000",
    "\\n",
    "z\\\"",
    "\u{ffff}",
];

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "0.0",
    "-0.0",
    "0e0",
    "1.0",
    "100",
    "1e16",
    "1E16",
    "1e15",
    "1e-5",
    "1e-4",
    "0.0001",
    "0.00001",
    "0.1",
    "0.2",
    "0.3",
    "5e-324",
    "2.5e-324",
    "2.4703282292062329e-324",
    "1e-400",
    "-1e-400",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1e309",
    "-1e400",
    "1e400",
    "123456789012345678",
    "-9223372036854775808",
    "9223372036854775808",
    "123456789012345678901234567890",
    "1234567890123456.0",
    "12345678901234567.0",
    "9007199254740993",
    "9007199254740993.0",
    "1.5e-7",
    "2.5e+300",
    "1e+2",
    "1E-2",
    "-1.25E-05",
    "0.1e1",
    "100e-2",
    "2.2250738585072011e-308",
    "4.9406564584124654e-324",
    "1.00000000000000011",
    "0.30000000000000004",
    "1e22",
    "1e23",
    "8.41e21",
    "5.0e-1",
];

fn gen_ws(rng: &mut Rng, out: &mut String) {
    if rng.below(3) == 0 {
        out.push_str(rng.pick(&["", " ", "\n", "\t", "\r", "  ", " \n "]));
    }
}

fn gen_number(rng: &mut Rng, out: &mut String) {
    match rng.below(7) {
        0 => out.push_str(rng.pick(NUMBERS)),
        1 => {
            let i = rng.next() as i64 >> rng.below(64);
            out.push_str(&format!("{i}"));
        }
        2 | 3 => {
            let f = f64::from_bits(rng.next());
            if f.is_finite() {
                out.push_str(&if rng.below(2) == 0 {
                    format!("{f:e}")
                } else {
                    format!("{f:?}")
                });
            } else {
                out.push_str("1.5");
            }
        }
        4 => {
            // A "nice" float of any magnitude.
            let m = rng.below(100_000) as i64 - 50_000;
            let e = rng.below(40) as i32 - 20;
            out.push_str(&format!("{m}e{e}"));
        }
        5 => {
            // Long decimal, exercises correctly rounded parsing.
            if rng.below(2) == 0 {
                out.push('-');
            }
            out.push(char::from(b'1' + rng.below(9) as u8));
            out.push('.');
            for _ in 0..1 + rng.below(25) {
                out.push(char::from(b'0' + rng.below(10) as u8));
            }
            let e = rng.below(660) as i32 - 340;
            out.push_str(&format!("e{e}"));
        }
        _ => {
            let digits = 1 + rng.below(40);
            out.push(char::from(b'1' + rng.below(9) as u8));
            for _ in 1..digits {
                out.push(char::from(b'0' + rng.below(10) as u8));
            }
        }
    }
}

fn gen_string(rng: &mut Rng, out: &mut String) {
    out.push('"');
    for _ in 0..rng.below(6) {
        out.push_str(rng.pick(STR_PIECES));
    }
    out.push('"');
}

fn gen_value(rng: &mut Rng, depth: usize, out: &mut String) {
    let choice = if depth >= 4 {
        rng.below(4)
    } else {
        rng.below(7)
    };
    match choice {
        0 => out.push_str(rng.pick(&["null", "true", "false"])),
        1 => gen_number(rng, out),
        2 | 3 => gen_string(rng, out),
        4 => {
            out.push('[');
            gen_ws(rng, out);
            for i in 0..rng.below(5) {
                if i > 0 {
                    out.push(',');
                    gen_ws(rng, out);
                }
                gen_value(rng, depth + 1, out);
                gen_ws(rng, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            gen_ws(rng, out);
            for i in 0..rng.below(7) {
                if i > 0 {
                    out.push(',');
                    gen_ws(rng, out);
                }
                if rng.below(4) == 0 {
                    gen_string(rng, out);
                } else {
                    out.push('"');
                    out.push_str(rng.pick(KEYS));
                    out.push('"');
                }
                gen_ws(rng, out);
                out.push(':');
                gen_ws(rng, out);
                gen_value(rng, depth + 1, out);
                gen_ws(rng, out);
            }
            out.push('}');
        }
    }
}

fn mutate(rng: &mut Rng, doc: &str) -> String {
    let mut chars: Vec<char> = doc.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(chars.len() + 1);
        match rng.below(3) {
            0 if at < chars.len() => {
                chars.remove(at);
            }
            1 if at < chars.len() => {
                let piece: Vec<char> = rng.pick(ALPHABET).chars().collect();
                chars.splice(at..at + 1, piece);
            }
            _ => {
                let piece: Vec<char> = rng.pick(ALPHABET).chars().collect();
                chars.splice(at..at, piece);
            }
        }
    }
    chars.into_iter().collect()
}

// ----- differential test against CPython -----

const PY_SCRIPT: &str = r#"
import json, re, sys
SUR = re.compile('[\ud800-\udfff]')
STYLES = [(True, (',', ':'), False, True), (True, (',', ':'), True, True),
          (False, (',', ':'), False, True), (False, (', ', ': '), False, False)]
def fin(x):
    if isinstance(x, float) and (x != x or x in (float('inf'), float('-inf'))):
        return None
    if isinstance(x, list):
        return [fin(i) for i in x]
    if isinstance(x, dict):
        return {k: fin(w) for k, w in x.items()}
    return x
out = []
for line in sys.stdin:
    doc = bytes.fromhex(line.strip()).decode('utf-8')
    try:
        v = json.loads(doc)
    except Exception:
        out.append('ERR')
        continue
    res = []
    for ascii, seps, sort_keys, null in STYLES:
        s = json.dumps(fin(v) if null else v, ensure_ascii=ascii, separators=seps, sort_keys=sort_keys)
        if not ascii:
            s = SUR.sub(lambda m: '\\u%04x' % ord(m.group()), s)
        res.append(s.encode('utf-8').hex())
    out.append(' '.join(res))
sys.stdout.write('\n'.join(out) + '\n')
"#;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Python's verdict per document: `None` when rejected, else the four renderings.
/// Panics when python3 cannot be started.
fn python(docs: &[String]) -> Vec<Option<Vec<String>>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = match Command::new("python3")
        .arg("-c")
        .arg(PY_SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        // Never a silent pass: CPython's `json` is this test's oracle.
        Err(e) => panic!(
            "json_matches_cpython needs python3 on PATH (CPython's json module is its \
             oracle), and starting python3 failed: {e}; install python3 to run it"
        ),
    };
    let mut input = String::new();
    for d in docs {
        input.push_str(&hex(d.as_bytes()));
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(output.status.success(), "python3 failed");
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<Option<Vec<String>>> = text
        .lines()
        .map(|l| (l != "ERR").then(|| l.split(' ').map(String::from).collect()))
        .collect();
    assert_eq!(lines.len(), docs.len());
    lines
}

/// Documents CPython accepts that strict RFC 8259 (and this reader) rejects.
fn python_only(doc: &str) -> bool {
    doc.contains("NaN") || doc.contains("Infinity")
}

#[test]
fn json_matches_cpython() {
    let mut docs: Vec<String> = Vec::new();
    for n in NUMBERS {
        docs.push(String::from(*n));
        docs.push(format!("[{n}]"));
    }
    for p in STR_PIECES {
        docs.push(format!("\"{p}\""));
    }
    for k in KEYS {
        docs.push(format!("{{\"{k}\": 1, \"b\": 2, \"{k}\": [3]}}"));
    }
    // Every BMP code point range boundary and a sample of the rest, raw and escaped.
    let mut cps: Vec<u32> = (0..0x100).collect();
    cps.extend([
        0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x10ffff,
    ]);
    cps.extend((0..2000).map(|i| i * 557 % 0x110000));
    for cp in cps {
        if let Some(c) = char::from_u32(cp) {
            if cp >= 0x20 && c != '"' && c != '\\' {
                docs.push(format!("\"{c}\""));
            }
        }
        if cp <= 0xffff {
            docs.push(format!("\"\\u{cp:04x}\""));
            docs.push(format!("{{\"\\u{cp:04X}\":0,\"a\":1}}"));
        }
    }
    let tricky = [
        "",
        " ",
        "[1,]",
        "{\"a\":1,}",
        "[01]",
        "[-01]",
        "[1.]",
        "[.1]",
        "[1e]",
        "[1e+]",
        "[-]",
        "[+1]",
        "[0x10]",
        "[\"\\x41\"]",
        "[\"\\u12\"]",
        "[\"\\u12G4\"]",
        "[\"\t\"]",
        "[\"\\'\"]",
        "'a'",
        "[1 2]",
        "{\"a\" 1}",
        "{1:2}",
        "{\"a\":}",
        "[true false]",
        "tru",
        "nul",
        "[]]",
        "[[]",
        "{}}",
        "\u{feff}[]",
        "[1]x",
        "[,1]",
        "[1,,2]",
        "{,}",
        "\"abc",
        "[\"\\\"]",
        "[True]",
        "\u{c}[]",
        "[1\u{c}]",
        "[\u{a0}1]",
        "[1]\u{0}",
        "[\"\\U0041\"]",
        "[1.5e]",
        "[--1]",
        "[-1.e5]",
        "[1.0e+-5]",
        "[\"a\\\nb\"]",
        "{\"a\":1]",
        "[1}",
        "\"\u{1f}\"",
        "[\"\u{0}\"]",
        "\"\\u0000\"",
        "[1e5]",
        "[-0]",
        " [ ] ",
        "\"\\ud800\"",
        "\"\\ud800\\\"",
        "[\"\\ud800\\u\"]",
        "[\"\\ud800\\uzzzz\"]",
        "[\"\\ud800\\u12\"]",
        "{\"a\":1 \"b\":2}",
    ];
    for t in tricky {
        docs.push(String::from(t));
    }
    let nesting = "[{\"a\":".repeat(32) + "1" + &"}]".repeat(32);
    docs.push(nesting);
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    for _ in 0..4000 {
        let mut d = String::new();
        gen_value(&mut rng, 0, &mut d);
        docs.push(d);
    }
    for _ in 0..4000 {
        let mut d = String::new();
        gen_value(&mut rng, 0, &mut d);
        docs.push(mutate(&mut rng, &d));
    }
    for _ in 0..1000 {
        let len = rng.below(24);
        docs.push((0..len).map(|_| rng.pick(ALPHABET)).collect());
    }

    let expected = python(&docs);
    let mut compared = 0usize;
    let mut both_rejected = 0usize;
    let mut failures = Vec::new();
    for (doc, want) in docs.iter().zip(&expected) {
        match (Value::parse(doc), want) {
            (Err(_), None) => both_rejected += 1,
            (Err(e), Some(_)) => {
                if !python_only(doc) {
                    failures.push(format!("rejected {doc:?} ({e:?}) which Python accepts"));
                }
            }
            (Ok(_), None) => failures.push(format!("accepted {doc:?} which Python rejects")),
            (Ok(v), Some(want)) => {
                for (style, want) in STYLES.iter().zip(want) {
                    compared += 1;
                    let got = hex(render(v, *style).as_bytes());
                    if &got != want {
                        failures.push(format!(
                            "{doc:?} {style:?}: got {:?}, Python {:?}",
                            render(v, *style),
                            String::from_utf8_lossy(
                                &(0..want.len() / 2)
                                    .map(|i| u8::from_str_radix(&want[2 * i..2 * i + 2], 16)
                                        .unwrap())
                                    .collect::<Vec<u8>>()
                            )
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(30)].join("\n")
    );
    assert!(compared > 20_000, "{compared}");
    assert!(both_rejected > 2_000, "{both_rejected}");
    // The intentional differences: NaN/Infinity literals and nesting beyond MAX_DEPTH.
    let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    let extra = vec![
        String::from("NaN"),
        String::from("[Infinity]"),
        String::from("-Infinity"),
        deep,
    ];
    let verdict = python(&extra);
    for (doc, want) in extra.iter().zip(verdict) {
        assert!(want.is_some(), "Python accepts {doc:?}");
        assert!(Value::parse(doc).is_err(), "{doc:?}");
    }
}

/// String contents are valid exactly when the quoted string is a JSON string (the two
/// share one scanner): every short text over an alphabet of quotes, backslashes, escape
/// letters, hex digits, a control character and non-ASCII.
#[cfg(feature = "serde")]
#[test]
fn string_contents_are_what_a_quoted_string_accepts() {
    let alphabet = [
        "\"", "\\", "u", "n", "/", "x", "0", "aF", "\u{1}", "é", "\\u00e9",
    ];
    let mut texts = vec![String::new()];
    // Every text of up to 4 pieces (up to 2 under miri).
    for _ in 0..if cfg!(miri) { 2 } else { 4 } {
        let longer: Vec<String> = texts
            .iter()
            .flat_map(|t| alphabet.iter().map(move |a| format!("{t}{a}")))
            .collect();
        texts.extend(longer);
        texts.dedup();
    }
    let mut valid = 0;
    for t in &texts {
        let want = Value::parse(&format!("\"{t}\"")).is_ok();
        assert_eq!(Str::from_contents(t).is_some(), want, "{t:?}");
        valid += usize::from(want);
    }
    assert!(
        valid > 1 && valid < texts.len(),
        "{valid} of {}",
        texts.len()
    );
}

/// `Value::get_value`'s one-member fast path finds what walking the members finds.
#[test]
fn get_value_reads_as_the_walk() {
    for text in [
        r#"{"value":"a"}"#,
        r#"{"value":12}"#,
        r#"{"value":-1.5e3}"#,
        r#"{"value":true}"#,
        r#"{"value":null}"#,
        r#"{"value":["x","y"]}"#,
        r#"{"value":{"a":{"b":[1]}}}"#,
        r#"{"value":"}\"]"}"#,
        r#"{"value":"\\"}"#,
        r#"{"value":"a\"},\"x\":1"}"#,
        r#"{"value":[1,{"a":"]}"}]}"#,
        r#"{"value":{"value":1}}"#,
        r#"{"value":"x","value":"y"}"#,
        r#"{"value":1,"value":2}"#,
        r#"{"value":1,"other":2}"#,
        r#"{"value":{"value":1},"x":2}"#,
        r#"{"value": 1}"#,
        r#"{"value":1 }"#,
        r#"{ "value":1}"#,
        r#"{"valu\u0065":1}"#,
        r#"{"values":1}"#,
        r#"{}"#,
        r#"["value",1]"#,
        r#""{\"value\":1}""#,
    ] {
        let v = Value::parse(text).unwrap();
        let walked = v
            .members()
            .filter(|(k, _)| k.eq_str("value"))
            .last()
            .map(|(_, x)| x.raw());
        assert_eq!(v.get_value().map(Value::raw), walked, "{text}");
        assert_eq!(v.get("value").map(Value::raw), walked, "{text}");
    }
}

#[test]
fn as_f64_reads_every_number_with_the_engines_parser() {
    let f = |text: &str| Value::parse(text).unwrap().as_f64();
    assert_eq!(f("3"), Some(3.0));
    assert_eq!(f("3.0"), Some(3.0));
    assert_eq!(f("-0").map(f64::to_bits), Some((-0.0f64).to_bits()));
    assert_eq!(f("2.5e-3"), Some(0.0025));
    // Past 2^53: the nearest f64, ties to even, as str::parse gives it.
    for text in [
        "9007199254740993",
        "18446744073709551617",
        "123456789012345678901234567890",
    ] {
        assert_eq!(f(text), text.parse::<f64>().ok(), "{text}");
    }
    assert_eq!(f("1e400"), Some(f64::INFINITY));
    assert_eq!(f("\"3\""), None);
    assert_eq!(f("true"), None);
}
