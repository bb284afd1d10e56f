"""The scripted agent process (``agent-canvas _scripted-agent``, see desktop/cli/self_launch.py).

Reads its script from $AGENT_CANVAS_SCRIPT, the turn from $AGENT_CANVAS_TURN,
the restart attempt from $AGENT_CANVAS_ATTEMPT, the node's model from
$AGENT_CANVAS_MODEL, the inbox from
$AGENT_CANVAS_INBOX and its run folder from $RUN_FOLDER.
"""

import json
import os
import sys
from pathlib import Path

from desktop.disk.safe_json import loads as safe_loads
from desktop.providers.scripted.agent import ScriptedAgent, ScriptError, inbox_text, select_steps


def _load_json(env_name: str, default):
    path = os.environ.get(env_name)
    if not path:
        return default
    try:
        return safe_loads(Path(path).read_bytes())
    except (OSError, json.JSONDecodeError) as exc:
        raise ScriptError(f"{env_name}={path}: cannot read JSON ({exc})") from exc


def main(argv: list[str] | None = None) -> int:
    """Play this turn's steps; ``argv`` is unused (everything comes from the environment)."""
    try:
        script = _load_json("AGENT_CANVAS_SCRIPT", [])
        items = _load_json("AGENT_CANVAS_INBOX", [])
        turn = int(os.environ.get("AGENT_CANVAS_TURN", "1") or 1)
        attempt = int(os.environ.get("AGENT_CANVAS_ATTEMPT", "1") or 1)
        steps = select_steps(script, turn, attempt, inbox_text(items),
                             os.environ.get("AGENT_CANVAS_MODEL") or None)
    except (ScriptError, ValueError) as exc:
        sys.stderr.write(f"scripted agent: {exc}\n")
        return 2
    run_folder = Path(os.environ.get("RUN_FOLDER") or ".").resolve()
    return ScriptedAgent(run_folder, Path.cwd()).play(steps)


if __name__ == "__main__":
    sys.exit(main())
