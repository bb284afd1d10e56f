"""`agent-canvas runs delete RUN [RUN ...] --dry-run`: what deleting the named runs would
take away (folder, worktrees, branches and refs), or why deleting one would be refused;
nothing is changed.

  would delete run 1a2b3c4d: folder DATA/runs/1a2b..., 2 worktrees (worktrees/helper,
  worktrees/lead: pooled for the next run or removed), 2 branches
  (canvas/1a2b3c4d/helper, canvas/1a2b3c4d/lead) and its base ref
  would not delete run 5e6f7a8b: it is live (an engine is running it); ...

It looks as deleting looks (desktop/runtime/run_delete_plan.py): a live run without
--force, a run an engine in a terminal holds, a worktree the user locked and work made
in a worktree after the run ended each refuse the run, said with how to go on. Exit
codes as deleting's: 1 when some run would be refused.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from desktop.runtime.run_delete_plan import DeletePlan, plan_delete
from desktop.store.runs import RunError, engine_alive
from desktop.views.runs import fold_run
from desktop.wording import plural

if TYPE_CHECKING:
    from desktop.api.client import ApiClient

EXIT_REFUSED = 1

LIVE = ("it is live (an engine is running it); stop it first, or pass --force to have the "
        "service running it stop it and delete it")
HELD = ("an engine outside a service holds it (an `agent-canvas run` or `resume` in a "
        "terminal); stop it there (Ctrl-C), then delete it")


async def hosted_by(client: ApiClient, run_id: str) -> bool:
    """Whether the service of ``client`` runs run ``run_id`` (its engine holds it)."""
    return any(row.get("id") == run_id and row.get("live") for row in await client.list_runs())


def _service_runs(run: Path) -> bool | str:
    """Whether the service of the run's data folder runs it; a string: why that is not
    known (the service did not answer)."""
    from desktop.api.client import ApiError
    from desktop.api.discovery import find_service

    service = find_service(run.parent.parent)
    if service is None:
        return False

    async def go() -> bool:
        async with service.client() as client:
            return await hosted_by(client, run.name)

    try:
        return asyncio.run(go())
    except ApiError as exc:
        return f"the service of {run.parent.parent} did not say whether it runs it ({exc})"


def plan_here(run: Path, force: bool) -> tuple[DeletePlan, bool]:
    """What deleting the run in folder ``run`` would do, and whether the service running
    it would stop it first (with ``force``)."""
    live = engine_alive(run)
    if live:
        hosted = _service_runs(run) if force else False
        if hosted is not True:
            why = hosted if isinstance(hosted, str) else HELD if force else LIVE
            return DeletePlan(run.name, run, refused=why), False
    try:
        state: dict[str, Any] | None = fold_run(run).to_json_dict()
    except RunError:
        state = None  # unreadable: its folder goes anyway, as deleting says
    return plan_delete(run, run.name, state, live=live), live


def _shown(path: Path, folder: Path) -> str:
    try:
        return str(path.relative_to(folder))
    except ValueError:
        return str(path)


def would_line(plan: DeletePlan, stops: bool) -> str:
    """The lines saying what deleting the run would do or why it would not."""
    run8 = plan.run_id[:8]
    if plan.refused is not None:
        return f"would not delete run {run8}: {plan.refused}"
    trees = "no worktrees" if not plan.worktrees else (
        f"{plural(len(plan.worktrees), 'worktree')} ("
        f"{', '.join(_shown(p, plan.folder) for p in plan.worktrees)}: pooled for the next "
        "run or removed)")
    branches = plan.branches()
    named = f" ({', '.join(branches)})" if branches else ""
    others = len(plan.refs) - len(branches)
    base = "" if not others else " and its base ref" if others == 1 \
        else f" and {plural(others, 'ref')} under refs/canvas/{run8}/"
    first = (f"would stop run {run8} in the service running it and delete it" if stops
             else f"would delete run {run8}")
    lines = [f"{first}: folder {plan.folder}, {trees}, "
             f"{plural(len(branches), 'branch')}{named}{base}"]
    lines += [f"  would keep {note}" for note in plan.kept]
    if plan.undo_lost:
        lines.append("  its apply to your working tree could then no longer be undone with "
                     "`agent-canvas runs apply --undo`")
    return "\n".join(lines)


def dry_run_here(runs: list[Path], force: bool, as_json: bool) -> int:
    """Say of each run what deleting it would do; exit 1 when some would be refused."""
    out = []
    refused = False
    for run in runs:
        plan, stops = plan_here(run, force)
        refused = refused or plan.refused is not None
        if as_json:
            out.append({"runId": plan.run_id, "folder": str(plan.folder),
                        "refused": plan.refused, "stops": stops,
                        "worktrees": [str(p) for p in plan.worktrees],
                        "refs": list(plan.refs), "kept": list(plan.kept),
                        "undoLost": plan.undo_lost})
        else:
            print(would_line(plan, stops))
    if as_json:
        sys.stdout.write(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")
    return EXIT_REFUSED if refused else 0


def dry_run_rows(rows: list[dict[str, Any]], ids: list[str], force: bool) -> int:
    """``--server``: what the service lists of each run (its worktrees are its to look
    at); exit 1 when a live run would be refused (no --force)."""
    by_id = {str(row.get("id")): row for row in rows}
    refused = False
    for run_id in ids:
        row = by_id.get(run_id, {})
        if row.get("live") and not force:
            refused = True
            print(f"would not delete run {run_id[:8]}: {LIVE}")
        else:
            print(row_line(row, run_id))
    return EXIT_REFUSED if refused else 0


def row_line(row: dict[str, Any], run_id: str) -> str:
    """``would delete run 1a2b3c4d: NAME, STATUS, last event WHEN`` from a run list row."""
    return (f"would delete run {run_id[:8]}: {row.get('workflowName') or '-'}, "
            f"{row.get('status')}, last event {row.get('updatedAt') or '-'}")
