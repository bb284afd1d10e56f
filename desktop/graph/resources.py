"""Where the shipped resources (role templates, examples, icons) live."""

import os
import sys
from pathlib import Path

ENV_VAR = "AGENT_CANVAS_RESOURCES"


def resources_dir() -> Path:
    """The resources folder.

    An explicit ``AGENT_CANVAS_RESOURCES`` wins; then ``resources/`` next to the
    ``desktop`` package (a checkout, or an install that keeps them together);
    then ``<prefix>/share/agent-canvas/resources`` for installed data files.
    """
    override = os.environ.get(ENV_VAR)
    if override and Path(override).is_dir():
        return Path(override)
    beside = Path(__file__).resolve().parents[2] / "resources"
    if beside.is_dir():
        return beside
    shared = Path(sys.prefix) / "share" / "agent-canvas" / "resources"
    if shared.is_dir():
        return shared
    return beside


def roles_dir() -> Path:
    """Folder of role templates (``<name>.yaml``)."""
    return resources_dir() / "roles"


def examples_dir() -> Path:
    """Folder of example workflows (``*.flow.yaml``)."""
    return resources_dir() / "examples"
