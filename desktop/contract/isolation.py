"""How a node's changes are kept apart from the other nodes' (``isolation``).

In a workflow, ``isolation`` is set for the whole run and may be overridden per node
(``nodeConfigs.<id>.isolation``)::

    isolation: worktree      # each node in its own git worktree, on its own branch
    isolation: shared        # every node works in the workspace itself (as before)

Unset, a node whose configured ``workspace`` is a git repository gets ``worktree``;
a node in a folder that is not a git repository, and a node in the run's scratch
folder, work there directly (``shared``). Asked for explicitly, ``worktree`` also
applies to the scratch folder (a git repository the run makes in its own folder): each
node then gets a worktree of it, as it would of the user's repository.

With ``worktree`` a node works in ``runs/<runId>/worktrees/<node>`` on branch
``canvas/<first 8 of the run id>/<node>``; every node of the run starts from one base
commit (the user's HEAD plus their uncommitted and untracked changes), kept reachable
by ``refs/canvas/<run8>/base``. :class:`NodeGit` is what the run records of it.
"""

import os
from enum import StrEnum

from pydantic import ConfigDict, Field, field_validator

from desktop.contract.base import ContractModel
from desktop.contract.sandbox import RelativeRoot


class Isolation(StrEnum):
    """``worktree``: a git worktree and branch per node; ``shared``: the workspace itself."""

    WORKTREE = "worktree"
    SHARED = "shared"


class NodeGit(ContractModel):
    """Where a node isolated in a git worktree works (``NodeState.git``)."""

    repo: str = Field(description="The top folder of the user's repository (absolute).")
    common_dir: str = Field(alias="commonDir",
                            description="The repository's git folder (absolute), where its "
                                        "objects, branches and worktrees are kept.")
    branch: str = Field(description="The node's branch, e.g. canvas/1a2b3c4d/implementer.")
    base: str = Field(description="The run's base commit in this repository.")
    worktree: str = Field(description="The node's worktree, relative to the run folder.")
    workdir: str = Field(description="The node's working folder (its workspace inside the "
                                     "worktree), relative to the run folder.")
    head: str | None = Field(None, pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$",
                             description="The node's commit when its worktree was last made "
                                         "ready for a turn (its senders' branches merged); the "
                                         "commit of each of its turns is on the turn's diff "
                                         "artifact. A fork starts the node from the later of "
                                         "the two.")
    ahead: int | None = Field(None, ge=0,
                              description="How many commits the node's branch is ahead of "
                                          "the run's base (git rev-list --count "
                                          "BASE..BRANCH), as of its last commit or merge; "
                                          "None: not counted yet.")


class WorktreeSetup(ContractModel):
    """What a node's new worktree gets before its first turn
    (``nodeConfigs.<id>.worktreeSetup``): a worktree holds the repository's tracked and
    untracked files, not the ignored ones a project needs to build or run (``.env``,
    ``node_modules``, a virtualenv)."""

    model_config = ConfigDict(extra="forbid")  # a misspelt key must not pass unnoticed

    copy_: list[RelativeRoot] = Field(
        default_factory=list, alias="copy",
        description="Files or folders of the node's workspace, relative to it, copied into "
                    "the worktree (those the repository ignores, e.g. .env); one already in "
                    "the worktree is left as it is.")
    run: str | None = Field(
        None, description="A shell command run in the worktree's working folder once the "
                          "copies are made, e.g. `npm ci`; the node's turn fails if it "
                          "fails.")

    @property
    def empty(self) -> bool:
        """Nothing to copy and nothing to run."""
        return not self.copy_ and not self.run

    @field_validator("copy_")
    @classmethod
    def _not_the_whole_workspace(cls, value: list[str]) -> list[str]:
        if "." in value:
            raise ValueError("'.' would copy the whole workspace; name the ignored files or "
                             "folders to copy (e.g. .env)")
        return value

    @field_validator("run", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value


SPARE_SWITCH = "AGENT_CANVAS_SPARE_WORKTREE"
"""``0``: no spare worktree is made ahead of a run (a repository too large to keep one
more checkout of): not by a run (desktop/runtime/worktree_spare.py), nor for the app."""


def spares_wanted() -> bool:
    """Whether spare worktrees are made (see :data:`SPARE_SWITCH`)."""
    return os.environ.get(SPARE_SWITCH, "1").strip() != "0"
