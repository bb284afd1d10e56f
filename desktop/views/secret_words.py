"""What is said of a secret value an agent wrote into a file: the warning its turn records,
and why applying a result that carries one is refused and what to do.

A finding is a file and the name of the secret (the variable its value came from), never
the value. The engine records the findings of a turn on its diff artifact
(``artifact.secrets``, a list of ``{"path", "name"}``: an extension the contract's
readers keep); desktop/runtime/secret_scan.py finds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desktop.wording import plural

ALLOW_FLAG = "--allow-secrets"
_NAMED = 10
"""Most files a line names."""


@dataclass(frozen=True, order=True)
class SecretFound:
    """A file whose added content holds the value of secret ``name``."""

    path: str
    name: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "name": self.name}

    @classmethod
    def from_json(cls, raw: Any) -> SecretFound | None:
        """One recorded finding; None for anything that is not one."""
        if isinstance(raw, Mapping) and isinstance(raw.get("path"), str) \
                and isinstance(raw.get("name"), str):
            return cls(raw["path"], raw["name"])
        return None


def recorded(artifact: Mapping[str, Any]) -> list[SecretFound]:
    """The findings a diff artifact records (none for one without)."""
    raw = artifact.get("secrets")
    found = [SecretFound.from_json(r) for r in raw] if isinstance(raw, list) else []
    return sorted({f for f in found if f is not None})


def by_file(found: Iterable[SecretFound]) -> str:
    """``.env (OPENAI_API_KEY), config.yml (A_TOKEN, B_KEY)``: each file with its names."""
    names: dict[str, list[str]] = {}
    for f in sorted(set(found)):
        names.setdefault(f.path, []).append(f.name)
    files = list(names)
    text = ", ".join(f"{path} ({', '.join(names[path])})" for path in files[:_NAMED])
    more = len(files) - _NAMED
    return text + (f" and {more:,} more" if more > 0 else "")


def files_of(found: Iterable[SecretFound]) -> list[str]:
    """The files named, each once, sorted."""
    return sorted({f.path for f in found})


def written_warning(found: Sequence[SecretFound], branch: str | None = None) -> str:
    """The line a turn logs when its change writes a secret value into a file."""
    where = f", committed on {branch}" if branch else ""
    return (f"warning: the agent wrote the value of a secret it was given into "
            f"{by_file(found)}{where}. Applying the run's result refuses it until it is "
            f"taken out of {'that file' if len(files_of(found)) == 1 else 'those files'}, "
            f"the file is left out, or it is allowed ({ALLOW_FLAG})")


def conversation_text(found: Sequence[SecretFound], commit: str | None,
                      branch: str | None) -> str:
    """The Conversation's entry for such a turn (its title says who)."""
    at = f" (commit {commit[:8]} on {branch})" if commit and branch else ""
    return (f"The value of a secret the agent was given is in {by_file(found)}{at}. "
            "Applying, branching or opening a pull request of the result refuses it until "
            "it is taken out of the file, or the file is rejected in the Result view, or "
            "you confirm it")


def run_warnings(state: Mapping[str, Any]) -> list[str]:
    """One line per turn of the run (its state, as JSON) whose change wrote a secret."""
    nodes = state.get("nodes") or {}
    lines = []
    for artifact in (state.get("artifacts") or {}).values():
        found = recorded(artifact) if isinstance(artifact, Mapping) else []
        if not found:
            continue
        node = nodes.get(artifact.get("nodeId")) or {}
        who = node.get("label") or artifact.get("nodeId") or "a node"
        commit = str(artifact.get("commit") or "")
        at = f" (commit {commit[:8]})" if commit else ""
        lines.append(f"warning: {who} wrote the value of a secret it was given into "
                     f"{by_file(found)}{at}; `runs apply` refuses the result until it is "
                     f"taken out, the file is left out, or {ALLOW_FLAG} is given")
    return lines


def refusal(found: Sequence[SecretFound], *, branch: str, check: bool) -> str:
    """Why applying a result (``branch``: the result's branch) is refused: the files and
    secret names, and the three ways on."""
    files = files_of(found)
    one = len(files) == 1
    done = "nothing would change" if check else "nothing was changed"
    return (f"the result writes the value of a secret an agent was given into "
            f"{by_file(found)}; {done}: a branch made of it, a push or a pull request "
            f"would carry the secret off this machine. Take it out of "
            f"{'the file' if one else 'those files'} on {branch} (commit the edit) and "
            f"apply again, or leave {'the file' if one else 'them'} out (reject "
            f"{'it' if one else 'them'} in the Result view, or name the other files with "
            f"--file), or apply it anyway with {ALLOW_FLAG} (in the app: confirm it)")


def secrets_count(found: Sequence[SecretFound]) -> str:
    """``2 files``: how many files hold a secret, for a short line."""
    return plural(len(files_of(found)), "file")
