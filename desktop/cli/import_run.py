"""``agent-canvas import --provider P FILE``: a recorded agent stream becomes a run.

The run has one node (the agent), one turn holding the stream's events, and
ends completed or failed as the stream did; the GUI and ``runs`` open it like
any other run. The file is kept as the turn's ``agent-stdout.txt``. Everything written
goes through the same redaction as a live run's (the secrets of this environment and
the keyring, by the user's patterns too): a recorded stream holds what its agent saw.
"""

import argparse
import sys
from pathlib import Path

from desktop.cli.normalize import (
    add_provider_arg,
    normalize,
    not_a_stream_file,
    read_lines,
    stream_problem,
)
from desktop.cli.runs import add_data_dir
from desktop.cli.stream_guess import unrecognised
from desktop.contract.base import new_id, utc_now
from desktop.disk.atomic import atomic_write_bytes, atomic_write_text
from desktop.disk.keychain import keyring_env
from desktop.disk.paths import data_dir, runs_dir
from desktop.providers.redact import Redactor
from desktop.store.eventlog import EventLog
from desktop.store.snapshot import write_snapshot
from desktop.views.state import RunProjection


def given_stream(value: str) -> Path:
    """The argparse type of FILE: an empty one (an unset shell variable) would be read as
    the current folder, so it is refused as a usage error."""
    if not value.strip():
        raise argparse.ArgumentTypeError("is empty; give the file the agent's stdout (JSON "
                                         "lines) was saved in")
    return Path(value)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``import`` subcommand."""
    p = sub.add_parser("import", help="make a run from a recorded agent stream")
    p.add_argument("file", type=given_stream, metavar="FILE",
                   help="the agent's stdout (JSON lines)")
    add_provider_arg(p)
    p.add_argument("--label", default=None, help="node label (default: the file name)")
    add_data_dir(p)
    p.set_defaults(handler=cmd_import)


class ImportRefused(ValueError):
    """The file is not an agent stream at all; no run was made."""


def import_stream(provider: str, path: Path, data: Path, label: str | None = None) -> Path:
    """Write a run folder for the stream in ``path``; returns the folder."""
    run_id, node_id, turn_id, agent_run_id = new_id(), new_id(), new_id(), new_id()
    events, parser = normalize(provider, read_lines(path), run_id, node_id)
    problem = stream_problem(path, parser) or unrecognised(path, provider, events,
                                                            parser.objects)
    if problem:
        raise ImportRefused(problem)
    redactor = Redactor.from_env(keyring_env(), data_dir=data)
    run_dir = runs_dir(data) / run_id
    agent_dir = run_dir / "agents" / f"imported-{agent_run_id[:8]}"
    agent_dir.mkdir(parents=True)
    # the whole file at once: a secret split across lines or chunks is still found
    atomic_write_bytes(agent_dir / "agent-stdout.txt", redactor.data(path.read_bytes()))
    if parser.final_text:
        atomic_write_text(agent_dir / "output.md", redactor.text(parser.final_text))
    name = label or path.name
    node = {"id": node_id, "runId": run_id, "key": "agent", "label": name,
            "provider": provider, "entry": True}
    failed = parser.error is not None
    ts = utc_now()
    head = [
        {"type": "run.created", "workflowName": f"import of {path.name}", "task": "",
         "nodes": {node_id: node}, "nodeConfigs": {node_id: {}}, "edges": {}},
        {"type": "run.started"},
        {"type": "turn.status", "nodeId": node_id, "status": "started", "turnId": turn_id,
         "agentRunId": agent_dir.name},
    ]
    end = {"type": "turn.status", "nodeId": node_id, "turnId": turn_id,
           "agentRunId": agent_dir.name, "status": "failed" if failed else "completed",
           "exitCode": 1 if failed else 0}
    if failed:
        end["reason"] = f"{parser.error['category']}: {parser.error['message']}"
    tail = [end, {"type": "run.failed" if failed else "run.completed",
                  "reason": "imported stream"}]
    log = EventLog.open(run_dir)
    try:
        for event in [*head, *events, *tail]:
            log.append(redactor.event({"id": new_id(), "runId": run_id, "ts": ts, **event}))
        written = log.flush()
    finally:
        log.close()
    write_snapshot(run_dir, RunProjection.of(written).model())
    return run_dir


def cmd_import(args: argparse.Namespace) -> int:
    if not args.file.is_file():  # it is copied into the run: a FIFO or - will not do
        problem = not_a_stream_file(args.file) or (
            f"{args.file}: not a regular file; give the file the agent's stdout (JSON "
            "lines) was saved in")
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        run_dir = import_stream(args.provider, args.file, data_dir(args.data_dir), args.label)
    except OSError as exc:
        print(f"error: {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except ImportRefused as exc:
        print(f"error: {exc}; no run was made", file=sys.stderr)
        return 2
    print(run_dir.name)
    return 0
