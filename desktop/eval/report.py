"""``eval report``: the comparison as one self-contained HTML file.

The report has a summary, the case table (baseline against new) and, per
case, its checks, both final outputs side by side, the tool calls with their
risk, the diffs, and links to the evidence: the case files, events by index,
assets by relative href. Links are relative to the report's folder, so the
result folder and its report can be copied anywhere together; no absolute path
is ever written.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Any

from desktop.contract.artifacts import is_relative_path
from desktop.contract.base import utc_now
from desktop.disk.atomic import atomic_write_text
from desktop.eval.completeness import describe, headline
from desktop.eval.evaluate import evaluate_all
from desktop.eval.index import INDEX_FILE
from desktop.eval.reader import ResultFolder, VersionDir, load_json, read_results
from desktop.eval.report_html import (
    VERDICT_ORDER,
    badge,
    delta,
    diff_block,
    e,
    outcome_badge,
    page,
    rate_cell,
    verdict_badge,
)
from desktop.wording import plural

REPORT_FILE = "report.html"
MAX_EVENTS = 300
MAX_OUTPUT_CHARS = 20_000


class Report:
    """Renders the report of one result folder into a file at ``target``."""

    def __init__(self, results: ResultFolder, target: Path, write_evaluation: bool = False):
        self.results = results
        self.target = target
        evaluations, self.comparison = evaluate_all(results, write=write_evaluation)
        # Each case's judged checks, by (side/runId, case id), for the details shown.
        self.judged = {(rel, s["case_id"]): s for rel, ev in evaluations.items()
                       for s in ev["cases"]}
        self.versions = {v.rel: v for v in results.versions}
        self.root = results.root.resolve()
        self.prefix = Path(os.path.relpath(self.root, target.parent)).as_posix()

    def href(self, rel_to_root: str) -> str:
        """A link from the report to a file given relative to the result folder."""
        if self.prefix == ".":
            return rel_to_root
        return posixpath.normpath(posixpath.join(self.prefix, rel_to_root))

    # --- the page ---------------------------------------------------------------------

    def render(self) -> str:
        c = self.comparison
        workflows = c.get("workflows") or {}
        names = {s: (workflows.get(s) or {}).get("name", s) for s in ("baseline", "new")}
        description = suite_description(self.results.root)
        parts = [f"<h1>{e(c.get('suite') or 'Evaluation')}</h1>",
                 f"<p>{e(description)}</p>" if description else "",
                 f'<p class="sub">baseline <span class="vs">{e(names["baseline"])}</span> '
                 f'against new <span class="vs">{e(names["new"])}</span> · '
                 f'{plural(c["summary"]["cases"], "case")} · generated '
                 f'{e(utc_now()[:16].replace("T", " "))} UTC</p>',
                 self.cards(), self.incomplete(), self.problems(), "<h2>Cases</h2>",
                 self.table(),
                 "<h2>Details</h2>", *(self.case(row) for row in self.ordered()),
                 self.footer()]
        return page(f"{c.get('suite') or 'Evaluation'} — baseline vs new", "".join(parts))

    def ordered(self) -> list[dict[str, Any]]:
        rank = {v: i for i, v in enumerate(VERDICT_ORDER)}
        return sorted(self.comparison["cases"], key=lambda r: rank.get(r["verdict"], 99))

    def cards(self) -> str:
        s = self.comparison["summary"]
        rates = s["pass_rate"]

        def pct(v: float | None) -> str:
            return "&ndash;" if v is None else f"{v:.0%}"

        high = {side: sum(r[side]["risk"]["high_actions"] for r in self.comparison["cases"])
                for side in ("baseline", "new")}
        lacking = s.get("incomplete", 0)  # none in a comparison.json before it
        cards = [("amber" if lacking else "", f"{pct(rates['baseline'])} → {pct(rates['new'])}",
                  "pass rate of the case files present" if lacking else "pass rate"),
                 ("red" if s["regressed"] else "", s["regressed"], "regressions"),
                 ("green" if s["fixed"] else "", s["fixed"], "fixes"),
                 ("red" if s["unchanged_fail"] else "", s["unchanged_fail"], "still failing"),
                 ("amber" if s["flaky"] else "", s["flaky"], "flaky"),
                 ("red" if high["new"] > high["baseline"] else "",
                  f"{high['baseline']} → {high['new']}", "high-risk tool calls")]
        if s["missing"]:
            cards.append(("amber", s["missing"], "missing"))
        if lacking:
            cards.append(("red", lacking, "case files missing or unreadable"))
        return self.win_card() +  '<div class="cards">' + "".join(
            f'<div class="card {kind}"><div class="n">{e(n)}</div><div class="l">{e(label)}'
            "</div></div>" for kind, n, label in cards) + "</div>"

    def win_card(self) -> str:
        """The head to head of new against baseline: its win rate, wins, ties, losses."""
        h2h = self.comparison["summary"].get("head_to_head")
        if not h2h or not h2h["cases"]:
            return ""
        names = {s: ((self.comparison.get("workflows") or {}).get(s) or {}).get("name", s)
                 for s in ("baseline", "new")}
        lo, hi = h2h["ci95"]
        kind = "green" if lo > 0.5 else "red" if hi < 0.5 else ""
        return (f'<div class="cards h2h"><div class="card {kind}"><div class="n">'
                f'{h2h["win_rate"]:.0%} <span class="ci">95% CI {lo:.0%}&ndash;{hi:.0%}'
                f'</span></div><div class="l">win rate of {e(names["new"])} against '
                f'{e(names["baseline"])}</div><div class="small">'
                f'{badge(plural(h2h["wins"], "win"), "win" if h2h["wins"] else "tie")} '
                f'{badge(plural(h2h["ties"], "tie"), "tie")} '
                f'{badge(plural(h2h["losses"], "loss"), "loss" if h2h["losses"] else "tie")}'
                ' · a case is won by the '
                "higher pass rate, then the larger share of checks passed; a tie counts "
                "half</div></div></div>")

    def incomplete(self) -> str:
        """Which case files an incomplete evaluation lacks (its rates leave them out)."""
        lacking = self.comparison.get("incomplete") or []
        if not lacking:
            return ""
        items = "".join(f"<li>{e(line)}</li>" for line in describe(lacking))
        return (f"<h2>{e(headline(lacking))}</h2>"
                f'<div class="problems"><ul>{items}</ul></div>')

    def problems(self) -> str:
        found = self.comparison["problems"]
        if not found:
            return ""
        items = "".join(f"<li>{e(p)}</li>" for p in found[:50])
        return f'<h2>Problems reading the results</h2><div class="problems"><ul>{items}</ul></div>'

    def table(self) -> str:
        head = ("<tr><th>Case</th><th>Verdict</th><th>Head to head</th><th>Baseline</th>"
                "<th>New</th>"
                "<th>Risk</th><th>Turns</th><th>Tokens</th><th>Cost</th><th>Time</th>"
                "<th>Diff lines</th></tr>")
        rows = []
        for row in self.ordered():
            ch = row.get("changes")
            tags = " ".join(badge(t, "tag") for t in row.get("tags", []))
            cells = [f'<td><a href="#case-{e(row["case_id"])}">{e(row["case_id"])}</a> {tags}'
                     "</td>", f"<td>{verdict_badge(row['verdict'])}</td>",
                     f"<td>{outcome_badge(row.get('head_to_head'))}</td>",
                     f"<td>{rate_cell(row['baseline'])}</td>", f"<td>{rate_cell(row['new'])}</td>"]
            if ch:
                m = ch["metrics"]
                risk = ch["risk"]
                arrow = {"up": "↑", "down": "↓", "same": "→"}[risk["direction"]]
                cells += [f'<td>{badge(risk["baseline"], risk["baseline"])} {arrow} '
                          f'{badge(risk["new"], risk["new"])}</td>',
                          f'<td class="num">{delta(m["turns"]["delta"], digits=1)}</td>',
                          f'<td class="num">{delta(m["input_tokens"]["delta"] + m["output_tokens"]["delta"])}</td>',  # noqa: E501
                          '<td class="num">'
                          f'{delta(m["cost_usd"]["delta"], digits=4, currency="$")}</td>',
                          f'<td class="num">{delta(m["duration_ms"]["delta"] / 1000, " s", 1)}'
                          "</td>",
                          f'<td class="num">{delta(m["diff_lines"]["delta"], neutral=True)}</td>']
            else:
                cells.append('<td colspan="6" class="muted">one side has no result</td>')
            rows.append("<tr>" + "".join(cells) + "</tr>")
        return f"<table>{head}{''.join(rows)}</table>"

    # --- one case ---------------------------------------------------------------------

    def sample(self, side: dict[str, Any], case_id: str
               ) -> tuple[VersionDir, dict[str, Any]] | None:
        """The sample a case's details show: the first failing one, else the first."""
        runs = [r for r in side["runs"] if "file" in r]
        chosen = next((r for r in runs if not r["passed"]), runs[0] if runs else None)
        if chosen is None:
            return None
        version = self.versions[chosen["run"]]
        return version, version.cases[case_id]

    def case(self, row: dict[str, Any]) -> str:
        cid = row["case_id"]
        picked = {s: self.sample(row[s], cid) for s in ("baseline", "new")}
        is_open = " open" if row["verdict"] in ("regressed", "fixed", "flaky") else ""
        body = [f'<h4>Task</h4><pre>{e(row.get("task") or "")}</pre>',
                self.checks(row, picked), self.samples(row)]
        if row["verdict"] == "unchanged_pass":  # nothing to review: the evidence only
            body.append(self.pair("Evidence", picked, self.links))
        else:
            body += [self.pair("Final output", picked, self.output),
                     self.pair("Tool calls", picked, self.calls),
                     self.pair("Diff", picked, self.diff),
                     self.pair("Evidence", picked, self.evidence)]
        return (f'<details class="case" id="case-{e(cid)}"{is_open}><summary>{e(cid)} '
                f'{verdict_badge(row["verdict"])}<span class="task">{e(row.get("task"))}</span>'
                f'</summary><div class="body">{"".join(body)}</div></details>')

    def checks(self, row: dict[str, Any], picked: dict[str, Any]) -> str:
        shown = {side: {c["index"]: c for c in self.judged.get(
                     (got[0].rel, row["case_id"]), {}).get("checks", [])} if got else {}
                 for side, got in picked.items()}
        by_index: dict[int, dict[str, Any]] = {}
        for side in ("baseline", "new"):
            for check in row[side]["checks"]:
                by_index.setdefault(check["index"], {"label": check["label"]})[side] = check
        if not by_index:
            return '<h4>Checks</h4><p class="muted">No checks: a case passes when it ' \
                   "produces a response.</p>"
        lines = []
        for index in sorted(by_index):
            entry = by_index[index]
            cells = [f"<td>{e(entry['label'])}</td>"]
            for side in ("baseline", "new"):
                check = entry.get(side)
                if check is None:
                    cells.append('<td class="muted">&ndash;</td>')
                    continue
                ok = check["passes"] == check["samples"]
                text = "pass" if ok else ("fail" if check["passes"] == 0 else "mixed")
                cells.append(f"<td>{badge(text, 'pass' if ok else 'fail')} "
                             f'<span class="small muted">{check["passes"]}/{check["samples"]}'
                             f"</span>{_check_detail(shown[side].get(index), ok)}</td>")
            lines.append("<tr>" + "".join(cells) + "</tr>")
        return ("<h4>Checks</h4><table><tr><th>Check</th><th>Baseline</th><th>New</th></tr>"
                + "".join(lines) + "</table>")

    def samples(self, row: dict[str, Any]) -> str:
        if max(row["baseline"]["samples"], row["new"]["samples"]) <= 1:
            return ""
        parts = []
        for side in ("baseline", "new"):
            links = [f'<a href="{e(self.href(r["file"]))}">{"✓" if r["passed"] else "✗"} '
                     f'{e(r["run"].split("/")[-1])}</a>' for r in row[side]["runs"] if "file" in r]
            parts.append(f'<div><div class="side">{side}</div>{" · ".join(links)}</div>')
        return '<h4>Samples</h4><div class="pair">' + "".join(parts) + "</div>"

    def pair(self, title: str, picked: dict[str, Any], render: Any) -> str:
        cols = []
        for side in ("baseline", "new"):
            got = picked[side]
            inner = render(side, *got) if got else '<p class="muted">no result</p>'
            cols.append(f'<div><div class="side">{side}</div>{inner}</div>')
        return f'<h4>{e(title)}</h4><div class="pair">{"".join(cols)}</div>'

    def output(self, side: str, version: VersionDir, case: dict[str, Any]) -> str:
        if case.get("status") != "ok":
            return self.failure(version, case)
        final = case.get("final_output") if isinstance(case.get("final_output"), dict) else {}
        content = final.get("content")
        text = content if isinstance(content, str) else repr(content)
        cut = len(text) > MAX_OUTPUT_CHARS
        return f"<pre>{e(text[:MAX_OUTPUT_CHARS])}{' …' if cut else ''}</pre>"

    def failure(self, version: VersionDir, case: dict[str, Any]) -> str:
        f = case.get("runner_failure") if isinstance(case.get("runner_failure"), dict) else {}
        head = f"runner error: {f.get('class', 'other')}"
        if f.get("status"):
            head += f" (HTTP {f['status']} {f.get('status_text') or ''})"
        parts = [f'<div class="failure"><b>{e(head)}</b><br>{e(f.get("error_message"))}</div>']
        if isinstance(f.get("body_snippet"), str):
            parts.append(f"<pre>{e(f['body_snippet'])}</pre>")
        if isinstance(f.get("full_body_saved_to"), str):
            link = self.href(f"{version.rel}/{f['full_body_saved_to']}")
            parts.append(f'<a class="small" href="{e(link)}">full body</a>')
        return "".join(parts)

    def calls(self, side: str, version: VersionDir, case: dict[str, Any]) -> str:
        events = case.get("events") if isinstance(case.get("events"), list) else []
        results = {ev.get("call_id"): ev for ev in events
                   if isinstance(ev, dict) and ev.get("type") == "tool_result"}
        rows = []
        for index, ev in enumerate(events[:MAX_EVENTS]):
            if not isinstance(ev, dict) or ev.get("type") != "tool_call":
                continue
            args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
            what = args.get("cmd") or args.get("command") or args.get("path") or \
                args.get("file_path") or ", ".join(sorted(args))
            result = results.get(ev.get("call_id")) or {}
            status = result.get("status", "no result")
            risk = str(ev.get("risk_level") or "unknown")
            tags = " ".join(badge(t, "tag") for t in ev.get("risk_tags") or [])
            anchor = f"{side}-{case.get('case_id')}-e{index}"
            rows.append(f'<tr><td><b>{e(ev.get("tool"))}</b><br>'
                        f"<code>{e(str(what)[:300])}</code></td>"
                        f"<td>{badge(risk, risk)} {tags}</td>"
                        f"<td>{badge(status, 'pass' if status == 'ok' else 'fail')}</td>"
                        f'<td><a class="small" href="#{e(anchor)}">events[{index}]</a></td></tr>')
        if not rows:
            return '<p class="muted">No tool calls.</p>'
        return ('<table class="calls"><tr><th>Call</th><th>Risk</th><th>Result</th><th></th></tr>'
                + "".join(rows) + "</table>")

    def diff(self, side: str, version: VersionDir, case: dict[str, Any]) -> str:
        info = case.get("diff") if isinstance(case.get("diff"), dict) else None
        if not info or not isinstance(info.get("href"), str):
            return '<p class="muted">No change to the workspace.</p>'
        try:
            patch = (version.path / info["href"]).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return f'<p class="muted">{e(info["href"])} is missing.</p>'
        stats = f'<p class="small muted">{_files(info.get("files"))}, ' \
                f'+{info.get("insertions", 0)} &minus;{info.get("deletions", 0)}</p>'
        return stats + diff_block(patch, self.href(f"{version.rel}/{info['href']}"))

    def evidence(self, side: str, version: VersionDir, case: dict[str, Any]) -> str:
        return self.links(side, version, case) + self.events(side, case)

    def links(self, side: str, version: VersionDir, case: dict[str, Any]) -> str:
        case_file = self.href(f"{version.rel}/{version.files[str(case['case_id'])]}")
        links = [f'<a href="{e(case_file)}">case file</a>']
        for check in case.get("checks") or []:
            result = check.get("result") if isinstance(check, dict) else None
            if isinstance(result, dict) and isinstance(result.get("output_href"), str):
                href = self.href(f"{version.rel}/{result['output_href']}")
                links.append(f'<a href="{e(href)}">output of “{e(check.get("label"))}”</a>')
        if isinstance(case.get("run_folder"), str):
            rel = posixpath.normpath(posixpath.join(version.rel, case["run_folder"]))
            if not rel.startswith(("..", "/")):
                links.append(f'<a href="{e(self.href(rel + "/events.jsonl"))}">engine run '
                             f"log</a> <span class=\"small muted\">({e(rel[-36:][:8])}, open "
                             "it in the app's run views)</span>")
        return "<p>" + "<br>".join(links) + "</p>"

    def events(self, side: str, case: dict[str, Any]) -> str:
        """Every event of the case, addressable as ``#<side>-<case>-e<index>``."""
        events = case.get("events") if isinstance(case.get("events"), list) else []
        rows = []
        for index, ev in enumerate(events[:MAX_EVENTS]):
            ev = ev if isinstance(ev, dict) else {}
            kind = str(ev.get("type"))
            what = _event_summary(kind, ev)
            anchor = f"{side}-{case.get('case_id')}-e{index}"
            rows.append(f'<tr id="{e(anchor)}"><td class="num small">{index}</td>'
                        f"<td class=\"small\">{e(kind)}</td>"
                        f'<td class="small">{e(str(what)[:200])}</td></tr>')
        more = len(events) - MAX_EVENTS
        note = f'<p class="small muted">{more} more in the case file.</p>' if more > 0 else ""
        summary = plural(len(events), "event")
        return (f"<details><summary class=\"small\">{summary}</summary><table>"
                + "".join(rows) + f"</table>{note}</details>")

    def footer(self) -> str:
        return ("<footer>Pass rates are over the repeats of each case; intervals are 95 % "
                "Wilson intervals. A case regressed when each side's rate lies outside the "
                "other side's interval. Written by agent-canvas eval report.</footer>")


