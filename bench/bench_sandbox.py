"""The process sandbox and runner records: what a sandboxed start adds, how fast records verify.

References, measured in the same run: starting the same program without the sandbox
(start cost), and a plain ``json.loads`` of the same bytes (verification).
"""

import copy
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from desktop.contract.sandbox import Sandbox
from desktop.runtime.sandbox import SandboxLaunch, bwrap_problem
from desktop.store.runner import canonical
from desktop.store.runner_verify import check

RECORD = {
    "runner_schema_version": "1.0.0", "runner_id": "runner_20260106_120000_abc123",
    "runner_version": "0.1.0",
    "platform": {"os": "linux", "arch": "x64", "node_version": "v20.20.2",
                 "npm_version": "10.8.2"},
    "sandbox": {"backend": "process", "isolation_level": "strict", "network_blocked": True,
                "filesystem_readonly": True},
    "limits": {"timeout_ms": 600000, "max_output_files": 500,
               "max_total_output_bytes": 52428800, "max_memory_bytes": 1073741824},
    "commands": {"allowlist": [], "blocklist": ["curl", "rm -rf"], "shell": "/bin/sh"},
    "write_roots": ["build", "src"],
    "context": {"working_dir": ".", "env_allowlist": [
        "AGENT_CANVAS_NODE_ID", "AGENT_CANVAS_RUN_ID", "HOME", "JRUN_ID", "LANG",
        "MESSAGE_BUS", "PATH", "RUN_FOLDER", "TMPDIR"], "locale": "C.UTF-8",
        "timezone": "UTC"},
    "timing": {"started_at": "2026-01-06T12:00:00.000Z",
               "completed_at": "2026-01-06T12:00:05.000Z", "duration_ms": 5000},
    "exit": {"code": 0, "oom_killed": False, "timeout_killed": False},
    "warnings": ["no Node runtime on the agent's PATH: node_version is v0.0.0"],
    "ephemeral": {"session_id": "20260106-1200000000-4242"},
}


def _starts(argv: list[str], n: int) -> list[float]:
    """Milliseconds from spawn to exit of ``argv``, n times."""
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


def start_rows(n: int) -> list[dict]:
    problem = bwrap_problem()
    if problem is not None:
        return [{"name": f"sandboxed start (skipped: {problem})", "ok": None}]
    with tempfile.TemporaryDirectory() as tmp:
        workspace, folder = Path(tmp) / "ws", Path(tmp) / "agent"
        workspace.mkdir()
        folder.mkdir()
        launch = SandboxLaunch(Sandbox.model_validate({"backend": "process", "network": False}),
                               workspace, folder)
        boxed, _ = launch.wrap(["/bin/true"], {"PATH": "/usr/bin:/bin"})
        _starts(boxed, 5)  # warm the page cache
        plain = _starts(["/bin/true"], n)
        sandboxed = _starts(boxed, n)
    added = statistics.median(sandboxed) - statistics.median(plain)
    added_p99 = _p99(sandboxed) - _p99(plain)
    return [
        {"name": f"agent start, sandboxed, median ({n} starts)",
         "value": statistics.median(sandboxed), "unit": "ms",
         "reference": statistics.median(plain),
         "ratio": statistics.median(sandboxed) / statistics.median(plain),
         "target": None, "ok": None},
        {"name": "agent start, sandboxed, p99", "value": _p99(sandboxed), "unit": "ms",
         "reference": _p99(plain), "ratio": _p99(sandboxed) / _p99(plain),
         "target": None, "ok": None},
        {"name": "added by the sandbox, median", "value": added, "unit": "ms",
         "reference": None, "ratio": None, "target": "< 20 ms", "ok": added < 20},
        {"name": "added by the sandbox, p99", "value": added_p99, "unit": "ms",
         "reference": None, "ratio": None, "target": None, "ok": None},
    ]


def verify_rows(n: int) -> list[dict]:
    blobs = []
    for i in range(n):
        record = copy.deepcopy(RECORD)
        record["runner_id"] = f"runner_20260106_120000_{i:08x}"
        record["exit"]["code"] = i % 256
        blobs.append(canonical(record))
    t0 = time.perf_counter()
    for raw in blobs:
        _, result = check(raw)
        assert result.ok
    spent = time.perf_counter() - t0

    t0 = time.perf_counter()
    for raw in blobs:
        json.loads(raw)
    plain = time.perf_counter() - t0
    rate = n / spent
    return [{"name": f"verify runner records (parse + RN1-RN12 + hash, {n:,})",
             "value": rate, "unit": "records/s", "reference": n / plain,
             "ratio": rate / (n / plain), "target": ">= 10,000 records/s",
             "ok": rate >= 10_000}]


def run(quick: bool) -> list[dict]:
    return start_rows(40 if quick else 200) + verify_rows(2_000 if quick else 20_000)
