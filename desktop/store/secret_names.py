"""The user's own secret-name patterns: ``$AGENT_CANVAS_SECRET_NAMES`` and
``DATA_DIR/secret-names.txt`` (see desktop/contract/secrets.py for the rules)."""

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from desktop.contract.secrets import ENV_SECRET_NAMES, SECRET_NAMES_FILE, parse_patterns


def user_patterns(data_dir: Path | None = None,
                  environ: Mapping[str, str] | None = None) -> list[str]:
    """Patterns from the environment variable, then from the data folder's file."""
    environ = os.environ if environ is None else environ
    patterns = parse_patterns(environ.get(ENV_SECRET_NAMES, ""))
    if data_dir is not None:
        with contextlib.suppress(OSError):
            patterns += parse_patterns((Path(data_dir) / SECRET_NAMES_FILE).read_text(
                encoding="utf-8", errors="replace"))
    return patterns
