"""A node as the judge of a best-of-N turn: it reads the attempts and names the winner.

The attempts (each one's output and diff) reach the judge node as an inbox item; the
scheduler gives it a turn like any other, so its turn is in the log, gated and
budgeted as usual. Its answer names the winner by number (desktop/runtime/judge_answer.py:
a last line ``choice: N`` as it is asked to, else the last attempt a choosing phrase
names, else the first number that is an attempt that can win). The judged node gives up
its turn slot while it waits, so a run with one slot judges too.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.contract.attempts import AttemptSummary, ChoiceRequest
from desktop.contract.base import new_id, utc_now
from desktop.runtime.judge_answer import CHOICE_WORD, named_attempt

if TYPE_CHECKING:
    from desktop.runtime.engine import Engine

DIFF_SHOWN = 20_000
"""How much of each attempt's diff the judge's prompt holds."""


class JudgeFailed(RuntimeError):
    """The judge's turn ended without naming an attempt that can win."""


def _diff(run_dir: Path, attempt: AttemptSummary) -> str:
    if not attempt.diff_path:
        return "(no change)"
    try:
        text = (run_dir / attempt.diff_path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(the diff could not be read)"
    cut = f"\n... ({len(text) - DIFF_SHOWN} more characters)" if len(text) > DIFF_SHOWN else ""
    return (text[:DIFF_SHOWN] + cut) or "(no change)"


def judge_text(node: str, request: ChoiceRequest, run_dir: Path) -> str:
    """The judge's inbox item: the attempts' outputs and diffs, and how to answer."""
    winners = request.choosable()
    parts = [f"Judge the {len(request.attempts)} attempts of {node}'s turn: say why, then "
             f"end your answer with the line `{CHOICE_WORD}: N`, N the number of the "
             f"attempt that should go on ({', '.join(map(str, winners))})."]
    for attempt in request.attempts:
        state = "" if attempt.ok else f" (failed: {attempt.error}; it cannot win)"
        parts.append(f"## Attempt {attempt.index}{state}\n\nOutput:\n{attempt.output or '-'}"
                     f"\n\nDiff:\n{_diff(run_dir, attempt)}")
    return "\n\n".join(parts)


def _output(run_dir: Path, completed: dict[str, Any]) -> str:
    agent_run = completed.get("agentRunId")
    path = run_dir / "agents" / str(agent_run) / "output.md" if agent_run else None
    if path is not None and path.is_file():
        return path.read_text(encoding="utf-8", errors="replace")
    return str(completed.get("outputHead") or "")


async def ask(engine: Engine, judge_id: str, node: str, request: ChoiceRequest) -> int:
    """Give ``judge_id`` a turn on the attempts and wait for it; the attempt it names.
    JudgeFailed when its turn fails or names none."""
    item_id = new_id()
    turns: set[str] = set()
    verdict: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    def heard(events: list[dict[str, Any]]) -> None:
        for event in events:
            if event.get("type") != "turn.status" or event.get("nodeId") != judge_id \
                    or verdict.done():
                continue
            status = event.get("status")
            if status == "started" and item_id in (event.get("inboxItemIds") or []):
                turns.add(str(event.get("turnId")))
            elif event.get("turnId") in turns and status == "completed":
                verdict.set_result(event)
            elif event.get("turnId") in turns and status == "failed":
                verdict.set_exception(JudgeFailed(f"the judge's turn failed: "
                                                  f"{event.get('reason') or '?'}"))

    stop_listening = engine.recorder.listen(heard)
    try:
        engine.recorder.emit({"type": "inbox.queued", "item": {
            "id": item_id, "kind": "user", "text": judge_text(node, request, engine.run_dir),
            "queuedAt": utc_now()}}, judge_id)
        engine.recorder.flush()
        completed = await verdict
    finally:
        stop_listening()
    answer = await asyncio.to_thread(_output, engine.run_dir, completed)
    winners = request.choosable()
    chosen = named_attempt(answer, winners)
    if chosen is None:
        raise JudgeFailed(f"the judge named no attempt that can win "
                          f"({', '.join(map(str, winners))}); its answer began "
                          f"{answer.strip()[:80]!r}")
    return chosen


__all__ = ["JudgeFailed", "ask", "judge_text", "named_attempt"]
