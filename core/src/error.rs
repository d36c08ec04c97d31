//! Every error the engine reports, with messages that name the parameter and what to do:
//! [`CompileError`] when a declaration (or a compiled plan's bytes) is rejected, [`Error`]
//! when a round fails. The two are separate so that the round's `Result`s stay small (the
//! round's error holds at most two names; the compile error also holds a cycle path and
//! rendered types).
//!
//! Messages of errors that the reference (FastMCP's declared elicitation) also raises are
//! byte-identical to the reference's, names quoted the way Python's `repr` quotes them
//! (deviation: a cancelled required answer reads "the request was cancelled.").

use core::fmt;

use crate::json::JsonError;
use crate::pyfmt::PyRepr;

/// Longest parameter or tool name the engine stores (bytes of UTF-8).
pub const MAX_NAME: usize = 64;
/// A parameter or tool name held inside an error.
pub type Name = Text<MAX_NAME>;
/// Room for a cycle path or a rendered type name inside an error.
pub type Detail = Text<192>;

/// Up to `N` bytes of UTF-8 held inline (no heap) with a one-byte length: the names and
/// details inside errors. `N` is at most 255. It reads as a `&str` (it derefs to one).
///
/// The one-byte length (rather than a `usize`) keeps the round's [`Error`] small: it
/// holds up to two of these.
#[derive(Clone, Copy)]
pub struct Text<const N: usize> {
    len: u8,
    bytes: [u8; N],
}

impl<const N: usize> Text<N> {
    const FITS: () = assert!(N <= 255, "a Text holds at most 255 bytes");

    /// An empty text.
    pub const fn new() -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::FITS;
        Text {
            len: 0,
            bytes: [0; N],
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Only whole `str`s are ever appended, so this never fails.
        core::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }

    /// Append `s` whole, or return `Err(())` and change nothing when it does not fit.
    #[allow(clippy::result_unit_err)] // the shape of heapless::String::push_str
    pub fn push_str(&mut self, s: &str) -> Result<(), ()> {
        let at = self.len as usize;
        let end = at + s.len();
        if end > N {
            return Err(());
        }
        self.bytes[at..end].copy_from_slice(s.as_bytes());
        self.len = end as u8;
        Ok(())
    }

    /// Append `c`, or return `Err(())` and change nothing when it does not fit.
    #[allow(clippy::result_unit_err)] // the shape of heapless::String::push
    pub fn push(&mut self, c: char) -> Result<(), ()> {
        self.push_str(c.encode_utf8(&mut [0u8; 4]))
    }

    /// `s`, cut after its last whole character that fits.
    pub fn truncated(s: &str) -> Self {
        let mut t = Self::new();
        for c in s.chars() {
            if t.push(c).is_err() {
                break;
            }
        }
        t
    }
}

impl<const N: usize> Default for Text<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> core::ops::Deref for Text<N> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> AsRef<str> for Text<N> {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl<'s, const N: usize> TryFrom<&'s str> for Text<N> {
    type Error = ();
    /// `s` whole, or `Err(())` when it is longer than `N` bytes.
    fn try_from(s: &'s str) -> Result<Self, ()> {
        let mut t = Self::new();
        t.push_str(s)?;
        Ok(t)
    }
}

impl<const N: usize> fmt::Write for Text<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s).map_err(|()| fmt::Error)
    }
}

impl<const N: usize> fmt::Debug for Text<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl<const N: usize> fmt::Display for Text<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<const N: usize> PartialEq for Text<N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl<const N: usize> Eq for Text<N> {}

impl<const N: usize> PartialEq<str> for Text<N> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl<const N: usize> PartialEq<&str> for Text<N> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl<const N: usize> core::hash::Hash for Text<N> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

/// Defines [`Problem`]: a constant per message the engine can report while it loads
/// plans and runs rounds, each with its text.
macro_rules! problems {
    ($($name:ident = $text:literal,)*) => {
        /// What is wrong, inside an error: its message reads as a `&str` ([`Problem::as_str`],
        /// `Display`, `Deref`).
        ///
        /// The messages the engine can report on a device (loading plan bytes, checking
        /// types and schemas that arrive at run time, running rounds) are held as small
        /// codes, not as `&'static str`: a firmware that never displays an error then does
        /// not link their text (about 4 KB). The text is the same either way.
        #[derive(Clone, Copy, PartialEq, Eq)]
        pub struct Problem(Repr);

        // The plan-bytes messages are only used with the `serde` feature.
        #[derive(Clone, Copy, PartialEq, Eq)]
        #[allow(non_camel_case_types, dead_code)]
        enum Repr {
            Text(&'static str),
            $($name,)*
        }

        #[allow(dead_code)]
        impl Problem {
            $(pub(crate) const $name: Problem = Problem(Repr::$name);)*

            /// The message.
            pub fn as_str(self) -> &'static str {
                match self.0 {
                    Repr::Text(text) => text,
                    $(Repr::$name => $text,)*
                }
            }
        }

        #[cfg(test)]
        pub(crate) const ALL_PROBLEMS: &[Problem] = &[$(Problem::$name,)*];
    };
}

