"""Whether an evaluation is complete: every case has its case file on both sides.

The artifact contract (section 9) says every case MUST have its ``<caseId>.json``,
a runner failure included. So a case file that is missing, or left out because it
cannot be read or breaks a rule, makes the evaluation **incomplete**: its pass rates
are over the files present only, and a regression may hide in the missing one.
``eval evaluate --fail-on-regression`` fails on it; the summary and the report say
which files.

A version directory is expected to hold the cases its ``run.json`` selects; without
a readable ``run.json``, every case of the evaluation. A side with no version
directory at all misses every case.
"""

from __future__ import annotations

from typing import Any

from desktop.eval.index import SIDES
from desktop.eval.reader import ResultFolder
from desktop.wording import plural


def incomplete(results: ResultFolder, case_ids: list[str]) -> list[dict[str, Any]]:
    """One entry per case file the evaluation lacks: ``case_id``, ``side``, ``run`` (the
    version directory, None when the side has none), ``file`` and ``why`` (``missing``,
    ``unreadable``: there but left out, or ``no_side``)."""
    entries: list[dict[str, Any]] = []
    for side in SIDES:
        versions = results.side(side)
        if not versions:
            entries += [{"case_id": c, "side": side, "run": None, "file": None,
                         "why": "no_side"} for c in case_ids]
            continue
        for version in versions:
            expected = version.selected() if version.run is not None else case_ids
            for case_id in expected:
                if case_id in version.cases:
                    continue
                there = (version.path / f"{case_id}.json").is_file()
                entries.append({"case_id": case_id, "side": side, "run": version.rel,
                                "file": f"{version.rel}/{case_id}.json",
                                "why": "unreadable" if there else "missing"})
    return entries


def describe(entries: list[dict[str, Any]]) -> list[str]:
    """The lines that say which case files an incomplete evaluation lacks."""
    lines = []
    for side in SIDES:
        whole = [e["case_id"] for e in entries if e["side"] == side and e["why"] == "no_side"]
        if whole:
            lines.append(f"{side}/ has no version directory: no {side} result for "
                         f"{', '.join(whole)}")
    for why in ("missing", "unreadable"):
        files = [e["file"] for e in entries if e["why"] == why]
        if files:
            lines.append(f"{why}: {', '.join(files)}")
    return [*lines, FIX] if lines else []


def headline(entries: list[dict[str, Any]]) -> str:
    """``INCOMPLETE: 2 case files missing or unreadable``."""
    return f"INCOMPLETE: {plural(len(entries), 'case file')} missing or unreadable"


FIX = ("every case needs its case file (artifact contract, section 9): write the missing "
       "ones with `agent-canvas eval run ... --resume`, mend the others (the problems "
       "reading them say what is wrong)")
