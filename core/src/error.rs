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
#[derive(Clone)]
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

pub(crate) fn name(s: &str) -> Name {
    Name::truncated(s)
}

pub(crate) fn detail(s: &str) -> Detail {
    Detail::truncated(s)
}

/// Why a declaration (or a compiled plan's bytes) was rejected: the error of
/// [`crate::Plan::compile`] and [`crate::Plan::from_postcard`].
///
/// Kept apart from the round's [`Error`] because it carries several names, a cycle path
/// and rendered types inline (no heap), which would make every `Result` of the round
/// machine as large.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
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
        problem: &'static str,
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
        problem: &'static str,
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
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    // ----- call inputs -----
    /// The call's arguments are not a JSON object.
    Arguments {
        /// What is wrong.
        problem: &'static str,
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
        problem: &'static str,
    },

    // ----- resolution (the reference's ToolErrors) -----
    /// A reply is a valid InputResponse but not an elicitation result.
    NotElicitResult {
        /// The parameter.
        param: Name,
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
        problem: &'static str,
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
            NotElicitResult { param } => write!(
                f,
                "The response for {} is not an elicitation result",
                PyRepr(param)
            ),
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
                "Out of order: the round is waiting for {expected}, but the host called {got}; \
                 after every handle call, poll until the round asks for something"
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