problems! {
    TYPE_KEYWORD = "the type uses a keyword outside the MCP elicitation subset (allowed: type, enum, minLength, maxLength, format, minimum, maximum, items, minItems, maxItems, title, description, default, properties)",
    COUNT_NOT_INTEGER = "minLength, maxLength, minItems and maxItems must be non-negative integers",
    BOUND_NOT_NUMBER = "minimum and maximum must be numbers",
    ENUM_NOT_STRINGS = "enum must be a non-empty array of strings",
    TYPE_NAME_UNKNOWN = "a type name must be one of \"string\", \"integer\", \"number\", \"boolean\" (or a type object)",
    TYPE_NOT_NAME_OR_OBJECT = "a type must be a type name or a type object",
    FIELD_RAW_SCHEMA = "an object field cannot be a raw schema",
    SCHEMA_OTHER_KEYS = "a {\"schema\": ...} type takes no other keys",
    LABELS_ON_OBJECT_TYPE = "title, description and default belong on an object type's fields; label a question with the elicit's \"title\"/\"description\" and give the parameter its own \"default\"",
    TYPE_OBJECT_NEEDS_TYPE = "a type object needs \"type\" (or is {\"enum\": [...]} / {\"schema\": ...})",
    FORMAT_UNKNOWN = "format must be one of \"email\", \"uri\", \"date\", \"date-time\"",
    NESTED_OBJECT = "nested objects are outside the MCP elicitation subset",
    OBJECT_TYPES_LEFT_OUT = "object types need elicit-core's \"object-types\" feature, which this build leaves out (enable it)",
    RAW_SCHEMA_LEFT_OUT = "raw requestedSchema types ({\"schema\": ...}) need elicit-core's \"raw-schema\" feature, which this build leaves out (enable it)",
    OBJECT_TYPE_KEYS = "an object type takes only \"type\", \"title\" and \"properties\"",
    OBJECT_TITLE_NOT_STRING = "an object type's title must be a string",
    PROPERTIES_NOT_FIELDS = "\"properties\" must be a non-empty object of fields",
    FIELD_TWICE = "a field name appears twice in \"properties\"",
    FIELD_LABELS_NOT_STRINGS = "a field's title and description must be strings",
    TYPE_UNKNOWN = "\"type\" must be one of string, integer, number, boolean, array, object",
    RAW_PROPERTY_NOT_OBJECT = "every property of a raw requestedSchema must be an object",
    RAW_KEYWORD = "a raw requestedSchema property uses a keyword outside the MCP elicitation subset",
    RAW_ARRAY_NOT_MULTI = "array properties must be multi-select: items with enum or anyOf of consts",
    RAW_PROPERTY_TYPE = "raw requestedSchema properties must be string, integer, number, boolean or a multi-select array",
    RAW_CHOICES_NOT_ARRAY = "enum, oneOf and anyOf must be arrays",
    RAW_REQUIRED_NOT_NAMES = "required must be an array of property names",
    RAW_REQUIRED_UNKNOWN = "required names a property that is not in properties",
    TYPE_NOT_STRING = "\"type\" must be a string",
    ARRAY_NEEDS_ITEMS = "an array type needs \"items\": {\"enum\": [...]}",
    ARRAY_ITEMS_NOT_ENUM = "array items must be {\"enum\": [strings]} (multi-select); other arrays are outside the MCP subset",
    OBJECT_NEEDS_PROPERTIES = "an object type needs \"properties\"",
    RAW_ARRAY_NEEDS_ITEMS = "an array property needs items with enum or anyOf of consts",
    RAW_SCHEMA_SHAPE = "a raw requestedSchema must be {\"type\":\"object\",\"properties\":{...}} with optional required/title/description",
    PLAN_TOOL_NAME = "the tool name must be 1 to 64 bytes long",
    PLAN_PARAM_NAME = "parameter names must be 1 to 64 bytes long",
    PLAN_TYPE = "the compiled answer type is inconsistent",
    PLAN_OUTCOME = "\"outcome\" needs \"elicit\": only an elicited parameter has an outcome",
    PLAN_FALLBACK = "only an elicited form or roots parameter may fall back to an argument",
    PLAN_NEED = "a resolver needs a parameter the plan does not have",
    PLAN_DECLARED_TYPE = "the resolver's declared type is inconsistent",
    PLAN_LABELS = "title and description label the wrapped value of a scalar, enum or array answer",
    PLAN_ORDER_UNKNOWN = "the resolution order names a parameter the plan does not have",
    PLAN_ORDER = "the resolution order is inconsistent",
    PLAN_ORDER_RESOLVER = "the resolution order puts a resolver before what it needs",
    PLAN_ORDER_MISSING = "the resolution order leaves out an elicited parameter",
    PLAN_VERSION = "the compiled plan was written in another format version; compile the declaration again with this version of elicit-core",
    PLAN_MALFORMED = "the compiled plan's bytes are truncated or malformed; write them again with Plan::to_postcard",
    NOT_JSON = "not valid JSON",
    NOT_OBJECT = "must be a JSON object",
    NOT_INPUT_RESPONSE = "matches no InputResponse shape (an ElicitResult needs \"action\" accept/decline/cancel and flat \"content\")",
    NOT_KEYED_OBJECT = "must be a JSON object keyed by request name",
    VALUE_NOT_JSON = "the value is not valid JSON",
    QUESTION_MESSAGE = "a question needs a string \"message\"",
    QUESTION_LABELS_NOT_STRINGS = "a question's title and description must be strings",
    QUESTION_LABELS = "title and description label the wrapped value of a scalar, enum or array answer; an object type's fields carry their own",
    QUESTION_NOT_OBJECT = "a question must be an object {\"message\": ..., \"type\"?, \"title\"?, \"description\"?}",
    QUESTION_UNKNOWN_KEY = "a question has only \"message\", \"type\", \"title\" and \"description\"",
    QUESTION_NOT_JSON = "the question is not valid JSON",
    SAMPLING_PARAMS = "sampling params must be a CreateMessageRequest's params: \"messages\" (a non-empty array of {\"role\": \"user\" or \"assistant\", \"content\": ...}), a positive integer \"maxTokens\", and only the other keys MCP defines (systemPrompt, modelPreferences, includeContext, temperature, stopSequences, metadata, tools, toolChoice, _meta)",
    ROOTS_PARAMS = "roots params must be a ListRootsRequest's params: an object with at most \"_meta\" (usually {})",
    URL_QUESTION = "a URL-mode question is {\"message\": string, \"url\": string} and nothing else",
    SAMPLING_QUESTION = "a sampling question is {\"sampling\": {CreateMessageRequest params}} and nothing else",
    ROOTS_QUESTION = "a roots question is {\"roots\": {ListRootsRequest params}} and nothing else",
    INPUT_KINDS_LEFT_OUT = "URL-mode elicitation, sampling and roots need elicit-core's \"input-kinds\" feature, which this build leaves out (enable it)",
    FALLBACK_LEFT_OUT = "a declared fallback (\"fallback\": \"arguments\") needs elicit-core's \"fallback\" feature, which this build leaves out (enable it)",
    MESSAGE_NEEDS_JSON = "the message holds a character JSON escapes (a quote, a backslash, a control character); pass the question as JSON to resolve_question",
    MESSAGE_NOT_FORM = "a message alone is a form question and this resolver asks another kind; pass its question to resolve_question",
}