def suite_description(root: Path) -> str:
    """The ``description`` of the suite copy the evaluation keeps (``eval.json`` names it),
    "" when there is none or it cannot be read: the report is written without it."""
    from desktop.eval.suite import SuiteLoadError, parse_suite
    from desktop.store.safe_yaml import YamlError, read_yaml_text

    index = load_json(root / INDEX_FILE)[0]
    name = index.get("suite_file") if isinstance(index, dict) else None
    if not isinstance(name, str) or not is_relative_path(name) or ".." in name.split("/"):
        return ""
    try:  # no base folder: the case workspaces are not copied beside it
        return parse_suite(read_yaml_text(root / name), name, base=None).description.strip()
    except (OSError, YamlError, SuiteLoadError):
        return ""


def _check_detail(judged: dict[str, Any] | None, ok: bool) -> str:
    """Why the shown sample's check passed or failed, and a command's output tail."""
    if not judged:
        return ""
    out = f'<span class="detail">{e(judged.get("detail"))}</span>'
    tail = judged.get("output_tail")
    if isinstance(tail, str) and tail.strip() and not ok:
        out += f'<details class="out"><summary>output</summary><pre>{e(tail)}</pre></details>'
    return out


def _event_summary(kind: str, ev: dict[str, Any]) -> str:
    if kind == "tool_call":
        return f"{ev.get('tool')} {ev.get('call_id')}"
    if kind == "tool_result":
        return f"{ev.get('status')} in {ev.get('latency_ms')} ms"
    if kind == "assistant_message":
        return str(ev.get("text"))
    if kind == "turn":
        return f"{ev.get('node')}: {ev.get('status')}"
    if kind == "usage":
        return f"{ev.get('input_tokens')} tokens in, {ev.get('output_tokens')} out"
    return "the final output" if kind == "final_output" else ""


def write_report(root: str | Path, target: str | Path | None = None, *,
                 write_evaluation: bool = False) -> Path:
    """Evaluate ``root`` and write its report (default ``root/report.html``); the path.
    With ``write_evaluation`` the evaluation files are written too (read once for both)."""
    return _report(root, target, write_evaluation)[0]


def evaluate_and_report(root: str | Path) -> tuple[dict[str, Any], Path]:
    """``eval evaluate`` and ``eval report`` in one pass: the comparison and the report."""
    path, report = _report(root, None, True)
    return report.comparison, path


def _report(root: str | Path, target: str | Path | None, write: bool) -> tuple[Path, Report]:
    results = read_results(root)
    path = Path(target) if target else results.root / REPORT_FILE
    report = Report(results, path.resolve(), write_evaluation=write)
    atomic_write_text(path, report.render())
    return path, report


def _files(count: object) -> str:
    """How many files a diff touched ("? files" when the record does not say)."""
    return plural(count, "file") if isinstance(count, int) else f"{count or '?'} files"
