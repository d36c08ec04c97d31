"""The fixtures the official MCP conformance suite names in its server scenarios, served
with ``--conformance`` (a port of servers/rmcp/src/conformance.rs): every one
declared on its signature (no hand-written ``InputRequiredResult``), with the names,
messages and schemas the scenarios check.

Schemas the suite gives verbatim are ``Elicit(..., schema=...)``: sent as written, the
parameter settles to the accepted content object.
"""


import json
from typing import Annotated, Any, Dict, List

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent

from elicit_mcp import Elicit, Question
from elicit_mcp.mcp import Elicitation

ABOUT_URI = "booking://about"
ABOUT_TEXT = "elicit-python-server: the booking tools on the MCP Python SDK, every user input declared through elicit."


def one_field(field: str, ty: str) -> Dict[str, Any]:
    return {"type": "object", "properties": {field: {"type": ty}}, "required": [field]}


def sampling(text: str, max_tokens: int) -> Dict[str, Any]:
    return {"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": max_tokens}


def sampled_text(result: Any) -> str:
    """The text of a CreateMessageResult (one content block or, on 2026-07-28, several)."""
    content = (result or {}).get("content")
    blocks = content if isinstance(content, list) else [content] if content else []
    return " ".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str))


def outcome_text(outcome: Any) -> str:
    action = outcome.get("action", "unknown") if isinstance(outcome, dict) else "unknown"
    content = outcome.get("value") if isinstance(outcome, dict) else None
    return f"action={action}, content={json.dumps(content, separators=(',', ':'))}"


def text(t: str) -> CallToolResult:
    """A tool's text result, returned as it is (a CallToolResult: no structuredContent, as
    servers/rmcp/src/conformance.rs answers)."""
    return CallToolResult(content=[TextContent(type="text", text=t)])


USER_INFO = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}
DEFAULTS = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}


def _options(prefix: str, titles: List[str]) -> List[Dict[str, str]]:
    return [{"const": f"{prefix}{i}", "title": t} for i, t in enumerate(titles, 1)]


ENUMS = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "description": "Select one option with titles",
            "oneOf": _options("value", ["First Option", "Second Option", "Third Option"]),
        },
        "legacyEnum": {
            "type": "string",
            "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Select multiple options",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Select multiple options with titles",
            "minItems": 1,
            "maxItems": 3,
            "items": {"anyOf": _options("value", ["First Choice", "Second Choice", "Third Choice"])},
        },
    },
    "required": [],
}

Obj = Dict[str, Any]


