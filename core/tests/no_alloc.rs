//! The engine allocates nothing: a counting global allocator watches this thread while a
//! plan is compiled and full modern and handshake calls run through the no-alloc API
//! (stack workspaces, `SliceSink`s over stack buffers, `*_into` helpers).
// A test crate: a failed unwrap, expect, index or panic is a failed test. (clippy.toml's
// allow-*-in-tests exempts #[test] functions; this exempts their helpers too.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use elicit_core::json::Style;
use elicit_core::{Era, Inputs, Plan, Round, SliceSink, Step};

struct Counting;

thread_local! {
    static WATCHING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note_alloc() {
    // `try_with`: the allocator may run while thread locals are being torn down.
    let _ = WATCHING.try_with(|w| {
        if w.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations made on this thread while `f` runs.
fn allocations_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    COUNT.with(|c| c.set(0));
    WATCHING.with(|w| w.set(true));
    let r = f();
    WATCHING.with(|w| w.set(false));
    (r, COUNT.with(|c| c.get()))
}

const DECL: &str = r#"{"tool":"book_flight","parameters":[
  {"name":"item"},
  {"name":"destination","elicit":{"message":"Where would you like to fly?"}},
  {"name":"date","type":{"type":"string","format":"date"},"elicit":{"message":"When?"}},
  {"name":"airport","elicit":{"needs":["destination"],"declares":"string"}},
  {"name":"proceed","type":"boolean","elicit":{"needs":["destination","date"]}},
  {"name":"seat","type":{"enum":["window","aisle"]},"default":null,
   "elicit":{"message":"Window or aisle?","title":"Seat"}},
  {"name":"bags","type":{"type":"object","title":"Bags","properties":{
     "count":{"type":"integer","minimum":0,"default":1},"note":"string"}},
   "elicit":{"message":"Bags?"}},
  {"name":"ok","type":"boolean","outcome":true,"elicit":{"message":"Go?"}}
]}"#;

const ARGS: &str = r#"{"item":"flight"}"#;

/// A fixed-size text buffer (for messages) that never allocates.
struct Text<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Text<N> {
    fn new() -> Self {
        Text {
            buf: [0; N],
            len: 0,
        }
    }
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.len]).unwrap()
    }
}

