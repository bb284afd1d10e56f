"""``agent-canvas runs list|show|events|diff-env``: look at recorded runs (``result`` and
``apply``: desktop/cli/runs_apply.py; ``delete``: desktop/cli/runs_delete.py; ``pool``
and ``prune``: desktop/cli/runs_pool.py, desktop/cli/runs_prune.py).

Exit codes: 0 success, 2 a run reference or folder that cannot be used; ``diff-env``
exits 1 when the two runs' environments differ.
"""

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from desktop.cli import runs_apply, runs_delete, runs_pool, runs_prune
from desktop.cli.console_out import out_console
from desktop.cli.data_dir_arg import add_data_dir
from desktop.cli.merge_wait import node_word
from desktop.cli.run_ref import resume_hint, run_ref
from desktop.cli.server_args import add_server_options
from desktop.contract.enums import Mode, shown_status
from desktop.contract.state import RunState
from desktop.disk.paths import data_dir, runs_dir
from desktop.store.runner_diff import AgentRunRecord, agent_records, pair_runs
from desktop.store.runs import (
    RunError,
    engine_alive,
    find_run,
    log_problem,
    run_log_problem,
    unreadable,
)
from desktop.views.activity import node_activity, short
from desktop.views.approval_text import approval_text
from desktop.views.format import preview
from desktop.views.paused import PauseDetail, left_paused, pause_detail
from desktop.views.reader import EventReader
from desktop.views.result import ResultSummary, result_summary
from desktop.views.run_list import UNREADABLE, list_rows
from desktop.views.runs import open_run
from desktop.views.scratch_result import (
    ScratchResult,
    may_have_scratch_attempts,
    scratch_result,
)
from desktop.views.secret_words import run_warnings
from desktop.views.tool_calls import RunNotes
from desktop.views.usage import (
    budget_text,
    cost,
    cost_text,
    exceeded_text,
    total_tokens,
    usage_text,
)
from desktop.views.wall_seconds import rounded_wall
from desktop.wording import plural

DETAIL_WIDTH = 100


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``runs`` subcommand with ``list``, ``show`` and ``events``."""
    p = sub.add_parser("runs", help="list and inspect recorded runs")
    add_data_dir(p)
    p.set_defaults(handler=cmd_list, json=False, server=None, token=None)
    kids = p.add_subparsers(dest="runs_command", metavar="ACTION")
    lp = kids.add_parser("list", help="one line per run, newest first")
    add_data_dir(lp, suppress=True)
    lp.add_argument("--json", action="store_true", help="print JSON")
    add_server_options(lp)
    lp.set_defaults(handler=cmd_list)
    sp = kids.add_parser("show", help="status, nodes, inboxes, approvals and stall of a run")
    add_data_dir(sp, suppress=True)
    sp.add_argument("run", metavar="RUN", help="run id, unique id prefix or run folder")
    sp.add_argument("--json", action="store_true", help="print the state as JSON")
    add_server_options(sp)
    sp.set_defaults(handler=cmd_show)
    ep = kids.add_parser("events", help="a page of a run's events")
    add_data_dir(ep, suppress=True)
    ep.add_argument("run", metavar="RUN", help="run id, unique id prefix or run folder")
    ep.add_argument("--limit", type=int, default=50, help="events per page (default 50)")
    ep.add_argument("--before", type=int, metavar="SEQ", help="events before this seq")
    ep.add_argument("--after", type=int, metavar="SEQ", help="events after this seq")
    ep.add_argument("--json", action="store_true", help="print the page as JSON")
    ep.set_defaults(handler=cmd_events)
    dp = kids.add_parser("diff-env", help="which environment fields (runner.json) differ "
                         "between two runs, node by node")
    add_data_dir(dp, suppress=True)
    dp.add_argument("left", metavar="RUN1", help="run id, unique id prefix or run folder")
    dp.add_argument("right", metavar="RUN2", help="run id, unique id prefix or run folder")
    dp.add_argument("--json", action="store_true", help="print the comparison as JSON")
    dp.set_defaults(handler=cmd_diff_env)
    runs_apply.register(kids, add_data_dir)
    runs_delete.register(kids, add_data_dir)
    runs_pool.register(kids, add_data_dir)
    runs_prune.register(kids, add_data_dir)


def _print_json(obj: object) -> None:
    sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode() + "\n")


def _when(ts: str) -> str:
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return ts


def fail(message: str) -> int:
    """Print a one-line error and return exit code 2."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def display_status(state: RunState) -> str:
    """The status word a user sees ("interrupted" for a dead live-looking run)."""
    return shown_status(state.status, state.interrupted)


