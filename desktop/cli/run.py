"""`agent-canvas run FILE` and `agent-canvas resume RUN`: execute a workflow in the terminal.

Exit codes: 0 completed, 1 failed, 2 bad input, 3 paused (a stall, or the run
waits for a person and no commands are left on stdin; for `resume`, also a run
paused over budget that no `budget` command on stdin raised: it is left as it
was), 4 stopped (also on Ctrl-C). Commands (see desktop/cli/run_console.py)
are read from stdin, typed or piped; without them a stall or a pending
approval leaves the run paused for `agent-canvas resume`.

With ``--server URL`` the run goes to a running `agent-canvas serve` instead of
an engine in this process; the view and the stdin commands work the same, over
its API. Without commands left on stdin a run that waits for a person stays
waiting in the service (exit 3); Ctrl-C stops it (exit 4).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli.run_ref import resume_hint, run_ref
from desktop.cli.seconds_arg import seconds
from desktop.cli.server_args import add_server_options
from desktop.cli.workflow_arg import given_workflow
from desktop.contract.enums import RunStatus
from desktop.disk.paths import data_dir
from desktop.wording import plural

if TYPE_CHECKING:
    from desktop.graph.document import WorkflowDocument

EXIT = {RunStatus.COMPLETED: 0, RunStatus.FAILED: 1, RunStatus.STOPPED: 4}
EXIT_BAD_INPUT = 2
EXIT_PAUSED = 3


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mode", choices=["auto", "interactive"], type=str.lower,
                   help="AUTO runs turns on its own; INTERACTIVE waits for `step`")
    p.add_argument("--global-mode", choices=["planning", "implementation"], type=str.lower,
                   help="PLANNING: no node may write code")
    p.add_argument("--data-dir", help="where runs live (default: the user data folder)")
    p.add_argument("--json", action="store_true", help="print every event as a JSON line")
    p.add_argument("--concurrency", type=int, default=4, metavar="N",
                   help="turns that may run at once (default 4)")
    p.add_argument("--silence-sec", type=seconds, default=None, metavar="S",
                   help="pause the run when a running node is silent this long")
    add_server_options(p)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `run` and `resume` subcommands."""
    p = sub.add_parser("run", help="run a workflow in the terminal",
                       description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("file", metavar="FILE", type=given_workflow, help="a *.flow.yaml workflow")
    p.add_argument("--executor", metavar="WHERE",
                   help="where the run's agents run: local, ray://HOST:PORT (a Ray cluster "
                        "through Ray Client), ray (the cluster of this machine) or "
                        "ray:HOST:PORT; a node's own executor still wins")
    p.add_argument("--workspace", metavar="DIR", type=_given_folder,
                   help="the folder the nodes work on, instead of the workflow's "
                        "`workspace` or the run's scratch folder; in a git repository "
                        "each node works in its own worktree. A node's own workspace "
                        "still wins")
    _common(p)
    p.set_defaults(handler=run_command)
    r = sub.add_parser("resume", help="continue an interrupted, paused, stopped or failed run",
                       description="Continue a run from its event log (exit codes as `run`). "
                                   "A run paused over budget resumes once a `budget` line on "
                                   "stdin raises the limit that paused it: "
                                   "echo 'budget tokens=N' | agent-canvas resume RUN")
    r.add_argument("run", metavar="RUN", help="run id, unique id prefix, or run folder")
    _common(r)
    r.set_defaults(handler=resume_command)


def _given_folder(value: str) -> str:
    """The argparse type of ``--workspace``: an empty one (an unset shell variable,
    ``--workspace "$REPO"``) would run in the scratch folder as if none were given."""
    if not value.strip():
        raise argparse.ArgumentTypeError("is empty; name the folder the nodes work on (a "
                                         "git repository, usually), or leave --workspace "
                                         "out for the workflow's own")
    return value


def _options(args: argparse.Namespace):
    from desktop.runtime.engine import EngineOptions

    if args.concurrency < 1:
        raise ValueError("--concurrency must be at least 1")
    return EngineOptions(concurrency=args.concurrency, silence_sec=args.silence_sec)


def _override(doc: WorkflowDocument, args: argparse.Namespace) -> None:
    """Apply ``--executor`` and ``--workspace`` to ``doc``; ValueError says what is wrong."""
    if args.executor:
        from desktop.contract.executor import parse_executor_arg

        doc.executor = parse_executor_arg(args.executor)
    if args.workspace:
        folder = Path(args.workspace).expanduser()
        if not folder.is_dir():
            what = "is not a folder" if folder.exists() else "does not exist"
            raise ValueError(f"--workspace {args.workspace}: {folder.absolute()} {what}; "
                             "name the folder (a git repository, usually) the nodes work on")
        doc.workspace = str(folder.resolve())


def run_command(args: argparse.Namespace) -> int:
    """Create a run of FILE and drive it to the end."""
    from desktop.disk import keychain

    if not args.server:  # the run reads the keyring: found while the workflow is checked
        keychain.detect_soon()
    from desktop.cli.workflow_arg import not_a_file
    from desktop.graph.validate import check_file
    from desktop.runtime.recovery import create_run
    from desktop.runtime.run_setup import SetupError

    path = Path(args.file)
    missing = not_a_file(path)
    if missing:
        print(missing, file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        doc, problems = check_file(str(path), lambda doc: _override(doc, args))
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    errors = [p for p in problems if p.is_error]
    for problem in problems:
        print(str(problem), file=sys.stderr)
    if doc is None or errors:
        print(f"{path}: invalid workflow ({plural(len(errors), 'error')}); fix it and run again",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.server:
        from desktop.cli.remote import run_remote

        return run_remote(args, doc, path)
    try:
        engine = create_run(doc, data_dir(args.data_dir), mode=args.mode,
                            global_mode=args.global_mode,
                            workflow_path=str(path.resolve()), options=_options(args))
    except (SetupError, ValueError) as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return asyncio.run(drive(engine, args, after_seq=0))


def resume_command(args: argparse.Namespace) -> int:
    """Resume RUN from its event log and drive it to the end."""
    if args.server:
        from desktop.cli.remote import resume_remote

        return resume_remote(args)
    from desktop.store.runs import RunError, find_run

    try:
        folder = find_run(data_dir(args.data_dir), args.run)
        _options(args)  # a bad option is said before anything else
    except (RunError, ValueError) as exc:
        print(f"resume: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return asyncio.run(_resume(folder, args))


def _over_budget(folder: Path):
    """The limit that paused the run in ``folder`` while it still holds (see
    desktop/cli/budget_gate.py); None when it is paused for anything else, or an engine
    holds it (resuming refuses that by itself)."""
    from desktop.cli.budget_gate import still_over
    from desktop.store.runs import RunError, engine_alive
    from desktop.views.runs import fold_run

    try:
        return None if engine_alive(folder) else still_over(fold_run(folder))
    except RunError:  # resuming says what is wrong with the folder
        return None


async def _resume(folder: Path, args: argparse.Namespace) -> int:
    """Resume the run in ``folder`` and drive it; a run paused over budget only once
    stdin's commands raised the limit (else it is left as it was: exit 3)."""
    from desktop.cli.run_console import StdinLines
    from desktop.runtime.engine import EngineError
    from desktop.runtime.recovery import resume_engine
    from desktop.store.runs import RunError
    from desktop.views.reader import EventReader

    lines = None
    raises: list[str] = []
    then: list[str] = []
    over = _over_budget(folder)
    if over is not None:
        from desktop.cli.budget_gate import read_until_raised
        from desktop.views.runs import fold_run

        if _stdin_open():
            lines = StdinLines(asyncio.get_running_loop())
            if sys.stdin.isatty():
                print(f"{over.text(args.data_dir)}\ntype the `budget` command (or Ctrl-D "
                      "to leave the run paused)", file=sys.stderr, flush=True)
        gate = await read_until_raised(lines, fold_run(folder), over)
        if not gate.opened:
            print(gate.refusal(over, args.data_dir), file=sys.stderr)
            return EXIT_PAUSED
        raises, then = gate.raises, gate.then
    try:
        page = EventReader(folder).page(limit=1)
        after = page.events[-1]["seq"] if page.events else 0
        engine = resume_engine(folder, options=_options(args), mode=args.mode,
                               global_mode=args.global_mode)
    except (RunError, EngineError, ValueError) as exc:
        print(f"resume: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return await drive(engine, args, after_seq=after, lines=lines, first=raises,
                       backlog=then)


def _stdin_open() -> bool:
    return sys.stdin is not None and not sys.stdin.closed


def _live(args: argparse.Namespace) -> bool:
    """Whether the run is shown as the live table (a terminal), not as lines."""
    return not args.json and sys.stdout.isatty()


def _view(engine, args: argparse.Namespace, after_seq: int):
    if _live(args):  # only the table needs rich
        from rich.console import Console as RichConsole

        from desktop.cli.run_table import LiveView

        return LiveView(engine, RichConsole())
    from desktop.cli.run_view import JsonView, PlainView

    return JsonView(engine, after_seq) if args.json else PlainView(engine)


async def drive(engine, args: argparse.Namespace, after_seq: int, lines=None,
                first: list[str] | None = None, backlog: list[str] | None = None) -> int:
    """Run the engine with a view and stdin commands; the exit code. ``lines``: stdin
    already being read; ``first``: command lines run before the engine moves (budget
    raises, or it would pause over budget at once); ``backlog``: lines read before it,
    run ahead of the rest of stdin."""
    from desktop.cli.run_console import Console, StdinLines
    from desktop.cli.run_view import stall_text
    from desktop.runtime import heap

    loop = asyncio.get_running_loop()
    live = _live(args)
    view = _view(engine, args, after_seq)
    heap.settle()  # what is built so far lives as long as the run: out of the collector's way
    engine_task = asyncio.create_task(engine.run())
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, lambda: asyncio.ensure_future(
            engine.stop("interrupted by Ctrl-C")))
        loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(
            engine.stop("terminated")))

    def show() -> None:
        if live:
            from desktop.cli.run_table import status_table

            view.say("")
            view.live.console.print(status_table(engine, view.activity, view.order))
        else:
            view.show_status()

    console = Console(engine, view.say, show)
    typed = view.typed if live else None
    if lines is not None:
        lines.on_line = typed
    elif _stdin_open():
        lines = StdinLines(loop, on_line=typed)
    for line in first or ():
        await console.execute(line)
    commands_done = asyncio.Event()
    if lines is None:
        commands_done.set()

    async def consume() -> None:
        assert lines is not None
        for line in backlog or ():
            await console.execute(line)
        while (line := await lines.queue.get()) is not None:
            await console.execute(line)
        commands_done.set()

    consumer = asyncio.create_task(consume()) if lines else None
    shown_stall: str | None = None
    detached = False
    with view:
        while not engine_task.done():
            await asyncio.wait({engine_task}, timeout=0.05)
            stall = stall_text(engine)
            if stall and stall != shown_stall and not live:
                view.say(stall)
            shown_stall = stall
            if commands_done.is_set() and engine.waiting_for_input():
                if engine.state.status == RunStatus.RUNNING:
                    engine.pause("waiting for input and no commands are left on stdin")
                engine.halt()
                await engine_task
                detached = True
    if consumer is not None:
        consumer.cancel()
    status = engine_task.result()
    with contextlib.suppress(Exception):
        loop.remove_signal_handler(signal.SIGINT)
        loop.remove_signal_handler(signal.SIGTERM)
    if detached:
        from desktop.cli.budget_gate import still_over

        await engine.detach()
        over = still_over(engine.state)
        note = over.text(args.data_dir) if over is not None else \
            f"run {engine.state.id} is paused; continue with " \
            f"{resume_hint(engine.state.id, args.data_dir)}"
        print(note, file=sys.stderr)
        return EXIT_PAUSED
    engine.close()
    _tell_result(engine, args.data_dir)
    if status == RunStatus.FAILED:
        print(f"run {engine.state.id[:8]} failed; once what failed is fixed, "
              f"{resume_hint(engine.state.id, args.data_dir)} takes the failed turn again",
              file=sys.stderr)
    return EXIT.get(RunStatus(status), EXIT_PAUSED)


def _tell_result(engine, folder: str | None) -> None:
    """Say where the finished run's work is (see :func:`tell_result`)."""
    from desktop.runtime.git_run import GitError
    from desktop.runtime.run_result import changed_files
    from desktop.views.result import latest_result_node

    node = latest_result_node(engine.state, engine.run_dir)
    if node is None or node.git is None:
        _tell_scratch_result(engine)
        return
    try:
        count = len(changed_files(Path(node.git.repo), node.git.base, node.git.branch))
    except GitError:  # the repository went away meanwhile: `runs result` will say so
        count = None
    # the commands must find the run where this one put it
    tell_result(node.git.branch, node.key or node.label, node.git.repo, count,
                run_ref(engine.state.id, folder))


def _tell_scratch_result(engine) -> None:
    """A best-of-N run without a git workspace: where its work is (no branch to apply)."""
    from desktop.views.reader import EventReader
    from desktop.views.scratch_result import may_have_scratch_attempts, scratch_result

    if not may_have_scratch_attempts(engine.state):
        return
    found = scratch_result(engine.state, engine.run_dir,
                           EventReader(engine.run_dir).iter_events())
    if found is not None:
        print(f"result: no result branch to apply; {found.text()}", file=sys.stderr)


def tell_result(branch: str, node: str, repo: str, count: int | None, run_ref: str) -> None:
    """Say where a finished run's work is and how to take it, on stderr (stdout may be
    JSON lines): without it a run ends on ``run.completed`` and the user must know that
    a result branch exists and which command applies it. ``run_ref``: the run's short id
    and the options that find it."""
    where = f"result: branch {branch} (node {node}) in {repo}"
    if count == 0:
        print(f"{where}: no change against the run's base", file=sys.stderr)
        return
    files = f", {plural(count, 'file')} changed" if count is not None else ""
    print(f"{where}{files}\n"
          f"  review it: agent-canvas runs result {run_ref}\n"
          f"  take it:   agent-canvas runs apply {run_ref} [--branch NAME] [--check]",
          file=sys.stderr)
