"""One artifact of a run over REST, by its id: what a client on another machine needs to
show a turn's ``diff.patch`` or ``output.md`` without the service's disk.

Only files the run's own ``artifact.created`` events name are served, and only inside the
run's folder (a symlink pointing out of it is refused), so the endpoint cannot be turned
into a reader of arbitrary files. A file larger than :data:`MAX_ARTIFACT_BYTES` comes back
cut, with ``truncated`` set, so one huge diff cannot hold the service's memory.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from desktop.api.api_error import ApiError
from desktop.api.runs import RunService

MAX_ARTIFACT_BYTES = 8 * 1024 * 1024
"""The most of one artifact a response carries."""


def _read(path: Path, limit: int) -> tuple[bytes, int]:
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
        size = fh.seek(0, 2)
    return data, size


async def artifact(service: RunService, run_id: str, artifact_id: str) -> dict[str, Any]:
    """Artifact ``artifact_id`` of run ``run_id`` with its text: 404 when the run has no
    such artifact or its file is gone."""
    folder = service.run_dir(run_id).resolve()
    found = ((await service.state(run_id)).get("artifacts") or {}).get(artifact_id)
    if not isinstance(found, dict):
        raise ApiError(404, "artifact_not_found",
                       f"run {run_id} has no artifact {artifact_id!r}", "artifactId")
    path = (folder / str(found.get("path") or "")).resolve()
    if not path.is_relative_to(folder) or not path.is_file():
        raise ApiError(404, "artifact_missing",
                       f"the file of artifact {artifact_id} is not in the run's folder "
                       f"any more ({found.get('path')})", "artifactId")
    try:
        data, size = await asyncio.to_thread(_read, path, MAX_ARTIFACT_BYTES)
    except OSError as exc:
        raise ApiError(404, "artifact_missing",
                       f"the file of artifact {artifact_id} cannot be read: {exc}",
                       "artifactId") from None
    truncated = len(data) > MAX_ARTIFACT_BYTES
    return {"id": artifact_id, "kind": found.get("kind"), "path": found.get("path"),
            "nodeId": found.get("nodeId"), "size": size, "truncated": truncated,
            "text": data[:MAX_ARTIFACT_BYTES].decode("utf-8", "replace")}