impl Problem {
    /// A message given as text (the declaration compiler's, which devices that load plan
    /// bytes do not link).
    pub(crate) const fn text(text: &'static str) -> Problem {
        Problem(Repr::Text(text))
    }
}

impl core::ops::Deref for Problem {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Problem {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for Problem {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Problem {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

pub(crate) fn name(s: &str) -> Name {
    Name::truncated(s)
}

pub(crate) fn detail(s: &str) -> Detail {
    Detail::truncated(s)
}

/// Why a declaration (or a compiled plan's bytes) was rejected: the error of
/// [`crate::Plan::compile`] and `Plan::from_postcard` (feature `serde`).
///
/// Kept apart from the round's [`Error`] because it carries several names, a cycle path
/// and rendered types inline (no heap), which would make every `Result` of the round
/// machine as large.
#[derive(Debug, Clone, PartialEq)]
// Not #[non_exhaustive]: the C ABI maps every variant to a named code by an exhaustive
// match (elicit-ffi-noalloc's codes.rs), so a new variant must fail to compile there
// until it has its code.
#[allow(clippy::large_enum_variant)] // inline names: no heap
pub enum CompileError {
    /// The declaration is not JSON.
    DeclarationJson(JsonError),
    /// The declaration is JSON but not a valid declaration. `at` names the place
    /// (a parameter name or `tool`), `problem` what is wrong and how to fix it.
    Declaration {
        /// The parameter (or "tool") the problem is in.
        at: Name,
        /// What is wrong.
        problem: Problem,
    },
    /// Two parameters share a name.
    DuplicateName {
        /// The repeated name.
        name: Name,
    },
    /// A resolver needs a name that is neither an argument nor an elicited parameter.
    UnknownNeed {
        /// The tool.
        tool: Name,
        /// The parameter whose resolver needs it.
        param: Name,
        /// The unknown name.
        need: Name,
    },
    /// Resolvers need each other in a cycle.
    Cycle {
        /// The tool.
        tool: Name,
        /// `a -> b -> a`
        path: Detail,
    },
    /// A resolver declares an answer type that contradicts its parameter's type.
    DeclaredTypeMismatch {
        /// The tool.
        tool: Name,
        /// The parameter.
        param: Name,
        /// The declared type, rendered the way the reference renders it.
        declared: Detail,
        /// The parameter's type.
        annotated: Detail,
    },
    /// The tool declares elicited parameters and also returns its own InputRequiredResult.
    MixedWithInputRequired {
        /// The tool.
        tool: Name,
    },
    /// A type or schema outside the MCP elicitation subset.
    UnsupportedSchema {
        /// The parameter.
        param: Name,
        /// Why.
        problem: Problem,
    },
    /// A fixed capacity was exceeded.
    Capacity {
        /// What overflowed.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
}

/// An error of a round (or of writing output into a caller's buffer). Round errors are
/// terminal for the round that reports them (every later call on that round returns the
/// same error). Declarations are rejected with [`CompileError`] instead.
#[derive(Debug, Clone, Copy, PartialEq)]
// Not #[non_exhaustive]: the C ABI maps every variant to a named code by an exhaustive
// match (elicit-ffi-noalloc's codes.rs), so a new variant must fail to compile there
// until it has its code.
pub enum Error {
    // ----- call inputs -----
    /// The call's arguments are not a JSON object.
    Arguments {
        /// What is wrong.
        problem: Problem,
    },
    /// A model-supplied argument that a resolver needs is missing from the call.
    MissingArgument {
        /// The argument.
        name: Name,
    },
    /// `inputResponses` is malformed (not an object, or an entry matches no
    /// InputResponse shape).
    InputResponses {
        /// The offending key, if one.
        key: Name,
        /// What is wrong.
        problem: Problem,
    },

