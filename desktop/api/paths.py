"""Which files a request may name: workflow paths must resolve inside an allowed folder."""

from __future__ import annotations

from pathlib import Path

from desktop.api.api_error import ApiError


class AllowedRoots:
    """Folders a ``workflowPath`` may resolve into (after following every symlink).

    Relative paths are taken relative to ``base`` (the service's working folder
    at start). A path outside every root is refused with 403 before anything
    about it (even whether it exists) is told.
    """

    def __init__(self, roots: list[Path], base: Path) -> None:
        self.base = Path(base).resolve()
        self.roots: list[Path] = []
        for root in roots:
            resolved = Path(root).resolve()
            if resolved not in self.roots:
                self.roots.append(resolved)

    def workflow_file(self, raw: str, field: str = "workflowPath") -> Path:
        """The resolved workflow file ``raw`` names; ApiError when not allowed or missing."""
        if "\x00" in raw:
            raise ApiError(422, "invalid_path", "the path contains a NUL character", field)
        path = Path(raw)
        if not path.is_absolute():
            path = self.base / path
        try:
            real = path.resolve()
        except (OSError, RuntimeError, ValueError):  # a symlink loop, an odd name
            raise ApiError(403, "path_not_allowed", self._refusal(raw), field) from None
        if not self.allows(real):
            raise ApiError(403, "path_not_allowed", self._refusal(raw), field)
        try:
            found = real.is_file()
        except OSError as exc:  # a name too long for the file system (ENAMETOOLONG)
            raise ApiError(422, "invalid_path", f"{raw[:120]}: not a file name this system "
                           f"accepts ({exc.strerror or exc})", field) from None
        if not found:
            what = ("is a folder, not a workflow file — give the path of a *.flow.yaml file "
                    "inside it") if real.is_dir() else "no such workflow file"
            raise ApiError(422, "workflow_not_found", f"{raw}: {what}", field)
        return real

    def allows(self, real: Path) -> bool:
        """True when the resolved path ``real`` is inside one of the roots."""
        return any(real == root or real.is_relative_to(root) for root in self.roots)

    def _refusal(self, raw: str) -> str:
        roots = ", ".join(str(r) for r in self.roots)
        return (f"{raw}: workflow files must be inside an allowed folder ({roots}); "
                f"start `agent-canvas serve --workflow-root DIR` to allow another")


def recorded_path(raw: str) -> str:
    """A document's own path, recorded but not read: it must be absolute and plain."""
    if "\x00" in raw or not Path(raw).is_absolute():
        raise ApiError(422, "invalid_path", "workflowPath must be an absolute path when a "
                       "workflow document is sent with it", "workflowPath")
    return str(Path(raw))
