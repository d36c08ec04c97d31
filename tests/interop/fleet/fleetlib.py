"""A fleet on loopback for the tests of scripts/test-fleet.sh: elicit-rmcp-server replicas
(or the Python reference server) sharing one key ring behind HAProxy running
deploy/haproxy/haproxy.cfg as it is, plus a load driver that counts what failed.

The replicas are started by tests/interop/mcp's `HttpServer` (the same processes those
tests run); HAProxy gets the repository's configuration with one `server` line per
replica appended. Every process is killed when the fleet closes.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(HERE.parent / "mcp"))

from conftest import HttpServer  # noqa: E402  (tests/interop/mcp)
from load_client import Caller, Stats, book  # noqa: E402

HAPROXY_CFG = REPO / "deploy" / "haproxy" / "haproxy.cfg"
RUST_BIN = os.environ.get(
    "ELICIT_RMCP_SERVER_BIN", str(REPO / "target" / "release" / "elicit-rmcp-server")
)
REF_PY = os.environ.get("ELICIT_REFERENCE_PYTHON")
#: The TypeScript server (servers/ts on McpServer through elicit-mcp).
TS_CMD = [str(REPO / "scripts" / "dev-ts-server.sh")]
#: elicit-rmcp-server of the previous commit (full mode's rolling upgrade), if built.
PREVIOUS_BIN = os.environ.get("ELICIT_FLEET_PREVIOUS_BIN")
#: Calls per load run: small in the short (CI) mode, large in the full mode.
CALLS = int(os.environ.get("ELICIT_FLEET_CALLS", "300"))
#: Drain timing the Rust replicas run with: the grace outlasts HAProxy's check
#: (inter 250 ms x fall 2) with a margin for a loaded machine.
DRAIN = ["--drain-grace", "1.5", "--drain-timeout", "10"]
#: Replica kinds without the Rust server's /health (and /metrics): ready once listening.
NO_HEALTH = ("reference", "ts")

OLD = "0d" * 32
NEW = "e7" * 32


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, timeout: float = 5.0) -> tuple[int, str, str]:
    """GET url: (status, content type, body); a refused connection is status 0."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.headers.get("content-type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read().decode()
    except (urllib.error.URLError, ConnectionError):
        return 0, "", ""


def metric(text: str, name: str, labels: str = "") -> float:
    """One sample of the Prometheus text `text` (0 when absent)."""
    m = re.search(rf"^{re.escape(name)}{re.escape(labels)} (\S+)$", text, re.M)
    return float(m.group(1)) if m else 0.0


class Replica:
    """One replica on a fixed loopback port: the Rust server (optionally another build of
    it), the Python reference server or the TypeScript server; restartable on the same
    port."""

    def __init__(self, keys: str, kind: str = "rust", binary: str | None = None, extra=()):
        self.kind, self.binary, self.extra = kind, binary or RUST_BIN, list(extra)
        self.port = free_port()
        self.proc: HttpServer | None = None
        self.start(keys)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, keys: str, binary: str | None = None) -> None:
        if binary:
            self.binary = binary
        if self.kind == "reference":
            cmd = [REF_PY, str(REPO / "tests" / "interop" / "mcp" / "reference_server.py")]
            args = []
        elif self.kind == "ts":
            cmd, args = TS_CMD, []
        else:
            cmd, args = [self.binary], [*DRAIN, *self.extra]
        # A later --http wins over HttpServer's port 0: the replica keeps its port.
        self.proc = HttpServer("--http", f"127.0.0.1:{self.port}", *args, keys=keys, command=cmd)
        self.wait_ready()

    def wait_ready(self, timeout: float = 30.0) -> None:
        if self.kind in NO_HEALTH:
            return
        deadline = time.monotonic() + timeout
        while get(self.base + "/health")[0] != 200:
            if time.monotonic() > deadline:
                raise RuntimeError(f"replica :{self.port} not ready: {self.proc.log}")
            time.sleep(0.05)

    def metrics(self) -> str:
        status, _, body = get(self.base + "/metrics")
        assert status == 200, f"/metrics of :{self.port} answered {status}"
        return body

    def requests(self) -> float:
        return metric(self.metrics(), "elicit_http_requests_total")

    def terminate(self, timeout: float = 30.0) -> int:
        """SIGTERM and wait: the exit code (the drain is bounded by --drain-timeout)."""
        p = self.proc.proc
        p.terminate()
        return p.wait(timeout)

    def kill(self) -> None:
        self.proc.proc.kill()
        self.proc.proc.wait(10)

    def close(self) -> None:
        if self.proc is not None and self.proc.proc.poll() is None:
            self.proc.proc.kill()
            self.proc.proc.wait(10)


class Balancer:
    """HAProxy running deploy/haproxy/haproxy.cfg with one server line per replica."""

    def __init__(self, replicas: list[Replica], workdir: Path, sticky: bool = True):
        self.port, self.ops_port = free_port(), free_port()
        cfg_text = HAPROXY_CFG.read_text()
        if not sticky:
            # The negative control: the same configuration without its `stick` lines.
            cfg_text = "".join(l for l in cfg_text.splitlines(True) if not l.lstrip().startswith("stick"))
        lines = [cfg_text]
        for i, r in enumerate(replicas):
            # The reference and TypeScript servers have no /health: they are not checked
            # (the backend's httpchk would mark them down).
            extra = " no-check" if r.kind in NO_HEALTH else ""
            lines.append(f"    server r{i} 127.0.0.1:{r.port}{extra}\n")
        cfg = workdir / f"haproxy-{self.port}.cfg"
        cfg.write_text("".join(lines))
        self.log_path = workdir / f"haproxy-{self.port}.log"
        env = {
            **os.environ,
            "ELICIT_FLEET_BIND": f"127.0.0.1:{self.port}",
            "ELICIT_FLEET_OPS": f"127.0.0.1:{self.ops_port}",
        }
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            ["haproxy", "-db", "-f", str(cfg)], env=env, stdin=subprocess.DEVNULL,
            stdout=self.log, stderr=subprocess.STDOUT,
        )
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"haproxy did not start: {self.log_path.read_text()}")
                time.sleep(0.05)

    def servers(self) -> dict[str, dict[str, str]]:
        """The balancer's view of its replicas (stats CSV): name -> row (status, stot...)."""
        status, _, body = get(f"http://127.0.0.1:{self.ops_port}/stats;csv")
        assert status == 200, f"haproxy stats answered {status}"
        lines = body.splitlines()
        head = lines[0].lstrip("# ").split(",")
        rows = [dict(zip(head, line.split(","))) for line in lines[1:] if line]
        return {r["svname"]: r for r in rows if r["pxname"] == "replicas" and r["svname"] not in ("BACKEND",)}

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()


