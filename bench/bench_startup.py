"""Start-up of the ``agent-canvas`` command in the venv (the console script).

Whole-process wall times, the median of several runs, each command alternating with
its references so drift on a shared machine hits both: ``--version`` against
``python -c pass``; ``validate`` of an example against ``python -c pass`` and against
``python -c "from pydantic import BaseModel"`` (the floor of anything that loads the
document models); and ``run`` of the single-agent example against its own agent time
(the turn's ``turn.status`` started -> completed in the run's events; the target's
reference) and, without a target, against the agent process alone (its run-info.yaml
``start_time`` -> ``end_time``: the turn less the engine's work before and after it).
Bytecode is written on a warm-up run first, as an installed package has it.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
APP = Path(sys.executable).parent / "agent-canvas"
EXAMPLES = ROOT / "resources" / "examples"
SINGLE = EXAMPLES / "single-agent.flow.yaml"


def _env(home: Path) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE is left out on purpose: every start would compile from source.
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "LANG": "C.UTF-8", "AGENT_CANVAS_DATA_DIR": str(home / "data"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}


def _wall(argv: Sequence[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, timeout=120)
    return time.perf_counter() - start


def _medians(runs: int, measures: Sequence[Callable[[], float]]) -> list[float]:
    """Median of each measure, taken A B C A B C ... after one warm-up each."""
    for measure in measures:
        measure()
    times: list[list[float]] = [[] for _ in measures]
    for _ in range(runs):
        for bucket, measure in zip(times, measures, strict=True):
            bucket.append(measure())
    return [statistics.median(t) for t in times]


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _ts(event: dict) -> float:
    return _stamp(event["ts"])


def _agent_process(data: Path) -> float:
    """Seconds the run's one agent process ran, from its run-info.yaml."""
    [info] = data.glob("runs/*/agents/*/run-info.yaml")
    record = yaml.safe_load(info.read_text(encoding="utf-8"))
    return _stamp(record["end_time"]) - _stamp(record["start_time"])


def _run_once(env: dict[str, str], data: Path) -> tuple[float, float, float]:
    """Wall seconds of ``agent-canvas run`` on the single-agent example, its turn's and its
    agent process's."""
    start = time.perf_counter()
    done = subprocess.run([str(APP), "run", str(SINGLE), "--data-dir", str(data), "--json"],
                          env=env, cwd=data, capture_output=True, text=True, check=True,
                          timeout=300)
    wall = time.perf_counter() - start
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    turn = {e["status"]: _ts(e) for e in events if e["type"] == "turn.status"}
    return wall, turn["completed"] - turn["started"], _agent_process(data)


def _row(name: str, ours: float, theirs: float, target: str | None = None,
         ok: bool | None = None) -> dict:
    return {"name": name, "value": round(ours, 3), "unit": "s", "reference": round(theirs, 3),
            "ratio": round(ours / theirs, 2) if theirs else None, "target": target, "ok": ok}


def run(quick: bool) -> list[dict]:
    if not APP.is_file():
        return [{"name": f"no console script at {APP}: run `make venv`", "value": None,
                 "unit": "", "reference": None, "ratio": None, "target": None, "ok": None}]
    runs = 3 if quick else 11
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        env = _env(Path(scratch))
        py = sys.executable

        def wall(*argv: str) -> Callable[[], float]:
            return lambda: _wall(argv, env)

        bare, pyd, version, validate = _medians(runs, [
            wall(py, "-c", "pass"), wall(py, "-c", "from pydantic import BaseModel"),
            wall(str(APP), "--version"), wall(str(APP), "validate", str(SINGLE))])
        rows.append(_row("`agent-canvas --version` vs `python -c pass`", version, bare,
                         "< 0.15 s", version < 0.15))
        rows.append(_row("`agent-canvas validate` single-agent example vs `python -c pass`",
                         validate, bare, "< 0.3 s", validate < 0.3))
        rows.append(_row("`agent-canvas validate` single-agent example vs "
                         "`python -c \"from pydantic import BaseModel\"`", validate, pyd))
        pairs = []
        for i in range(max(2, runs // 3) + 1):
            data = Path(scratch) / f"run{i}"
            data.mkdir()
            pairs.append(_run_once(env, data))
        walls, turns, agents = zip(*pairs[1:], strict=True)  # the first writes the bytecode
        ours, theirs = statistics.median(walls), statistics.median(turns)
        rows.append(_row("`agent-canvas run` single-agent example vs its agent's turn",
                         ours, theirs, "< 1.3x the agent's time", ours < 1.3 * theirs))
        rows.append(_row("`agent-canvas run` single-agent example vs its agent process alone",
                         ours, statistics.median(agents)))
    return rows