    /// A handshake-era round was given a 2026-07-28 input (`requestState` or
    /// `inputResponses`): that era asks one question at a time and carries no state.
    HandshakeInputs {
        /// The input given: `"requestState"` or `"inputResponses"`.
        input: &'static str,
    },
    /// The plaintext `requestState` given to a round is a sealed token (it starts with
    /// `v1.`): the host passed the request's `requestState` without unsealing it. Were it
    /// read as a state it would be "no progress", and every round would ask the same
    /// questions again.
    SealedState,

    /// The round would ask a question of a kind the client did not declare (JSON-RPC
    /// `-32021`; HTTP 400). Nothing was shown: answer with `data.requiredCapabilities` =
    /// [`crate::Capabilities::write_json`] of `missing`.
    MissingCapability {
        /// The first parameter (in resolution order) whose question needs it.
        param: Name,
        /// That parameter's kind.
        kind: crate::InputKind,
        /// Whether a resolver asks that parameter's question (`false`: a literal question
        /// of the declaration). The message names a resolver only for a resolver, in the
        /// MCP Python SDK's words (whose parameters are all resolved).
        resolver: bool,
        /// Every undeclared kind the round's questions need.
        missing: crate::Capabilities,
    },

    // ----- resolution (the reference's ToolErrors) -----
    /// A reply is a valid InputResponse but not the result the parameter's kind of
    /// request takes (e.g. a CreateMessageResult for a form question, or a URL-mode
    /// answer carrying content).
    WrongReply {
        /// The parameter.
        param: Name,
        /// The kind of request that asked it.
        kind: crate::InputKind,
    },
    /// `accept` without `content`.
    AcceptedWithoutContent {
        /// The parameter.
        param: Name,
    },
    /// Accepted content does not match the requested schema.
    SchemaMismatch {
        /// The parameter.
        param: Name,
    },
    /// A required parameter was declined or cancelled.
    Refused {
        /// The parameter.
        param: Name,
        /// `true` for cancel, `false` for decline.
        cancelled: bool,
    },
    /// The host reported that a resolver's own dependency could not be built.
    ResolverDependency {
        /// The parameter.
        param: Name,
        /// The dependency that failed.
        dependency: Name,
    },

