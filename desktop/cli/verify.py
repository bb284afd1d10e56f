"""``agent-canvas verify runner FILE...|-``: check runner.json records (rules RN1-RN12);
``verify run RUN...`` (desktop/cli/verify_run.py) checks a run's against its event log.

Prints the spec's result object per record, one line each, canonical JSON:
``{"ok":true,"runner_hash":"sha256:..."}`` or ``{"ok":false,"violations":[...]}``.
Exit code: 0 all valid, 1 a file could not be read, 2 a file is not strict JSON,
3 invariant violations (the lowest of these that applies wins).
"""

import argparse
import sys

from desktop.store.runner import canonical
from desktop.store.runner_verify import RunnerParseError, Verification, check, verify_all

OK, IO_ERROR, PARSE_ERROR, VIOLATIONS = 0, 1, 2, 3


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``verify`` subcommand and its ``runner`` check."""
    p = sub.add_parser("verify", help="verify records written by runs")
    what = p.add_subparsers(dest="verify", metavar="WHAT", required=True)
    rp = what.add_parser("runner", help="verify runner.json records (rules RN1-RN12)")
    rp.add_argument("files", nargs="+", metavar="FILE", help="runner.json files; - for stdin")
    rp.set_defaults(handler=verify_runner)
    from desktop.cli import verify_run

    verify_run.register(what)


def _read(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    with open(name, "rb") as handle:
        return handle.read()


def _failure(rule: str, message: str) -> dict:
    return {"ok": False, "violations": [{"rule_id": rule, "message": message, "path": "$"}]}


def verify_runner(args: argparse.Namespace) -> int:
    """Verify each file; print one result line per file in order."""
    codes: list[int] = []
    outputs: list[dict | None] = []
    parsed: list[tuple[object, Verification]] = []
    slots: list[int] = []
    for name in args.files:
        try:
            raw = _read(name)
        except OSError as exc:
            print(f"agent-canvas verify runner: {name}: cannot read ({exc.strerror or exc})",
                  file=sys.stderr)
            outputs.append(_failure("IO", f"cannot read {name}: {exc.strerror or exc}"))
            codes.append(IO_ERROR)
            continue
        try:
            value, result = check(raw)
        except RunnerParseError as exc:
            print(f"agent-canvas verify runner: {name}: {exc}", file=sys.stderr)
            outputs.append(_failure("JSON", str(exc)))
            codes.append(PARSE_ERROR)
            continue
        slots.append(len(outputs))
        outputs.append(None)
        codes.append(OK)
        parsed.append((value, result))
    for slot, result in zip(slots, verify_all(parsed), strict=True):
        outputs[slot] = result.output()
        codes[slot] = OK if result.ok else VIOLATIONS
    for output in outputs:
        sys.stdout.write(canonical(output).decode("utf-8") + "\n")
    failed = [code for code in codes if code != OK]
    return min(failed) if failed else OK
