"""The command line that runs an agent inside its node's sandbox.

Backend ``process`` (Linux): bubblewrap around the agent's whole process tree. The
filesystem is read-only except the node's workspace (or its write roots), the agent
run folder, the run's message bus and a private /tmp; ``network: false`` gives it a
fresh network namespace (only its own loopback); a new PID namespace ends every
process of the tree when the agent ends. Memory and CPU rlimits are set inside, by
``prlimit`` just before the agent starts. The timeout and the memory of the whole tree
are watched by the supervisor (desktop/runtime/agent_run.py, memory_watch.py).

A node that asks for ``process`` where bubblewrap cannot run is refused with
:class:`SandboxUnavailable`; it never runs unsandboxed instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from desktop.cli.self_launch import self_command
from desktop.contract.sandbox import NETWORK_PROVIDERS, Sandbox, SandboxBackend
from desktop.runtime import helper_process
from desktop.runtime.worktree_list import linked_git_dir

FIX_INSTALL = ("install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; "
               "`make test` does it), or set the node's sandbox.backend to none")
STATE_DIRS = {"CLAUDE_CONFIG_DIR": ".claude", "CODEX_HOME": ".codex", "GEMINI_DIR": ".gemini"}
"""Where the agent CLIs keep their session state (env override, else under HOME)."""
STATE_FILES = (".claude.json",)
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
"""The folder ``desktop`` is imported from (agents we launch run from it)."""


class SandboxUnavailable(RuntimeError):
    """The node's sandbox cannot be set up here; the message names the node and the fix."""


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot sandbox an agent on this machine, or None when it can."""
    if not sys.platform.startswith("linux"):
        return (f"the process sandbox needs Linux with bubblewrap; this is {sys.platform}. "
                "Set the node's sandbox.backend to none")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return f"bubblewrap (bwrap) is not installed: {FIX_INSTALL}"
    try:
        probe = helper_process.run(
            [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
             "--unshare-net", "--unshare-pid", "--tmpfs", "/tmp", "true"],
            capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap does not run here ({exc}); {FIX_INSTALL}"
    if probe.returncode != 0:
        why = probe.stderr.decode("utf-8", "replace").strip().splitlines()
        return (f"bubblewrap cannot create its namespaces here ({why[-1] if why else 'exit '}"
                f"{'' if why else probe.returncode}); allow unprivileged user namespaces "
                "(sysctl kernel.unprivileged_userns_clone=1) or set sandbox.backend to none")
    return None


def refusal(node: str, provider: str, sandbox: Sandbox | None) -> str | None:
    """Why node ``node`` must not start with this sandbox, or None when it may."""
    if sandbox is None or not sandbox.isolated:
        return None
    if not sandbox.network and provider in NETWORK_PROVIDERS:
        return (f"node {node!r}: provider {provider!r} needs the network to reach its model, "
                "and network: false would block that too (a sandbox cannot let only the "
                "model's endpoint through cleanly); set sandbox.network: true, or use a "
                "scripted or command node")
    problem = bwrap_problem()
    if problem is not None:
        return f"node {node!r} asks for sandbox backend 'process', but {problem}"
    return None


def rlimit_prefix(sandbox: Sandbox | None) -> list[str]:
    """``prlimit`` setting the memory (RLIMIT_DATA: what a process may write; RLIMIT_AS
    would also count the address space Node reserves and never uses) and CPU limits."""
    if sandbox is None:
        return []
    limits = sandbox.limits
    options = []
    if limits.max_memory_mb is not None:
        options.append(f"--data={limits.max_memory_mb * 1024 * 1024}")
    if limits.max_cpu_sec is not None:
        # soft < hard: SIGXCPU at the limit, SIGKILL a second later if it is ignored
        options.append(f"--cpu={limits.max_cpu_sec}:{limits.max_cpu_sec + 1}")
    if not options:
        return []
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return self_command("_rlimit-exec", *options, "--")
    return [prlimit, *options, "--"]


@dataclass
class SandboxLaunch:
    """How one agent process of a node is launched; :meth:`wrap` builds the command."""

    sandbox: Sandbox
    workspace: Path
    agent_folder: Path
    message_bus: Path | None = None
    seen_env: dict[str, str] = field(default_factory=dict)
    """The environment the agent was started with (filled by :meth:`wrap`)."""

    @property
    def isolated(self) -> bool:
        return self.sandbox.backend == SandboxBackend.PROCESS

    def writable(self) -> list[Path]:
        """The workspace roots the agent may write (the workspace when none are named)."""
        roots = self.sandbox.write_roots or ["."]
        return [(self.workspace / root) for root in roots]

    def wrap(self, argv: Sequence[str], env: Mapping[str, str]) -> tuple[list[str], dict[str, str]]:
        """The command line and environment that run ``argv`` inside the sandbox."""
        env = dict(env)
        inner = [*rlimit_prefix(self.sandbox), *argv]
        if not self.isolated:
            self.seen_env = env
            return inner, env
        env["TMPDIR"] = "/tmp"
        self.seen_env = env
        return [*self._bwrap(env), "--", *inner], env

    def _bwrap(self, env: Mapping[str, str]) -> list[str]:
        bwrap = shutil.which("bwrap") or "bwrap"
        args = [bwrap, "--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/",
                "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        if not self.sandbox.network:
            args.append("--unshare-net")
        for path in self._visible_paths(env):  # a workspace under /tmp stays visible
            args += ["--ro-bind", str(path), str(path)]
        for path in self._writable_paths(env):
            args += ["--bind", str(path), str(path)]
        for root in self.sandbox.read_only_roots:
            path = self.workspace / root
            if path.exists():
                args += ["--ro-bind", str(path), str(path)]
        return [*args, "--chdir", str(self.workspace)]

    def _visible_paths(self, env: Mapping[str, str]) -> list[Path]:
        """Read-only places under /tmp the private /tmp would otherwise hide.

        Besides the workspace and HOME: the interpreter's prefixes and the folder
        this package is imported from, because the agents we launch ourselves (the
        scripted agent, ``bus post``) run from them, and a checkout or venv may
        well live under /tmp.
        """
        found = [self.workspace, Path(env["HOME"]) if env.get("HOME") else None,
                 Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent,
                 _PACKAGE_ROOT, *git_folders(self.workspace)]
        paths = [p.resolve() for p in found
                 if p is not None and p.is_dir() and p.resolve().is_relative_to("/tmp")]
        return list(dict.fromkeys(paths))

    def _writable_paths(self, env: Mapping[str, str]) -> list[Path]:
        paths = []
        for root in self.writable():
            root.mkdir(parents=True, exist_ok=True)
            paths.append(root)
        paths.append(self.agent_folder)
        if self.message_bus is not None and self.message_bus.is_file():
            # the agent protocol's channel: `agent-canvas bus post` appends under this lock
            lock = self.message_bus.with_name(self.message_bus.name + ".lock")
            lock.touch(exist_ok=True)
            paths += [self.message_bus, lock]
        paths += _agent_state(env)
        return list(dict.fromkeys(p.resolve() for p in paths))


def git_folders(folder: Path) -> list[Path]:
    """The repository the checkout ``folder`` is in, as the sandbox shows it (read only):
    the checkout's top, or for a linked worktree (a node's) the repository's checkout,
    whose ``.git`` holds the worktree's own git folder. Inside the sandbox an agent runs
    ``git status``, ``diff`` and ``log``, and cannot write the user's repository (its
    files, refs and hooks); a turn's commit is the engine's."""
    for place in (folder, *folder.parents):
        dot = place / ".git"
        if dot.is_dir():
            return [place]
        gitdir = linked_git_dir(place) if dot.is_file() else None
        if gitdir is None:
            continue
        try:  # a linked worktree's git folder names the repository's in ``commondir``
            common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip())
        except OSError:
            return [gitdir]
        common = common.resolve()
        return [common.parent if common.name == ".git" else common]
    return []


def _agent_state(env: Mapping[str, str]) -> list[Path]:
    """The agent CLIs' own state folders and files that exist (they write there)."""
    home = env.get("HOME")
    found = []
    for var, name in STATE_DIRS.items():
        path = env.get(var) or (os.path.join(home, name) if home else None)
        if path and Path(path).exists():
            found.append(Path(path))
    for name in STATE_FILES:
        if home and (Path(home) / name).exists():
            found.append(Path(home) / name)
    return found
