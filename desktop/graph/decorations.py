"""Sticky notes and groups: what a workflow document carries for people, not for runs.

A note is a box of text on the canvas. A group is a titled frame; the nodes and notes
whose centres lie inside it move with it. Neither takes part in a run, validation of the
graph or export; both are saved in the ``*.flow.yaml`` file (``notes:``, ``groups:``),
and files without them read and write exactly as before.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

COLOR_PATTERN = r"^#[0-9a-fA-F]{6}$"
MAX_NOTE_TEXT = 20_000
MAX_SIDE = 20_000.0
NOTE_SIZE = (240.0, 150.0)
GROUP_SIZE = (480.0, 300.0)
MIN_NOTE = (80.0, 50.0)
MIN_GROUP = (160.0, 90.0)
SLUG = r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)


class Box(_Model):
    """Where a note or group sits and how big it is (scene units, top-left corner)."""

    x: float = Field(0.0, allow_inf_nan=False, ge=-1e7, le=1e7)
    y: float = Field(0.0, allow_inf_nan=False, ge=-1e7, le=1e7)
    width: float = Field(NOTE_SIZE[0], allow_inf_nan=False, ge=20.0, le=MAX_SIDE)
    height: float = Field(NOTE_SIZE[1], allow_inf_nan=False, ge=20.0, le=MAX_SIDE)


class StickyNote(_Model):
    """A note on the canvas."""

    id: str = Field(pattern=SLUG)
    text: str = Field("", max_length=MAX_NOTE_TEXT)
    box: Box = Field(default_factory=Box)
    color: str | None = Field(None, pattern=COLOR_PATTERN)


class NodeGroup(_Model):
    """A titled frame around part of the graph."""

    id: str = Field(pattern=SLUG)
    label: str = Field("", max_length=200)
    box: Box = Field(default_factory=lambda: Box(width=GROUP_SIZE[0], height=GROUP_SIZE[1]))
    color: str | None = Field(None, pattern=COLOR_PATTERN)

    @field_validator("label")
    @classmethod
    def _one_line(cls, value: str) -> str:
        return " ".join(value.split())


def duplicate_ids(notes: list[StickyNote], groups: list[NodeGroup]) -> list[str]:
    """Ids used by more than one note or group."""
    seen: set[str] = set()
    twice: list[str] = []
    for item in (*notes, *groups):
        if item.id in seen and item.id not in twice:
            twice.append(item.id)
        seen.add(item.id)
    return twice