impl<const N: usize> core::fmt::Write for Text<N> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        if end > N {
            return Err(core::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Run the host side of one round without allocating: answer every Resolve step.
fn drive<const N: usize>(round: &mut Round<'_, '_, N>) -> Step {
    loop {
        match round.poll().unwrap() {
            Step::Resolve { param } => {
                let mut inputs = [0u8; 128];
                let mut sink = SliceSink::new(&mut inputs);
                round.write_resolve_inputs(&mut sink).unwrap();
                let n = sink.finish().unwrap();
                let inputs = std::str::from_utf8(&inputs[..n]).unwrap();
                match round.plan().name(param).unwrap() {
                    "airport" => {
                        assert_eq!(inputs, r#"{"destination":"Paris"}"#);
                        round
                            .resolve_question(r#"{"message":"Which airport in Paris?"}"#)
                            .unwrap();
                    }
                    "proceed" => {
                        assert_eq!(inputs, r#"{"destination":"Paris","date":"2026-08-01"}"#);
                        round
                            .resolve_question(r#"{"message":"Book Paris on 2026-08-01?"}"#)
                            .unwrap();
                    }
                    other => panic!("no resolver for {other}"),
                }
            }
            Step::Ask { param } => {
                let mut ask = [0u8; 512];
                let mut sink = SliceSink::new(&mut ask);
                round.write_ask(&mut sink).unwrap();
                sink.finish().unwrap();
                let reply = match round.plan().name(param).unwrap() {
                    "destination" => r#"{"action":"accept","content":{"value":"Paris"}}"#,
                    "date" => r#"{"action":"accept","content":{"value":"2026-08-01"}}"#,
                    "airport" => r#"{"action":"accept","content":{"value":"CDG"}}"#,
                    "proceed" => r#"{"action":"accept","content":{"value":true}}"#,
                    "seat" => r#"{"action":"decline"}"#,
                    "bags" => r#"{"action":"accept","content":{"note":"skis"}}"#,
                    "ok" => r#"{"action":"cancel"}"#,
                    other => panic!("unexpected ask {other}"),
                };
                round.answer(reply).unwrap();
            }
            step => return step,
        }
    }
}

const VALUES: &str = r#"{"destination":"Paris","date":"2026-08-01","airport":"CDG","proceed":true,"seat":null,"bags":{"count":1,"note":"skis"},"ok":{"action":"cancel"}}"#;

#[test]
fn compile_and_full_calls_allocate_nothing() {
    let (results, allocations) = allocations_during(|| {
        let plan = Plan::<16>::compile(DECL).unwrap();
        let mut values_modern = [0u8; 512];
        let mut values_handshake = [0u8; 512];

        // Modern era: three rounds, the state carried in stack buffers.
        let mut state1 = [0u8; 512];
        let mut requests = [0u8; 2048];
        let mut ws = [0u8; 1024];
        let mut round = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern(ARGS, None, None),
            &mut ws,
        )
        .unwrap();
        assert_eq!(drive(&mut round), Step::InputRequired);
        let mut sink = SliceSink::new(&mut requests);
        round.write_input_requests(true, &mut sink).unwrap();
        sink.finish().unwrap();
        let mut sink = SliceSink::new(&mut state1);
        round.write_request_state(&mut sink).unwrap();
        let n1 = sink.finish().unwrap();
        let state1 = std::str::from_utf8(&state1[..n1]).unwrap();

        let replies2 = r#"{"destination":{"action":"accept","content":{"value":"Paris"}},
            "date":{"action":"accept","content":{"value":"2026-08-01"}},
            "seat":{"action":"decline"},
            "bags":{"action":"accept","content":{"note":"skis"}},
            "ok":{"action":"cancel"}}"#;
        let mut ws = [0u8; 1024];
        let mut round = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern(ARGS, Some(state1), Some(replies2)),
            &mut ws,
        )
        .unwrap();
        assert_eq!(drive(&mut round), Step::InputRequired);
        let mut state2 = [0u8; 1024];
        let mut sink = SliceSink::new(&mut state2);
        round.write_request_state(&mut sink).unwrap();
        let n2 = sink.finish().unwrap();
        let state2 = std::str::from_utf8(&state2[..n2]).unwrap();

        let replies3 = r#"{"airport":{"action":"accept","content":{"value":"CDG"}},
            "proceed":{"action":"accept","content":{"value":true}}}"#;
        let mut ws = [0u8; 1024];
        let mut round = Round::new(
            &plan,
            Era::Modern,
            Inputs::modern(ARGS, Some(state2), Some(replies3)),
            &mut ws,
        )
        .unwrap();
        assert_eq!(drive(&mut round), Step::Done);
        assert!(round.notes().is_empty());
        let mut sink = SliceSink::new(&mut values_modern);
        round.write_values(Style::WIRE, &mut sink).unwrap();
        let nm = sink.finish().unwrap();

        // Handshake era: one round asks everything in turn.
        let mut ws = [0u8; 1024];
        let mut round =
            Round::new(&plan, Era::Handshake, Inputs::handshake(ARGS), &mut ws).unwrap();
        assert_eq!(drive(&mut round), Step::Done);
        let mut sink = SliceSink::new(&mut values_handshake);
        round.write_values(Style::WIRE, &mut sink).unwrap();
        let nh = sink.finish().unwrap();

        // Errors and notes render without a heap too.
        let mut ws = [0u8; 64];
        let mut failing =
            Round::new(&plan, Era::Handshake, Inputs::handshake(ARGS), &mut ws).unwrap();
        assert_eq!(failing.poll().unwrap(), Step::Ask { param: 1 });
        let e = failing.answer(r#"{"action":"decline"}"#).unwrap_err();
        let mut msg: Text<256> = Text::new();
        core::fmt::write(&mut msg, format_args!("{e}")).unwrap();
        let mut ws = [0u8; 256];
        let noted = Round::new(
            &plan,
            Era::Modern,
            // A state that did not ask them: the replies are discarded with notes.
            Inputs::modern(
                ARGS,
                Some(r#"{"v":1,"answers":{},"asked":{}}"#),
                Some(replies2),
            ),
            &mut ws,
        );
        let mut noted = noted.unwrap();
        assert_eq!(noted.poll().unwrap(), Step::InputRequired);
        let mut note: Text<256> = Text::new();
        let first = noted.notes()[0];
        first
            .write_message(plan.name(first.param()).unwrap(), &mut note)
            .unwrap();

        (values_modern, nm, values_handshake, nh, msg, note)
    });
    let (values_modern, nm, values_handshake, nh, msg, note) = results;
    assert_eq!(allocations, 0, "the engine allocated");
    assert_eq!(std::str::from_utf8(&values_modern[..nm]).unwrap(), VALUES);
    assert_eq!(
        std::str::from_utf8(&values_handshake[..nh]).unwrap(),
        VALUES
    );
    assert_eq!(
        msg.as_str(),
        "Cannot continue without 'destination': the request was declined. Give the parameter \
         a default to make it optional."
    );
    assert_eq!(
        note.as_str(),
        "Discarding the reply for 'destination': the question changed since it was asked"
    );
}

#[test]
fn the_counter_sees_allocations() {
    let (_, n) = allocations_during(|| std::hint::black_box(vec![1u8; 16]));
    assert!(n >= 1);
}
