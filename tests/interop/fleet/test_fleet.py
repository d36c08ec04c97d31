"""The fleet: elicit-rmcp-server replicas sharing one key ring behind HAProxy with the
repository's configuration (deploy/haproxy/haproxy.cfg), as docs/deployment.md runs it.
Run by scripts/test-fleet.sh (which builds the server, installs HAProxy and sets the
environment fleetlib.py reads).

Every call under load must complete: a round the balancer could not deliver is retried by
HAProxy (`retry-on conn-failure`); a round whose replica died under it reaches the client
as 502 and the client retries it (fleetlib.Retrying, counted and printed).
"""

from __future__ import annotations

import json
import re
import time

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from fleetlib import (
    CALLS, NEW, OLD, PREVIOUS_BIN, REF_PY, Fleet, Load, Replica, get, metric,
)
from conftest import MODERN, PARIS, PARIS_BOOKED, Script, run  # tests/interop/mcp

ANSWERS = {**PARIS, "Enter your name:": "Ada", "How many apples?": 2}
WANT = [PARIS_BOOKED, "Ordered 2 x apples", "Hello, Ada"]


def report(capsys, what: str, load: Load) -> None:
    with capsys.disabled():
        print(
            f"\n  fleet: {what}: {load.stats.completed} calls completed, "
            f"{len(load.stats.failures)} failed, {load.transport.retries} rounds retried by the "
            f"client ({load.transport.causes})"
        )


@pytest.fixture
def fleet_of(tmp_path):
    made: list[Fleet] = []

    def make(*replicas: Replica, sticky: bool = True) -> Fleet:
        made.append(Fleet(list(replicas), tmp_path, sticky))
        return made[-1]

    yield make
    for f in made:
        f.close()


def fastmcp_calls(url: str, mode: str, timeout: float = 30) -> list[str]:
    client = Client(StreamableHttpTransport(url), elicitation_handler=Script(ANSWERS), mode=mode, timeout=timeout)

    async def go():
        async with client:
            if mode == "auto":
                assert client.protocol_version == MODERN
            return [
                (await client.call_tool("book_flight", {})).data,
                (await client.call_tool("order", {"item": "apples"})).data,
                (await client.call_tool("greet", {})).data,
            ]

    return run(go())


def post(url: str, params: dict) -> dict:
    """One 2026-07-28 tools/call as fastmcp.Client sends it; the JSON-RPC result."""
    import urllib.request

    body = {
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {**params, "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": "fleet-test", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        }},
    }
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": params["name"],
    })
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())["result"]


def test_health_metrics_and_drain_of_one_replica():
    r = Replica(OLD)
    try:
        assert get(r.base + "/health") == (200, "text/plain; charset=utf-8", "ok\n")
        status, ctype, body = get(r.base + "/metrics")
        assert status == 200 and ctype.startswith("application/openmetrics-text")
        before = metric(body, "elicit_http_requests_total")
        post(r.base + "/mcp", {"name": "greet", "arguments": {}})
        assert r.requests() == before + 1
        assert metric(r.metrics(), "elicit_http_requests_in_flight") == 0
        assert get(r.base + "/nope")[0] == 404
        # SIGTERM: /health turns 503 while the replica still serves (the grace), then it
        # closes its listener and exits 0 within the bound.
        r.proc.proc.terminate()
        deadline = time.monotonic() + 5
        while get(r.base + "/health")[0] != 503:
            assert time.monotonic() < deadline, "/health never answered 503 after SIGTERM"
            time.sleep(0.02)
        assert post(r.base + "/mcp", {"name": "greet", "arguments": {}})["resultType"] == "input_required"
        assert r.proc.proc.wait(15) == 0
        assert any("drained" in line for line in r.proc.log)
        assert get(r.base + "/health")[0] == 0  # listener closed
    finally:
        r.close()


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["2026-07-28", "handshake"])
def test_fastmcp_client_through_the_balancer(fleet_of, mode):
    f = fleet_of(Replica(OLD), Replica(OLD))
    before = [r.requests() for r in f.replicas]
    for _ in range(4):
        assert fastmcp_calls(f.balancer.url, mode) == WANT
    served = [r.requests() - b for r, b in zip(f.replicas, before)]
    # Both replicas served: 2026-07-28 rounds spread per request, handshake sessions
    # (pinned by Mcp-Session-Id) spread per session.
    assert all(n > 0 for n in served), served


def test_handshake_sessions_fail_without_the_stick_table(fleet_of):
    # The control for the test above: per-request round-robin without stickiness sends
    # a session's requests to a replica that does not hold it.
    f = fleet_of(Replica(OLD), Replica(OLD), sticky=False)
    assert fastmcp_calls(f.balancer.url, "auto") == WANT
    # A replica answers 404 for a session it does not hold. Which message meets it depends
    # on how the client's POSTs and its GET stream interleave in the round-robin: a request
    # reads it as the end of its session ("Session terminated"); the answer to an
    # elicitation/create sent to the other replica leaves the call waiting on the first
    # one until the client's timeout (seen under load in a full run). Either way the
    # session fails; 10 s bounds the wait.
    with pytest.raises(Exception, match="Session terminated|timed out"):
        fastmcp_calls(f.balancer.url, "legacy", timeout=10)


