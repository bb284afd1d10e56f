"""`agent-canvas fork RUN --at SEQ`: continue a run from a point between turns as a new run.

The new run copies RUN's events up to the fork point, so nothing before it runs again
and no tokens are spent on it; its workspace is restored to that point from the
recorded diffs. A SEQ inside a turn snaps back to before that turn (which the fork then
takes again); a SEQ between turns snaps forward to just before the next turn; a SEQ past
the end of a run no engine holds is refused.

Change a node for the fork (each --node starts the edits of one node):

  agent-canvas fork RUN --at 57 --node reviewer --instructions "Be strict." \\
      --node implementer --model gpt-5 --provider codex

Change a queued handoff (the item ids queued at the point: --dry-run):

  agent-canvas fork RUN --at 57 --edit-item 3f2a "Also add a test for empty names."

Exit codes as `agent-canvas run`: 0 completed, 1 failed, 2 bad input, 3 paused, 4 stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.cli.run import EXIT_BAD_INPUT, _options, drive
from desktop.cli.run_ref import resume_hint
from desktop.cli.seconds_arg import seconds
from desktop.cli.server_args import add_server_options
from desktop.disk.paths import data_dir
from desktop.wording import plural

if TYPE_CHECKING:
    from desktop.contract.state import RunState
    from desktop.runtime.fork import ForkCheck, ForkRequest

_HEAD = 70


class _NodeAction(argparse.Action):
    """``--node`` opens a new node edit; the edit options after it fill that edit."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        edits = list(getattr(namespace, "node_edits", None) or [])
        if self.dest == "node":
            edits.append({"node": values})
        elif not edits:
            parser.error(f"{option_string} needs a --node before it")
        else:
            edits[-1][self.dest] = values
        namespace.node_edits = edits


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `fork` subcommand."""
    p = sub.add_parser("fork", help="continue a run from a point between turns as a new run",
                       description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("run", metavar="RUN", help="run id, unique id prefix, or run folder")
    p.add_argument("--at", type=int, metavar="SEQ",
                   help="the event to fork from (snaps to a point between turns)")
    p.add_argument("--list", action="store_true",
                   help="list the points RUN can be forked from, and exit")
    p.add_argument("--dry-run", action="store_true",
                   help="check the edits as the fork would and show it: where --at lands, "
                   "the nodes and queued items with the edits made, the branches; write "
                   "nothing")
    p.add_argument("--no-run", action="store_true",
                   help="make the fork and leave it paused (continue with `resume`)")
    edits = p.add_argument_group("edits (each --node starts the edits of one node)")
    edits.add_argument("--node", action=_NodeAction, metavar="NODE",
                       help="key or id of the node the next options change")
    edits.add_argument("--instructions", action=_NodeAction, metavar="TEXT")
    edits.add_argument("--instructions-file", action=_NodeAction, metavar="FILE",
                       help="read the instructions from FILE")
    edits.add_argument("--model", action=_NodeAction, metavar="MODEL",
                       help='the model ("" for the provider\'s default)')
    edits.add_argument("--provider", action=_NodeAction, metavar="PROVIDER")
    edits.add_argument("--edit-item", nargs=2, action="append", default=[],
                       metavar=("ITEM", "TEXT"),
                       help="new text for an item queued at the point (id or id prefix)")
    p.add_argument("--mode", choices=["auto", "interactive"], type=str.lower,
                   help="AUTO runs turns on its own; INTERACTIVE waits for `step`")
    p.add_argument("--global-mode", choices=["planning", "implementation"], type=str.lower)
    p.add_argument("--data-dir", help="where runs live (default: the user data folder)")
    p.add_argument("--json", action="store_true", help="print every event as a JSON line")
    p.add_argument("--concurrency", type=int, default=4, metavar="N")
    p.add_argument("--silence-sec", type=seconds, default=None, metavar="S")
    add_server_options(p)
    p.set_defaults(handler=fork_command, node_edits=[])


def request_from(args: argparse.Namespace):
    """The :class:`~desktop.runtime.fork.ForkRequest` the arguments describe."""
    from desktop.runtime.fork import ForkError, ForkRequest, ItemEdit, NodeEdit

    nodes = []
    for edit in args.node_edits:
        edit = dict(edit)
        path = edit.pop("instructions_file", None)
        if path is not None:
            try:
                edit["instructions"] = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ForkError(f"--instructions-file {path}: cannot read it ({exc})") from None
        nodes.append(NodeEdit(**edit))
    items = [ItemEdit(item, text) for item, text in args.edit_item]
    return ForkRequest(at=args.at, nodes=nodes, items=items, mode=args.mode,
                       global_mode=args.global_mode)


def fork_command(args: argparse.Namespace) -> int:
    """List the fork points, show a plan, or make the fork and drive it to the end."""
    from desktop.runtime.engine import EngineError
    from desktop.runtime.fork import ForkError, branches_json, check_fork, fork_run
    from desktop.store.runs import RunError, find_run, run_log_problem
    from desktop.views.forks import scan_run

    if args.server:
        if args.dry_run and (args.node_edits or args.edit_item or args.mode
                             or args.global_mode):
            # the service shows the points only: the edits would go unchecked, unseen
            print("fork: --dry-run with edits or modes checks them against the run's "
                  "folder, which --server does not read; drop --server to check them on "
                  "this machine, or drop the edits", file=sys.stderr)
            return EXIT_BAD_INPUT
        return fork_remote(args)
    try:
        folder = find_run(data_dir(args.data_dir), args.run)
        problem = run_log_problem(folder)
        if problem:  # else a log with nothing usable reads as a run with no point to fork
            raise ForkError(problem)
        if args.list:
            return _list(scan_run(folder))
        if args.at is None:
            raise ForkError("give --at SEQ (the points: --list)")
        request = request_from(args)
        if args.dry_run:  # every check a fork makes, and nothing written
            return _show(check_fork(folder, request), request)
        fork = fork_run(folder, data_dir(args.data_dir), request, _options(args))
    except (RunError, ForkError, EngineError, ValueError) as exc:
        print(f"fork: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    engine = fork.engine
    say = sys.stderr.write
    say(f"forked run {fork.plan.state.id[:8]} as {engine.run_id}: {fork.plan.snap.note}\n")
    for one in fork.workspaces:
        how = "with the later ones undone in a copy" if one.undone else "replayed"
        extra = f"; {plural(one.skipped, 'file change')} already in place" if one.skipped else ""
        if one.taken:
            extra += f"; {plural(one.taken, 'file')} taken from the source's snapshots"
        say(f"  {one.path}/ restored: {plural(one.diffs, 'recorded diff')} {how}{extra}\n")
    for branch in branches_json(fork.git):
        say(f"  {branch['node']}: {branch['worktree']}/ on {branch['branch']}, checked out at "
            f"{branch['commit'][:8]} (its commit on {branch['from']})\n")
    for event in fork.edits:
        say(f"  changed: {_edit_text(fork.plan, event)}\n")
    if args.no_run:
        engine.pause("forked; continue with `agent-canvas resume`")
        engine.close()
        say(f"run {engine.run_id} is paused; continue with "
            f"{resume_hint(engine.run_id, args.data_dir)}\n")
        return 0
    return asyncio.run(drive(engine, args, after_seq=fork.plan.seq))


def fork_remote(args: argparse.Namespace) -> int:
    """`fork RUN --server URL`: the service makes the fork and runs it; follow it here."""
    from desktop.cli.remote import _report, drive_remote, find_run_id
    from desktop.cli.server_args import RemoteError, client_for
    from desktop.runtime.fork import ForkError

    async def go() -> int:
        async with client_for(args) as client:
            run_id = await find_run_id(client, args.run)
            if args.list or args.dry_run or args.at is None:
                body = await client.fork_points(run_id, args.at)
                if body.get("snap"):
                    print(f"fork point: {body['snap']['note']}")
                for point in body["points"]:
                    print(f"{point['seq']:>8}  {point['description']}")
                return 0
            try:
                request = request_from(args)
            except ForkError as exc:
                raise RemoteError(str(exc)) from None
            nodes = [{k: v for k, v in vars(n).items() if v is not None}
                     for n in request.nodes]
            items = [{"itemId": i.item, "text": i.text} for i in request.items]
            made = await client.fork(run_id, request.at, nodes=nodes, items=items,
                                     mode=args.mode, global_mode=args.global_mode,
                                     start=not args.no_run)
            fork_id = made["run"]["id"]
            sys.stderr.write(f"forked run {run_id[:8]} as {fork_id}: {made['point']}\n")
            if args.no_run:
                sys.stderr.write(f"run {fork_id} is paused; continue with `agent-canvas "
                                 f"resume {fork_id[:8]} --server URL`\n")
                return 0
            return await drive_remote(client, fork_id, args, after_seq=int(made["seq"]))

    return _report(go, "fork")


def _list(scan) -> int:
    if not scan.points:
        print(f"run {scan.run_id[:8]} has no point between turns to fork from")
        return 0
    for point in scan.points:
        print(f"{point.seq:>8}  {scan.describe(point)}")
    return 0


def _show(check: ForkCheck, request: ForkRequest) -> int:
    """What the fork would be: its point, its nodes and queued items with the edits made,
    each change, and the branches it would make; nothing is written."""
    plan = check.plan
    state = _edited(plan.state, check.edits)
    print(f"fork point: {plan.snap.note}")
    if request.mode or request.global_mode:
        print(f"mode: {(request.mode or str(state.mode)).upper()}/"
              f"{(request.global_mode or str(state.global_mode)).upper()}")
    print("nodes:")
    for node_id, node in state.nodes.items():
        config = state.node_configs.get(node_id)
        model = (config.model if config else None) or "default model"
        text = " ".join(((config.instructions if config else "") or "").split())
        print(f"  {node.key or node.label}  ({node.provider}, {model})  {_cut(text)}")
    queued = [(node_id, item) for node_id, items in state.inboxes.items() for item in items]
    print("queued items:" if queued else "queued items: none")
    for node_id, item in queued:
        node = state.nodes.get(node_id)
        name = (node.key or node.label) if node else node_id[:8]
        print(f"  {item.id[:8]}  {item.kind} for {name}: {_cut(' '.join(item.text.split()))}")
    for event in check.edits:
        print(f"would change: {_edit_text(plan, event)}")
    for node in check.git.branches():
        start = f"its commit {node.commit[:8]}" if node.commit else "the run's base"
        print(f"would branch: {node.name} from {node.record['branch']} at {start}")
    print("dry run: nothing was written")
    return 0


def _edited(state: RunState, edits: list[dict[str, Any]]) -> RunState:
    """``state`` with the fork's edit events made on its nodes and queued items."""
    nodes, configs = dict(state.nodes), dict(state.node_configs)
    inboxes = {node_id: list(items) for node_id, items in state.inboxes.items()}
    for event in edits:
        node_id = event["nodeId"]
        if event["type"] == "inbox.edited":
            inboxes[node_id] = [item.model_copy(update={"text": event["text"]})
                                if item.id == event["itemId"] else item
                                for item in inboxes.get(node_id, [])]
            continue
        if event["patch"].get("provider"):
            nodes[node_id] = nodes[node_id].model_copy(
                update={"provider": event["patch"]["provider"]})
        if event.get("config") and node_id in configs:
            configs[node_id] = configs[node_id].model_copy(update=event["config"])
    return state.model_copy(update={"nodes": nodes, "node_configs": configs,
                                    "inboxes": inboxes})


def _edit_text(plan, event: dict[str, Any]) -> str:
    node = plan.state.nodes.get(event.get("nodeId") or "")
    name = (node.key or node.label) if node else "?"
    if event["type"] == "inbox.edited":
        return f"item {event['itemId'][:8]} for {name}: {_cut(event['text'])}"
    parts = [f"{k}={_cut(str(v))!r}" for k, v in {**event.get("patch", {}),
                                                  **event.get("config", {})}.items()]
    return f"{name}: {', '.join(parts)}"


def _cut(text: str) -> str:
    return text if len(text) <= _HEAD else text[:_HEAD - 1] + "…"
