"""A run's base commit in the user's repository: their HEAD plus everything uncommitted.

The user's working tree, index, HEAD and branches are never touched. The commit is
built through a private index (``GIT_INDEX_FILE``) seeded from a copy of theirs, so
git's cached file stats make ``git add -A`` quick and what they staged is kept:

1. copy their index to a temporary file (or start empty: a repository with no commit
   and nothing staged has none);
2. ``git add -A`` into it: changed, deleted and untracked files, ignored ones left out
   (and the run folder, when it lies inside the repository);
3. ``git write-tree``, then ``git commit-tree -p HEAD`` (no parent when HEAD is unborn).

An untracked file larger than :data:`BIG_UNTRACKED` stays out of a run's base, and so
out of every node's worktree: a dataset or a build product nobody ignored would be
copied into the repository's objects and into each worktree (a 300 MB file made a
one-second run take twelve, and each node's worktree 287 MB). The base's message names
what was left out (``Left out: <path>`` lines), and each node's first turn says so in
its log (:func:`left_out_note`). A file the user staged is theirs to carry: it stays in.
So, for the same reasons, does a folder that holds no tracked file and more than
:data:`MANY_UNTRACKED` untracked ones (``Left out: venv/``): a Python virtual
environment or a ``node_modules`` nobody ignored, thousands of files copied into every
worktree (and a virtual environment's scripts name its own folder, not the copy's).

``refs/canvas/<run8>/base`` keeps the commit reachable (``git gc`` would drop a commit
no ref names), and is how a resumed run, or its next node, finds the same base. The
only things the repository gains are objects and refs under ``refs/canvas/`` and
``refs/heads/canvas/``.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from desktop.runtime.git_run import GitError, GitResult, git, must
from desktop.wording import plural

BIG_UNTRACKED = 50 * 1024 * 1024
"""Bytes above which an untracked file stays out of a run's base."""
MANY_UNTRACKED = 1000
"""Untracked files above which a folder that holds no tracked file stays out of a run's
base (a virtual environment, a ``node_modules`` nobody ignored)."""
LEFT_OUT = "Left out: "
"""How the base's message names each file left out of it."""
_SHOWN = 5
_DATA_ENTRIES = ("runs", "worktree-pool", "recovery", "server.json", "server.lock",
                 "service.log", "ui-settings.ini")
"""What Agent Canvas keeps in its data folder (desktop/disk/paths.py)."""


def run8(run_id: str) -> str:
    """The first 8 characters of a run id: its short name in branches and refs."""
    return run_id[:8]


def run_refs(run_id: str) -> tuple[str, str]:
    """The prefixes of every ref run ``run_id`` makes: its branches, and its own refs (its
    base, the applications kept for undo). Deleting the run deletes all of them."""
    return f"refs/heads/canvas/{run8(run_id)}/", f"refs/canvas/{run8(run_id)}/"


def base_ref(run_id: str) -> str:
    """The ref that keeps run ``run_id``'s base commit."""
    return f"refs/canvas/{run8(run_id)}/base"


def applied_refs(run_id: str) -> str:
    """The prefix of the refs that keep, for undo, each application of run ``run_id``'s
    result onto the working tree (``<prefix><n>``, n from 1)."""
    return f"refs/canvas/{run8(run_id)}/applied/"


def left_out_lines(left_out: list[str]) -> str:
    """The lines of a base commit's message that name the files left out of it."""
    return "".join(f"{LEFT_OUT}{path}\n" for path in left_out if "\n" not in path)


def _message(run_id: str, left_out: list[str]) -> str:
    return (f"Agent Canvas: base of run {run8(run_id)}\n\n"
            "The repository's HEAD plus the uncommitted and untracked changes at the start "
            f"of the run.\n\nRun: {run_id}\n{left_out_lines(left_out)}")


def big_untracked(top: Path, exclude: list[Path] | None = None) -> list[str]:
    """What of the repository at ``top`` stays out of a run's base, as paths from its
    top: the untracked files (ignored ones aside) larger than :data:`BIG_UNTRACKED`, and
    the wholly untracked folders (``PATH/``) holding more than :data:`MANY_UNTRACKED` of
    them. ``exclude``: folders to leave out of the look."""
    listed = git(top, "ls-files", "--others", "--exclude-standard", "-z", "--", ":/",
                 *_excluded(top, exclude or []))
    if not listed.ok:
        return []
    paths = [p for p in listed.out.decode("utf-8", "surrogateescape").split("\0") if p]
    folders = _crowded(top, paths)
    big = []
    for path in paths:
        if folders and any(path.startswith(folder) for folder in folders):
            continue
        try:
            if (top / path).lstat().st_size > BIG_UNTRACKED:
                big.append(path)
        except OSError:  # removed meanwhile
            continue
    return folders + big


