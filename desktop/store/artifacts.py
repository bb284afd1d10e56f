"""Artifact paths are stored relative to the run folder, so a copied run folder still opens."""

import os
from pathlib import Path, PurePosixPath

from desktop.contract.state import Artifact


def relative_artifact_path(run_dir: Path, abs_path: str | os.PathLike[str]) -> str:
    """``abs_path`` relative to ``run_dir`` with forward slashes.

    A file outside the run folder cannot move with it; its absolute path is returned.
    """
    root = Path(run_dir).resolve()
    target = Path(abs_path)
    target = (root / target if not target.is_absolute() else target).resolve()
    try:
        return PurePosixPath(*target.relative_to(root).parts).as_posix()
    except ValueError:
        return target.as_posix()


def artifact_path(run_dir: Path, artifact: Artifact | dict) -> Path:
    """Where ``artifact`` is on disk now (relative paths resolve against ``run_dir``)."""
    path = artifact.path if isinstance(artifact, Artifact) else str(artifact["path"])
    p = Path(*PurePosixPath(path).parts) if not Path(path).is_absolute() else Path(path)
    return p if p.is_absolute() else Path(run_dir) / p