    // ----- host protocol -----
    /// The host answered a step that is not the current one, or did not drain.
    WrongStep {
        /// What the round expected.
        expected: &'static str,
        /// What the host did.
        got: &'static str,
    },
    /// The host's resolver answer is malformed.
    ResolverAnswer {
        /// The parameter.
        param: Name,
        /// What is wrong.
        problem: Problem,
    },
    /// The round's workspace is too small to hold the host's data.
    Workspace {
        /// Bytes that were needed beyond what is left.
        needed: usize,
    },
    /// An output buffer is too small.
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
    },

    // ----- listing -----
    /// The `inputSchema` given to `Plan::write_input_schema` (feature `fallback`) is not a JSON
    /// object.
    InputSchema {
        /// What is wrong.
        problem: Problem,
    },
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use CompileError::*;
        match self {
            DeclarationJson(e) => write!(
                f,
                "The declaration is not valid JSON ({:?} at byte {}); fix the JSON text",
                e.kind, e.offset
            ),
            Declaration { at, problem } => {
                write!(f, "Invalid declaration at {}: {}", PyRepr(at), problem)
            }
            DuplicateName { name } => write!(
                f,
                "The parameter name {} is declared twice; give every parameter a unique name",
                PyRepr(name)
            ),
            UnknownNeed { tool, param, need } => write!(
                f,
                "The question for parameter {} of {} asks for {}, which is not a parameter of the \
                 function; a question can only be built from the call's own arguments or from \
                 other elicited parameters",
                PyRepr(param),
                PyRepr(tool),
                PyRepr(need)
            ),
            Cycle { tool, path } => write!(
                f,
                "The elicited parameters of {} form a cycle: {}",
                PyRepr(tool),
                path
            ),
            DeclaredTypeMismatch {
                tool,
                param,
                declared,
                annotated,
            } => write!(
                f,
                "The resolver for parameter {} of {} declares it elicits {}, but the parameter \
                 is annotated {}. Make the two agree.",
                PyRepr(param),
                PyRepr(tool),
                declared,
                annotated
            ),
            MixedWithInputRequired { tool } => write!(
                f,
                "Tool {} both declares Elicit(...) parameters and returns an InputRequiredResult. \
                 A call has one channel for gathering input, so ask for everything \
                 declaratively or drive the rounds from the body — not both.",
                PyRepr(tool)
            ),
            UnsupportedSchema { param, problem } => write!(
                f,
                "The answer type of parameter {} is outside the MCP elicitation schema subset: {}",
                PyRepr(param),
                problem
            ),
            Capacity { what, limit } => write!(
                f,
                "Capacity exceeded: more than {limit} {what}; compile with a larger capacity"
            ),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Error::*;
        match self {
            Arguments { problem } => write!(f, "Invalid tool arguments: {problem}"),
            InputSchema { problem } => write!(
                f,
                "Invalid input_schema: {problem}; pass the tool's inputSchema as listed for a client that can be asked"
            ),
            MissingArgument { name } => write!(
                f,
                "The call did not supply the argument {}, which a question is built from; \
                 pass it in the call's arguments or give it a default",
                PyRepr(name)
            ),
            InputResponses { key, problem } => {
                if key.is_empty() {
                    write!(f, "Invalid inputResponses: {problem}")
                } else {
                    write!(f, "Invalid inputResponses[{}]: {problem}", PyRepr(key))
                }
            }
            HandshakeInputs { input } => write!(
                f,
                "A handshake-era round takes no {input}: that era asks one question at a \
                 time over elicitation/create and carries no state; pass none, or start a \
                 modern-era round for a 2026-07-28 request"
            ),
            SealedState => write!(
                f,
                "The requestState given is a sealed token (it starts with \"v1.\"), not a \
                 plaintext state: unseal it first (with the sealer, from the request as \
                 received) and pass the plaintext state it holds"
            ),
            MissingCapability {
                param,
                kind,
                resolver,
                ..
            } => write!(
                f,
                "Client did not declare the {} capability required by {} {}",
                kind.capability_name(),
                if *resolver { "resolver" } else { "question" },
                PyRepr(param)
            ),
            WrongReply { param, kind } => {
                write!(f, "The response for {} is not ", PyRepr(param))?;
                f.write_str(match kind {
                    crate::InputKind::Form => "an elicitation result",
                    crate::InputKind::Url => "a URL elicitation result: answer with the action alone (accept, decline or cancel), without content",
                    crate::InputKind::Sampling => "a sampling result: answer with a CreateMessageResult (or an ElicitResult that declines or cancels)",
                    crate::InputKind::Roots => "a roots result: answer with a ListRootsResult (or an ElicitResult that declines or cancels)",
                })
            }
            AcceptedWithoutContent { param } => write!(
                f,
                "The answer for {} was accepted but carries no content",
                PyRepr(param)
            ),
            SchemaMismatch { param } => write!(
                f,
                "The answer for {} does not match the requested schema",
                PyRepr(param)
            ),
            Refused { param, cancelled } => write!(
                f,
                "Cannot continue without {}: the request was {}. Give the parameter a default \
                 to make it optional.",
                PyRepr(param),
                if *cancelled { "cancelled" } else { "declined" }
            ),
            ResolverDependency { param, dependency } => write!(
                f,
                "The resolver for {} depends on {}, which could not be resolved",
                PyRepr(param),
                PyRepr(dependency)
            ),
            WrongStep { expected, got } => write!(
                f,
                "Out of order: the round is waiting for {expected}, not {got}; after every \
                 answer, take the round's next step (poll) until it asks for something"
            ),
            ResolverAnswer { param, problem } => write!(
                f,
                "The host's resolver answer for {} is invalid: {}",
                PyRepr(param),
                problem
            ),
            Workspace { needed } => write!(
                f,
                "The round's workspace is full ({needed} more bytes needed); give the round a \
                 larger workspace"
            ),
            BufferTooSmall { needed } => write!(
                f,
                "The output buffer is too small: {needed} bytes are needed"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for CompileError {}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn problems_read_as_their_text() {
        for (i, p) in ALL_PROBLEMS.iter().enumerate() {
            assert!(!p.is_empty());
            assert_eq!(p.to_string(), p.as_str());
            assert_eq!(std::format!("{p:?}"), std::format!("{:?}", p.as_str()));
            // One code per message, so equal problems are equal texts and back.
            for q in &ALL_PROBLEMS[..i] {
                assert_ne!(p.as_str(), q.as_str());
            }
        }
        assert_eq!(Problem::text("x"), "x");
    }

    #[test]
    fn text_keeps_whole_characters() {
        let full = "a".repeat(MAX_NAME);
        assert_eq!(name(&full).as_str(), full);
        // 63 ASCII bytes and a 2-byte character: the character does not fit.
        let long = std::format!("{}é", "a".repeat(MAX_NAME - 1));
        assert_eq!(name(&long).as_str(), &long[..MAX_NAME - 1]);
        let mut t = Name::try_from("ab").unwrap();
        assert_eq!(t.push_str(&full), Err(()));
        assert_eq!(t, "ab");
        assert!(Name::try_from(full.as_str()).is_ok());
        assert!(Name::try_from(long.as_str()).is_err());
        assert_eq!(std::format!("{t:?}"), "\"ab\"");
    }

    #[test]
    fn round_errors_stay_small_and_hold_whole_names() {
        // Two names of MAX_NAME bytes with one-byte lengths, the tag, padding.
        assert!(core::mem::size_of::<Error>() <= 2 * (MAX_NAME + 1) + 2 * size_of::<usize>());
        let (p, d) = ("p".repeat(MAX_NAME), "d".repeat(MAX_NAME));
        let e = Error::ResolverDependency {
            param: name(&p),
            dependency: name(&d),
        };
        assert_eq!(
            e.to_string(),
            std::format!("The resolver for '{p}' depends on '{d}', which could not be resolved")
        );
    }
}