def _crowded(top: Path, untracked: list[str]) -> list[str]:
    """The outermost folders (``PATH/``) holding more than :data:`MANY_UNTRACKED` of the
    ``untracked`` files and no tracked file (a tracked file's change must stay in)."""
    limit = MANY_UNTRACKED
    if len(untracked) <= limit:
        return []
    counts: Counter[str] = Counter()
    for path in untracked:
        parts = path.split("/")[:-1]
        counts.update("".join(f"{part}/" for part in parts[:depth + 1])
                      for depth in range(len(parts)))
    many = sorted((folder for folder, count in counts.items() if count > limit), key=len)
    if not many:
        return []
    tracked = git(top, "ls-files", "-z", "--", *(f":(top,literal){f}" for f in many))
    if not tracked.ok:
        return []
    holding = tracked.out.decode("utf-8", "surrogateescape").split("\0")
    chosen: list[str] = []
    for folder in many:  # outermost first: one inside a chosen one goes with it
        if any(folder.startswith(outer) for outer in chosen):
            continue
        if not any(path.startswith(folder) for path in holding if path):
            chosen.append(folder)
    return sorted(chosen)


def written_in(path: str, written: set[str] | list[str]) -> bool:
    """Whether any of the ``written`` files is ``path``, or lies in it (a ``PATH/``
    folder that :func:`big_untracked` left out)."""
    if not path.endswith("/"):
        return path in written
    return any(file.startswith(path) for file in written)


def left_out_of(message: str) -> list[str]:
    """The files a base commit's ``message`` says were left out of it."""
    return [line.removeprefix(LEFT_OUT) for line in message.splitlines()
            if line.startswith(LEFT_OUT)]


def left_out_note(left_out: list[str]) -> str | None:
    """What a node's log says of the files left out of its run's base; None for none."""
    if not left_out:
        return None
    shown = ", ".join(left_out[:_SHOWN]) + (f" and {len(left_out) - _SHOWN} more"
                                            if len(left_out) > _SHOWN else "")
    folders = sum(1 for path in left_out if path.endswith("/"))
    files = len(left_out) - folders
    what = [f"{plural(files, 'untracked file')} larger than "
            f"{BIG_UNTRACKED // (1024 * 1024)} MiB"] if files else []
    what += [f"{plural(folders, 'untracked folder')} of more than "
             f"{plural(MANY_UNTRACKED, 'file')}"] if folders else []
    make = (" (or, for installed packages, a setup command that installs them: "
            "`worktreeSetup: {run: npm ci}`)") if folders else ""
    return (f"{' and '.join(what)} left out of this run's worktrees ({shown}): each would "
            "be copied into the repository's objects and every worktree. An agent that "
            f"needs one gets it with `worktreeSetup: {{copy: [PATH]}}`{make}, or once you "
            "commit or stage it")


def _excluded(top: Path, folders: list[Path]) -> list[str]:
    """Pathspecs leaving out ``folders`` (run folders) that lie inside the repository,
    with all of Agent Canvas's own there (:func:`_own_paths`). One git names those
    the user ignores: git adds the rest, but fails the whole ``add`` when an exclusion
    names an ignored path (and ignored, they stay out anyway)."""
    inside: dict[str, None] = {}
    root = top.resolve()
    for path in (own for folder in folders for own in _own_paths(folder)):
        try:
            relative = path.resolve().relative_to(root)
        except ValueError:
            continue
        if relative.parts:
            inside.setdefault(relative.as_posix(), None)
    if not inside:
        return []
    listed = git(top, "check-ignore", "-z", "--stdin", stdin="\0".join(inside).encode())
    ignored = set(listed.out.decode("utf-8", "surrogateescape").split("\0"))
    return [f":(exclude,top,literal){path}" for path in inside if path not in ignored]


