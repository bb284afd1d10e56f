"""One summary of every target, met or missed: the rows that have a target, from the
benches just run and from the sections of RESULTS.md kept from earlier runs.

Printed at the end of ``python -m bench`` and written at the top of RESULTS.md, each row
saying when it was measured, so a reader sees at a glance what holds and what does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bench.sections import figures


@dataclass(frozen=True)
class Target:
    """One measured figure against its target."""

    section: str
    name: str
    figure: str
    """The value with its unit, and its ratio to the reference when there is one."""
    target: str
    met: bool
    when: str


def _figure(value: str, unit: str, ratio: str) -> str:
    """``1.31 ms (3.46x its reference)``: the value, and the ratio when there is one."""
    figure = f"{value} {unit}".strip()
    return figure if ratio in ("", "-") else f"{figure} ({ratio}x its reference)"


def fresh(results: dict[str, tuple[list[dict], float]], when: str, fmt) -> list[Target]:
    """The targets of the benches just run."""
    return [Target(name, str(row.get("name")),
                   _figure(fmt(row.get("value")), row.get("unit") or "", fmt(row.get("ratio"))),
                   str(row.get("target") or "-"), row.get("ok"), when)
            for name, (rows, _) in results.items() for row in rows
            if isinstance(row.get("ok"), bool)]


def kept(sections: dict[str, str]) -> list[Target]:
    """The targets in sections of RESULTS.md kept from an earlier run."""
    found = []
    for name, section in sections.items():
        body = figures(section)  # a note written below the table is prose, not targets
        stamp = re.search(r"measured ([^;)]*)", body)
        when = stamp[1].strip() if stamp else "earlier"
        for line in body.splitlines():
            cells = [c.strip().replace("\\|", "|")
                     for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            if len(cells) != 7 or cells[0] == "name" or set(line) <= {"|", "-"}:
                continue
            row, value, unit, _ref, ratio, target, ok = cells
            if ok not in ("yes", "**NO**"):
                continue  # a figure without a target, or a reference described
            figure = _figure(value, unit if unit != "-" else "", ratio)
            met = ok == "yes"
            found.append(Target(name, row, figure, target, met, when))
    return found


def table(targets: list[Target]) -> str:
    """The targets as a Markdown table, missed first."""
    lines = ["| met | bench | measure | figure | target | measured |", "|---|---|---|---|---|---|"]
    order = sorted(targets, key=lambda t: (t.met, t.section))
    for t in order:
        met = "yes" if t.met else "**NO**"
        cells = (met, t.section.removeprefix("bench_"), t.name, t.figure, t.target, t.when)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def counts(targets: list[Target]) -> str:
    """``23 targets: 14 met, 9 missed``."""
    met = sum(t.met for t in targets)
    missed = len(targets) - met
    return f"{len(targets)} targets: {met} met, {missed} missed"


def lines(targets: list[Target]) -> list[str]:
    """The summary as the terminal shows it: one line per target, missed first."""
    out = [counts(targets)]
    for t in sorted(targets, key=lambda t: (t.met, t.section)):
        mark = "met   " if t.met else "MISSED"
        out.append(f"  {mark} {t.section.removeprefix('bench_')}: {t.name}: {t.figure} "
                   f"(target {t.target}; {t.when})")
    return out
