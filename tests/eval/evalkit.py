"""Shared pieces of the evaluation tests: tiny suites and scripted workflows on disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import yaml
from pydantic import TypeAdapter

from desktop.contract.artifacts import (
    AssetsManifest,
    CaseArtifact,
    FailureMeta,
    RunArtifact,
)
from desktop.eval.inputs import make_plan
from desktop.eval.runner import RunOptions, run_eval
from desktop.graph.resources import examples_dir

EXAMPLE = examples_dir() / "eval"
CASES: TypeAdapter[Any] = TypeAdapter(CaseArtifact)


def write_yaml(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def flow(path: Path, script: Any, provider: str = "scripted", **config: Any) -> Path:
    """A one-node workflow file whose node plays ``script``."""
    node_config = {"instructions": "Do the task.", **config}
    if script is not None:
        node_config["script"] = script
    return write_yaml(path, {
        "name": path.stem, "task": "placeholder",
        "nodes": [{"id": "agent", "label": "Agent", "roleTemplate": "implementer",
                   "provider": provider, "entry": True}],
        "nodeConfigs": {"agent": node_config}})


def suite(path: Path, cases: list[dict[str, Any]], **extra: Any) -> Path:
    return write_yaml(path, {"name": "test suite", **extra, "cases": cases})


async def run(suite_path: Path, baseline: Path, new: Path, out: Path,
              **options: Any) -> Path:
    """Run an evaluation in this event loop; the out folder."""
    plan_args = {k: options.pop(k) for k in ("case_ids", "resume") if k in options}
    repeat = options.get("repeat", 1)
    plan = make_plan(suite_path, baseline, new, out, repeat=repeat, **plan_args)
    await run_eval(plan, RunOptions(**options))
    return out


def version_dirs(out: Path, side: str) -> list[Path]:
    return sorted(p for p in (out / side).iterdir() if p.is_dir())


def case_file(out: Path, side: str, case_id: str) -> dict[str, Any]:
    return orjson.loads((version_dirs(out, side)[0] / f"{case_id}.json").read_bytes())


def assert_contract(version_dir: Path) -> None:
    """Every file of a version directory validates against the contract's models."""
    RunArtifact.model_validate(orjson.loads((version_dir / "run.json").read_bytes()))
    for path in version_dir.glob("*.json"):
        if path.name in ("run.json", "evaluation.json"):
            continue
        case = CASES.validate_python(orjson.loads(path.read_bytes()))
        failure = getattr(case, "runner_failure", None)
        if failure is not None and failure.full_body_saved_to:
            assert (version_dir / failure.full_body_saved_to).is_file()
            FailureMeta.model_validate(orjson.loads(
                (version_dir / failure.full_body_meta_saved_to).read_bytes()))
    manifest = version_dir / "assets" / "manifest.json"
    if manifest.exists():
        items = AssetsManifest.model_validate(orjson.loads(manifest.read_bytes())).items
        for item in items:
            assert (version_dir / item.href).stat().st_size == item.size_bytes