class Fleet:
    """Replicas behind one balancer; `with Fleet(...) as f:` kills them all on exit."""

    def __init__(self, replicas: list[Replica], workdir: Path, sticky: bool = True):
        self.replicas = replicas
        try:
            self.balancer = Balancer(replicas, workdir, sticky)
            self.wait_up()
        except BaseException:
            self.close()
            raise

    def wait_up(self, timeout: float = 20.0) -> None:
        """Until the balancer sees every replica up (checked ones after `rise 2`)."""
        deadline = time.monotonic() + timeout
        while True:
            states = {n: r["status"] for n, r in self.balancer.servers().items()}
            if states and all(s.startswith("UP") or s == "no check" for s in states.values()):
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"replicas not up at the balancer: {states}")
            time.sleep(0.05)

    def roll(self, i: int, keys: str, binary: str | None = None) -> None:
        """Restart replica i as an operator would: SIGTERM (it drains; exit 0 expected),
        start it again on its port with `keys` (and `binary`), wait until the balancer
        has it back."""
        r = self.replicas[i]
        code = r.terminate()
        assert code == 0, f"replica {i} exited {code} on SIGTERM: {r.proc.log[-5:]}"
        r.start(keys, binary)
        self.wait_up()

    def close(self) -> None:
        for r in self.replicas:
            r.close()
        if getattr(self, "balancer", None):
            self.balancer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Retrying(httpx2.AsyncBaseTransport):
    """An httpx2 transport that retries a round the balancer could not deliver or whose
    replica died under it (502/503/504, or the connection failing), at most `attempts`
    times, and counts the retries. book_flight's body has no side effect, so a retried
    final round is harmless here; docs/deployment.md says what a real body needs."""

    RETRY = {502, 503, 504}

    def __init__(self, attempts: int = 5):
        self.inner = httpx2.AsyncHTTPTransport()
        self.attempts = attempts
        self.retries = 0
        #: What made rounds retry: an HTTP status, or the connection error's name.
        self.causes: dict[str, int] = {}

    async def handle_async_request(self, request):
        body = await request.aread()
        for attempt in range(self.attempts):
            last = attempt == self.attempts - 1
            try:
                r = await self.inner.handle_async_request(request)
            except (httpx2.ConnectError, httpx2.ReadError, httpx2.RemoteProtocolError) as e:
                if last:
                    raise
                self._count(type(e).__name__)
            else:
                if r.status_code not in self.RETRY or last:
                    return r
                self._count(str(r.status_code))
                await r.aread()
                await r.aclose()
            self.retries += 1
            request = httpx2.Request(request.method, request.url, headers=request.headers, content=body)
            await asyncio.sleep(0.05 * (attempt + 1))
        raise RuntimeError("unreachable: the last attempt returns or raises")

    def _count(self, cause: str) -> None:
        self.causes[cause] = self.causes.get(cause, 0) + 1

    async def aclose(self):
        await self.inner.aclose()


@dataclass
class Load:
    """Up to `calls` book_flight calls (3 rounds each), `concurrency` at a time, through
    `url`, in a thread; bounded by `calls`, by `deadline` seconds, and by stop()."""

    url: str
    calls: int
    concurrency: int = 16
    deadline: float = 240.0
    stats: Stats = field(default_factory=Stats)
    transport: Retrying = field(default_factory=Retrying)
    error: BaseException | None = None
    stopped: bool = False
    started: int = 0

    def start(self) -> "Load":
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            asyncio.run(asyncio.wait_for(self._load(), self.deadline))
        except BaseException as e:  # noqa: BLE001 - reported by join()
            self.error = e

    async def _load(self) -> None:
        async with httpx2.AsyncClient(transport=self.transport, timeout=30) as client:
            caller = Caller(client, [self.url])
            await caller.post("server/discover", {})
            numbers = itertools.count()

            async def worker():
                while not self.stopped:
                    n = next(numbers)
                    if n >= self.calls:
                        return
                    self.started += 1
                    await book(caller, n, self.stats)

            await asyncio.gather(*(worker() for _ in range(self.concurrency)))

    def wait_progress(self, fraction: float, timeout: float = 120.0) -> None:
        """Until `fraction` of the calls completed (the moment to disturb the fleet)."""
        deadline = time.monotonic() + timeout
        while self.stats.completed < self.calls * fraction:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise AssertionError(f"load stalled at {self.stats.completed}/{self.calls}: {self.error!r}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Start no more calls; those under way finish."""
        self.stopped = True

    def join(self) -> Stats:
        self.thread.join(self.deadline + 30)
        assert self.error is None, f"load failed: {self.error!r}"
        return self.stats

    def assert_clean(self) -> None:
        s = self.join()
        assert s.failures == [], s.failures[:5]
        assert s.completed == self.started and s.completed > 0
