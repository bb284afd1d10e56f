"""Evaluations: case runs per minute, engine overhead per case, evaluate + report of 1,000 cases.

- A suite of scripted cases at concurrency 8, both sides (cases per minute).
- One case at a time inside ``eval run`` against a bare ``agent-canvas run`` of the same
  workflow (a process per run, as a user would type it), per case: the evaluation adds a
  workspace copy and commit, the case artifact, checks and assets (target < 1.3x).
- ``eval evaluate`` + ``eval report`` of 1,000 cases per side (target < 5 s), with reading
  every file (``orjson.loads``) as the reference.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
import yaml

from desktop.eval.evaluate import evaluate
from desktop.eval.inputs import make_plan
from desktop.eval.report import write_report
from desktop.eval.runner import RunOptions, run_eval

SCRIPT = [{"say": "Writing the file."},
          {"edit": {"path": "out.txt", "content": "hello\n"}},
          {"shell": "ls"},
          {"say": "Done."}, {"done": True}]


def _write(path: Path, data: object) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _inputs(folder: Path, cases: int) -> tuple[Path, Path]:
    flow = _write(folder / "w.flow.yaml", {
        "name": "bench", "task": "write out.txt",
        "nodes": [{"id": "a", "label": "A", "entry": True, "provider": "scripted"}],
        "nodeConfigs": {"a": {"instructions": "Write it.", "script": SCRIPT}}})
    suite = _write(folder / "s.suite.yaml", {"name": "bench", "cases": [
        {"id": f"c{i:04d}", "task": "write out.txt",
         "checks": [{"type": "fileExists", "path": "out.txt"},
                    {"type": "toolCalled", "tool": "edit_file"}]} for i in range(cases)]})
    return suite, flow


def _eval(suite: Path, flow: Path, out: Path, concurrency: int) -> float:
    plan = make_plan(suite, flow, flow, out)
    t0 = time.perf_counter()
    asyncio.run(run_eval(plan, RunOptions(concurrency=concurrency)))
    return time.perf_counter() - t0


def throughput_rows(folder: Path, cases: int) -> list[dict]:
    suite, flow = _inputs(folder, cases)
    seconds = _eval(suite, flow, folder / "out8", 8)
    runs = cases * 2
    return [{"name": f"{cases}-case suite, both sides, concurrency 8",
             "value": runs / seconds * 60, "unit": "case runs/min", "reference": None,
             "ratio": None, "target": None, "ok": None}]


def overhead_rows(folder: Path, cases: int) -> list[dict]:
    suite, flow = _inputs(folder, cases)
    per_case = _eval(suite, flow, folder / "out1", 1) / (cases * 2)
    bare = []
    for i in range(cases * 2):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "desktop", "run", str(flow), "--data-dir",
                        str(folder / f"bare{i}")], check=True, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL)
        bare.append(time.perf_counter() - t0)
    reference = sum(bare) / len(bare)
    ratio = per_case / reference
    in_process = asyncio.run(_bare_in_process(flow, folder / "inproc", cases * 2))
    return [{"name": "time per case inside eval run, vs `agent-canvas run` (a process)",
             "value": per_case, "unit": "s", "reference": reference, "ratio": ratio,
             "target": "< 1.3x a bare `agent-canvas run`", "ok": ratio < 1.3},
            {"name": "time per case inside eval run, vs the same run in-process",
             "value": per_case, "unit": "s", "reference": in_process,
             "ratio": per_case / in_process, "target": None, "ok": None}]


async def _bare_in_process(flow: Path, data: Path, n: int) -> float:
    """Seconds per run of ``flow`` with create_run + Engine.run (what `agent-canvas run`
    does once Python has started), one after the other."""
    from desktop.graph.io import load_workflow
    from desktop.runtime.recovery import create_run

    doc = load_workflow(flow)
    t0 = time.perf_counter()
    for _ in range(n):
        engine = create_run(doc, data)
        try:
            await engine.run()
        finally:
            engine.close()
    return (time.perf_counter() - t0) / n


def _synthesize(seed_out: Path, target: Path, cases: int) -> None:
    """A result folder of ``cases`` cases per side, cloned from one real case file."""
    rng = random.Random(7)
    shutil.copytree(seed_out, target, ignore=shutil.ignore_patterns("runs", "*.html",
                                                                    "comparison.json"))
    ids = [f"c{i:05d}" for i in range(cases)]
    for side in ("baseline", "new"):
        [version] = [p for p in (target / side).iterdir() if p.is_dir()]
        template = orjson.loads(next(version.glob("c*.json")).read_bytes())
        for stale in version.glob("c*.json"):
            stale.unlink()
        for case_id in ids:
            case = dict(template, case_id=case_id)
            case["checks"] = [dict(c, result=dict(c.get("result") or {},
                                                  passed=rng.random() < 0.8))
                              if c["type"] == "fileExists" else c for c in template["checks"]]
            (version / f"{case_id}.json").write_bytes(orjson.dumps(case))
        run = orjson.loads((version / "run.json").read_bytes())
        run["selected_case_ids"] = ids
        (version / "run.json").write_bytes(orjson.dumps(run))


def evaluate_rows(folder: Path, cases: int) -> list[dict]:
    suite, flow = _inputs(folder, 1)
    _eval(suite, flow, folder / "seed", 1)
    big = folder / "big"
    _synthesize(folder / "seed", big, cases)
    t0 = time.perf_counter()
    for path in big.rglob("*.json"):
        orjson.loads(path.read_bytes())
    reference = time.perf_counter() - t0
    t0 = time.perf_counter()
    comparison = evaluate(big)
    write_report(big)
    seconds = time.perf_counter() - t0
    assert comparison["summary"]["cases"] == cases
    return [{"name": f"eval evaluate + report, {cases:,} cases per side", "value": seconds,
             "unit": "s", "reference": reference, "ratio": seconds / reference,
             "target": "< 5 s", "ok": seconds < 5}]


def run(quick: bool) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as tmp:
        folder = Path(tmp)
        rows = []
        for name, fn, size in (("t", throughput_rows, 10 if quick else 200),
                               ("o", overhead_rows, 3 if quick else 10),
                               ("e", evaluate_rows, 100 if quick else 1000)):
            part = folder / name
            part.mkdir()
            rows += fn(part, size)
        return rows
