"""``agent-canvas verify run RUN...``: a run's runner records against its event log.

One canonical JSON line per record, ``verify runner``'s result object with the record's
``file`` and the ``recorded_hash`` the run's log holds for it
(desktop/store/run_records.py). Exit code: 0 every record keeps the rules and hashes to
what the log recorded, 1 a run could not be found or read, 3 a record breaks a rule,
differs from its recorded hash, is gone, or was never recorded.
"""

from __future__ import annotations

import argparse
import sys

from desktop.cli.data_dir_arg import add_data_dir

OK, NOT_FOUND, VIOLATIONS = 0, 1, 3


def register(what: argparse._SubParsersAction) -> None:
    """Add ``verify run`` to the ``verify`` subcommands."""
    p = what.add_parser("run", help="verify a run's runner records against the hashes its "
                                    "event log recorded", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", metavar="RUN",
                   help="run id, unique id prefix or run folder")
    add_data_dir(p)
    p.set_defaults(handler=verify_run)


def verify_run(args: argparse.Namespace) -> int:
    """Check each run's records; print one line per record."""
    # here, not above: ``verify runner`` registers this command and needs none of them
    from desktop.disk.paths import data_dir
    from desktop.store.run_records import check_records
    from desktop.store.runner import canonical
    from desktop.store.runs import RunError, find_run
    from desktop.views.reader import EventReader

    codes: list[int] = []
    for ref in args.runs:
        try:
            folder = find_run(data_dir(args.data_dir), ref)
        except RunError as exc:
            print(f"agent-canvas verify run: {exc}", file=sys.stderr)
            codes.append(NOT_FOUND)
            continue
        checks = check_records(folder, EventReader(folder).iter_events())
        if not checks:
            print(f"agent-canvas verify run: {folder.name}: no runner record (no agent of "
                  "this run has ended yet)", file=sys.stderr)
        for item in checks:
            sys.stdout.write(canonical({"run": folder.name, **item.output()}).decode() + "\n")
        codes.append(OK if all(item.ok for item in checks) else VIOLATIONS)
    failed = [code for code in codes if code != OK]
    return min(failed) if failed else OK
