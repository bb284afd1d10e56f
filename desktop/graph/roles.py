"""Role templates: reusable instructions and defaults for a kind of node."""

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from desktop.contract.state import Capabilities
from desktop.graph.resources import roles_dir
from desktop.store.safe_yaml import YamlError, load_yaml_file

ROLE_SUFFIX = ".yaml"


class RoleTemplate(BaseModel):
    """A role a node can take: what it is for and how its agent should work."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str
    title: str
    description: str
    instructions: str
    capabilities: Capabilities = Field(default_factory=Capabilities)
    constraints: list[str] = Field(default_factory=list)


class RoleNotFoundError(LookupError):
    """No role template has that name."""


class RoleFileError(ValueError):
    """A role template file is unreadable or has the wrong shape."""


def role_names(folder: Path | None = None) -> list[str]:
    """Names of the role templates available, sorted."""
    folder = folder or roles_dir()
    if not folder.is_dir():
        return []
    return sorted(p.name[: -len(ROLE_SUFFIX)] for p in folder.glob(f"*{ROLE_SUFFIX}"))


def load_role(name: str, folder: Path | None = None) -> RoleTemplate:
    """The role template called ``name``; RoleNotFoundError lists the known names."""
    folder = folder or roles_dir()
    path = folder / f"{name}{ROLE_SUFFIX}"
    if "/" in name or "\\" in name or not path.is_file():
        known = ", ".join(role_names(folder)) or "(none)"
        raise RoleNotFoundError(
            f"unknown role template {name!r} — use one of: {known} "
            f"(role templates live in {folder})"
        )
    return _read_role(path, name)


def list_roles(folder: Path | None = None) -> list[RoleTemplate]:
    """Every role template, sorted by name."""
    return [load_role(n, folder) for n in role_names(folder)]


def _read_role(path: Path, name: str) -> RoleTemplate:
    try:
        data = load_yaml_file(path)
    except OSError as exc:
        raise RoleFileError(f"{path}: cannot read role template: {exc}") from exc
    except YamlError as exc:
        raise RoleFileError(f"cannot read role template: {exc}") from exc
    if not isinstance(data, dict):
        raise RoleFileError(f"{path}: a role template is a mapping with name, title, ...")
    data.setdefault("name", name)
    if data["name"] != name:
        raise RoleFileError(f"{path}: name {data['name']!r} does not match the file name")
    try:
        return RoleTemplate.model_validate(data)
    except ValidationError as exc:
        fields = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise RoleFileError(f"{path}: {fields}") from exc
