//! The transports (each behind its feature): stdio, with the line filter rmcp's own
//! stdio transport lacks, and streamable HTTP on rmcp's `StreamableHttpService`.

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "stdio")]
pub mod stdio;
