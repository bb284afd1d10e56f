"""Whether a name the user gave can be a new branch of their repository, said before
anything is made: a name git refuses, one it would read as something else, one taken,
and one that clashes with a branch's folder (git keeps ``a`` and ``a/b`` as a file and a
folder, so they cannot both be).

Blocking (it runs git): callers run it on a worker thread.
"""

from __future__ import annotations

from pathlib import Path

from desktop.runtime.git_run import git
from desktop.runtime.run_result import ResultError

EXAMPLE = "agent-canvas/result"


class BadBranchName(ResultError):
    """The name given for a new branch cannot be one; the message says why and what to
    give instead."""


def check_printable(name: str) -> None:
    """BadBranchName when ``name`` has a control character: git refuses every one, and a
    NUL cannot even be passed to it."""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise BadBranchName(f"{name!r} has a control character (NUL, newline, tab...), "
                            f"which no branch name may have; try e.g. {EXAMPLE}")


def check_new_branch(repo: Path, name: str) -> None:
    """BadBranchName unless ``name`` can be made as a new branch of ``repo``."""
    check_printable(name)
    # --branch is git's own rule for `git branch NAME` (no "HEAD", no leading "-"), but it
    # expands @{-1} to the branch checked out before; the full ref name must pass as well
    if (name.startswith("-") or not git(repo, "check-ref-format", "--branch", name).ok
            or not git(repo, "check-ref-format", f"refs/heads/{name}").ok):
        raise BadBranchName(f"{name!r} is not a branch name git accepts; try e.g. {EXAMPLE}")
    if git(repo, "rev-parse", "--verify", "-q", f"refs/heads/{name}").ok:
        raise BadBranchName(f"branch {name} already exists in {repo}; choose another name "
                            "(nothing was changed)")
    # one look at the branches a and a/b (for a/b/c) and those under a/b/c/: git keeps
    # a branch as a file, so none of them can be there with it
    parts = name.split("/")
    above = ["/".join(parts[:end]) for end in range(1, len(parts))]
    listed = git(repo, "for-each-ref", "--format=%(refname)",
                 *(f"refs/heads/{a}" for a in above), f"refs/heads/{name}/")
    refs = set(listed.text.splitlines()) if listed.ok else set()
    for a in above:
        if f"refs/heads/{a}" in refs:
            raise BadBranchName(f"branch {a} exists in {repo}, so there can be no branch "
                                f"{name} below it; choose another name (e.g. {a}-result; "
                                "nothing was changed)")
    below = sorted(r.removeprefix("refs/heads/") for r in refs
                   if r.startswith(f"refs/heads/{name}/"))
    if below:
        raise BadBranchName(f"branch {below[0]} exists in {repo}, so {name} cannot be a "
                            "branch as well; choose another name (nothing was changed)")
