"""``agent-canvas normalize --provider claude|codex|gemini FILE``: a recorded agent
stream as contract events, one JSON object per line.

Exit codes: 0 done (problems in the stream are reported as events; a stream no line of
which the provider's reader recognises gets a note naming the provider that does), 2 bad
input (an empty file, or one with no JSON object on any line).
"""

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from desktop.cli.stream_guess import unrecognised
from desktop.contract.base import new_id, utc_now
from desktop.providers.parsers import PARSERS, parser_for
from desktop.providers.parsers.common import NIL_RUN_ID
from desktop.wording import plural


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``normalize`` subcommand."""
    p = sub.add_parser("normalize", help="turn a recorded agent stream into contract events")
    p.add_argument("file", type=Path, metavar="FILE", help="the agent's stdout (JSON lines); "
                   "- reads standard input")
    add_provider_arg(p)
    p.add_argument("--run-id", default=None, help="run id to stamp on the events")
    p.add_argument("--node-id", default=None, help="node id to stamp on the events")
    p.set_defaults(handler=cmd_normalize)


def add_provider_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--provider", required=True, choices=sorted(PARSERS),
                   help="which agent wrote the stream")


def read_lines(path: Path) -> Iterator[bytes]:
    """The file's lines as bytes (invalid UTF-8 is the parser's business)."""
    if str(path) == "-":
        yield from sys.stdin.buffer
        return
    with open(path, "rb") as handle:
        yield from handle


def normalize(provider: str, lines: Iterator[bytes], run_id: str | None = None,
              node_id: str | None = None) -> tuple[list[dict[str, Any]], Any]:
    """Complete contract events for a recorded stream, and the parser (for its summary)."""
    rid = run_id or NIL_RUN_ID
    parser = parser_for(provider, run_id=rid)
    partials: list[dict[str, Any]] = []
    for line in lines:
        partials += parser.feed(line)
    partials += parser.finish()
    events = []
    for partial in partials:
        event = {"id": new_id(), "runId": rid, "ts": utc_now(), **partial}
        if node_id:
            event["nodeId"] = node_id
            if event["type"] == "artifact.created":
                event["artifact"] = {**event["artifact"], "nodeId": node_id}
        events.append(event)
    return events, parser


def not_a_stream_file(path: Path) -> str | None:
    """Why ``path`` cannot be opened as a recorded stream (a folder, or nothing there), or
    None when it can be tried: a folder is told as one, not as missing or unreadable."""
    if str(path) == "-" or path.is_file():
        return None
    if path.is_dir():
        return (f"{path}: is a folder, not a file; give the file the agent's stdout "
                "(JSON lines) was saved in")
    if not path.exists():
        return f"{path}: no such file"
    return None  # a FIFO or a device: reading it says what is wrong


def stream_problem(path: Path, parser: Any) -> str | None:
    """Why the stream in ``path`` is not an agent's JSON-lines output at all, or None."""
    if parser.lines == 0:
        return f"{path}: the file is empty; give the agent's stdout (JSON lines)"
    if parser.objects == 0:
        return (f"{path}: none of its {plural(parser.lines, 'line')} is a JSON object; is it the "
                "stdout of a claude, codex or gemini run with JSON output?")
    return None


def cmd_normalize(args: argparse.Namespace) -> int:
    problem = not_a_stream_file(args.file)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        events, parser = normalize(args.provider, read_lines(args.file), args.run_id,
                                   args.node_id)
    except OSError as exc:
        print(f"error: {args.file}: cannot read ({exc.strerror or exc})", file=sys.stderr)
        return 2
    problem = stream_problem(args.file, parser)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    out = sys.stdout.buffer
    for event in events:
        out.write(orjson.dumps(event) + b"\n")
    out.flush()
    # the raw lines are still what was asked for; the note says why nothing else came
    mismatch = unrecognised(args.file, args.provider, events, parser.objects)
    if mismatch:
        print(f"note: {mismatch}", file=sys.stderr)
    if parser.unparsed:
        print(f"note: {plural(parser.unparsed, 'line')} "
              f"{'was' if parser.unparsed == 1 else 'were'} not JSON (kept as node.log events)",
              file=sys.stderr)
    if parser.malformed:
        print(f"note: {plural(parser.malformed, 'line')} had fields of the wrong type (kept as "
              "agent.raw events whose note names the field)", file=sys.stderr)
    return 0
