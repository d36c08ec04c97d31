//! `inputRequests` in declaration order on the wire.
//!
//! rmcp keeps `InputRequests` in a `BTreeMap`, so its serializer writes the questions
//! sorted by name; clients ask the user in the order received, and dependent questions
//! read naturally only in declaration (signature) order. A typed `InputRequiredResult`
//! cannot carry the order, so the engine records it in the result's `_meta` under
//! [`ORDER_KEY`] and the byte writers of this crate — [`crate::stdio`] and the HTTP/SSE
//! layer of `http` (a feature) — put the members back in that order and drop the key
//! ([`restore`]). A server that writes rmcp's bytes through another transport sees the
//! key in `_meta` and the questions in name order (nothing else differs).
//!
//! The proper fix is upstream: an order-keeping map for `InputRequests` in rmcp
//! (docs/rmcp-input-requests-order.md says what it takes); then this module goes.

use rmcp::model::MetaObject;
use serde_json::Value;

/// The `_meta` key holding the declaration order of `inputRequests` (an array of names)
/// between the engine and this crate's writers; never on the wire.
pub const ORDER_KEY: &str = "elicit/inputRequestsOrder";

/// Record `names` (declaration order) in `meta` for the writers.
pub(crate) fn record(meta: &mut MetaObject, names: Vec<String>) {
    meta.0.insert(
        ORDER_KEY.into(),
        Value::Array(names.into_iter().map(Value::String).collect()),
    );
}

/// One JSON-RPC message as written by rmcp (one stdio line, one SSE `data`, one HTTP
/// body): when its result carries [`ORDER_KEY`], the message with `inputRequests` in that
/// order and the key removed (and `_meta` too when nothing else is in it); `None` when
/// there is nothing to change (the message goes out as it is).
///
/// rmcp writes compact JSON with `inputRequests` before `_meta`; such a message is
/// rewritten by moving byte ranges (no parse into a tree). Anything else takes the
/// general path through `serde_json::Value`.
pub fn restore(message: &[u8]) -> Option<Vec<u8>> {
    let at = find(message, QUOTED_KEY)?;
    splice(message, at).or_else(|| restore_parsed(message))
}

const QUOTED_KEY: &[u8] = b"\"elicit/inputRequestsOrder\":";
const REQUESTS: &[u8] = b"\"inputRequests\":{";

