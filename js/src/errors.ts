/**
 * Errors: one class per group of `elicit_result` codes, as the C ABI groups them and the
 * Python package names them.
 *
 * | codes     | class                    | JSON-RPC | meaning                                   |
 * |-----------|--------------------------|----------|-------------------------------------------|
 * | 1xx       | {@link UsageError}       | -32603   | the host broke the calling contract       |
 * | 2xx       | {@link DeclarationError} | -32603   | the declaration was rejected              |
 * | 300-303   | {@link CallInputError}   | -32602   | the call's inputs are invalid             |
 * | 304       | {@link MissingCapabilityError} | -32021 | the client lacks a capability the call needs |
 * | 4xx       | {@link ResolutionError}  | -32602   | the call fails with `message` (a tool answers `isError`) |
 * | 9xx       | {@link InternalError}    | -32603   | a panic or trap in the library, or an unknown code |
 *
 * Every error carries `code` (the number), `codeName` (`"ELICIT_ERR_..."`), `message`
 * (the library's text) and `jsonrpcError`, the JSON-RPC `error` object to answer with.
 * @module
 */

/** JSON-RPC "Invalid params". */
export const INVALID_PARAMS_CODE = -32602;
/** JSON-RPC "Internal error". */
export const INTERNAL_ERROR_CODE = -32603;
/** The JSON-RPC code of a missing client capability (HTTP status 400). */
export const MISSING_CAPABILITY_ERROR_CODE = -32021;
/** The MCP Python SDK's frozen message for a rejected `requestState`, whatever the reason. */
export const REQUEST_STATE_ERROR_MESSAGE = "Invalid or expired requestState";

/** A JSON-RPC `error` object. */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** Base of every error the engine reports. */
export class ElicitError extends Error {
  /** The `elicit_result` code. */
  readonly code: number;
  /** The code's name, as `elicit_result_name` gives it (`"ELICIT_ERR_NULL"`). */
  readonly codeName: string;

  constructor(code: number, codeName: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.codeName = codeName;
  }

  /** The JSON-RPC `error` object to answer the request with. */
  get jsonrpcError(): JsonRpcError {
    return { code: INTERNAL_ERROR_CODE, message: "Internal error" };
  }
}

/** `1xx`: the host broke the calling contract (a server bug). */
export class UsageError extends ElicitError {}
/** `ELICIT_ERR_WRONG_STEP`: the call does not fit the round's current step. */
export class WrongStepError extends UsageError {}
/** `ELICIT_ERR_NOT_FOUND`: no parameter or resolver input of that name. */
export class NotFoundError extends UsageError {}
/** `ELICIT_ERR_WRONG_TYPE`: a resolver input read as a type it does not have. */
export class WrongTypeError extends UsageError {}
/** A plan, round, key ring or sealer used after `free()`. */
export class ClosedError extends UsageError {
  constructor(what: string) {
    super(106, "ELICIT_ERR_INVALID_ARGUMENT", `the ${what} is freed; make a new one`);
  }
}
/** `2xx`: the engine rejected the declaration (the message names the parameter). */
export class DeclarationError extends ElicitError {}
/** `300-303`: the call's inputs (arguments, `inputResponses`, `requestState`) are invalid. */
export class CallInputError extends ElicitError {
  override get jsonrpcError(): JsonRpcError {
    return { code: INVALID_PARAMS_CODE, message: this.message };
  }
}
/** `ELICIT_ERR_INPUT_RESPONSES`: a malformed `inputResponses` (JSON-RPC -32602). */
export class InputResponsesError extends CallInputError {}
/**
 * `ELICIT_ERR_REQUEST_STATE`: the request's `requestState` did not verify. Answer with
 * {@link jsonrpcError} (the SDK's frozen -32602 object) whatever the reason; `reason`
 * (`"expired"`, `"unknown key"`, ...) is for the server's log only.
 */
export class RequestStateError extends CallInputError {
  /** Why the token was rejected (log it; never send it). */
  readonly reason: string;

  constructor(reason: string) {
    super(303, "ELICIT_ERR_REQUEST_STATE", REQUEST_STATE_ERROR_MESSAGE);
    this.reason = reason;
  }

  override get jsonrpcError(): JsonRpcError {
    return {
      code: INVALID_PARAMS_CODE,
      message: REQUEST_STATE_ERROR_MESSAGE,
      data: { reason: "invalid_request_state" },
    };
  }
}
/**
 * `ELICIT_ERR_MISSING_CAPABILITY`: the round needs a kind of request the client did not
 * declare; nothing was shown. Answer with {@link jsonrpcError}: -32021 with
 * `data.requiredCapabilities`.
 */
export class MissingCapabilityError extends ElicitError {
  /** What the client must declare (a ClientCapabilities object, e.g. `{"sampling": {}}`). */
  readonly requiredCapabilities: Record<string, unknown>;

  constructor(code: number, codeName: string, message: string, required: Record<string, unknown>) {
    super(code, codeName, message);
    this.requiredCapabilities = required;
  }

  override get jsonrpcError(): JsonRpcError {
    return {
      code: MISSING_CAPABILITY_ERROR_CODE,
      message: this.message,
      data: { requiredCapabilities: this.requiredCapabilities },
    };
  }
}
/** `4xx`: resolution failed; the tool call fails with `message` (an `isError` result). */
export class ResolutionError extends ElicitError {
  override get jsonrpcError(): JsonRpcError {
    return { code: INVALID_PARAMS_CODE, message: this.message };
  }
}
/** `9xx`: a panic inside the library, a trap of the WebAssembly instance, or an unknown code. */
export class InternalError extends ElicitError {}

const SPECIFIC: Record<number, new (code: number, name: string, message: string) => ElicitError> = {
  103: WrongStepError,
  107: NotFoundError,
  110: WrongTypeError,
  302: InputResponsesError,
};

/** The error for a non-zero `elicit_result` (not 303 and 304, which carry more). */
export function errorFor(code: number, codeName: string, message: string): ElicitError {
  const specific = SPECIFIC[code];
  if (specific) return new specific(code, codeName, message);
  switch (Math.floor(code / 100)) {
    case 1:
      return new UsageError(code, codeName, message);
    case 2:
      return new DeclarationError(code, codeName, message);
    case 3:
      return new CallInputError(code, codeName, message);
    case 4:
      return new ResolutionError(code, codeName, message);
    default:
      return new InternalError(code, codeName, message);
  }
}
