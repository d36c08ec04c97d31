"""python/README.md's first code block is python/examples/quickstart.py, byte for byte,
and that server works in both eras through the SDK's own client, with none of the
plumbing the adapter exists to hide."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any, List

import pytest

pytest.importorskip("mcp_types")
import mcp_types  # noqa: E402
from mcp import Client  # noqa: E402

PY = Path(__file__).resolve().parents[1]
SNIPPET = PY / "examples" / "quickstart.py"


def first_python_block(markdown: str) -> str:
    m = re.search(r"```python\n(.*?)```", markdown, re.S)
    assert m, "README.md has no python code block"
    return m.group(1)


def test_the_readme_starts_with_the_quickstart_server() -> None:
    readme = (PY / "README.md").read_text(encoding="utf-8")
    assert first_python_block(readme) == SNIPPET.read_text(encoding="utf-8")
    # The first screen: the snippet sits before the lower layers.
    assert readme.index("```python") < readme.index("## Plans and rounds")


def test_the_snippet_has_none_of_the_plumbing() -> None:
    text = SNIPPET.read_text(encoding="utf-8")
    for plumbing in ("InputRequiredResult", "protocol_version", "2026-07-28", "MCPError", "except", "inputSchema", "{"):
        assert plumbing not in text.replace("{destination}", "").replace("{airport}", "").replace("{seat or 'any'}", ""), plumbing
    assert len(text.splitlines()) <= 26


def load(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.setenv("ELICIT_STATE_KEYS", "ab" * 32)
    spec = importlib.util.spec_from_file_location("quickstart", SNIPPET)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_quickstart_server_books_in_both_eras(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    quickstart = load(monkeypatch)
    answers = {"Where would you like to fly?": "Paris", "Which airport in Paris?": "CDG", "Window or aisle?": "aisle"}
    asked: List[str] = []

    async def callback(context: Any, params: Any) -> Any:
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"value": answers[params.message]})

    async def go() -> Any:
        async with Client(quickstart.mcp, mode=mode, elicitation_callback=callback) as c:
            tools = (await c.list_tools()).tools
            assert [t.name for t in tools] == ["book_flight"] and tools[0].input_schema["properties"] == {}
            return await c.call_tool("book_flight", {})

    result = asyncio.run(go())
    assert getattr(result.content[0], "text") == "Booked Paris (CDG), seat aisle"
    assert sorted(asked) == sorted(answers)
