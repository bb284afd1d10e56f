"""Whether a name the user gave can be a new branch of their repository, said before
anything is made: a name git refuses, one it would read as something else, one taken,
and one that clashes with a branch's folder (git keeps ``a`` and ``a/b`` as a file and a
folder, so they cannot both be).

Blocking (it runs git): callers run it on a worker thread.
"""

from __future__ import annotations

import re
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


_PSEUDO = re.compile(r"[A-Z_]*HEAD")
"""HEAD, ORIG_HEAD, FETCH_HEAD, MERGE_HEAD...: names git reads in its own folder first."""


def check_unambiguous(repo: Path, name: str) -> None:
    """BadBranchName when git would read ``name`` as another ref than the new branch: a
    full ref name (``refs/heads/main`` would make ``refs/heads/refs/heads/main``), a tag,
    a remote's branch, or one of git's own names, as git looks a name up (git-rev-parse(1),
    "SPECIFYING REVISIONS"). Every git command naming it would then warn or pick the other."""
    if _PSEUDO.fullmatch(name):
        raise BadBranchName(f"{name} is a name git keeps for itself; choose another name "
                            "(nothing was changed)")
    looks = [f"refs/{name}", f"refs/tags/{name}", f"refs/remotes/{name}",
             f"refs/remotes/{name}/HEAD", *([name] if name.startswith("refs/") else [])]
    listed = git(repo, "for-each-ref", "--format=%(refname)", *looks)
    found = [r for r in (listed.text.splitlines() if listed.ok else []) if r in looks]
    if found or name.startswith("refs/"):
        why = (f"{found[0]} exists in {repo}, and git would read the name as that or "
               "warn on every use" if found else
               f"a branch of that name would be refs/heads/{name}")
        raise BadBranchName(f"{name} cannot name a new branch: {why}; choose another name, "
                            f"e.g. {EXAMPLE} (nothing was changed)")


_SIGNS = (" ", "..", "~", "^", ":", "?", "*", "[", "\\", "@{", "//")
"""What git refuses anywhere in a branch's name (git-check-ref-format(1))."""


def _what_is_wrong(name: str) -> str:
    """Which of git's rules ``name`` breaks, in words ("" when none of those said here)."""
    sign = next((s for s in _SIGNS if s in name), None)
    parts = name.split("/")
    return (": it is empty" if not name
            else f": it has {'a space' if sign == ' ' else repr(sign)}" if sign
            else ": it starts with '-'" if name.startswith("-")
            else ": HEAD is git's own name for the commit checked out" if name == "HEAD"
            else ": it starts or ends with '/'" if "" in parts
            else ": it ends with '.'" if name.endswith(".")
            else ": a part of it starts with '.'" if any(p.startswith(".") for p in parts)
            else ": a part of it ends with '.lock'" if any(p.endswith(".lock") for p in parts)
            else "")


def check_format(where: Path, name: str) -> None:
    """BadBranchName, saying what is wrong, unless git accepts ``name`` as a branch's
    name (taken or not); git runs in folder ``where`` (any folder: a repository's own
    settings do not change the rule)."""
    check_printable(name)
    # --branch is git's own rule for `git branch NAME` (no "HEAD", no leading "-"), but it
    # expands @{-1} to the branch checked out before; the full ref name must pass as well
    if (not name or name.startswith("-")
            or not git(where, "check-ref-format", "--branch", name).ok
            or not git(where, "check-ref-format", f"refs/heads/{name}").ok):
        raise BadBranchName(f"{name!r} is not a branch name git accepts"
                            f"{_what_is_wrong(name)}; try e.g. {EXAMPLE}")


def check_new_branch(repo: Path, name: str) -> None:
    """BadBranchName unless ``name`` can be made as a new branch of ``repo``."""
    check_format(repo, name)
    if git(repo, "rev-parse", "--verify", "-q", f"refs/heads/{name}").ok:
        raise BadBranchName(f"branch {name} already exists in {repo}; choose another name "
                            "(nothing was changed)")
    check_unambiguous(repo, name)
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
