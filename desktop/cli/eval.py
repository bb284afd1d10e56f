"""``agent-canvas eval run|evaluate|report``: compare a baseline and a new workflow on a suite.

  eval run SUITE --baseline A.flow.yaml --new B.flow.yaml --out DIR
      run every case of SUITE on both workflows (a normal engine run per case,
      kept under DIR/runs/) and write the artifact contract under DIR/baseline/
      and DIR/new/, then evaluate and write DIR/report.html (--no-report: not);
      --resume finishes a killed evaluation in DIR
  eval evaluate DIR
      judge the checks and compare the sides: DIR/<side>/<runId>/evaluation.json
      and DIR/comparison.json; --fail-on-regression exits 1 when a case regressed,
      3 when the evaluation is incomplete (a case file missing or unreadable)
  eval report DIR [-o FILE]
      one self-contained HTML file (default DIR/report.html)

Exit codes: 0 done, 1 a regression (with --fail-on-regression), 2 bad input,
3 an incomplete evaluation: a case file (or a whole side) missing or unreadable, so
a regression may hide in it (with --fail-on-regression; a regression found wins: 1).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from desktop.cli.output_arg import given_path
from desktop.cli.seconds_arg import seconds
from desktop.wording import plural

EXIT_REGRESSION = 1
EXIT_BAD_INPUT = 2
EXIT_INCOMPLETE = 3


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``eval`` command and its ``run``, ``evaluate`` and ``report`` subcommands."""
    p = sub.add_parser("eval", help="evaluate a new workflow against a baseline on a suite",
                       description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)

    r = actions.add_parser("run", help="run a suite on a baseline and a new workflow")
    r.add_argument("suite", metavar="SUITE", help="a *.suite.yaml file")
    r.add_argument("--baseline", required=True, metavar="A.flow.yaml",
                   help="the workflow as it is")
    r.add_argument("--new", required=True, metavar="B.flow.yaml", help="the changed workflow")
    r.add_argument("--out", required=True, metavar="DIR", type=given_path,
                   help="folder for the results")
    r.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="run each case N times per side (default 1)")
    r.add_argument("--concurrency", type=int, default=2, metavar="K",
                   help="case runs at once (default 2)")
    r.add_argument("--case", action="append", dest="cases", metavar="ID",
                   help="run only this case (repeatable)")
    r.add_argument("--timeout-sec", type=seconds, default=None, metavar="S",
                   help="time limit of a case without its own timeoutSec (default: the "
                        "suite's, else 600)")
    r.add_argument("--retries", type=int, default=0, metavar="R",
                   help="run a case again after a timeout, network or HTTP 5xx failure")
    r.add_argument("--resume", action="store_true",
                   help="finish the evaluation already in DIR (cases not yet written)")
    r.add_argument("--no-report", action="store_true",
                   help="only run: skip `evaluate` and `report` at the end")
    r.add_argument("-q", "--quiet", action="store_true", help="print only the summary")
    r.set_defaults(handler=run_command)

    e = actions.add_parser("evaluate", help="judge the checks and compare the two sides")
    e.add_argument("dir", metavar="DIR", help="the --out folder of `eval run`")
    e.add_argument("--fail-on-regression", action="store_true",
                   help="exit 1 when any case regressed, 3 when the evaluation is "
                        "incomplete: a case file missing or unreadable (for CI)")
    e.add_argument("--json", action="store_true", help="print comparison.json to stdout")
    e.set_defaults(handler=evaluate_command)

    rp = actions.add_parser("report", help="write the comparison as one HTML file")
    rp.add_argument("dir", metavar="DIR", help="the --out folder of `eval run`")
    rp.add_argument("-o", "--output", metavar="FILE", type=given_path,
                    help="where to write the report (default DIR/report.html)")
    rp.set_defaults(handler=report_command)


def _bad(message: str) -> int:
    print(message, file=sys.stderr)
    return EXIT_BAD_INPUT


