"""`agent-canvas runs pool`: the worktrees kept for the next runs, and dropping them.

  agent-canvas runs pool          each repository's pooled worktrees and their disk
  agent-canvas runs pool --drop   remove them all now (`git worktree remove` in each
                                  repository; one you locked stays)

Runs leave worktrees in DATA/worktree-pool (a deleted run's, and one spare per
repository) so the next run on the repository starts without checking every file
out. The pool of a repository that is gone, or that no run used for 30 days, is
removed on its own (checked once a day, as a run prepares its worktrees).

Exit codes: 0 listed or dropped; 1 something was kept (a worktree you locked, or an
engine writing a spare there just now: drop again once it is done).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from desktop.disk.paths import data_dir
from desktop.runtime import worktree_pool, worktree_pool_prune
from desktop.runtime.worktree_pool_prune import PoolFolder
from desktop.wording import plural


def register(kids: argparse._SubParsersAction, add_data_dir: Any) -> None:
    """Add ``runs pool``."""
    p = kids.add_parser("pool", help="worktrees kept for the next runs, and dropping them",
                        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_data_dir(p, suppress=True)
    p.add_argument("--drop", action="store_true", help="remove every pooled worktree now")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_pool)


def _size(count: int) -> str:
    """Bytes as a person reads them: ``812 bytes``, ``3.4 MiB``."""
    if count < 1024:
        return f"{count} bytes"
    units = ("KiB", "MiB", "GiB")
    size, step = count / 1024, 0
    while size >= 1024 and step < len(units) - 1:
        size, step = size / 1024, step + 1
    return f"{size:.1f} {units[step]}"


def _ago(seconds: float) -> str:
    days = int(seconds // 86400)
    if days:
        return f"{plural(days, 'day')} ago"
    hours = int(seconds // 3600)
    return f"{plural(hours, 'hour')} ago" if hours else "within the hour"


def _line(entry: PoolFolder, now: float) -> str:
    where = str(entry.repository) if entry.repository else "(no repository named)"
    state = "repository gone: removed at the next tidy" if entry.gone else \
        f"last used {_ago(now - entry.last_used)}"
    return (f"{where}: {plural(entry.worktrees, 'worktree')}, {_size(entry.disk)} "
            f"({state})")


def _json(entry: PoolFolder) -> dict[str, Any]:
    return {"folder": str(entry.folder), "repository": str(entry.repository)
            if entry.repository else None, "worktrees": entry.worktrees,
            "diskBytes": entry.disk, "lastUsed": entry.last_used, "gone": entry.gone}


def cmd_pool(args: argparse.Namespace) -> int:
    pool = Path(data_dir(getattr(args, "data_dir", None))) / worktree_pool.POOL
    if args.drop:
        removed, kept = worktree_pool_prune.drop_all(pool)
        if args.json:
            sys.stdout.write(orjson.dumps({"removed": [str(p) for p in removed],
                                           "kept": [str(p) for p in kept]}).decode() + "\n")
        else:
            print(f"dropped the pooled worktrees of {plural(len(removed), 'repository')}")
            for folder in kept:
                print(f"  kept {folder}: a worktree there is locked (git worktree unlock "
                      "PATH), or an engine is writing a spare there now")
        return 1 if kept else 0
    entries = worktree_pool_prune.survey(pool)
    if args.json:
        sys.stdout.write(orjson.dumps([_json(e) for e in entries]).decode() + "\n")
        return 0
    if not entries:
        print(f"no worktrees are pooled in {pool}")
        return 0
    now = time.time()
    total = sum(e.disk for e in entries)
    print(f"{pool}: {plural(sum(e.worktrees for e in entries), 'worktree')} of "
          f"{plural(len(entries), 'repository')}, {_size(total)}")
    for entry in entries:
        print(f"  {_line(entry, now)}")
    return 0


__all__ = ["cmd_pool", "register"]
