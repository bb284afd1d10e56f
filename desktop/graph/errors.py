"""Problems found in a workflow, and the error that carries them."""

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a workflow, located as precisely as we can."""

    location: str
    message: str
    hint: str = ""
    severity: Severity = "error"
    line: int | None = None
    file: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def __str__(self) -> str:
        where = self.file or ""
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        parts = [f"{where}: " if where else ""]
        if self.severity == "warning":
            parts.append("warning: ")
        if self.location:
            parts.append(f"{self.location}: ")
        parts.append(self.message)
        if self.hint:
            parts.append(f" — {self.hint}")
        return "".join(parts)


class WorkflowLoadError(Exception):
    """A workflow file could not be read; ``problems`` says every reason."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems) or "workflow could not be loaded")


def errors_only(problems: list[Problem]) -> list[Problem]:
    """The problems that make a workflow invalid (warnings left out)."""
    return [p for p in problems if p.is_error]


def format_path(parts: tuple | list) -> str:
    """``("nodes", 3, "provider")`` -> ``nodes[3].provider``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out