def test_rounds_of_one_call_land_on_different_replicas(fleet_of):
    f = fleet_of(Replica(OLD), Replica(OLD))
    before = [r.requests() for r in f.replicas]
    rounds = '{tool="order",era="2026-07-28",outcome="%s"}'
    rounds_before = [
        tuple(metric(r.metrics(), "elicit_rounds_total", rounds % o) for o in ("asked", "completed")) for r in f.replicas
    ]
    params: dict = {"name": "order", "arguments": {"item": "pears"}}
    result = post(f.balancer.url, params)
    assert result["resultType"] == "input_required"
    (key,) = result["inputRequests"]
    result = post(f.balancer.url, {**params, "requestState": result["requestState"],
                                   "inputResponses": {key: {"action": "accept", "content": {"value": 3}}}})
    assert result["content"][0]["text"] == "Ordered 3 x pears"
    served = [r.requests() - b for r, b in zip(f.replicas, before)]
    # Per-request round-robin: the call's two rounds went to the two replicas.
    assert served == [1, 1], served
    # Each replica's elicit.round span says which round it served: one asked, the other
    # completed the call; both sealed or opened with the same key.
    outcomes = sorted(
        tuple(metric(r.metrics(), "elicit_rounds_total", rounds % o) - b for o, b in zip(("asked", "completed"), base))
        for r, base in zip(f.replicas, rounds_before)
    )
    assert outcomes == [(0.0, 1.0), (1.0, 0.0)], outcomes
    key_ids = [re.findall(r'^elicit_sealing_key\{key_id="([0-9a-f]{8})"\} 1$', r.metrics(), re.M) for r in f.replicas]
    assert key_ids[0] == key_ids[1] and len(key_ids[0]) == 1, key_ids


def test_replica_sigkilled_mid_run_no_call_fails(fleet_of, capsys):
    f = fleet_of(Replica(OLD), Replica(OLD))
    load = Load(f.balancer.url, CALLS).start()
    load.wait_progress(0.3)
    f.replicas[0].kill()
    at_kill = load.stats.completed
    load.wait_progress(0.6)
    f.replicas[0].start(OLD)
    f.wait_up()
    load.assert_clean()
    report(capsys, "SIGKILL mid-run", load)
    assert at_kill < CALLS


def test_rolling_key_rotation_under_load_no_call_fails(fleet_of, capsys):
    ttl = 4.0
    f = fleet_of(*(Replica(OLD, extra=["--state-ttl", str(ttl)]) for _ in range(2)))
    load = Load(f.balancer.url, 100_000, deadline=180).start()
    load.wait_progress(20 / 100_000)
    progress = []
    # 1. every replica opens NEW (still sealing with OLD); 2. every replica seals with
    # NEW (still opening OLD); 3. after the state TTL, OLD is dropped.
    for step, ring in enumerate([f"{OLD},{NEW}", f"{NEW},{OLD}", NEW]):
        if step == 2:
            time.sleep(ttl + 0.5)
        for i in range(len(f.replicas)):
            f.roll(i, ring)
        progress.append(load.stats.completed)
    load.stop()
    load.assert_clean()
    report(capsys, "rolling key rotation", load)
    # Calls completed during every step: the rotation happened under load.
    assert progress[0] < progress[1] < progress[2] < load.stats.completed + 1, progress


@pytest.mark.skipif(not REF_PY, reason="ELICIT_REFERENCE_PYTHON not set (scripts/test-fleet.sh sets it)")
def test_mixed_fleet_rust_ts_and_reference_behind_one_balancer(fleet_of, capsys):
    f = fleet_of(
        Replica(f"{OLD},{NEW}"),
        Replica(f"{NEW},{OLD}"),
        Replica(f"{OLD},{NEW}", kind="reference"),
        Replica(f"{NEW},{OLD}", kind="ts"),
    )
    for mode in ("auto", "legacy"):
        assert fastmcp_calls(f.balancer.url, mode) == WANT
    load = Load(f.balancer.url, CALLS).start()
    load.assert_clean()
    report(capsys, "mixed fleet", load)
    served = {name: int(row["stot"]) for name, row in f.balancer.servers().items()}
    assert all(n > 0 for n in served.values()), served


@pytest.mark.skipif(not PREVIOUS_BIN, reason="full mode only (scripts/test-fleet.sh --full builds the previous commit)")
def test_rolling_upgrade_from_the_previous_commit_under_load(fleet_of, capsys):
    f = fleet_of(Replica(OLD, binary=PREVIOUS_BIN), Replica(OLD, binary=PREVIOUS_BIN))
    load = Load(f.balancer.url, 100_000, deadline=180).start()
    load.wait_progress(20 / 100_000)
    from fleetlib import RUST_BIN

    f.roll(0, OLD, RUST_BIN)
    # Old and new side by side: rounds alternate between them under load.
    mixed_at = load.stats.completed
    load.wait_progress((mixed_at + 200) / 100_000)
    f.roll(1, OLD, RUST_BIN)
    load.wait_progress((load.stats.completed + 100) / 100_000)
    load.stop()
    load.assert_clean()
    report(capsys, "rolling upgrade", load)
