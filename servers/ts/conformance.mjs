// The fixtures the official MCP conformance suite names in its server scenarios, served
// with --conformance (a port of servers/rmcp/src/conformance.rs, as
// servers/python/conformance.py is): every one declared through elicit-mcp (no
// hand-written InputRequiredResult), with the names, messages and schemas the scenarios
// check (docs/conformance-suite.md §3).
//
// Schemas the suite gives verbatim are `requestedSchema`s, sent as written: such a
// parameter settles to the accepted content object.
import { z } from "zod";
import { ask, declareTool, elicit } from "elicit-mcp";

/** The static resource listed first (the `caching` scenario reads `resources[0]`). */
export const ABOUT_URI = "booking://about";
export const ABOUT_TEXT =
  "elicit-ts-server: the booking tools on the MCP TypeScript SDK, every user input declared through elicit.";

const oneField = (field, type) => ({ type: "object", properties: { [field]: { type } }, required: [field] });
const sampling = (text, maxTokens) => ({ messages: [{ role: "user", content: { type: "text", text } }], maxTokens });
/** The text of a CreateMessageResult (one content block or, on 2026-07-28, several). */
const sampledText = (result) => {
  const content = result?.content;
  const blocks = Array.isArray(content) ? content : content ? [content] : [];
  return blocks.filter((b) => typeof b?.text === "string").map((b) => b.text).join(" ");
};
/** `action=<a>, content=<JSON>` of an outcome parameter's value. */
const outcomeText = (o) => `action=${o?.action ?? "unknown"}, content=${JSON.stringify(o?.value ?? null)}`;
const field = (content, name) => String(content?.[name] ?? "");
/** An object the suite's schema describes (its value is the accepted content object). */
const content = z.record(z.string(), z.unknown());

const USER_INFO = {
  type: "object",
  properties: {
    username: { type: "string", description: "User's response" },
    email: { type: "string", description: "User's email address" },
  },
  required: ["username", "email"],
};
const DEFAULTS = {
  type: "object",
  properties: {
    name: { type: "string", description: "User name", default: "John Doe" },
    age: { type: "integer", description: "User age", default: 30 },
    score: { type: "number", description: "User score", default: 95.5 },
    status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", description: "Verification status", default: true },
  },
  required: [],
};
const options = (prefix, titles) => titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
const ENUMS = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      description: "Select one option with titles",
      oneOf: options("value", ["First Option", "Second Option", "Third Option"]),
    },
    legacyEnum: {
      type: "string",
      description: "Select one option (legacy)",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: {
      type: "array",
      description: "Select multiple options",
      minItems: 1,
      maxItems: 3,
      items: { type: "string", enum: ["option1", "option2", "option3"] },
    },
    titledMulti: {
      type: "array",
      description: "Select multiple options with titles",
      minItems: 1,
      maxItems: 3,
      items: { anyOf: options("value", ["First Choice", "Second Choice", "Third Choice"]) },
    },
  },
  required: [],
};

