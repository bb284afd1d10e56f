"""`agent-canvas runs prune REPO [REPO ...]`: remove what runs deleted by hand left there.

  agent-canvas runs prune .             the branches and refs of runs this data folder
                                        no longer has, in the repository here
  agent-canvas runs prune . --dry-run   say what would go, change nothing

`runs delete` removes a run's worktrees, canvas/RUN8/* branches and refs/canvas/RUN8/
refs with its folder. A run folder removed another way (rm -rf, a data folder wiped)
leaves them in your repository; this removes them, and lets git forget the run's
worktrees whose folders are gone (`git worktree prune`).

A run is known by its commits (each names its run); a canvas/ branch of your own is
never taken. A run's refs stay while one of its worktrees is still on disk (a run of
another data folder: delete it from there) or locked (`git worktree lock`), or while
you have one of its branches checked out, or committed on one of them: each such
branch is named, with how to keep your commit or let it go. A fork's branch still at
the commit of the run it was forked from holds nothing of yours, and goes. Your working
tree, index, HEAD and own branches are not touched.

Exit codes: 0 removed, or nothing to remove; 1 some run's refs were kept (each said
why); 2 bad input (a folder that is no git repository): nothing is changed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from desktop.disk.paths import data_dir
from desktop.runtime.run_leftovers import (
    Leftover,
    NotARepository,
    find_leftovers,
    remove_leftovers,
)
from desktop.wording import plural

EXIT_KEPT = 1
EXIT_BAD_INPUT = 2


def register(kids: argparse._SubParsersAction, add_data_dir: Any) -> None:
    """Add ``runs prune``."""
    p = kids.add_parser("prune", help="remove the branches and refs of runs deleted by hand",
                        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_data_dir(p, suppress=True)
    p.add_argument("repos", nargs="+", metavar="REPO",
                   help="a folder of the repository the runs worked on")
    p.add_argument("--dry-run", action="store_true", help="say what would go, change nothing")
    p.add_argument("--json", action="store_true", help="print JSON, one object per run")
    p.set_defaults(handler=cmd_prune)


def _line(repo: Path, run: Leftover, dry_run: bool) -> str:
    refs = len(run.refs) - len(run.branches())
    named = f" ({', '.join(run.branches())})" if run.branches() else ""
    others = f" and {plural(refs, 'ref')} under refs/canvas/{run.run_id[:8]}/" if refs else ""
    verb = "would remove" if dry_run else "removed"
    return (f"{verb} what run {run.run_id[:8]} left in {repo}: "
            f"{plural(len(run.branches()), 'branch')}{named}{others}")


def _kept_line(repo: Path, run: Leftover) -> str:
    """Why the run's refs stay: every reason, one a line when there are several."""
    said = f"kept what run {run.run_id[:8]} left in {repo}"
    if len(run.reasons) == 1:
        return f"{said}: {run.reasons[0]}"
    return f"{said}, for {len(run.reasons)} reasons:" + "".join(
        f"\n  {reason}" for reason in run.reasons)


def cmd_prune(args: argparse.Namespace) -> int:
    data = data_dir(args.data_dir)
    found: list[tuple[Path, list[Leftover]]] = []
    try:
        for name in args.repos:
            repo = Path(name).expanduser().resolve()
            found.append((repo, find_leftovers(repo, data)))
        if not args.dry_run:
            for repo, runs in found:
                remove_leftovers(repo, runs)
    except NotARepository as exc:
        print(f"error: {exc} (nothing was changed)", file=sys.stderr)
        return EXIT_BAD_INPUT
    kept = False
    out = []
    for repo, runs in found:
        if not runs and not args.json:
            print(f"{repo}: no run of {data} left anything behind")
        for run in runs:
            kept = kept or run.kept is not None
            out.append({"repo": str(repo), **run.to_json(),
                        "removed": run.kept is None and not args.dry_run})
            if args.json:
                continue
            if run.kept is None:
                print(_line(repo, run, args.dry_run))
            else:
                print(_kept_line(repo, run), file=sys.stderr)
    if args.json:
        sys.stdout.write(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")
    return EXIT_KEPT if kept else 0
