"""Building blocks of the HTML report: escaping, badges, bars, diffs, and its one style sheet.

Everything is inline: the report is one file with no script, no font and no
image from anywhere else, so it opens offline and can be mailed or archived.
"""

from __future__ import annotations

from html import escape
from typing import Any

VERDICT_TEXT = {"regressed": "regressed", "fixed": "fixed", "unchanged_pass": "passes",
                "unchanged_fail": "still fails", "flaky": "flaky", "missing": "missing"}
VERDICT_ORDER = ("regressed", "fixed", "flaky", "unchanged_fail", "missing", "unchanged_pass")
MAX_DIFF_LINES = 400

STYLE = """
:root { --fg:#1d2433; --muted:#5d6678; --line:#dfe3ea; --bg:#f6f7f9; --card:#fff;
  --red:#c0262d; --red-bg:#fdecec; --green:#17803d; --green-bg:#e7f6ec; --amber:#a15c00;
  --amber-bg:#fff3df; --blue:#2357c6; --gray-bg:#eef0f3; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg);
  font:14px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width:1280px; margin:0 auto; padding:28px 32px 64px; }
h1 { font-size:24px; margin:0 0 4px; } h2 { font-size:18px; margin:32px 0 12px; }
h3 { font-size:15px; margin:20px 0 8px; } h4 { font-size:13px; margin:12px 0 6px;
  color:var(--muted); text-transform:uppercase; letter-spacing:.04em; }
a { color:var(--blue); text-decoration:none; } a:hover { text-decoration:underline; }
.sub { color:var(--muted); margin:0 0 20px; }
.vs { display:inline-block; padding:1px 8px; border-radius:4px; background:var(--gray-bg); }
.cards { display:grid; grid-template-columns:repeat(auto-fit,minmax(170px,1fr)); gap:12px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px;
  padding:12px 14px; }
.card .n { font-size:26px; font-weight:600; line-height:1.2; }
.card .l { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.04em; }
.card.red .n { color:var(--red); } .card.green .n { color:var(--green); }
.card.amber .n { color:var(--amber); }
table { width:100%; border-collapse:collapse; background:var(--card);
  border:1px solid var(--line); border-radius:8px; overflow:hidden; }
th, td { padding:7px 10px; border-bottom:1px solid var(--line); text-align:left;
  vertical-align:top; }
th { background:var(--gray-bg); font-size:12px; color:var(--muted); font-weight:600;
  white-space:nowrap; }
tr:last-child td { border-bottom:none; }
td.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px;
  font-weight:600; white-space:nowrap; }
.b-regressed, .b-high, .b-fail { background:var(--red-bg); color:var(--red); }
.b-fixed, .b-pass, .b-low { background:var(--green-bg); color:var(--green); }
.b-flaky, .b-medium { background:var(--amber-bg); color:var(--amber); }
.b-unchanged_pass, .b-unchanged_fail, .b-missing, .b-unknown, .b-tag { background:var(--gray-bg);
  color:var(--muted); }
.b-unchanged_fail { color:var(--red); }
.b-win { background:var(--green-bg); color:var(--green); }
.b-loss { background:var(--red-bg); color:var(--red); }
.b-tie { background:var(--gray-bg); color:var(--muted); }
.cards.h2h { margin-bottom:12px; grid-template-columns:1fr; }
.cards.h2h .small { margin-top:6px; }
.rate { display:flex; align-items:center; gap:8px; white-space:nowrap; }
.bar { width:70px; height:8px; border-radius:4px; background:var(--red-bg); overflow:hidden; }
.bar i { display:block; height:100%; background:var(--green); }
.ci { color:var(--muted); font-size:12px; }
.up { color:var(--red); } .down { color:var(--green); } .same { color:var(--muted); }
details.case { background:var(--card); border:1px solid var(--line); border-radius:8px;
  margin:12px 0; }
details.case > summary { cursor:pointer; padding:12px 16px; font-weight:600;
  display:flex; gap:10px; align-items:center; flex-wrap:wrap; }
details.case > summary .task { font-weight:400; color:var(--muted); flex:1 1 300px;
  white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
details.case > .body { padding:0 16px 16px; border-top:1px solid var(--line); }
.pair { display:grid; grid-template-columns:1fr 1fr; gap:16px; }
.pair > div { min-width:0; }
.side { font-size:12px; font-weight:600; color:var(--muted); margin:10px 0 4px; }
pre { background:#f3f4f7; border:1px solid var(--line); border-radius:6px; padding:10px;
  margin:0; overflow:auto; max-height:360px; font:12px/1.45 ui-monospace, SFMono-Regular,
  Menlo, Consolas, monospace; white-space:pre-wrap; word-break:break-word; }
pre.diff { white-space:pre; }
.diff .add { color:#116329; background:#e6ffec; display:block; }
.diff .del { color:#82071e; background:#ffebe9; display:block; }
.diff .hunk { color:var(--blue); display:block; } .diff .ctx { display:block; }
.calls td { font-size:13px; } .calls code { font-size:12px; word-break:break-all; }
.muted { color:var(--muted); } .small { font-size:12px; }
.problems { background:var(--amber-bg); border:1px solid #f1d29a; border-radius:8px;
  padding:8px 14px; }
.detail { display:block; font-size:12px; color:var(--muted); margin-top:2px; }
details.out > summary { font-size:12px; color:var(--blue); cursor:pointer; }
.failure { background:var(--red-bg); border:1px solid #f3c2c4; border-radius:6px;
  padding:8px 10px; margin:6px 0; }
footer { margin-top:40px; color:var(--muted); font-size:12px; }
@media (max-width: 900px) { .pair { grid-template-columns:1fr; } main { padding:16px; } }
"""


