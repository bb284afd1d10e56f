"""What the app's evaluation view shows, without Qt: one row per case, filters, run folders.

The rows come from the same comparison ``eval evaluate`` writes (computed afresh,
nothing written), so the app and the HTML report never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.eval.completeness import headline
from desktop.eval.evaluate import evaluate_results
from desktop.eval.head_to_head import describe
from desktop.eval.reader import ResultFolder, read_results
from desktop.eval.report_html import VERDICT_ORDER, VERDICT_TEXT
from desktop.wording import plural

FILTERS = {"all": "All cases", "regressed": "Regressions", "fixed": "Fixes",
           "unchanged_fail": "Still failing", "flaky": "Flaky", "missing": "Missing",
           "unchanged_pass": "Passing"}


@dataclass
class CaseRow:
    case_id: str
    verdict: str
    tags: list[str]
    task: str
    baseline: str
    new: str
    risk: str
    deltas: dict[str, float]
    runs: dict[str, Path | None] = field(default_factory=dict)
    """The engine run folder shown for each side (the first failing sample, else the
    first), None when that side has no run folder."""

    @property
    def verdict_text(self) -> str:
        return VERDICT_TEXT.get(self.verdict, self.verdict)


@dataclass
class EvaluationTable:
    root: Path
    title: str
    subtitle: str
    rows: list[CaseRow]
    problems: list[str]

    def tags(self) -> list[str]:
        return sorted({t for r in self.rows for t in r.tags})

    def filtered(self, verdict: str = "all", tag: str | None = None) -> list[CaseRow]:
        """The rows with this verdict (``all`` for any) and tag (None for any)."""
        return [r for r in self.rows if (verdict == "all" or r.verdict == verdict)
                and (tag is None or tag in r.tags)]


def _rate(side: dict[str, Any]) -> str:
    n = side.get("samples") or 0
    return f"{side['passes']}/{n}" if n else "no result"


def _run_folder(results: ResultFolder, side: dict[str, Any], case_id: str) -> Path | None:
    runs = [r for r in side.get("runs", []) if "file" in r]
    chosen = next((r for r in runs if not r["passed"]), runs[0] if runs else None)
    if chosen is None:
        return None
    version = next((v for v in results.versions if v.rel == chosen["run"]), None)
    case = version.cases.get(case_id) if version else None
    folder = case.get("run_folder") if isinstance(case, dict) else None
    if not isinstance(folder, str) or version is None:
        return None
    path = (version.path / folder).resolve()
    return path if (path / "events.jsonl").is_file() else None


def load_evaluation(root: str | Path) -> EvaluationTable:
    """The table of a result folder (ResultsError when it holds no results)."""
    results = read_results(root)
    comparison = evaluate_results(results, write=False)
    rank = {v: i for i, v in enumerate(VERDICT_ORDER)}
    rows = []
    for case in sorted(comparison["cases"], key=lambda c: rank.get(c["verdict"], 99)):
        changes = case.get("changes") or {}
        metrics = changes.get("metrics") or {}
        risk = changes.get("risk")
        rows.append(CaseRow(
            case_id=case["case_id"], verdict=case["verdict"], tags=list(case.get("tags", [])),
            task=str(case.get("task") or "").strip(), baseline=_rate(case["baseline"]),
            new=_rate(case["new"]),
            risk=f"{risk['baseline']} → {risk['new']}" if risk else "",
            deltas={k: v["delta"] for k, v in metrics.items()},
            runs={side: _run_folder(results, case[side], case["case_id"])
                  for side in ("baseline", "new")}))
    summary = comparison["summary"]
    rates = summary["pass_rate"]
    workflows = comparison.get("workflows") or {}

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    names = [str((workflows.get(s) or {}).get("name", s)) for s in ("baseline", "new")]
    subtitle = (f"{names[0]} → {names[1]}: pass rate {pct(rates['baseline'])} → "
                f"{pct(rates['new'])}; {plural(summary['regressed'], 'regression')}, "
                f"{plural(summary['fixed'], 'fix')}, {summary['unchanged_fail']} still failing")
    if "head_to_head" in summary:
        subtitle += f"; head to head {describe(summary['head_to_head'])}"
    if comparison.get("incomplete"):  # its rates are over the case files present only
        subtitle = f"{headline(comparison['incomplete'])}. {subtitle}"
    return EvaluationTable(Path(root), str(comparison.get("suite") or Path(root).name),
                           subtitle, rows, comparison["problems"])
