"""A workspace that travels: a git bundle out to a worker, a patch back.

No shared filesystem is assumed. At the start of a remote agent run the engine
commits the workspace's current content (tracked, changed and untracked files;
what ``.gitignore`` ignores stays home) as a commit that no branch points to, and
bundles it (:func:`pack`). The worker clones the bundle (:func:`unpack`), the agent
works there, and the change since that commit comes back as a binary patch
(:func:`patch_since`), relative to the workspace folder like a local diff.patch.
The engine applies it (:func:`apply_patch`): all of it or nothing, never merged.

A folder that is not in a git repository travels the same way through a
throwaway git folder, so the user's folder gets no ``.git``. The user's index,
branches and stash are never touched; only the object store gains the snapshot.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from desktop.runtime import helper_process

_IDENTITY = {"GIT_AUTHOR_NAME": "agent-canvas", "GIT_AUTHOR_EMAIL": "agent-canvas@localhost",
             "GIT_COMMITTER_NAME": "agent-canvas",
             "GIT_COMMITTER_EMAIL": "agent-canvas@localhost"}
SHIP_REF = "refs/agent-canvas/turn-start"
"""The ref the bundle carries (the worker's clone checks it out detached)."""


class ShipError(RuntimeError):
    """The workspace could not be packed, unpacked or patched; the text says why."""


def git(cwd: Path, *args: str, env: dict[str, str] | None = None,
        stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    """Run git quietly; (exit code, stdout, stderr). Never prompts, takes no locks it
    does not need."""
    full = dict(os.environ, GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", **_IDENTITY)
    full.update(env or {})
    try:
        proc = helper_process.run(["git", *args], cwd=str(cwd), env=full, input=stdin,
                                  capture_output=True)
    except OSError as exc:
        return 127, b"", str(exc).encode()
    return proc.returncode, proc.stdout, proc.stderr


def _must(result: tuple[int, bytes, bytes], what: str) -> bytes:
    code, out, err = result
    if code != 0:
        why = err.decode("utf-8", "replace").strip().splitlines()
        raise ShipError(f"{what} failed: {why[-1] if why else f'git exit {code}'}")
    return out


@dataclass
class Shipment:
    """One workspace packed for one agent run."""

    workspace: Path
    bundle: bytes
    base: str
    """The commit holding the workspace's content at the turn's start."""
    prefix: str = ""
    """The workspace's folder inside its repository ('' at the top)."""
    top: Path | None = None
    """The repository's top folder (None: a folder outside git)."""
    prerequisite: str | None = None
    """With a thin bundle: the commit the worker's clone must already have."""
    git_env: dict[str, str] = field(default_factory=dict)
    """GIT_DIR/GIT_WORK_TREE of the throwaway git folder of a folder outside git."""
    scratch: Path | None = None
    exclude: bytes = b""
    """The repository's info/exclude, so the worker ignores what the engine ignores."""

    def close(self) -> None:
        """Forget the throwaway git folder, if any."""
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None


def _repo_of(workspace: Path) -> tuple[Path | None, str]:
    code, out, _ = git(workspace, "rev-parse", "--show-toplevel", "--show-prefix")
    if code != 0:
        return None, ""
    lines = out.decode().splitlines()
    return Path(lines[0]), (lines[1] if len(lines) > 1 else "").rstrip("/")


def _tree(cwd: Path, env: dict[str, str], has_head: bool) -> str:
    with tempfile.TemporaryDirectory(prefix="agent-canvas-ship-") as tmp:
        index = dict(env, GIT_INDEX_FILE=str(Path(tmp) / "index"))
        if has_head:
            _must(git(cwd, "read-tree", "HEAD", env=index), "git read-tree")
        _must(git(cwd, "add", "-A", "--", ".", env=index), "git add")
        return _must(git(cwd, "write-tree", env=index), "git write-tree").decode().strip()


def pack(workspace: Path, since: str | None = None) -> Shipment:
    """Bundle the workspace's current content. With ``since`` (a revision the worker's
    clone of the remote repository has), the bundle is thin: only what is newer."""
    workspace = workspace.resolve()
    top, prefix = _repo_of(workspace)
    env: dict[str, str] = {}
    scratch = None
    cwd = workspace
    if top is None:  # not in git: a throwaway git folder beside nothing of the user's
        scratch = Path(tempfile.mkdtemp(prefix="agent-canvas-gitdir-"))
        env = {"GIT_DIR": str(scratch / "git"), "GIT_WORK_TREE": str(workspace)}
        _must(git(workspace, "init", "-q", "--bare", str(scratch / "git")), "git init")
    try:
        has_head = git(cwd, "rev-parse", "--verify", "-q", "HEAD", env=env)[0] == 0
        tree = _tree(cwd, env, has_head)
        parents = ["-p", "HEAD"] if has_head else []
        base = _must(git(cwd, "commit-tree", tree, *parents, "-m",
                         "workspace at the start of an agent turn", env=env),
                     "git commit-tree").decode().strip()
        ref = f"{SHIP_REF}-{uuid.uuid4().hex[:12]}"
        prerequisite = None
        if since:
            prerequisite = _must(git(cwd, "rev-parse", "--verify", f"{since}^{{commit}}",
                                     env=env), f"git rev-parse {since}").decode().strip()
        _must(git(cwd, "update-ref", ref, base, env=env), "git update-ref")
        try:
            with tempfile.TemporaryDirectory(prefix="agent-canvas-bundle-") as tmp:
                target = Path(tmp) / "ws.bundle"
                extra = ["--not", prerequisite] if prerequisite and prerequisite != base else []
                _must(git(cwd, "bundle", "create", "-q", str(target), ref, *extra, env=env),
                      "git bundle create")
                bundle = target.read_bytes()
        finally:
            git(cwd, "update-ref", "-d", ref, env=env)
    except BaseException:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    exclude = b""
    code, out, _ = git(cwd, "rev-parse", "--git-path", "info/exclude", env=env)
    if code == 0:
        with contextlib.suppress(OSError):
            exclude = (cwd / out.decode().strip()).read_bytes()[:65536]
    return Shipment(workspace, bundle, base, prefix, top, prerequisite, env, scratch, exclude)


# --- on the worker -----------------------------------------------------------------------


def unpack(bundle: bytes, base: str, dest: Path, *, prefix: str = "",
           repo: str | None = None, exclude: bytes = b"") -> Path:
    """Clone the bundle (on top of ``repo`` for a thin one) into ``dest`` at ``base``;
    returns the workspace folder inside the clone."""
    dest.mkdir(parents=True, exist_ok=True)
    if repo:
        code, _, err = git(dest.parent, "clone", "-q", "--no-checkout", repo, str(dest))
        if code != 0:
            why = err.decode("utf-8", "replace").strip().splitlines()
            raise ShipError(f"cannot clone {repo} on the worker: {why[-1] if why else code}")
    else:
        _must(git(dest, "init", "-q"), "git init")
    with tempfile.NamedTemporaryFile(prefix="agent-canvas-", suffix=".bundle") as handle:
        handle.write(bundle)
        handle.flush()
        code, _, err = git(dest, "fetch", "-q", handle.name, f"+{SHIP_REF}-*:{SHIP_REF}-*")
        if code != 0:
            why = err.decode("utf-8", "replace").strip()
            if "prerequisite" in why or "missing" in why.lower():
                raise ShipError(f"the workspace's commit is not in {repo}: push it there, or "
                                "drop executor.repo so the whole workspace travels")
            raise ShipError(f"git fetch of the workspace bundle failed: {why}")
    _must(git(dest, "checkout", "-q", "--detach", base), "git checkout")
    if exclude:
        info = dest / ".git" / "info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "exclude").write_bytes(exclude)
    folder = dest / prefix if prefix else dest
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def patch_since(folder: Path, base: str) -> bytes:
    """The change of ``folder`` since commit ``base`` (changed, new and deleted files,
    binary-safe), with paths relative to ``folder``."""
    with tempfile.TemporaryDirectory(prefix="agent-canvas-ship-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _must(git(folder, "read-tree", base, env=env), "git read-tree")
        _must(git(folder, "add", "-A", "--", ".", env=env), "git add")
        tree = _must(git(folder, "write-tree", env=env), "git write-tree").decode().strip()
    return _must(git(folder, "diff", "--binary", "--no-color", "--no-ext-diff", "--relative",
                     base, tree), "git diff")


# --- back on the engine --------------------------------------------------------------------


def apply_patch(shipment: Shipment, patch: bytes) -> str | None:
    """Apply a worker's patch to the workspace, all of it or nothing; None when it
    applied, else why not (git's own words)."""
    if not patch.strip():
        return None
    if shipment.top is not None:
        cwd, extra = shipment.top, ([f"--directory={shipment.prefix}"] if shipment.prefix
                                    else [])
    else:
        cwd, extra = shipment.workspace, []
    code, _, err = git(cwd, "apply", "--binary", "--whitespace=nowarn", *extra, "-",
                       stdin=patch)
    if code == 0:
        return None
    lines = [ln for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
    return lines[0].removeprefix("error: ") if lines else f"git apply exit {code}"


def change_since_start(shipment: Shipment) -> bytes:
    """What changed in the engine's workspace since the shipment was packed (by other
    turns), relative to the workspace folder."""
    env = shipment.git_env
    has_head = git(shipment.workspace, "rev-parse", "--verify", "-q", "HEAD", env=env)[0] == 0
    with contextlib.suppress(ShipError):
        tree = _tree(shipment.workspace, env, has_head)
        return _must(git(shipment.workspace, "diff", "--binary", "--no-color", "--no-ext-diff",
                         "--relative", shipment.base, tree, env=env), "git diff")
    return b""
