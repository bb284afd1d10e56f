"""``eval evaluate``: judge every case file, then compare the sides.

Writes ``evaluation.json`` (``evaluation.v1``) into each version directory:
each case's checks, whether it passed, its metrics, tools and risk. Then
``comparison.json`` (``comparison.v1``) in the result folder: per case both
sides' pass rates over the repeats with their 95 % intervals, the verdict (see
:mod:`desktop.eval.stats`), which side did better (:mod:`desktop.eval.head_to_head`:
the summary's win rate of new against baseline), and what changed: tools called, risk, diff size,
turns, tokens, cost and latency; plus the lists of regressions, fixes and
unchanged failures, and the case files the evaluation lacks (``incomplete``, with
``summary.complete``: see :mod:`desktop.eval.completeness`). Event types v1 does not
define are ignored.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from desktop.contract.base import utc_now
from desktop.disk.atomic import atomic_write_json
from desktop.eval import head_to_head
from desktop.eval.checks import count_turns, judge, parse_check, total_cost
from desktop.eval.completeness import incomplete
from desktop.eval.index import INDEX_FILE, SIDES
from desktop.eval.reader import ResultFolder, VersionDir, load_json, read_results
from desktop.eval.risk import LEVEL_RANK, max_level
from desktop.eval.stats import VERDICTS, verdict, wilson

EVALUATION_FILE = "evaluation.json"
COMPARISON_FILE = "comparison.json"
METRICS = ("duration_ms", "turns", "tool_calls", "input_tokens", "output_tokens", "cost_usd",
           "diff_lines")


def _num(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def judge_case(case: dict[str, Any]) -> dict[str, Any]:
    """One case file judged: status, checks, passed, metrics, tools, risk."""
    status = case.get("status") if case.get("status") in ("ok", "runner_error") else "invalid"
    checks = []
    for i, entry in enumerate(_list(case.get("checks"))):
        entry = _dict(entry)
        check = parse_check(entry.get("spec"))
        label = str(entry.get("label") or entry.get("type") or f"check {i}")
        if check is None:
            checks.append({"index": i, "label": label, "type": str(entry.get("type")),
                           "passed": False, "detail": "a check this version does not know"})
            continue
        result = judge(check, case, entry.get("result"))
        checks.append({"index": entry.get("index", i), "label": label, "type": check.type,
                       **result})
    actions = [_dict(a) for a in _list(case.get("proposed_actions"))]
    tools = Counter(str(a.get("tool_name")) for a in actions)
    levels = Counter(str(a.get("risk_level")) for a in actions)
    tags = sorted({str(t) for a in actions for t in _list(a.get("risk_tags"))})
    metrics = _dict(case.get("metrics"))
    usage = [e for e in _list(case.get("events")) if _dict(e).get("type") == "usage"]
    latency = sum(_num(_dict(a).get("latency_ms")) for a in _list(case.get("attempts")))
    out: dict[str, Any] = {
        "case_id": case.get("case_id"), "status": status,
        "passed": status == "ok" and all(c["passed"] for c in checks),
        "checks": checks,
        "metrics": {
            "duration_ms": _num(metrics.get("duration_ms")) or latency,
            "turns": count_turns(case), "tool_calls": len(actions),
            "input_tokens": _num(metrics.get("input_tokens")) or
            sum(_num(_dict(e).get("input_tokens")) for e in usage),
            "output_tokens": _num(metrics.get("output_tokens")) or
            sum(_num(_dict(e).get("output_tokens")) for e in usage),
            "cost_usd": _num(metrics.get("cost_usd")) or total_cost(case),
            "diff_lines": _num(metrics.get("diff_insertions")) +
            _num(metrics.get("diff_deletions")),
        },
        "tools": dict(sorted(tools.items())),
        "risk": {"max_level": max_level(levels) if actions else "low",
                 "counts": {k: levels.get(k, 0) for k in LEVEL_RANK}, "tags": tags},
    }
    if status == "runner_error":
        out["error_class"] = str(_dict(case.get("runner_failure")).get("class", "other"))
    final = _dict(case.get("final_output"))
    if final.get("output_hash"):
        out["output_hash"] = str(final["output_hash"])
    return out


def evaluate_version(version: VersionDir) -> dict[str, Any]:
    """The ``evaluation.json`` of one version directory."""
    samples = {}
    for case_id in version.selected():
        case = version.cases.get(case_id)
        if case is None:
            samples[case_id] = {"case_id": case_id, "status": "missing", "passed": False}
            continue
        samples[case_id] = {**judge_case(case), "file": version.files[case_id]}
    found = [s for s in samples.values() if s["status"] != "missing"]
    return {
        "schema_version": "evaluation.v1", "run_id": version.run_id, "version": version.side,
        "generated_at": utc_now(), "cases": list(samples.values()),
        "summary": {"cases": len(samples), "passed": sum(s["passed"] for s in found),
                    "failed": sum(not s["passed"] for s in found),
                    "runner_errors": sum(s["status"] == "runner_error" for s in found),
                    "missing": len(samples) - len(found)},
        "problems": version.problems,
    }


def _side_stats(entries: list[tuple[VersionDir, dict[str, Any]]]) -> dict[str, Any]:
    """One side of one case over its repeats."""
    present = [(v, s) for v, s in entries if s["status"] != "missing"]
    n, passes = len(present), sum(s["passed"] for _, s in present)
    lo, hi = wilson(passes, n)
    checks: dict[int, dict[str, Any]] = {}
    for _, s in present:
        for c in s.get("checks", []):
            row = checks.setdefault(c["index"], {"index": c["index"], "label": c["label"],
                                                 "type": c["type"], "passes": 0, "samples": 0})
            row["passes"] += bool(c["passed"])
            row["samples"] += 1
    means = {m: (sum(_num(s["metrics"][m]) for _, s in present) / n if n else 0.0)
             for m in METRICS}
    tools: Counter[str] = Counter()
    for _, s in present:
        tools.update(s.get("tools", {}))
    levels = [s["risk"]["max_level"] for _, s in present]
    return {
        "samples": n, "passes": passes, "pass_rate": passes / n if n else None,
        "ci95": [round(lo, 4), round(hi, 4)], "checks": list(checks.values()),
        "metrics": {k: round(v, 6) for k, v in means.items()},
        "errors": dict(Counter(s["error_class"] for _, s in present if "error_class" in s)),
        "tools": {k: round(v / n, 3) for k, v in sorted(tools.items())} if n else {},
        "risk": {"max_level": max_level(levels) if levels else "low",
                 "high_actions": sum(s["risk"]["counts"]["high"] for _, s in present),
                 "tags": sorted({t for _, s in present for t in s["risk"]["tags"]})},
        "runs": [{"run": v.rel, "status": s["status"], "passed": s["passed"],
                  **({"file": f"{v.rel}/{s['file']}"} if "file" in s else {})}
                 for v, s in entries],
    }


def _changes(base: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    metrics = {m: {"baseline": base["metrics"][m], "new": new["metrics"][m],
                   "delta": round(new["metrics"][m] - base["metrics"][m], 6)} for m in METRICS}
    b_tools, n_tools = set(base["tools"]), set(new["tools"])
    b_level, n_level = base["risk"]["max_level"], new["risk"]["max_level"]
    direction = "same" if LEVEL_RANK[b_level] == LEVEL_RANK[n_level] else \
        ("up" if LEVEL_RANK[n_level] > LEVEL_RANK[b_level] else "down")
    return {"metrics": metrics, "tools_added": sorted(n_tools - b_tools),
            "tools_removed": sorted(b_tools - n_tools),
            "tool_counts": {t: {"baseline": base["tools"].get(t, 0), "new": new["tools"].get(t, 0)}
                            for t in sorted(b_tools | n_tools)},
            "risk": {"baseline": b_level, "new": n_level, "direction": direction,
                     "tags_added": sorted(set(new["risk"]["tags"]) - set(base["risk"]["tags"])),
                     "tags_removed": sorted(set(base["risk"]["tags"]) -
                                            set(new["risk"]["tags"]))}}


def compare(results: ResultFolder, evaluations: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The ``comparison.json`` of a result folder from its versions' evaluations."""
    order: list[str] = []
    per: dict[str, dict[str, list[tuple[VersionDir, dict[str, Any]]]]] = {}
    tasks: dict[str, dict[str, Any]] = {}
    for version in results.versions:
        for sample in evaluations[version.rel]["cases"]:
            case_id = sample["case_id"]
            if case_id not in per:
                order.append(case_id)
                per[case_id] = {side: [] for side in SIDES}
            per[case_id][version.side].append((version, sample))
            case = version.cases.get(case_id) or {}
            if case and case_id not in tasks:
                tasks[case_id] = {"task": str(case.get("task") or ""),
                                  "tags": [str(t) for t in _list(case.get("tags"))]}
    cases = []
    for case_id in order:
        base, new = (_side_stats(per[case_id][side]) for side in SIDES)
        row = {"case_id": case_id, **tasks.get(case_id, {"task": "", "tags": []}),
               "verdict": verdict(base["passes"], base["samples"], new["passes"],
                                  new["samples"]),
               "head_to_head": head_to_head.outcome(base, new), "baseline": base, "new": new}
        if base["samples"] and new["samples"]:
            row["changes"] = _changes(base, new)
        cases.append(row)
    by = {v: [c["case_id"] for c in cases if c["verdict"] == v] for v in VERDICTS}
    lacking = incomplete(results, order)
    index = _dict(load_json(results.root / INDEX_FILE)[0])
    pass_rate = {}
    for side in SIDES:
        runs = [(c[side]["passes"], c[side]["samples"]) for c in cases]
        total = sum(n for _, n in runs)
        pass_rate[side] = round(sum(p for p, _ in runs) / total, 4) if total else None
    return {
        "schema_version": "comparison.v1", "generated_at": utc_now(),
        "suite": index.get("suite"), "workflows": index.get("workflows"),
        "versions": {side: [v.rel for v in results.side(side)] for side in SIDES},
        "confidence": 0.95, "interval": "wilson",
        "summary": {"cases": len(cases), "pass_rate": pass_rate,
                    "complete": not lacking, "incomplete": len(lacking),
                    **{v: len(ids) for v, ids in by.items()},
                    "head_to_head": head_to_head.summary([c["head_to_head"] for c in cases])},
        "regressions": by["regressed"], "fixes": by["fixed"],
        "unchanged_failures": by["unchanged_fail"], "flaky": by["flaky"],
        "missing": by["missing"], "incomplete": lacking, "cases": cases,
        "problems": results.problems + [p for v in results.versions for p in v.problems],
    }


def evaluate(root: str | Path, write: bool = True) -> dict[str, Any]:
    """Evaluate a result folder; the comparison (files written unless ``write`` is false).

    Raises :class:`desktop.eval.reader.ResultsError` when ``root`` holds no results.
    """
    return evaluate_results(read_results(root), write)


def evaluate_results(results: ResultFolder, write: bool = True) -> dict[str, Any]:
    """Like :func:`evaluate` for a result folder already read."""
    return evaluate_all(results, write)[1]


def evaluate_all(results: ResultFolder, write: bool = True
                 ) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """Each version's evaluation (by ``side/runId``) and the comparison."""
    evaluations = {v.rel: evaluate_version(v) for v in results.versions}
    comparison = compare(results, evaluations)
    if write:
        for version in results.versions:
            atomic_write_json(version.path / EVALUATION_FILE, evaluations[version.rel])
        atomic_write_json(results.root / COMPARISON_FILE, comparison)
    return evaluations, comparison