def register(elicit: Elicitation) -> None:
    """Add the fixtures: the static resource first, then the tools and the prompt; and,
    as the SDK's own tools beside the declared ones, the suite's hooks that change the
    tool and prompt lists (MCPServer declares listChanged: subscriptions/listen streams
    are told)."""
    server = elicit.server
    assert isinstance(server, MCPServer)

    @server.tool(description="Diagnostic hook: tells subscriptions/listen streams the tool list changed")
    async def test_trigger_tool_change(ctx: Context) -> str:
        await ctx.notify_tools_changed()
        return "tools changed"

    @server.tool(description="Diagnostic hook: tells subscriptions/listen streams the prompt list changed")
    async def test_trigger_prompt_change(ctx: Context) -> str:
        await ctx.notify_prompts_changed()
        return "prompts changed"

    @elicit.resource(ABOUT_URI, name="about", mime_type="text/plain")
    def about() -> str:
        return ABOUT_TEXT

    @elicit.tool(description="MRTR: asks the user's name through a declared form elicitation")
    def test_input_required_result_elicitation(
        user_name: Annotated[Obj, Elicit("What is your name?", schema=one_field("name", "string"))],
    ) -> CallToolResult:
        return text(f"Hello, {user_name.get('name', '')}!")

    @elicit.tool(description="MRTR: asks the client's model through a declared sampling request")
    def test_input_required_result_sampling(
        capital_question: Annotated[Obj, Elicit(sampling=sampling("What is the capital of France?", 100))],
    ) -> CallToolResult:
        return text(f"Sampling result: {sampled_text(capital_question)}")

    @elicit.tool(description="MRTR: asks the client for its roots through a declared roots/list request")
    def test_input_required_result_list_roots(client_roots: Annotated[List[Any], Elicit(roots={})]) -> CallToolResult:
        return text(f"Found {len(client_roots)} root(s)")

    confirm_schema = one_field("ok", "boolean")

    @elicit.tool(description="MRTR: asks for a confirmation; the answer comes back through the sealed requestState")
    def test_input_required_result_request_state(
        confirm: Annotated[Obj, Elicit("Please confirm", schema=confirm_schema)],
    ) -> CallToolResult:
        return text("state-ok: requestState validated")

    @elicit.tool(description="MRTR: asks a form, a sampling request and roots/list in one round")
    def test_input_required_result_multiple_inputs(
        user_name: Annotated[Obj, Elicit("What is your name?", schema=one_field("name", "string"))],
        greeting: Annotated[Obj, Elicit(sampling=sampling("Generate a greeting", 50))],
        client_roots: Annotated[List[Any], Elicit(roots={})],
    ) -> CallToolResult:
        return text(f"Name: {user_name.get('name', '')}; Greeting: {sampled_text(greeting)}; Roots: {len(client_roots)}")

    def step2_question() -> Question:
        return Question("Step 2: What is your favorite color?")

    @elicit.tool(description="MRTR: asks the name, then (a second round) the favourite colour")
    def test_input_required_result_multi_round(
        step1: Annotated[Obj, Elicit("Step 1: What is your name?", schema=one_field("name", "string"))],
        step2: Annotated[Obj, Elicit(resolver=lambda step1: step2_question(), schema=one_field("color", "string"))],
    ) -> CallToolResult:
        return text(f"Multi-round complete for {step1.get('name', '')} who likes {step2.get('color', '')}")

    @elicit.tool(description="MRTR: asks for a confirmation; a tampered requestState is refused")
    def test_input_required_result_tampered_state(
        confirm: Annotated[Obj, Elicit("Please confirm", schema=confirm_schema)],
    ) -> CallToolResult:
        return text("state-ok: requestState validated")

    @elicit.tool(description="MRTR: asks through sampling only (for a client that declares sampling alone)")
    def test_input_required_result_capabilities(
        sample_input: Annotated[Obj, Elicit(sampling=sampling("Sample request", 50))],
    ) -> CallToolResult:
        return text(f"Sampling result: {sampled_text(sample_input)}")

    @elicit.tool(description="Test tool requiring sampling")
    def test_missing_capability(sample: Annotated[Obj, Elicit(sampling=sampling("Say hello", 20))]) -> CallToolResult:
        return text("Success")

    @elicit.tool(description="Diagnostic tool validating response streams: asks one form question")
    def test_streaming_elicitation(
        value: Annotated[Obj, Elicit("Enter a value:", schema=one_field("value", "string"))],
    ) -> CallToolResult:
        return text(f"Received {value.get('value', '')}")

    @elicit.tool(description="Diagnostic logging validator tool: asks nothing, logs nothing")
    def test_logging_tool() -> CallToolResult:
        return text("Logging evaluated")

    @elicit.tool(description="Asks the user the model's message (username and email)")
    def test_elicitation(
        message: str,
        response: Annotated[Obj, Elicit(resolver=lambda message: Question(message), schema=USER_INFO, outcome=True)],
    ) -> CallToolResult:
        return text(f"User response: {outcome_text(response)}")

    @elicit.tool(description="Asks one form whose fields carry defaults (SEP-1034)")
    def test_elicitation_sep1034_defaults(
        form: Annotated[Obj, Elicit("Please review and update the form fields with defaults", schema=DEFAULTS, outcome=True)],
    ) -> CallToolResult:
        return text(f"Elicitation completed: {outcome_text(form)}")

    @elicit.tool(description="Asks one form with every enum shape (SEP-1330)")
    def test_elicitation_sep1330_enums(
        selection: Annotated[Obj, Elicit("Please select options from the enum fields", schema=ENUMS, outcome=True)],
    ) -> CallToolResult:
        return text(f"Elicitation completed: {outcome_text(selection)}")

    @elicit.tool(description="Asks the client's model the given prompt")
    def test_sampling(
        prompt: str,
        response: Annotated[Obj, Elicit(resolver=lambda prompt: Question(sampling=sampling(prompt, 100)), kind="sampling")],
    ) -> CallToolResult:
        return text(f"LLM response: {sampled_text(response)}")

    @elicit.tool(description="Sends the user to a payment page for the order (URL-mode elicitation)")
    def test_url_elicitation(
        order: str,
        paid: Annotated[
            bool,
            Elicit(resolver=lambda order: Question(f"Pay for order {order}", url=f"https://pay.example/orders/{order}"), kind="url"),
        ] = False,
    ) -> CallToolResult:
        return text("Payment started" if paid else "Not paid")

    @elicit.prompt(description="MRTR: prompt that requires elicitation input")
    def test_input_required_result_prompt(
        user_context: Annotated[Obj, Elicit("What context should the prompt use?", schema=one_field("context", "string"))],
    ) -> str:
        return f"Prompt with context: {user_context.get('context', '')}"
