"""Where the shipped resources (role templates, examples, icons) live.

One lookup for every way the app is installed: a source checkout, a wheel with its
data files, and the PyInstaller bundle (packaging/agent-canvas.spec puts
``resources/`` inside the bundle).
"""

import os
import sys
from pathlib import Path

ENV_VAR = "AGENT_CANVAS_RESOURCES"
APP_ICON = "agent-canvas"
"""Base name of the application icon (``icons/agent-canvas.svg``, ``icons/<N>x<N>/...``)."""


def resources_dir() -> Path:
    """The resources folder.

    An explicit ``AGENT_CANVAS_RESOURCES`` wins; then the bundle's own copy when
    frozen; then ``resources/`` next to the ``desktop`` package (a checkout, or an
    install that keeps them together); then ``<prefix>/share/agent-canvas/resources``
    for installed data files.
    """
    override = os.environ.get(ENV_VAR)
    if override and Path(override).is_dir():
        return Path(override)
    bundled = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundled and (Path(bundled) / "resources").is_dir():
        return Path(bundled) / "resources"
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


def icons_dir() -> Path:
    """Folder of the application icon: the SVG and PNGs in ``<N>x<N>/`` folders."""
    return resources_dir() / "icons"


def app_icon_files() -> list[Path]:
    """Every file of the application icon that exists, the scalable one first."""
    folder = icons_dir()
    svg = folder / f"{APP_ICON}.svg"
    pngs = sorted(folder.glob(f"*x*/{APP_ICON}.png"),
                  key=lambda p: int(p.parent.name.partition("x")[0]))
    return [p for p in [svg, *pngs] if p.is_file()]
