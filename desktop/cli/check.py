"""``agent-canvas check run-info FILE...`` and ``check artifacts DIR``.

``run-info``: a file whose ``end_time`` is ``""`` is checked against the creation
rules (including that its paths exist), any other against the completion rules.
``artifacts``: every file of an evaluation's result folder against the artifact
contract (specs/agent-artifact-contract-v1.md), one line per violation.
Exit 0 when all are valid, 1 when any has violations, 2 when any is unreadable.
"""

import argparse
import sys

from desktop.store.run_info import (
    RunInfoError,
    read_run_info,
    validate_at_completion,
    validate_at_creation,
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand and its ``run-info`` check."""
    p = sub.add_parser("check", help="validate records written by runs")
    checks = p.add_subparsers(dest="check", metavar="WHAT", required=True)
    ri = checks.add_parser(
        "run-info",
        help="validate run-info.yaml files (creation or completion rules, by end_time)",
    )
    ri.add_argument("files", nargs="+", metavar="FILE", help="run-info.yaml files")
    ri.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    ri.set_defaults(handler=check_run_info)
    art = checks.add_parser(
        "artifacts",
        help="validate an evaluation's result folder against the artifact contract",
    )
    art.add_argument("dir", metavar="DIR",
                     help="the --out folder of `eval run`, or one version directory")
    art.set_defaults(handler=check_artifacts_command)


def check_artifacts_command(args: argparse.Namespace) -> int:
    """Print ``file: field: message`` per violation of the artifact contract."""
    from desktop.eval.conformance import check_artifacts

    try:
        violations = check_artifacts(args.dir)
    except (FileNotFoundError, ValueError) as exc:
        print(f"check artifacts: {exc}", file=sys.stderr)
        return 2
    for violation in violations:
        print(violation)
    if not violations:
        print(f"{args.dir}: ok (artifact contract v1)")
    return 1 if violations else 0


def check_run_info(args: argparse.Namespace) -> int:
    """Check each file; print ``FILE: field: message`` per violation."""
    unreadable = violations = False
    for name in args.files:
        try:
            info = read_run_info(name)
        except RunInfoError as exc:
            print(str(exc), file=sys.stderr)
            unreadable = True
            continue
        stage = "creation" if info.running else "completion"
        problems = validate_at_creation(info) if info.running else validate_at_completion(info)
        for problem in problems:
            print(f"{name}: {problem}")
        violations = violations or bool(problems)
        if not problems and not args.quiet:
            print(f"{name}: ok ({stage} rules)")
    if unreadable:
        return 2
    return 1 if violations else 0
