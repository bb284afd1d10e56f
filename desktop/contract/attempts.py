"""Best-of-N: a node's turn run as several attempts, and the choice of the one that goes on.

A node's config may set ``attempts``: a number (2..8) or a list of overrides, one per
attempt, each naming the ``provider`` or ``model`` that attempt uses. Its turn then runs
every attempt at once, each in its own git worktree and branch, and ``judge`` decides
which attempt's work and output the node keeps: ``user`` (a ``choice`` approval in the
inbox). The attempts that lose keep their branches, so they stay in the run for replay
and fork.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from desktop.contract.base import ContractModel
from desktop.contract.enums import Provider

MIN_ATTEMPTS = 2
MAX_ATTEMPTS = 8
USER_JUDGE = "user"


class AttemptOverride(ContractModel):
    """What one attempt runs with instead of the node's own provider and model."""

    model_config = ConfigDict(extra="forbid")  # a misspelt key must not pass unnoticed

    provider: Provider | None = None
    model: str | None = None


class AttemptSummary(ContractModel):
    """One finished attempt as the judge sees it."""

    index: int = Field(ge=1, description="1-based, in the order of the node's attempts")
    agent_run_id: str | None = Field(None, alias="agentRunId")
    ok: bool = True
    branch: str | None = None
    commit: str | None = None
    diffstat: str = ""
    diff_path: str | None = Field(None, alias="diffPath",
                                  description="the attempt's diff.patch, in the run folder")
    diff_head: str = Field("", alias="diffHead",
                           description="the head of the attempt's diff, to compare attempts "
                                       "side by side without the run folder")
    output: str = Field("", description="the head of the attempt's output")
    error: str | None = None


class ChoiceRequest(ContractModel):
    """A ``choice`` approval: which attempt of a node's turn goes on."""

    turn_id: str = Field(alias="turnId")
    attempts: list[AttemptSummary]

    def choosable(self) -> list[int]:
        """The indexes of the attempts that succeeded (only those can win)."""
        return [a.index for a in self.attempts if a.ok]


def overrides(attempts: int | list[Any] | None) -> list[AttemptOverride]:
    """One override per attempt (empty ones for a plain count); [] without attempts."""
    if attempts is None:
        return []
    if isinstance(attempts, int):
        return [AttemptOverride() for _ in range(attempts)]
    return [a if isinstance(a, AttemptOverride) else AttemptOverride.model_validate(a)
            for a in attempts]


__all__ = ["MAX_ATTEMPTS", "MIN_ATTEMPTS", "USER_JUDGE", "AttemptOverride", "AttemptSummary",
           "ChoiceRequest", "overrides"]