def run_table(rows: list[dict[str, Any]], *, live: bool = False) -> Table:
    """The table of the run list's rows (``live``: with a column saying which run the
    service drives)."""
    table = Table("id", "workflow", "status", "started", "updated",
                  *(("live",) if live else ()), "events", "tokens", "cost")
    for r in rows:
        usage = r.get("tokens") or {}
        # ids are shown by their first 8 characters, which `runs show` accepts as a prefix
        table.add_row(str(r["id"])[:8], r.get("workflowName") or "-",
                      # the word only: why a run is unreadable is a long text with its
                      # path, which `runs show` prints
                      str(r["status"]), _when(str(r.get("createdAt"))),
                      _when(str(r.get("updatedAt"))),
                      *(("live" if r.get("live") else "",) if live else ()),
                      str(r.get("events", 0)), f"{total_tokens(usage):,}", cost_text(usage))
    return table


def cmd_list(args: argparse.Namespace) -> int:
    """Print the run table (or JSON: the rows of ``GET /api/runs``, each with its path)."""
    if args.server:
        from desktop.cli.remote import list_remote

        return list_remote(args)
    folder = data_dir(args.data_dir)
    root = runs_dir(folder)
    try:  # the listing takes a runs folder it may not read for one without runs
        os.scandir(root).close()
    except FileNotFoundError:
        pass
    except OSError as exc:
        return fail(unreadable(exc, root))
    rows = list_rows(folder)
    if args.json:
        # the rows' wall seconds are rounded already, as GET /api/runs sends them
        _print_json([{**r, "path": str(root / str(r["id"]))} for r in rows])
        return 0
    if not rows:
        print(f"no runs in {folder}")
        return 0
    out_console().print(run_table(rows))
    broken = [str(r["id"])[:8] for r in rows if r["status"] == UNREADABLE]
    if broken:
        print(f"{plural(len(broken), 'run')} unreadable ({', '.join(broken)}): "
              f"`agent-canvas runs show ID` says why", file=sys.stderr)
    return 0


def _open(args: argparse.Namespace) -> tuple[RunState, EventReader]:
    folder = find_run(data_dir(args.data_dir), args.run)
    return open_run(folder), EventReader(folder)


