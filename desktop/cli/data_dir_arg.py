"""The ``--data-dir`` option of the commands that read or write runs, on its own so that
a light command adds it without importing the ``runs`` command's tables."""

from __future__ import annotations

import argparse


def add_data_dir(p: argparse.ArgumentParser, *, suppress: bool = False) -> None:
    """Add ``--data-dir`` (shared by run commands)."""
    p.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS if suppress else None,
                   help="data folder (default: $AGENT_CANVAS_DATA_DIR or the platform's)")