def _own_paths(run_dir: Path) -> list[Path]:
    """What must stay out of a base captured while ``run_dir`` works: the run folder,
    and, when it is one of a data folder's runs (DATA/runs/ID), that data folder: a data
    folder inside the repository (a home folder under git holds the default one) would
    put other runs' logs, the worktree pool and the service's token file into every
    worktree. A data folder that is the repository's top itself: its own entries."""
    if run_dir.parent.name != "runs":
        return [run_dir]
    data = run_dir.parent.parent
    return [run_dir, data, *(data / name for name in _DATA_ENTRIES)]


def _tree(top: Path, index: Path, exclude: list[str]) -> str | GitResult:
    """The tree of everything in the repository (but ``exclude``), else git's failure."""
    added = git(top, "add", "-A", "--sparse", "--", ":/", *exclude, index=str(index))
    if not added.ok:
        return added
    result = git(top, "write-tree", index=str(index))
    return result.text if result.ok and result.text else result


def capture(top: Path, message: str, exclude: list[Path] | None = None,
            leave_out: Sequence[str] = ()) -> str:
    """A commit of the repository at ``top`` as it stands, uncommitted changes included
    (but ``leave_out``, paths from its top); GitError when git cannot make one."""
    theirs = Path(must(top, "rev-parse", "--path-format=absolute", "--git-path", "index"))
    specs = _excluded(top, exclude or []) + [f":(exclude,top,literal){path}"
                                             for path in leave_out]
    head = git(top, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    with tempfile.TemporaryDirectory(prefix="agent-canvas-base-") as tmp:
        index = Path(tmp) / "index"
        if theirs.is_file():
            # with its time: git rechecks an entry as new as its index ("racy git"); a
            # newer copy would vouch for a change made in the same clock tick
            shutil.copy2(theirs, index)
        tree = _tree(top, index, specs)
        if not isinstance(tree, str) and head.ok:  # an index git cannot read as a copy
            # (a split index): from HEAD's instead
            index.unlink(missing_ok=True)
            must(top, "read-tree", "HEAD", index=str(index))
            tree = _tree(top, index, specs)
    if not isinstance(tree, str):
        raise GitError(f"git could not record the content of {top} ({_errors(tree)}); fix "
                       "what git names (a folder git must leave alone goes in .gitignore), "
                       f"then run again: `git -C {top} add --dry-run -A` says the same "
                       "without changing anything")
    parents = ["-p", head.text] if head.ok else []
    return must(top, "commit-tree", tree, *parents, "-m", message)


def _errors(result: GitResult) -> str:
    """Every ``error:`` and ``fatal:`` line git printed (the first names the file, the
    last only that adding failed), else its reason."""
    lines = [line.strip() for line in result.err.decode("utf-8", "replace").splitlines()
             if line.startswith(("error:", "fatal:"))]
    return "; ".join(lines) if lines else result.reason()


def ensure_base(top: Path, run_id: str,
                exclude: list[Path] | None = None) -> tuple[str, list[str]]:
    """Run ``run_id``'s base commit in the repository at ``top``: the one its ref names,
    else captured now and named; with the files left out of it (:func:`left_out_of`).
    Callers hold the repository's lock (worktrees.py)."""
    ref = base_ref(run_id)
    # one git process for the commit and its message: every node's worktree asks
    found = git(top, "log", "-1", "--format=%H%n%B", f"{ref}^{{commit}}", "--")
    if found.ok and found.text:
        commit, _, body = found.text.partition("\n")
        if f"Run: {run_id}" not in body:
            raise GitError(f"{ref} in {top} belongs to another run whose id also starts "
                           f"with {run8(run_id)}; delete that run (or the ref) and retry")
        return commit, left_out_of(body)
    left_out = big_untracked(top, exclude)
    commit = capture(top, _message(run_id, left_out), exclude, left_out)
    # the empty old value: create the ref only if no other process made it meanwhile
    made = git(top, "update-ref", "-m", "agent-canvas: run base", ref, commit, "")
    if not made.ok:
        again = git(top, "log", "-1", "--format=%H%n%B", f"{ref}^{{commit}}", "--")
        if not again.ok or not again.text:
            raise GitError(f"git update-ref {ref} in {top} failed: {made.reason()}")
        commit, _, body = again.text.partition("\n")
        return commit, left_out_of(body)
    return commit, left_out