def run_command(args: argparse.Namespace) -> int:
    """Check the inputs, run every case on both sides, print where the results are."""
    from desktop.eval.inputs import EvalInputError, make_plan
    from desktop.eval.runner import RunOptions, run_eval

    if args.concurrency < 1:
        return _bad(f"--concurrency {args.concurrency}: at least 1")
    if args.retries < 0:
        return _bad(f"--retries {args.retries}: 0 or more")
    try:
        plan = make_plan(args.suite, args.baseline, args.new, args.out, case_ids=args.cases,
                         repeat=args.repeat, resume=args.resume)
    except EvalInputError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"eval run: {plural(len(exc.problems), 'problem')}; nothing was run", file=sys.stderr)
        return EXIT_BAD_INPUT
    options = RunOptions(repeat=args.repeat, concurrency=args.concurrency,
                         timeout_sec=args.timeout_sec, retries=args.retries)
    total = len(plan.cases) * args.repeat * 2
    print(f"{plan.suite.name}: {plural(len(plan.cases), 'case')} x "
          f"{plural(args.repeat, 'repeat')} x 2 sides = {total} case runs into {args.out}",
          file=sys.stderr)
    progress = None if args.quiet else (lambda line: print(line, file=sys.stderr))
    try:
        asyncio.run(run_eval(plan, options, progress))
    except KeyboardInterrupt:
        print(f"interrupted; finish it with `agent-canvas eval run ... --out {args.out} "
              "--resume`", file=sys.stderr)
        return 130
    if args.no_report:
        print(f"done; next: agent-canvas eval evaluate {args.out}")
        return 0
    from desktop.eval.report import evaluate_and_report

    comparison, report = evaluate_and_report(args.out)
    print_summary(comparison)
    print(f"report: {report} (or File > Open evaluation in the app)")
    return 0


def print_summary(comparison: dict, out=None) -> None:
    """The verdicts in a few lines."""
    out = out or sys.stdout
    summary = comparison["summary"]
    rates = summary["pass_rate"]

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    lacking = comparison.get("incomplete") or []  # none in a comparison.json before it
    if not lacking:
        print(f"{comparison.get('suite') or 'suite'}: {plural(summary['cases'], 'case')}; "
              f"pass rate baseline {rate(rates['baseline'])}, new {rate(rates['new'])}",
              file=out)
    else:
        from desktop.eval.completeness import describe, headline

        def of(side: str) -> str:
            n = sum(c[side]["samples"] for c in comparison["cases"])
            gone = sum(e["side"] == side for e in lacking)
            return f"{rate(rates[side])} ({n} of {n + gone})"

        print(f"{comparison.get('suite') or 'suite'}: {plural(summary['cases'], 'case')}; "
              f"{headline(lacking)}", file=out)
        print(f"  pass rate over the case files present: baseline {of('baseline')}, "
              f"new {of('new')}", file=out)
        for line in describe(lacking):
            print(f"  {line}", file=out)
    if "head_to_head" in summary:  # a comparison.json written before it had one
        from desktop.eval.head_to_head import describe

        names = {s: ((comparison.get("workflows") or {}).get(s) or {}).get("name", s)
                 for s in ("baseline", "new")}
        print(f"  head to head, {names['new']} against {names['baseline']}: "
              f"{describe(summary['head_to_head'])}", file=out)
    for title, key in (("regressions", "regressions"), ("fixes", "fixes"),
                       ("unchanged failures", "unchanged_failures"), ("flaky", "flaky"),
                       ("missing", "missing")):
        if comparison[key]:
            print(f"  {title}: {', '.join(comparison[key])}", file=out)


def evaluate_command(args: argparse.Namespace) -> int:
    """Write evaluation.json per version and comparison.json; print the verdicts."""
    import orjson

    from desktop.eval.evaluate import COMPARISON_FILE, evaluate
    from desktop.eval.reader import ResultsError

    try:
        comparison = evaluate(args.dir)
    except ResultsError as exc:
        return _bad(f"eval evaluate: {exc}")
    except OSError as exc:
        return _bad(f"eval evaluate: cannot write into {args.dir}: {exc.strerror or exc}")
    for problem in comparison["problems"]:
        print(f"warning: {problem}", file=sys.stderr)
    if args.json:
        sys.stdout.write(orjson.dumps(comparison, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print_summary(comparison)
        print(f"wrote {Path(args.dir) / COMPARISON_FILE}; next: agent-canvas eval report "
              f"{args.dir}")
    if args.fail_on_regression and comparison["regressions"]:
        return EXIT_REGRESSION
    if args.fail_on_regression and comparison["incomplete"]:
        return EXIT_INCOMPLETE
    return 0


def report_command(args: argparse.Namespace) -> int:
    """Write the self-contained HTML report."""
    from desktop.cli.output_arg import folder_given
    from desktop.eval.reader import ResultsError
    from desktop.eval.report import write_report

    target = Path(args.output) if args.output else None
    if (folder := folder_given("eval report", target, "report.html")) is not None:
        return _bad(folder)
    try:
        path = write_report(args.dir, target)
    except ResultsError as exc:
        return _bad(f"eval report: {exc}")
    except OSError as exc:
        return _bad(f"eval report: cannot write the report: {exc.strerror or exc}")
    print(f"wrote {path}")
    return 0
