"""`agent-canvas runs delete RUN [RUN ...]`: remove runs, their worktrees and branches.

  agent-canvas runs delete 1a2b3c4d 5e6f7a8b      runs no engine holds
  agent-canvas runs delete 1a2b3c4d --force       a live one too (the service stops it)
  agent-canvas runs delete 1a2b3c4d --server URL  in a running `agent-canvas serve`
  agent-canvas runs delete --older-than 7d        every run not changed for a week
  agent-canvas runs delete --applied --dry-run    which runs whose result you took would go
  agent-canvas runs delete 1a2b3c4d --dry-run     what deleting it would remove, or why not

Instead of naming runs, --older-than AGE (30m, 12h, 7d, 2w: since the run's last event)
and --applied (its result was applied to your repository) pick them; given both, a run
must match both. A live run is never picked. --dry-run lists what would go and deletes
nothing, and says of each run that deleting would refuse (below) why. Of runs named, it
says what would be removed (the folder, each worktree, each branch) or why deleting
would refuse, and exits 1 when it would refuse some.

Each run goes as DELETE /api/runs/RUN takes it, by the same code: its node worktrees
are cleaned and kept in DATA/worktree-pool for the next run (or removed when the pool
is full), its canvas/RUN8/* branches and refs/canvas/RUN8/ refs are deleted, then its
folder. Your own branches, index and working tree are not touched. What a run folder
removed by hand left in a repository goes with `agent-canvas runs prune REPO`.

A run with a worktree you locked (`git worktree lock`) is not deleted: that worktree is
in the run's folder, and locking it says "keep this". Nothing of the run is changed and
the error names each locked worktree with its branch, your reason and the
`git worktree unlock PATH` that lets it go; then delete the run again.

Nor is a run whose worktrees hold work made after it ended: a file you edited there, a
commit you made on a node's branch. The error names each worktree, what is there and the
git commands that keep it (a branch at your commits, a stash of your edits) or drop it.

A live run (its engine is running it) is deleted only with --force: the service that
runs it stops it first. A run an `agent-canvas run` or `resume` in a terminal holds is
stopped there (Ctrl-C), not from here.

Exit codes: 0 every run deleted; 1 some run refused (live, a worktree of it locked or
holding your work) or not deleted; 2 a run reference that names no run or several, or
bad input: then nothing is deleted.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from desktop.cli.runs_delete_dry import dry_run_here, dry_run_rows, hosted_by, row_line
from desktop.cli.server_args import RemoteError, add_server_options, client_for
from desktop.disk.paths import data_dir, runs_dir
from desktop.runtime.run_delete import WorkNotSaved, WorktreesLocked, delete_run_folder
from desktop.runtime.unsaved_work import unsaved_work
from desktop.runtime.worktree_cleanup import locked_worktrees
from desktop.store.runs import EngineBusy, RunError, engine_alive, find_run
from desktop.views.run_deleted import branches_deleted, worktrees_text
from desktop.views.run_list import list_rows
from desktop.views.run_select import RunChoice, chosen, parse_age
from desktop.views.runs import fold_run
from desktop.wording import plural

if TYPE_CHECKING:
    from desktop.api.client import ApiError

EXIT_REFUSED = 1
EXIT_BAD_INPUT = 2


def register(kids: argparse._SubParsersAction, add_data_dir: Any) -> None:
    """Add ``runs delete``."""
    p = kids.add_parser("delete", help="remove runs with their worktrees and branches",
                        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_data_dir(p, suppress=True)
    p.add_argument("runs", nargs="*", metavar="RUN",
                   help="run id, unique id prefix or run folder (several: each is deleted)")
    p.add_argument("--older-than", metavar="AGE", type=_age,
                   help="instead of naming runs: those whose last event is older than AGE "
                        "(30m, 12h, 7d, 2w)")
    p.add_argument("--applied", action="store_true",
                   help="instead of naming runs: those whose result was applied")
    p.add_argument("--dry-run", action="store_true",
                   help="say which runs would go and what of them (or why not), delete "
                        "nothing")
    p.add_argument("--force", action="store_true",
                   help="delete a live run too: the service running it stops it first")
    p.add_argument("--json", action="store_true", help="print what went as JSON, one "
                   "object per deleted run")
    add_server_options(p)
    p.set_defaults(handler=cmd_delete)


def _age(text: str) -> timedelta:
    try:
        return parse_age(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _choice(args: argparse.Namespace) -> RunChoice | None:
    """What picks the runs when none is named (None: they are named)."""
    if args.older_than is None and not args.applied:
        return None
    return RunChoice(older_than=args.older_than, applied=args.applied)


def _picked(rows: list[dict[str, Any]], choice: RunChoice, dry_run: bool,
            folder: Path | None = None) -> list[str]:
    """The ids ``choice`` picks; said when none is, or (``dry_run``) which would go.
    ``folder``: the data folder, when the runs are this machine's: a run that deleting
    would refuse (a worktree locked or holding work made since) is said to be."""
    ids = chosen(rows, choice, datetime.now(UTC))
    if not ids:
        print("no run matches: nothing deleted", file=sys.stderr)
    elif dry_run:
        by_id = {str(row["id"]): row for row in rows}
        for run_id in ids:
            row = by_id[run_id]
            held = _held(runs_dir(folder) / run_id, run_id) if folder is not None else ""
            print(f"{row_line(row, run_id)}{held}")
    return ids


def _held(run: Path, run_id: str) -> str:
    """`` (refused: ...)`` when deleting the run would be refused, else ""."""
    try:
        state: dict[str, Any] | None = fold_run(run).to_json_dict()
    except RunError:
        state = None
    locked = locked_worktrees(run, state)
    if locked:
        return f" (refused: {plural(len(locked), 'worktree')} of it locked by you)"
    unsaved = unsaved_work(run, run_id, state)
    if unsaved:
        return (f" (refused: {plural(len(unsaved), 'worktree')} of it holding work made "
                "after it ended)")
    return ""


def deleted_line(went: dict[str, Any]) -> str:
    """One line saying what deleting a run took away (``went``: a ``RunDeletedOut``)."""
    run8 = str(went["runId"])[:8]
    branches = branches_deleted(went)
    others = len(went.get("refsDeleted") or ()) - len(branches)
    named = f" ({', '.join(branches)})" if branches else ""
    base = "" if not others else " and its base ref" if others == 1 \
        else f" and {plural(others, 'ref')} under refs/canvas/{run8}/"
    return (f"deleted run {run8}: folder {went['folder']}, {worktrees_text([went])}, "
            f"{plural(len(branches), 'branch')} removed{named}{base}")


def _live(run8: str) -> str:
    return (f"run {run8} is live (an engine is running it); stop it first, or pass --force "
            "to stop it and delete it")


def _held_in_terminal(run8: str) -> str:
    return (f"run {run8} is held by an engine outside a service (an `agent-canvas run` or "
            "`resume` in a terminal); stop it there (Ctrl-C), then delete it")


class _Report:
    """What the command prints: a line (or JSON object) per deleted run, an error line per
    run not deleted, a warning per ref left alone; and its exit code."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.went: list[dict[str, Any]] = []
        self.failed = False

    def deleted(self, went: dict[str, Any]) -> None:
        self.went.append(went)
        if not self.as_json:
            print(deleted_line(went))
        run8 = str(went["runId"])[:8]
        for note in went.get("kept") or []:
            print(f"warning: run {run8}: kept {note}", file=sys.stderr)
        for lost in went.get("undoLost") or []:
            print(f"warning: run {run8}: its apply to your working tree in {lost['repo']} "
                  f"can no longer be undone with `runs apply --undo`; to undo it by hand: "
                  f"{lost['byHand']}", file=sys.stderr)

    def refused(self, message: str) -> None:
        self.failed = True
        print(f"error: {message}", file=sys.stderr)

    def code(self) -> int:
        if self.as_json:
            sys.stdout.write(orjson.dumps(self.went, option=orjson.OPT_INDENT_2).decode()
                             + "\n")
        return EXIT_REFUSED if self.failed else 0


