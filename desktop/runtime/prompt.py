"""The prompt of one agent run, built from blocks (prompt.blocks.json, prompt.full.txt).

Block order: restart prefix (on restarts), protocol preamble, role template,
global-mode rules, node instructions, one block per inbox item, then a merge left
conflicted for the agent (its branches, files and hunks), if there is one.
"""

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from desktop.contract.protocol_env import JRUN_NAMES
from desktop.wording import plural

RESTART_PREFIX = "Continue working on the following:\n\n"

PREAMBLE_ORDER = (
    "TASK_FOLDER", "RUN_FOLDER", "JRUN_PROJECT_ID", "JRUN_TASK_ID", "JRUN_ID", "JRUN_PARENT_ID",
    "MESSAGE_BUS", "CONDUCTOR_URL",
)

MODE_RULES = {
    "PLANNING": (
        "Global mode: PLANNING. Investigate, plan and explain. Do not change files, do not run "
        "commands that modify anything, and do not start work that would; such tool calls are "
        "denied in this mode. Put your plan in output.md."
    ),
    "IMPLEMENTATION": (
        "Global mode: IMPLEMENTATION. You may change files in your workspace and run commands, "
        "within the capabilities of your role."
    ),
}


@dataclass
class PromptBlock:
    kind: str  # restart | preamble | role | globalMode | instructions | inbox | merge
    title: str
    text: str


def preamble(env: Mapping[str, str], run_folder: str, bus_command: str) -> str:
    """The protocol preamble: locations, ids, output and message-bus and DONE instructions."""
    lines = [f"{name}={env[name]}" for name in PREAMBLE_ORDER if env.get(name)]
    newer = [f"{new} (= {old})" for old, new in JRUN_NAMES.items() if env.get(old)]
    if newer:
        lines.append("The same values are also set under conductor-loop's newer names: "
                     + ", ".join(newer) + ".")
    lines += [
        f"Write output.md to {run_folder}/output.md",
        "",
        "Message bus: post progress, facts, errors, decisions and questions for the other "
        "agents and the user with",
        f'  {bus_command} --type PROGRESS "what you did or found"',
        "(types: PROGRESS, FACT, ERROR, DECISION, QUESTION). To hand your result to another "
        f'node, add --handoff NODE, e.g. {bus_command} --type FACT --handoff reviewer "ready".',
        "",
        f"When the task is complete, create the file {run_folder}/DONE (its content does not "
        "matter). Without it the task counts as unfinished and may be restarted.",
    ]
    return "\n".join(lines)


def role_block(role_name: str) -> PromptBlock:
    """The role template's instructions and constraints."""
    from desktop.graph.roles import RoleFileError, RoleNotFoundError, load_role

    try:
        role = load_role(role_name)
    except (RoleNotFoundError, RoleFileError):
        return PromptBlock("role", f"Role: {role_name}", f"# Role: {role_name}")
    text = f"# Role: {role.title}\n\n{role.instructions.strip()}"
    if role.constraints:
        text += "\n\nConstraints:\n" + "\n".join(f"- {c}" for c in role.constraints)
    return PromptBlock("role", f"Role: {role.title}", text)


def _item_block(item: Mapping[str, Any]) -> PromptBlock:
    kind = str(item.get("kind", "task"))
    envelope = item.get("envelope") or {}
    payload = envelope.get("payload") or {}
    sender = envelope.get("fromNodeId") or item.get("from")
    titles = {
        "task": "Task",
        "user": "Message from the user",
        "handoff": f"Handoff from {sender}" if sender else "Handoff",
        "report": f"Report from {sender}" if sender else "Report",
    }
    title = titles.get(kind, kind.capitalize())
    parts = [t for t in (str(item.get("text") or ""), str(payload.get("message") or "")) if t]
    if len(parts) == 2 and parts[0] == parts[1]:
        parts.pop()
    if payload.get("structured"):
        parts.append("Structured data:\n" + json.dumps(payload["structured"], indent=2,
                                                       ensure_ascii=False, sort_keys=True))
    status = payload.get("status")
    if isinstance(status, dict) and (status.get("ok") is False or status.get("reason")):
        parts.append(f"Status: {'ok' if status.get('ok', True) else 'not ok'}"
                     + (f" ({status['reason']})" if status.get("reason") else ""))
    artifacts = payload.get("artifacts") or []
    if artifacts:
        parts.append("Artifacts:\n" + "\n".join(
            f"- {a.get('type', '?')}: {a.get('ref', '')}" for a in artifacts if isinstance(a, dict)
        ))
    if item.get("restart"):
        parts.append("(This item was interrupted before and is given to you again.)")
    return PromptBlock("inbox", title, f"## {title}\n\n" + ("\n\n".join(parts) or "(empty)"))


