"""A pull request of a run's result: push the branch made by applying it, open it with ``gh``.

Only a branch that applying this run's result made (its ``applied.json``) is pushed: a
request naming another branch of the user's (``main``, their work in progress) is
refused, whoever sent it. The pull request lists the files that branch carries, as its
application recorded them: the files the user rejected are not in it, nor is a change
their HEAD already had.

Offered only when the repository has a remote and the GitHub CLI is installed. The
branch is pushed by name without setting an upstream (the user's config is theirs);
``gh pr create`` runs in the repository with the user's own environment, so their
``gh auth`` is what it uses. Blocking: callers run these on a worker thread.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from desktop.runtime.branch_name import check_printable
from desktop.runtime.git_base import run8
from desktop.runtime.git_run import GitError, git, must
from desktop.runtime.run_result import ResultError, RunResult, changed_files
from desktop.store.applied import read_applied
from desktop.wording import plural

_TIMEOUT = 180.0
"""Seconds the push, and then gh, may take: a remote that never answers fails the request
instead of holding its worker thread for good."""


def _remotes(repo: Path) -> list[str]:
    found = git(repo, "remote")
    return found.text.split() if found.ok else []


def pull_request_blocker(repo: Path) -> str | None:
    """Why no pull request can be opened from ``repo`` (None: it can)."""
    if not _remotes(repo):
        return "the repository has no remote to push to"
    if shutil.which("gh") is None:
        return "the GitHub CLI (gh) is not installed"
    return None


def made_branches(result: RunResult) -> dict[str, dict[str, Any]]:
    """The branches applying the run's result made, each with the latest application
    that made it (its applied.json record: the files and the commit)."""
    return {record["branch"]: record for record in read_applied(result.run_dir)
            if record.get("target") == "branch" and isinstance(record.get("branch"), str)}


_LISTED = 100
"""Most files the pull request's body names."""


def _carried(result: RunResult, record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The files the branch's commit carries, each with its change (added, modified...)
    against the commit it was made on; the record's files, as applying wrote them."""
    paths = [p for p in record.get("files") or [] if isinstance(p, str)]
    status = {f.path: f.status for f in result.files}
    commit = record.get("commit")
    if isinstance(commit, str):
        parent = git(result.repo, "rev-parse", "--verify", "-q", f"{commit}^1")
        try:  # a branch made on an unborn HEAD has no parent: against the empty tree
            made_on = parent.text if parent.ok else must(result.repo, "mktree", stdin=b"")
            status.update({f.path: f.status
                           for f in changed_files(result.repo, made_on, commit)})
        except GitError:  # its commit is gone: the result's words for each file
            pass
    return [(p, status.get(p, "changed")) for p in paths]


def _body(result: RunResult, record: Mapping[str, Any]) -> str:
    carried = _carried(result, record)
    files = "\n".join(f"- `{path}` ({change})" for path, change in carried[:_LISTED])
    more = f"\n- ... and {len(carried) - _LISTED} more" if len(carried) > _LISTED else ""
    return (f"The result of Agent Canvas run `{result.run_id}`: branch `{result.branch}` "
            f"(node {result.node}), as applied: {plural(len(carried), 'file')} of the "
            f"{plural(len(result.files), 'file')} it changed.\n\n{files}{more}\n")


def open_pull_request(result: RunResult, branch: str, title: str | None = None,
                      made: Mapping[str, Mapping[str, Any]] | None = None) -> tuple[str, str]:
    """Push ``branch`` and open a pull request of it; its url and the remote pushed to.
    ResultError saying why not (no remote, no gh, no such branch, one the run's result
    did not make, a push or gh failure). ``made``: :func:`made_branches`, read by a
    caller that holds the run's lock (the run may be deleted while this pushes)."""
    check_printable(branch)
    blocker = pull_request_blocker(result.repo)
    if blocker:
        raise ResultError(f"cannot open a pull request: {blocker}")
    if not git(result.repo, "rev-parse", "--verify", "-q", f"refs/heads/{branch}").ok:
        raise ResultError(f"branch {branch} is not in {result.repo}; apply the result as a "
                          "branch first (runs apply RUN --branch NAME)")
    made = made_branches(result) if made is None else made
    if branch not in made:
        # the user's own branches (main, work in progress) are not this request's to push
        raise ResultError(f"branch {branch} was not made from run {run8(result.run_id)}'s "
                          "result; apply the result as a branch first (runs apply "
                          f"{run8(result.run_id)} --branch NAME) and open that one")
    remotes = _remotes(result.repo)
    remote = "origin" if "origin" in remotes else remotes[0]
    pushed = git(result.repo, "push", "--quiet", remote,
                 f"refs/heads/{branch}:refs/heads/{branch}", terminal=True,
                 timeout=_TIMEOUT)
    if not pushed.ok:
        raise ResultError(f"git push {remote} {branch} failed: {pushed.reason()}")
    gh = shutil.which("gh") or "gh"
    title = title or f"Agent Canvas: result of run {run8(result.run_id)} ({result.node})"
    try:
        made = subprocess.run([gh, "pr", "create", "--head", branch, "--title", title,
                               "--body", _body(result, made[branch])], cwd=result.repo,
                              env=dict(os.environ, GH_PROMPT_DISABLED="1"),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ResultError(f"gh pr create failed: {exc}") from None
    lines = made.stdout.strip().splitlines()
    if made.returncode != 0 or not lines:
        why = (made.stderr.strip().splitlines() or [f"exit {made.returncode}"])[-1]
        raise ResultError(f"gh pr create failed: {why}")
    return lines[-1].strip(), remote
