"""``agent-canvas replay RUN``: fold the event log again and compare it with ``state.json``.

Exit codes: 0 the same, or no state.json yet (a run killed before its first snapshot:
the log folds, there is nothing to compare it with); 1 different (the differing fields
are listed, or state.json is not a snapshot); 2 bad run reference, a log that does not
fold, or a state.json this user may not read.
"""

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from desktop.cli.runs import add_data_dir, fail
from desktop.disk.paths import data_dir
from desktop.disk.safe_json import json_kind
from desktop.store.runs import RunError, find_run, unreadable
from desktop.store.safe_open import RunFileError, open_file
from desktop.store.snapshot import STATE_FILE, read_snapshot
from desktop.views.reader import EventReader
from desktop.views.state import RunProjection
from desktop.wording import plural

MAX_SHOWN = 50


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``replay`` subcommand."""
    p = sub.add_parser("replay", help="re-fold a run's events and compare with state.json",
                       description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("run", metavar="RUN", help="run id, unique id prefix or run folder")
    add_data_dir(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=cmd_replay)


def diff(a: Any, b: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """``(dotted path, a value, b value)`` for every place where ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                out.append((sub, a.get(key, "<missing>"), b.get(key, "<missing>")))
            else:
                out.extend(diff(a[key], b[key], sub))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out.extend(diff(x, y, f"{path}[{i}]"))
        return out
    return [] if a == b else [(path or "<root>", a, b)]


def _short(value: Any) -> str:
    text = orjson.dumps(value, default=str).decode()
    return text if len(text) <= 80 else text[:77] + "..."


def snapshot_unreadable(folder: Path) -> str | None:
    """Why the run's state.json, which is there, may not be read, with the fix; None when
    it can be read or is not there (a run may have no snapshot yet)."""
    try:
        with open_file(folder / STATE_FILE):
            pass
    except FileNotFoundError:
        return None
    except RunFileError as exc:  # a link or a FIFO in its place: said as find_run says it
        return exc.strerror
    except OSError as exc:
        return unreadable(exc, folder)
    return None


def cmd_replay(args: argparse.Namespace) -> int:
    """Compare the re-folded state with the snapshot."""
    try:
        folder = find_run(data_dir(args.data_dir), args.run)
    except RunError as exc:
        return fail(str(exc))
    # the snapshot is half of the comparison: one it may not read is refused by name and
    # with the chmod that fixes it, not taken for one that is missing
    problem = snapshot_unreadable(folder)
    if problem is not None:
        return fail(problem)
    reader = EventReader(folder)
    untyped: list[dict[str, Any]] = []

    def typed(events: Iterator[dict]) -> Iterator[dict]:
        for event in events:
            if type(event.get("type")) is str:
                yield event
            else:  # the fold ignores it; say so rather than drop it silently
                untyped.append({"kind": "no_type", "seq": event.get("seq"),
                                "detail": f"its type is {json_kind(event.get('type'))}, "
                                          "not a string"})

    try:
        replayed = RunProjection.of(typed(reader.iter_events())).model().to_json_dict()
    except ValueError as exc:
        return fail(f"{folder}: {exc}")
    snapshot = read_snapshot(folder)
    stored = snapshot.to_json_dict() if snapshot else None
    # no state.json yet is no fault: the engine writes it every so many events and when
    # it stops, so a run killed before that has only its log, which is the truth anyway
    missing = stored is None and not (folder / STATE_FILE).exists()
    diffs = diff(stored, replayed) if stored is not None else []
    if args.json:
        sys.stdout.write(orjson.dumps({
            "same": stored is not None and not diffs,
            "snapshot": stored is not None,
            "differences": [{"field": f, "snapshot": a, "replay": b} for f, a, b in diffs],
            "skipped": [p.__dict__ for p in reader.problems] + untyped,
            "events": replayed["lastSeq"],
        }, option=orjson.OPT_INDENT_2).decode() + "\n")
        return 0 if (stored is not None and not diffs) or missing else 1
    for p in reader.problems:
        print(f"note: skipped {p.kind} at byte {p.offset}: {p.detail}")
    for skipped in untyped:
        print(f"note: skipped the event of seq {skipped['seq']}: {skipped['detail']}")
    if missing:
        skipped = len(reader.problems) + len(untyped)
        how = "cleanly" if not skipped else f"skipping {plural(skipped, 'line')} (above)"
        print(f"folds {how}: {plural(replayed['lastSeq'], 'event')}; no snapshot yet "
              f"({folder / STATE_FILE} is written once the engine has run a while or lets "
              "go of the run), so nothing to compare")
        return 0
    if stored is None:
        print(f"{folder / STATE_FILE} is not a run snapshot; nothing to compare")
        return 1
    if not diffs:
        print(f"same: state.json matches the fold of {replayed['lastSeq']} events")
        return 0
    print(f"different: {plural(len(diffs), 'field')} "
          f"{'differs' if len(diffs) == 1 else 'differ'} (state.json vs replay)")
    for field, a, b in diffs[:MAX_SHOWN]:
        print(f"  {field}: {_short(a)} != {_short(b)}")
    if len(diffs) > MAX_SHOWN:
        print(f"  ... and {len(diffs) - MAX_SHOWN} more")
    return 1