/// Where `needle` first occurs in `haystack`.
pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// End (exclusive) of the string whose opening quote is at `start`.
fn string_end(s: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        match s.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// End (exclusive) of the compact JSON value starting at `start`.
fn value_end(s: &[u8], start: usize) -> Option<usize> {
    match s.get(start)? {
        b'"' => string_end(s, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            loop {
                match s.get(i)? {
                    b'"' => {
                        i = string_end(s, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let len = s
                .get(start..)?
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']'))?;
            Some(start + len)
        }
    }
}

/// The byte-moving path: `None` when the message is not shaped as rmcp writes it.
fn splice(msg: &[u8], at: usize) -> Option<Vec<u8>> {
    // The order: an array of plain strings.
    let arr = at + QUOTED_KEY.len();
    let arr_end = value_end(msg, arr)?;
    if msg.get(arr) != Some(&b'[') {
        return None;
    }
    let mut names: Vec<&[u8]> = Vec::new();
    let mut i = arr + 1;
    while msg.get(i) == Some(&b'"') {
        let end = string_end(msg, i)?;
        let name = msg.get(i + 1..end - 1)?;
        if name.contains(&b'\\') {
            return None;
        }
        names.push(name);
        i = end;
        if msg.get(i) == Some(&b',') {
            i += 1;
        }
    }
    // The member to drop, with one comma; a `_meta` holding nothing else goes the slow way.
    let (cut_from, cut_to) = if at.checked_sub(1).and_then(|p| msg.get(p)) == Some(&b',') {
        (at - 1, arr_end)
    } else if msg.get(arr_end) == Some(&b',') {
        (at, arr_end + 1)
    } else {
        return None;
    };
    // The questions: compact members, before `_meta`.
    let obj = find(msg, REQUESTS)? + REQUESTS.len() - 1;
    let obj_end = value_end(msg, obj)?;
    if obj_end > at {
        return None;
    }
    let mut members: Vec<(&[u8], &[u8])> = Vec::new();
    let mut i = obj + 1;
    while msg.get(i) == Some(&b'"') {
        let key_end = string_end(msg, i)?;
        if msg.get(key_end) != Some(&b':') {
            return None;
        }
        let end = value_end(msg, key_end + 1)?;
        members.push((msg.get(i + 1..key_end - 1)?, msg.get(i..end)?));
        i = end;
        if msg.get(i) == Some(&b',') {
            i += 1;
        }
    }
    if i + 1 != obj_end {
        return None;
    }
    let mut out = Vec::with_capacity(msg.len());
    out.extend_from_slice(msg.get(..=obj)?);
    let mut first = true;
    let mut put = |out: &mut Vec<u8>, member: &[u8]| {
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(member);
    };
    for name in &names {
        if let Some((_, m)) = members.iter().find(|(k, _)| k == name) {
            put(&mut out, m);
        }
    }
    for (k, m) in &members {
        if !names.contains(k) {
            put(&mut out, m);
        }
    }
    out.extend_from_slice(msg.get(obj_end - 1..cut_from)?);
    out.extend_from_slice(msg.get(cut_to..)?);
    Some(out)
}

/// The general path: parse, reorder, write.
fn restore_parsed(message: &[u8]) -> Option<Vec<u8>> {
    let mut value: Value = serde_json::from_slice(message).ok()?;
    let result = value.get_mut("result")?.as_object_mut()?;
    let meta = result.get_mut("_meta")?.as_object_mut()?;
    let order = meta.shift_remove(ORDER_KEY)?;
    if meta.is_empty() {
        result.shift_remove("_meta");
    }
    if let Some(Value::Object(requests)) = result.get_mut("inputRequests") {
        let mut sorted = serde_json::Map::with_capacity(requests.len());
        for name in order
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if let Some((k, v)) = requests.shift_remove_entry(name) {
                sorted.insert(k, v);
            }
        }
        // Anything the order does not name keeps its place after the named ones.
        sorted.append(requests);
        *requests = sorted;
    }
    serde_json::to_vec(&value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writer_restores_the_recorded_order_and_drops_the_key() {
        let msg = br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"date":{"m":1},"destination":{"m":2},"seat":{"m":3}},"requestState":"v1.x","_meta":{"elicit/inputRequestsOrder":["destination","date","seat"],"io.modelcontextprotocol/serverInfo":{"name":"booking"}}}}"#;
        let out = String::from_utf8(restore(msg).unwrap()).unwrap();
        assert_eq!(
            out,
            r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"destination":{"m":2},"date":{"m":1},"seat":{"m":3}},"requestState":"v1.x","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"booking"}}}}"#
        );
        let partial = br#"{"id":1,"result":{"inputRequests":{"a":2,"b":1,"c":3},"_meta":{"elicit/inputRequestsOrder":["c","a"]}}}"#;
        assert_eq!(
            String::from_utf8(restore(partial).unwrap()).unwrap(),
            r#"{"id":1,"result":{"inputRequests":{"c":3,"a":2,"b":1}}}"#
        );
        assert!(restore(br#"{"id":1,"result":{}}"#).is_none());
        // Both paths write the same bytes; odd shapes fall back to the parsed one.
        let at = find(msg, QUOTED_KEY).unwrap();
        assert_eq!(splice(msg, at), restore_parsed(msg));
        assert!(splice(msg, at).is_some());
        // A `_meta` holding only the order goes the parsed way.
        assert!(splice(partial, find(partial, QUOTED_KEY).unwrap()).is_none());
        let spaced = br#"{"id":1,"result":{"inputRequests": {"b":{"x":"}"},"a":[1,"]"]},"_meta":{"elicit/inputRequestsOrder":["a","b"],"k":1}}}"#;
        assert_eq!(
            String::from_utf8(restore(spaced).unwrap()).unwrap(),
            r#"{"id":1,"result":{"inputRequests":{"a":[1,"]"],"b":{"x":"}"}},"_meta":{"k":1}}}"#
        );
        let tricky = br#"{"id":1,"result":{"inputRequests":{"b":{"x":"}"{"},"a":[1,"]"]},"_meta":{"elicit/inputRequestsOrder":["a","b"],"k":1}}}"#;
        let at = find(tricky, QUOTED_KEY).unwrap();
        assert_eq!(splice(tricky, at), restore_parsed(tricky));
    }
}
