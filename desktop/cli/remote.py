"""`--server URL`: run, resume and list runs through a running `agent-canvas serve`.

The token comes from ``--token``, else from the data folder's ``server.json``
when its url is the one given. The terminal views (run_view.py, run_table.py)
show a :class:`RemoteRun`: the run's state folded from the service's event
stream, with the small surface of an engine those views read.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from desktop.api.client import ApiClient, ApiError
from desktop.api.follow import RunFollower
from desktop.cli.console_out import out_console
from desktop.cli.server_args import RemoteError, client_for
from desktop.contract.enums import RUN_ENDED, RunStatus
from desktop.contract.state import PendingApproval, RunState
from desktop.runtime.approvals import PendingRequest
from desktop.store.runs import ambiguous_run
from desktop.views.state import RunProjection
from desktop.views.subflows import agent_turns

EXIT = {"completed": 0, "failed": 1, "stopped": 4}
EXIT_BAD_INPUT = 2
EXIT_WAITING = 3


async def find_run_id(client: ApiClient, ref: str) -> str:
    """The id of the service's run named by ``ref`` (a full id or a unique id prefix)."""
    ref = Path(ref).name if "/" in ref else ref
    ids = [r["id"] for r in await client.list_runs()]
    if ref in ids:
        return ref
    hits = [i for i in ids if i.startswith(ref)]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise RemoteError(f"the service has no run matching {ref!r} (see `agent-canvas runs "
                          "list --server URL`)")
    raise RemoteError(ambiguous_run(ref, sorted(hits)))


class _Pending:
    def __init__(self, run: RemoteRun) -> None:
        self._run = run

    def pending(self) -> list[PendingRequest]:
        """The open requests, oldest first, in the form an engine's broker gives them
        (the terminal views read them the same way for both)."""
        state = self._run.state
        return [_request(p) for p in state.pending_approvals.values()] if state else []


def _request(pending: PendingApproval) -> PendingRequest:
    wire = pending.to_json_dict()
    return PendingRequest(pending.approval_id, pending.node_id, dict(pending.tool),
                          pending.context, str(wire.get("requestedAt") or ""),
                          wire.get("merge"), wire.get("choice"))


class RemoteRun:
    """A run in the service as the terminal views see an engine: ``state``, the pending
    approvals (``broker.pending()``) and event listeners (``recorder.listen``)."""

    def __init__(self, client: ApiClient, run_id: str) -> None:
        self.client = client
        self.run_id = run_id
        self.run_dir: Path | None = None
        self.projection = RunProjection()
        self.state: RunState | None = None
        self.broker = _Pending(self)
        self.recorder = self
        self._listeners: list[Callable[[list[dict[str, Any]]], None]] = []
        self.changed = asyncio.Event()

    def listen(self, callback: Callable[[list[dict[str, Any]]], None]) -> None:
        """Call ``callback`` with each batch of events, after the state took them."""
        self._listeners.append(callback)

    def apply(self, events: list[dict[str, Any]]) -> None:
        """Fold a batch into the state and tell the listeners."""
        self.projection.apply(events)
        if self.projection.state is not None:
            self.state = self.projection.model()
        for callback in self._listeners:
            callback(events)
        self.changed.set()

    @property
    def state_dict(self) -> dict[str, Any] | None:
        """The state in wire form, as an engine's recorder has it (the `status` table)."""
        return self.projection.state

    @property
    def status(self) -> str:
        return str(self.state.status) if self.state is not None else ""

    def waiting_for_input(self) -> bool:
        """Only a person can move the run on (an approval, a paused run, an INTERACTIVE step);
        the same rule as the in-process engine's."""
        state = self.state
        if state is None or self.status in RUN_ENDED:
            return False
        if state.pending_approvals:
            return True
        if agent_turns(state):
            return False
        if self.status == "paused":
            return True
        return str(state.mode) == "INTERACTIVE" and any(state.inboxes.values())