/** Add the fixtures to `elicitation`: the static resource first, then the tools and the prompt. */
export function register(elicitation) {
  const tool = (name, description, params, body) =>
    elicitation.tool(declareTool(name, { params, body }), { description });
  const confirm = () => elicit(content, { message: "Please confirm", requestedSchema: oneField("ok", "boolean") });
  const userName = () => elicit(content, { message: "What is your name?", requestedSchema: oneField("name", "string") });

  elicitation.resource(declareTool("about", { params: {}, body: () => ABOUT_TEXT }), ABOUT_URI, {
    name: "about",
    mimeType: "text/plain",
  });
  // input-required-result-basic-elicitation (and -missing-input-response, -result-type,
  // -ignore-extra-params, -validate-input).
  tool(
    "test_input_required_result_elicitation",
    "MRTR: asks the user's name through a declared form elicitation",
    { user_name: userName() },
    (v) => `Hello, ${field(v.user_name, "name")}!`,
  );
  tool(
    "test_input_required_result_sampling",
    "MRTR: asks the client's model through a declared sampling request",
    { capital_question: elicit(content, { sampling: sampling("What is the capital of France?", 100) }) },
    (v) => `Sampling result: ${sampledText(v.capital_question)}`,
  );
  tool(
    "test_input_required_result_list_roots",
    "MRTR: asks the client for its roots through a declared roots/list request",
    { client_roots: elicit(z.array(z.unknown()), { roots: {} }) },
    (v) => `Found ${v.client_roots?.length ?? 0} root(s)`,
  );
  tool(
    "test_input_required_result_request_state",
    "MRTR: asks for a confirmation; the answer comes back through the sealed requestState",
    { confirm: confirm() },
    () => "state-ok: requestState validated",
  );
  // Three independent kinds, one round.
  tool(
    "test_input_required_result_multiple_inputs",
    "MRTR: asks a form, a sampling request and roots/list in one round",
    {
      user_name: userName(),
      greeting: elicit(content, { sampling: sampling("Generate a greeting", 50) }),
      client_roots: elicit(z.array(z.unknown()), { roots: {} }),
    },
    (v) =>
      `Name: ${field(v.user_name, "name")}; Greeting: ${sampledText(v.greeting)}; Roots: ${v.client_roots?.length ?? 0}`,
  );
  // step2 depends on step1, so it waits a round.
  tool(
    "test_input_required_result_multi_round",
    "MRTR: asks the name, then (a second round) the favourite colour",
    {
      step1: elicit(content, { message: "Step 1: What is your name?", requestedSchema: oneField("name", "string") }),
      step2: elicit(content, {
        needs: ["step1"],
        resolve: () => ask("Step 2: What is your favorite color?"),
        requestedSchema: oneField("color", "string"),
      }),
    },
    (v) => `Multi-round complete for ${field(v.step1, "name")} who likes ${field(v.step2, "color")}`,
  );
  tool(
    "test_input_required_result_tampered_state",
    "MRTR: asks for a confirmation; a tampered requestState is refused",
    { confirm: confirm() },
    () => "state-ok: requestState validated",
  );
  // input-required-result-capability-check: the client declares sampling only.
  tool(
    "test_input_required_result_capabilities",
    "MRTR: asks through sampling only (for a client that declares sampling alone)",
    { sample_input: elicit(content, { sampling: sampling("Sample request", 50) }) },
    (v) => `Sampling result: ${sampledText(v.sample_input)}`,
  );
  // server-stateless: without the sampling capability the engine refuses with -32021.
  tool(
    "test_missing_capability",
    "Test tool requiring sampling",
    { sample: elicit(content, { sampling: sampling("Say hello", 20) }) },
    () => "Success",
  );
  // server-stateless: a form question streamed as one JSON line, and a tool that asks nothing.
  tool(
    "test_streaming_elicitation",
    "Diagnostic tool validating response streams: asks one form question",
    { value: elicit(content, { message: "Enter a value:", requestedSchema: oneField("value", "string") }) },
    (v) => `Received ${field(v.value, "value")}`,
  );
  tool("test_logging_tool", "Diagnostic logging validator tool: asks nothing, logs nothing", {}, () => "Logging evaluated");
  // tools-call-elicitation (2025-11-25): the model's message is the question.
  tool(
    "test_elicitation",
    "Asks the user the model's message (username and email)",
    {
      message: z.string(),
      response: elicit(content, {
        needs: ["message"],
        resolve: ({ message }) => ask(message),
        requestedSchema: USER_INFO,
        outcome: true,
      }),
    },
    (v) => `User response: ${outcomeText(v.response)}`,
  );
  tool(
    "test_elicitation_sep1034_defaults",
    "Asks one form whose fields carry defaults (SEP-1034)",
    {
      form: elicit(content, {
        message: "Please review and update the form fields with defaults",
        requestedSchema: DEFAULTS,
        outcome: true,
      }),
    },
    (v) => `Elicitation completed: ${outcomeText(v.form)}`,
  );
  tool(
    "test_elicitation_sep1330_enums",
    "Asks one form with every enum shape (SEP-1330)",
    {
      selection: elicit(content, {
        message: "Please select options from the enum fields",
        requestedSchema: ENUMS,
        outcome: true,
      }),
    },
    (v) => `Elicitation completed: ${outcomeText(v.selection)}`,
  );
  // tools-call-sampling (2025-11-25): the model's prompt, sampled through a resolver.
  tool(
    "test_sampling",
    "Asks the client's model the given prompt",
    {
      prompt: z.string(),
      response: elicit(content, {
        needs: ["prompt"],
        kind: "sampling",
        resolve: ({ prompt }) => ask({ sampling: sampling(prompt, 100) }),
      }),
    },
    (v) => `LLM response: ${sampledText(v.response)}`,
  );
  // Not named by the suite (its clients never declare URL mode): declining settles to false.
  tool(
    "test_url_elicitation",
    "Sends the user to a payment page for the order (URL-mode elicitation)",
    {
      order: z.string(),
      paid: elicit(z.boolean(), {
        needs: ["order"],
        kind: "url",
        default: false,
        resolve: ({ order }) => ask({ message: `Pay for order ${order}`, url: `https://pay.example/orders/${order}` }),
      }),
    },
    (v) => (v.paid ? "Payment started" : "Not paid"),
  );
  // input-required-result-non-tool-request: prompts/get asks too.
  elicitation.prompt(
    declareTool("test_input_required_result_prompt", {
      params: {
        user_context: elicit(content, {
          message: "What context should the prompt use?",
          requestedSchema: oneField("context", "string"),
        }),
      },
      body: (v) => `Prompt with context: ${field(v.user_context, "context")}`,
    }),
    { description: "MRTR: prompt that requires elicitation input" },
  );
}

/**
 * The suite's hooks that change the tool and prompt lists, as McpServer's own tools beside
 * the declared ones (McpServer declares listChanged: subscriptions/listen streams are told).
 * `notifier.toolsChanged` / `promptsChanged`: the HTTP entry's notifier (its listen
 * streams); unset (stdio), the instance's own list-changed notifications.
 */
export function registerHooks(mcp, notifier) {
  const hook = (name, what, send) =>
    mcp.registerTool(name, { description: `Diagnostic hook: tells subscriptions/listen streams the ${what} list changed` }, async () => {
      send();
      return { content: [{ type: "text", text: `${what}s changed` }] };
    });
  hook("test_trigger_tool_change", "tool", () => (notifier.toolsChanged ? notifier.toolsChanged() : mcp.sendToolListChanged()));
  hook("test_trigger_prompt_change", "prompt", () =>
    notifier.promptsChanged ? notifier.promptsChanged() : mcp.sendPromptListChanged(),
  );
}
