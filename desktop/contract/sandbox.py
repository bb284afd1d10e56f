"""A node's sandbox: where its agent may write, whether it reaches the network, its limits.

``writeRoots`` and ``readOnlyRoots`` are relative to the node's workspace (the agent's
working folder, ``.`` in its runner record). With no write roots the whole workspace is
writable; with some, only they are (plus the agent run folder, the run's message bus and
a private /tmp). ``readOnlyRoots`` stay read-only inside the writable ones (e.g. ``.git``).
"""

from enum import StrEnum
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated

from pydantic import AfterValidator, Field

from desktop.contract.base import ContractModel


class SandboxBackend(StrEnum):
    """``none``: the agent runs as the user does; ``process``: under bubblewrap (Linux)."""

    NONE = "none"
    PROCESS = "process"


def check_relative_root(value: str) -> str:
    """``value`` as a clean relative POSIX path; ValueError saying why it is not one."""
    text = value.strip()
    if not text:
        raise ValueError("a root must not be empty; use '.' for the whole workspace")
    if text.startswith(("/", "\\", "~")) or PureWindowsPath(text).drive:
        raise ValueError(f"{value!r} is absolute; give a path relative to the node's "
                         "workspace (e.g. 'build')")
    parts = PurePosixPath(text.replace("\\", "/")).parts
    if ".." in parts:
        raise ValueError(f"{value!r} leaves the workspace ('..'); name a folder inside it")
    root = PurePosixPath(*parts).as_posix() if parts else "."
    if PureWindowsPath(root).drive:  # "./A:" normalises to "A:", a drive once more
        raise ValueError(f"{value!r} is absolute; give a path relative to the node's "
                         "workspace (e.g. 'build')")
    # "a/ / " strips to "a/ /", whose normal form "a/ " strips again: repeat until stable
    return root if root == root.strip() else check_relative_root(root)


RelativeRoot = Annotated[str, AfterValidator(check_relative_root)]

NETWORK_PROVIDERS = ("claude", "codex", "gemini", "acp")
"""Providers whose agent must reach its model over the network (no ``network: false``)."""
DEFAULT_TIMEOUT_SEC = 600.0
DEFAULT_MAX_OUTPUT_FILES = 500
DEFAULT_MAX_OUTPUT_MB = 50.0


class SandboxLimits(ContractModel):
    """Limits of a sandboxed agent: the timeout and memory/CPU are enforced on its whole
    process tree; the output limits bound what it prints and the files it changes."""

    timeout_sec: float = Field(DEFAULT_TIMEOUT_SEC, alias="timeoutSec", gt=0)
    max_memory_mb: int | None = Field(None, alias="maxMemoryMb", gt=0)
    max_cpu_sec: int | None = Field(None, alias="maxCpuSec", gt=0)
    max_output_files: int = Field(DEFAULT_MAX_OUTPUT_FILES, alias="maxOutputFiles", gt=0)
    max_output_mb: float = Field(DEFAULT_MAX_OUTPUT_MB, alias="maxOutputMb", gt=0)


class Sandbox(ContractModel):
    """The ``sandbox`` of a node config."""

    backend: SandboxBackend = SandboxBackend.NONE
    network: bool = True
    write_roots: list[RelativeRoot] = Field(default_factory=list, alias="writeRoots")
    read_only_roots: list[RelativeRoot] = Field(default_factory=list, alias="readOnlyRoots")
    limits: SandboxLimits = Field(default_factory=SandboxLimits)

    @property
    def isolated(self) -> bool:
        """Whether the agent runs inside a sandbox process (not just under limits)."""
        return self.backend == SandboxBackend.PROCESS