async def wait_loaded(run: RemoteRun, follow: asyncio.Task, timeout: float = 30) -> None:
    """Until the stream delivered the run's state (or the stream failed)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while run.state is None:
        if follow.done():
            follow.result()  # raises the stream's error
            raise RemoteError("the event stream ended before the run's first event")
        if loop.time() > end:
            raise RemoteError("the service sent no events for this run")
        run.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(run.changed.wait(), 0.2)


async def drive_remote(client: ApiClient, run_id: str, args: argparse.Namespace,
                       after_seq: int, lines: Any = None,
                       backlog: list[str] | None = None, acted_seq: int = 0) -> int:
    """Watch (and steer, from stdin) a run of the service until it ends; the exit code.
    ``lines``: stdin already being read; ``backlog``: lines read before, run first;
    ``acted_seq``: the run's last seq once this command acted on it (its resume), so a
    state streamed from before that is not taken for the run waiting again."""
    from rich.console import Console as RichConsole

    from desktop.cli.remote_console import RemoteConsole
    from desktop.cli.run_console import StdinLines
    from desktop.cli.run_table import LiveView, status_table
    from desktop.cli.run_view import JsonView, PlainView, stall_text

    run = RemoteRun(client, run_id)
    # the views listen before the first event arrives, so they see the backlog too
    if args.json:
        view: Any = JsonView(run, after_seq)
    elif sys.stdout.isatty():
        view = LiveView(run, RichConsole())
    else:
        view = PlainView(run)
    follower = RunFollower(client, run_id, 0, run.apply)
    follow = asyncio.create_task(follower.run())
    try:
        await wait_loaded(run, follow)
    except (ApiError, RemoteError):
        follow.cancel()
        raise
    loop = asyncio.get_running_loop()

    def show() -> None:
        if isinstance(view, LiveView):
            view.live.console.print(status_table(run, view.activity, view.order))
        else:
            view.show_status()

    console = RemoteConsole(run, view.say, show)
    stopping: list[asyncio.Task] = []
    with contextlib.suppress(NotImplementedError, RuntimeError):
        for sig, why in ((signal.SIGINT, "interrupted by Ctrl-C"), (signal.SIGTERM, "terminated")):
            loop.add_signal_handler(sig, lambda w=why: stopping.append(
                asyncio.ensure_future(console.stop(w))))
    typed = view.typed if isinstance(view, LiveView) else None
    if lines is not None:
        lines.on_line = typed
    elif sys.stdin is not None and not sys.stdin.closed:
        lines = StdinLines(loop, on_line=typed)

    async def consume() -> None:
        assert lines is not None
        for line in backlog or ():
            await console.execute(line)
        while (line := await lines.queue.get()) is not None:
            await console.execute(line)

    consumer = asyncio.create_task(consume()) if lines else None
    shown_stall: str | None = None
    waiting = False
    try:
        with view:
            while run.status not in RUN_ENDED:
                if follow.done():
                    follow.result()
                run.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(run.changed.wait(), 0.1)
                stall = stall_text(run)
                if stall and stall != shown_stall and not isinstance(view, LiveView):
                    view.say(stall)
                shown_stall = stall
                caught_up = run.state is not None and run.state.last_seq >= acted_seq
                if caught_up and (consumer is None or consumer.done()) \
                        and run.waiting_for_input():
                    waiting = True
                    break
    finally:
        follow.cancel()
        if consumer is not None:
            consumer.cancel()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
    if waiting:
        print(f"run {run_id} waits for input in the service at {client.url}; steer it there "
              f"(GUI, API) or continue with `agent-canvas resume {run_id[:8]} --server "
              f"{client.url}`", file=sys.stderr)
        return EXIT_WAITING
    await _tell_result(client, run_id)
    return EXIT.get(run.status, EXIT_WAITING)


async def _tell_result(client: ApiClient, run_id: str) -> None:
    """Say where the finished run's work is, as a run in this process does."""
    from desktop.cli.run import tell_result

    try:
        body = await client.result(run_id)
    except ApiError as exc:
        if exc.code != "no_result":  # else no node worked in a worktree: nothing to tell
            print(f"result: {exc.message}", file=sys.stderr)
        return
    tell_result(str(body["branch"]), str(body["node"]), str(body["repo"]),
                len(body["files"]), f"{run_id[:8]} --server {client.url}")


def run_remote(args: argparse.Namespace, doc: Any, path: Path) -> int:
    """`run FILE --server URL`: start the run of ``doc`` (read from ``path``) in the
    service and drive it."""
    from desktop.graph.io import document_data

    async def go() -> int:
        async with client_for(args) as client:
            state = await client.create_run(workflow=document_data(doc),
                                            workflow_path=str(path.resolve()),
                                            mode=args.mode, global_mode=args.global_mode)
            return await drive_remote(client, str(state["id"]), args, after_seq=0)

    return _report(go, f"{path}")


def resume_remote(args: argparse.Namespace) -> int:
    """`resume RUN --server URL`: let the service take the run over and drive it; a run
    paused over budget once stdin's `budget` lines raised the limit (sent first:
    desktop/cli/remote_budget.py), else it is left as it was (exit 3)."""
    from desktop.cli.remote_budget import raise_before_resume

    async def go() -> int:
        async with client_for(args) as client:
            run_id = await find_run_id(client, args.run)
            before = await client.get_run(run_id)
            raised = await raise_before_resume(client, run_id, before, args.data_dir)
            if raised is None:
                return EXIT_WAITING
            if args.mode or args.global_mode:
                await client.patch_run(run_id, mode=args.mode and args.mode.upper(),
                                       global_mode=args.global_mode and args.global_mode.upper())
            acted = before
            if str(before.get("status")) != RunStatus.COMPLETED:  # as resume_engine says
                acted = await client.patch_run(run_id, status="running")
            return await drive_remote(client, run_id, args,
                                      after_seq=int(before.get("lastSeq") or 0),
                                      lines=raised.lines, backlog=raised.backlog,
                                      acted_seq=int(acted.get("lastSeq") or 0))

    return _report(go, "resume")


def list_remote(args: argparse.Namespace) -> int:
    """`runs list --server URL`: the service's runs, newest first."""
    import orjson

    from desktop.cli.runs import run_table

    async def go() -> int:
        async with client_for(args) as client:
            runs = await client.list_runs()
        if args.json:
            print(orjson.dumps(runs, option=orjson.OPT_INDENT_2).decode())
            return 0
        if not runs:
            print(f"no runs in the service at {args.server}")
            return 0
        out_console().print(run_table(runs, live=True))
        return 0

    return _report(go, "runs list")


def show_remote(args: argparse.Namespace) -> RunState:
    """`runs show RUN --server URL`: the run's state from the service (raises RunError)."""
    from desktop.store.runs import RunError

    async def go() -> RunState:
        async with client_for(args) as client:
            return RunState.model_validate(await client.get_run(
                await find_run_id(client, args.run)))

    try:
        return asyncio.run(go())
    except (RemoteError, ApiError) as exc:
        raise RunError(str(exc)) from None


def _report(go: Callable[[], Any], what: str) -> int:
    try:
        return asyncio.run(go())
    except (RemoteError, ApiError) as exc:
        print(f"{what}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