def cmd_show(args: argparse.Namespace) -> int:
    """Print one run's state."""
    result: ResultSummary | None = None
    scratch: ScratchResult | None = None
    paused: PauseDetail | None = None
    """Set for a run left paused that no engine holds: what it waits for."""
    try:
        if args.server:
            from desktop.cli.remote import show_remote

            state = show_remote(args)
        else:
            folder = find_run(data_dir(args.data_dir), args.run)
            # a log with nothing usable says why itself, before the state built from it
            # fails with less to say (an empty log: a run stopped before it began, unless
            # state.json has seen events)
            problem = run_log_problem(folder)
            if problem:
                return fail(problem)
            state, _ = _open(args)
            problem = log_problem(folder, state.last_seq)
            if problem:
                return fail(problem)
            result = result_summary(state, folder)
            if left_paused(state) and not engine_alive(folder):
                paused = pause_detail(state, folder)
            if result is None and may_have_scratch_attempts(state):
                scratch = scratch_result(state, folder, EventReader(folder).iter_events())
    except RunError as exc:
        return fail(str(exc))
    if args.json:
        body = {**state.to_json_dict(), "displayStatus": display_status(state),
                "tokens": total_tokens(state.usage), "costUsd": cost(state.usage),
                **({"result": result.to_json()} if result is not None else {}),
                **({"scratchResult": scratch.to_json()} if scratch is not None else {}),
                **({"paused": paused.to_json(run_ref(state.id, args.data_dir))}
                   if paused is not None else {})}
        _print_json(rounded_wall(body))
        return 0
    console = out_console()
    console.print(f"[bold]run[/] {state.id}  [bold]{display_status(state)}[/]  "
                  f"{state.mode}/{state.global_mode}")
    console.print(f"workflow {state.workflow_name or '-'}  started {_when(state.created_at)}"
                  f"  updated {_when(state.updated_at)}  events {state.last_seq}")
    if state.forked_from is not None:
        console.print(f"forked from run {state.forked_from.run_id} at seq "
                      f"{state.forked_from.seq} (its events 1..{state.forked_from.seq} are "
                      "copied here)")
    if state.task:
        console.print(f"task: {state.task}")
    branches = any(node.git is not None for node in state.nodes.values())
    table = Table("node", "status", "inbox", "turns", *(("branch",) if branches else ()),
                  "summary")
    # the words the app's node cards show (desktop/views/activity.py), not the raw field
    shown = node_activity(state.to_json_dict())
    for nid, node in state.nodes.items():
        branch = (_branch_cell(node.git.branch, node.git.ahead) if node.git is not None
                  else "-",) if branches else ()
        word = shown[nid].shown_status if nid in shown else str(node.status)
        table.add_row(node.label, _node_status(state, nid, word),
                      str(len(state.inboxes.get(nid, []))),
                      str(state.turns.get(nid, 0)), *branch, node.summary)
    console.print(table)
    if result is not None:
        console.print(f"result: branch {escape(result.branch)} (node {escape(result.node)}), "
                      f"{escape(result.applied_text())}", soft_wrap=True)
    if scratch is not None:
        console.print(f"result: no result branch to apply; {escape(scratch.text())}",
                      soft_wrap=True)
    for line in run_warnings(state.to_json_dict()):  # a secret an agent wrote in a file
        console.print(f"[yellow]{escape(line)}[/]", soft_wrap=True)
    _agent_runs(console, state, find_run(data_dir(args.data_dir), args.run))
    for approval in state.pending_approvals.values():
        who = state.nodes[approval.node_id].label if approval.node_id in state.nodes else "-"
        asked = approval_text(approval.to_json_dict())
        console.print(f"pending approval {approval.approval_id} from {escape(who)}: "
                      f"{escape(asked)}", soft_wrap=True)
    if state.stall:
        console.print(f"[yellow]stalled[/]: {state.stall.get('reason')} "
                      f"{state.stall.get('evidence', {})}")
    if paused is not None:
        _paused(console, state, paused, args.data_dir)
    console.print(f"usage: {usage_text(state.usage)}")
    if state.budget is not None:
        console.print(f"budget: {budget_text(state.budget.to_json_dict())}")
    for nid, config in state.node_configs.items():
        if config.budget is not None and nid in state.nodes:
            console.print(f"budget of {escape(state.nodes[nid].label)}: "
                          f"{budget_text(config.budget.to_json_dict())}; used "
                          f"{usage_text(state.node_usage.get(nid, {}))}")
    if state.budget_exceeded:
        found = state.budget_exceeded
        node = state.nodes.get(found.get("nodeId") or "")
        console.print(f"[yellow]paused[/]: "
                      f"{escape(exceeded_text(found, node.label if node else 'the run'))}")
    return 0


def _node_status(state: RunState, node_id: str, word: str) -> str:
    """A node row's status: ``word`` (what the app's node card shows), and whether a turn
    runs. No turn runs in a run no engine holds: the one its dead engine started was cut
    short, and resuming takes it again (desktop/runtime/recovery.py)."""
    if node_id not in state.running_turns or left_paused(state):
        return word  # a subflow node's step in a run left paused: no turn runs in it
    if state.interrupted:
        return "interrupted (turn cut short, retaken on resume)"
    return f"{word} (turn running)"


def _paused(console: Console, state: RunState, paused: PauseDetail,
            folder: str | None) -> None:
    """What a run left paused, which no engine holds, waits for, and how to go on
    (``folder``: the ``--data-dir`` given, which the resume command needs too)."""
    why = f": {escape(paused.reason)}" if paused.reason else ""
    console.print(f"[yellow]paused[/], no engine holds it{why}", soft_wrap=True)
    for request in paused.withdrawn:
        console.print(f"  waits for {escape(request.line())}; asked again "
                      f"{escape(_asked_again(state, request.node))}", soft_wrap=True)
    from desktop.cli.budget_gate import still_over  # the console's modules: only here

    over = still_over(state)
    if over is not None:  # a plain resume would pause it again at once
        console.print(escape(over.text(folder)), soft_wrap=True)
        return
    console.print(f"resume with {escape(resume_hint(state.id, folder))}", soft_wrap=True)


def _asked_again(state: RunState, label: str) -> str:
    """When a request withdrawn as the run was let go is asked again: as the run resumes
    in AUTO mode; in INTERACTIVE mode once its node's turn is stepped, which restarts it
    (desktop/cli/merge_wait.py)."""
    if state.mode != Mode.INTERACTIVE:
        return "when it resumes"
    node = next((n for n in state.nodes.values() if n.label == label), None)
    if node is None:
        return "when it resumes and its node's turn is stepped"
    return f"when it resumes and {label}'s turn is stepped (`step {node_word(node)}`)"