def build_blocks(
    *,
    role_name: str,
    instructions: str,
    global_mode: str,
    items: list[Mapping[str, Any]],
    restart: bool,
    preamble_text: str,
    extra: list[PromptBlock] | None = None,
) -> list[PromptBlock]:
    """Every block of the prompt, in order (``extra``: blocks after the inbox's)."""
    blocks: list[PromptBlock] = []
    if restart:
        blocks.append(PromptBlock("restart", "Restart", RESTART_PREFIX))
    blocks.append(PromptBlock("preamble", "Run context", preamble_text))
    blocks.append(role_block(role_name))
    mode = str(global_mode or "IMPLEMENTATION")
    blocks.append(PromptBlock("globalMode", f"Global mode: {mode}",
                              MODE_RULES.get(mode, f"Global mode: {mode}.")))
    if instructions.strip():
        blocks.append(PromptBlock("instructions", "Node instructions",
                                  "## Instructions\n\n" + instructions.strip()))
    blocks.extend(_item_block(item) for item in items)
    blocks.extend(extra or [])
    return blocks


MAX_MERGE_PROMPT_CHARS = 40_000


def merge_block(request: Mapping[str, Any], prefix: str = "") -> PromptBlock:
    """The conflict a merge left for the agent: what to do, the files and their hunks
    (``request``: the MergeRequest of the files left; ``prefix``: the agent's folder
    below the repository's top)."""
    files = request.get("files") or []
    where = (f" (paths from the repository's top; your folder is {prefix}/ in it)"
             if prefix else "")
    lines = [
        "## Merge conflict", "",
        f"Before this turn, merging {request.get('source')} (the work "
        f"{request.get('sender') or 'another node'} sent, commit "
        f"{str(request.get('commit'))[:12]}) into your branch {request.get('target')} "
        "stopped at conflicts. The merge is under way in your working folder: each file "
        "below has conflict markers (<<<<<<< your side, ||||||| the base, =======, "
        ">>>>>>> theirs).", "",
        "Resolve every conflict: edit each file so it keeps what both sides meant and no "
        "marker line is left, then carry on with your task. Do not commit, abort or reset "
        "the merge: when you finish, your changes are committed as the merge.", "",
        f"Conflicting files{where}:"]
    for entry in files:
        hunks = entry.get("hunks") or []
        note = "binary" if entry.get("binary") else plural(len(hunks), "conflict")
        if not entry.get("ours", True):
            note += ", deleted on your side"
        if not entry.get("theirs", True):
            note += ", deleted on theirs"
        lines.append(f"- {entry.get('path')} ({note})")
    for entry in files:
        for hunk in entry.get("hunks") or []:
            lines += ["", f"### {entry.get('path')}, line {hunk.get('line')}", "",
                      "Yours:", "```", str(hunk.get("ours", "")).rstrip("\n"), "```",
                      "Theirs:", "```", str(hunk.get("theirs", "")).rstrip("\n"), "```"]
    text = "\n".join(lines)
    if len(text) > MAX_MERGE_PROMPT_CHARS:
        text = text[:MAX_MERGE_PROMPT_CHARS] + "\n\n(more in the files themselves)"
    return PromptBlock("merge", "Merge conflict", text)


def render(blocks: list[PromptBlock]) -> str:
    """The full prompt text: blocks separated by a blank line."""
    out = []
    for block in blocks:
        text = block.text if block.text.endswith("\n\n") else block.text.rstrip("\n") + "\n\n"
        out.append(text)
    return "".join(out).rstrip("\n") + "\n"


def blocks_json(blocks: list[PromptBlock]) -> list[dict[str, str]]:
    return [asdict(b) for b in blocks]