def _bad(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def cmd_delete(args: argparse.Namespace) -> int:
    """Delete every run named; see the module for the exit codes."""
    choice = _choice(args)
    if (choice is None) == (not args.runs):
        return _bad("name the runs to delete, or pick them with --older-than AGE or "
                    "--applied (not both)")
    if args.server:
        return _delete_remote(args, choice)
    folder = data_dir(args.data_dir)
    refs = args.runs
    if choice is not None:
        refs = _picked(list_rows(folder), choice, args.dry_run, folder)
        if args.dry_run or not refs:
            return 0
    try:  # every reference first: a typo deletes nothing
        runs = list(dict.fromkeys(find_run(folder, ref).resolve() for ref in refs))
    except RunError as exc:
        return _bad(str(exc))
    if args.dry_run:
        return dry_run_here(runs, args.force, args.json)
    report = _Report(args.json)
    for run in runs:
        _delete_here(run, args.force, report)
    return report.code()


def _delete_here(run: Path, force: bool, report: _Report) -> None:
    """Delete one run in this process, or through the service that runs it (--force)."""
    run8 = run.name[:8]
    if engine_alive(run):
        if not force:
            report.refused(_live(run8))
            return
        _delete_in_service(run, report)
        return
    try:
        state: dict[str, Any] | None = fold_run(run).to_json_dict()
    except RunError:
        state = None  # unreadable: its folder goes anyway, as over the API
    try:  # named by its folder, as the service names it
        went = delete_run_folder(run, run.name, state)
    except EngineBusy:  # resumed by another process since the look above
        report.refused(_live(run8) if not force else _held_in_terminal(run8))
        return
    except (WorktreesLocked, WorkNotSaved) as exc:  # the user's: the run stays, as it says
        report.refused(str(exc))
        return
    except OSError as exc:
        report.refused(f"cannot delete run {run8} ({run}): {exc.strerror or exc}")
        return
    report.deleted(went.to_json())


def _delete_in_service(run: Path, report: _Report) -> None:
    """A live run with --force: the service of the data folder it is in (DATA/runs/ID)
    stops and deletes it when it is the one running it; an engine in a terminal cannot be
    stopped from here. Which it is was decided when the run was seen held: a terminal's
    run is refused even should it end before the service is asked, never deleted as its
    terminal reports its result."""
    from desktop.api.client import ApiError
    from desktop.api.discovery import find_service

    run8 = run.name[:8]
    service = find_service(run.parent.parent)
    if service is None:
        report.refused(_held_in_terminal(run8))
        return

    async def go() -> dict[str, Any] | None:
        async with service.client() as client:
            if not await hosted_by(client, run.name):
                return None  # held, but not by the service: by a terminal
            return await client.delete_run(run.name, force=True)

    try:
        went = asyncio.run(go())
    except ApiError as exc:
        report.refused(_remote_refusal(run8, exc))
        return
    if went is not None:
        report.deleted(went)
    elif engine_alive(run):
        report.refused(_held_in_terminal(run8))
    else:  # the engine let go as the service was asked: whose it was is not known now
        report.refused(f"run {run8} was let go by the engine that held it as this looked "
                       "(it ended or paused; a terminal that ran it says so there); look at "
                       f"it with `agent-canvas runs show {run8}`, then delete it again")


def _delete_remote(args: argparse.Namespace, choice: RunChoice | None) -> int:
    """`--server URL`: every reference resolved by the service first (or the runs
    ``choice`` picks from its list), then each run deleted by it."""
    from desktop.api.client import ApiError
    from desktop.cli.remote import find_run_id

    async def go() -> int:
        async with client_for(args) as client:
            if choice is not None:
                ids = _picked(await client.list_runs(), choice, args.dry_run)
                if args.dry_run or not ids:
                    return 0
            else:
                try:
                    ids = list(dict.fromkeys([await find_run_id(client, ref)
                                              for ref in args.runs]))
                except RemoteError as exc:
                    return _bad(str(exc))
                if args.dry_run:
                    return dry_run_rows(await client.list_runs(), ids, args.force)
            report = _Report(args.json)
            for run_id in ids:
                try:
                    report.deleted(await client.delete_run(run_id, force=args.force))
                except ApiError as exc:
                    report.refused(_remote_refusal(run_id[:8], exc))
            return report.code()

    try:
        return asyncio.run(go())
    except (RemoteError, ApiError) as exc:
        return _bad(str(exc))


def _remote_refusal(run8: str, exc: ApiError) -> str:
    """The service's refusal in the terms of this command (its flag, not its query)."""
    if exc.code == "run_live":
        return _live(run8)
    if exc.code == "run_busy":
        return _held_in_terminal(run8)
    if exc.code in ("worktree_locked", "worktree_changed"):
        return exc.message  # names the run, each worktree and what lets the run go
    return f"run {run8}: {exc}"