def e(value: Any) -> str:
    """HTML-escaped text of ``value``."""
    return escape("" if value is None else str(value), quote=True)


def badge(text: str, kind: str) -> str:
    return f'<span class="badge b-{e(kind)}">{e(text)}</span>'


def verdict_badge(verdict: str) -> str:
    return badge(VERDICT_TEXT.get(verdict, verdict), verdict)


def outcome_badge(outcome: str | None) -> str:
    """The new side's result on one case: win, tie or loss (a dash without one)."""
    return badge(outcome, outcome) if outcome else '<span class="muted">&ndash;</span>'


def rate_cell(side: dict[str, Any]) -> str:
    """``passes/samples`` with a bar and the 95 % interval."""
    n = side.get("samples") or 0
    if not n:
        return '<span class="muted">no result</span>'
    rate = side.get("pass_rate") or 0.0
    lo, hi = side.get("ci95") or (0, 1)
    interval = f'<span class="ci">[{lo:.0%}&ndash;{hi:.0%}]</span>' if n > 1 else ""
    return (f'<div class="rate"><div class="bar"><i style="width:{rate * 100:.0f}%"></i></div>'
            f'{side["passes"]}/{n} {interval}</div>')


def delta(value: float, unit: str = "", digits: int = 0, neutral: bool = False,
          currency: str = "") -> str:
    """A signed change, red when it grew (more turns, tokens, cost, time), green when it
    shrank; ``neutral`` changes (diff size) stay grey; ``currency`` goes after the sign
    (``-$0.0022``), as the app's evaluation table writes a cost."""
    if round(value, digits) == 0:
        return f'<span class="same">±{e(currency)}0</span>'
    text = f"{'+' if value > 0 else '-'}{currency}{abs(value):,.{digits}f}{unit}"
    kind = "same" if neutral else ("up" if value > 0 else "down")
    return f'<span class="{kind}">{e(text)}</span>'


def diff_block(patch: str, href: str | None) -> str:
    """A coloured unified diff (cut after MAX_DIFF_LINES, with a link to the whole one)."""
    lines = patch.splitlines()
    shown = []
    for line in lines[:MAX_DIFF_LINES]:
        kind = ("hunk" if line.startswith("@@") else
                "add" if line.startswith("+") and not line.startswith("+++") else
                "del" if line.startswith("-") and not line.startswith("---") else "")
        shown.append(f'<span class="{kind or "ctx"}">{e(line) or " "}</span>')
    more = ""
    if len(lines) > MAX_DIFF_LINES:
        more = f'<p class="small muted">{len(lines) - MAX_DIFF_LINES} more lines in the file.</p>'
    link = f' <a class="small" href="{e(href)}">diff.patch</a>' if href else ""
    return f'<pre class="diff">{"".join(shown)}</pre>{more}{link}'


# The only script: following a link to an event opens the folded sections around it.
SCRIPT = """
function openTarget() {
  var t = document.getElementById(decodeURIComponent(location.hash.slice(1)));
  for (var p = t; p; p = p.parentElement) { if (p.tagName === 'DETAILS') p.open = true; }
  if (t) t.scrollIntoView();
}
addEventListener('hashchange', openTarget); addEventListener('DOMContentLoaded', openTarget);
"""


def page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{STYLE}</style><script>{SCRIPT}</script></head>"
            f"<body><main>{body}</main></body></html>\n")
