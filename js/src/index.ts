/**
 * elicit-mcp: declared elicitation for MCP servers in TypeScript. The elicit engine
 * (its C ABI compiled to WebAssembly, embedded: no file system access at load), plans,
 * rounds and sealed `requestState` as classes, and tool declarations in zod.
 * @module
 */
export { Plan, Round, jsonInput } from "./engine.js";
export type { HandshakeOptions, InputKind, Json, ModernOptions, Note, Param, Step } from "./engine.js";
export {
  DEFAULT_TTL_SECS,
  KeyRing,
  MAX_KEYS,
  MAX_KEY_LEN,
  MIN_KEY_LEN,
  SEAL_RANDOM_LEN,
  STATE_KEYS_ENV,
  Sealer,
  parseKeys,
} from "./seal.js";
export type { SealOptions } from "./seal.js";
export * from "./errors.js";
export { Call, Server } from "./calls.js";
export type { CallRequest, CallStep, Method, ServerEntry, ServerOptions } from "./calls.js";
export { ABI_MAJOR, ABI_MINOR } from "./abi.js";
export { ask, declareTool, elicit, DeclaredTool, Question } from "./declare.js";
export type { Elicited, ElicitOptions, ToolDeclaration, Values } from "./declare.js";
export { Elicitation } from "./mcp.js";
export type { ElicitationOptions, PromptListing, ResourceListing, ToolListing } from "./mcp.js";