def _branch_cell(branch: str, ahead: int | None) -> str:
    """``canvas/1a2b3c4d/impl (+3)``: the branch and its commits ahead of the base."""
    return escape(branch if ahead is None else f"{branch} (+{ahead})")


def _agent_runs(console: Console, state: RunState, folder: Path) -> None:
    records = agent_records(folder, state)
    if not records:
        return
    table = Table("node", "agent run", "sandbox", "runner hash")
    for r in records:
        box = "?"
        if r.record is not None and isinstance(r.record.get("sandbox"), dict):
            sandbox = r.record["sandbox"]
            box = str(sandbox.get("backend"))
            if sandbox.get("network_blocked"):
                box += ", no network"
        table.add_row(r.node, r.agent_run_id, box, r.runner_hash or (r.problem or "missing"))
    console.print(table)


def cmd_diff_env(args: argparse.Namespace) -> int:
    """Compare two runs' environments; exit 0 when every node's agent runs match, 1 if not."""
    try:
        sides = []
        for ref in (args.left, args.right):
            folder = find_run(data_dir(args.data_dir), ref)
            sides.append(agent_records(folder, open_run(folder)))
    except RunError as exc:
        return fail(str(exc))
    pairs = pair_runs(*sides)
    if args.json:
        _print_json([{"node": p.node, "same": p.same,
                      "left": _side(p.left), "right": _side(p.right),
                      "differences": [{"field": f, "left": a, "right": b}
                                      for f, a, b in p.differences]} for p in pairs])
    else:
        for p in pairs:
            left = p.left.agent_run_id if p.left else "-"
            right = p.right.agent_run_id if p.right else "-"
            print(f"{p.node}: {left} vs {right}: " + ("same environment" if p.same else
                  "no counterpart" if p.left is None or p.right is None else
                  "record missing or unreadable" if not p.differences else
                  f"{plural(len(p.differences), 'field')} "
                  f"{'differs' if len(p.differences) == 1 else 'differ'}"))
            for name, a, b in p.differences:
                print(f"  {name}: {_shown(a)} -> {_shown(b)}")
    return 0 if pairs and all(p.same for p in pairs) else 1


def _side(record: AgentRunRecord | None) -> dict | None:
    if record is None:
        return None
    return {"agentRunId": record.agent_run_id, "runnerHash": record.runner_hash,
            **({"problem": record.problem} if record.problem else {})}


def _shown(value: object) -> str:
    return "(absent)" if value is None else orjson.dumps(value).decode()


def _gist(event: dict, notes: RunNotes) -> str:
    """The event's line in the transcript (the one projection of how an event reads),
    without its type, which has a column of its own."""
    notes.learn(event)
    kind = str(event.get("type", ""))
    text = preview(event, notes.tools, notes.merges)
    if text.startswith(kind):
        text = text[len(kind):].lstrip(": ")
    return short(text, DETAIL_WIDTH)


def cmd_events(args: argparse.Namespace) -> int:
    """Print a page of events."""
    if args.limit < 1:
        return fail("--limit must be at least 1")
    try:
        folder = find_run(data_dir(args.data_dir), args.run)
        problem = run_log_problem(folder)
        if problem:  # else a log that is gone or unreadable shows as a run without events
            return fail(problem)
        state, reader = open_run(folder), EventReader(folder)
    except RunError as exc:
        return fail(str(exc))
    page = reader.page(limit=args.limit, before=args.before, after=args.after)
    for problem in reader.problems:
        print(f"warning: skipped {problem.kind} at byte {problem.offset}: {problem.detail}",
              file=sys.stderr)
    if args.json:
        _print_json({"events": page.events, "hasMore": page.has_more,
                     "nextCursor": page.next_cursor})
        return 0
    table = Table("seq", "time", "type", "node", "detail")
    notes = RunNotes()
    for e in page.events:
        node = state.nodes.get(e.get("nodeId") or "")
        table.add_row(str(e["seq"]), _when(str(e.get("ts", ""))), str(e.get("type")),
                      node.label if node else (e.get("nodeId") or "")[:8], _gist(e, notes))
    out_console().print(table)
    if page.has_more:
        flag = "--after" if args.after is not None else "--before"
        print(f"more: {flag} {page.next_cursor}")
    return 0
