"""How a typed command travels over HTTP: where each of its fields goes, and the request
body derived from that.

A command (desktop/contract/commands.py) is one frozen dataclass. Each field says in its
annotation where it goes on the wire:

- ``Body("nodeId", min_length=1)``: in the JSON body as ``nodeId``, checked with these
  pydantic ``Field`` arguments; ``type=`` when the wire is stricter than the engine (an
  enum where the engine takes a string and names the problem itself);
- ``InPath("item_id")``: in the URL, the ``{item_id}`` of the command's endpoint;
- ``Internal("why")``: never sent; the service fills it in.

:func:`body_model` turns a command class into the pydantic model of its request body,
and :func:`request_of` turns a command into the request a client sends. So the service's
checks, the OpenAPI schema and the client's requests all come from the one definition;
a field without a marker is an error when the model is built (at import), not a field
that silently never travels.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar
from urllib.parse import quote

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, create_model

from desktop.contract.enums import GlobalMode, Mode


class RequestModel(BaseModel):
    """Base of request bodies: camelCase names only, unknown fields rejected."""

    model_config = ConfigDict(extra="forbid", populate_by_name=False, use_enum_values=True)


def _upper(value: Any) -> Any:
    return value.upper() if isinstance(value, str) else value


ModeIn = Annotated[Mode, BeforeValidator(_upper)]
"""A run mode on the wire, in any case (``auto`` is AUTO)."""
GlobalModeIn = Annotated[GlobalMode, BeforeValidator(_upper)]
"""A global mode on the wire, in any case."""


# --- where a field goes -------------------------------------------------------------------


class Body:
    """The field travels in the JSON body as ``alias`` (its own name when None), checked as
    ``type`` (its own type when None) with pydantic ``Field`` arguments ``checks``."""

    def __init__(self, alias: str | None = None, *, type: Any = None, **checks: Any) -> None:
        self.alias = alias
        self.type = type
        self.checks = checks

    def __repr__(self) -> str:
        return f"Body({self.alias!r}, type={self.type!r}, **{self.checks!r})"


@dataclass(frozen=True)
class InPath:
    """The field travels in the URL as the ``{name}`` of the command's endpoint."""

    name: str


@dataclass(frozen=True)
class Internal:
    """The field never travels: the service sets it (``why`` says how)."""

    why: str


Marker = Body | InPath | Internal


@dataclass(frozen=True)
class Endpoint:
    """The request a command becomes: ``method`` and ``path`` (``{run_id}`` and the
    command's :class:`InPath` fields filled in), and body entries every such request
    carries (``fixed``: ``{"status": "paused"}`` for a pause)."""

    method: str
    path: str
    fixed: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class WireField:
    """One field of a command with its marker, its engine-side type and its default."""

    name: str
    marker: Marker
    type: Any
    required: bool
    default: Any = None
    default_factory: Any = None

    @property
    def alias(self) -> str:
        """The field's name in the body (Body fields) or the path (InPath fields)."""
        if isinstance(self.marker, Body):
            return self.marker.alias or self.name
        if isinstance(self.marker, InPath):
            return self.marker.name
        return self.name

    @property
    def wire_type(self) -> Any:
        """The type the body checks (the field's own unless the marker narrows it)."""
        if isinstance(self.marker, Body) and self.marker.type is not None:
            return self.marker.type
        return self.type


@functools.cache  # read for every request the service parses and every one a client sends
def wire_fields(command_type: type) -> tuple[WireField, ...]:
    """The fields of ``command_type`` in order, each with its marker; TypeError names a
    field that has none (every field must say where it goes)."""
    hints = typing.get_type_hints(command_type, include_extras=True)
    out = []
    for f in dataclasses.fields(command_type):
        hint = hints[f.name]
        markers = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Marker)]
        if len(markers) != 1:
            raise TypeError(f"{command_type.__name__}.{f.name} needs exactly one of Body, "
                            "InPath or Internal in its annotation (where it travels)")
        has_factory = f.default_factory is not dataclasses.MISSING
        out.append(WireField(
            f.name, markers[0], typing.get_args(hint)[0],
            required=f.default is dataclasses.MISSING and not has_factory,
            default=None if f.default is dataclasses.MISSING else f.default,
            default_factory=f.default_factory if has_factory else None))
    return tuple(out)


# --- the body a service checks ----------------------------------------------------------


class CommandBody(RequestModel):
    """A request body derived from a command (:func:`body_model`); :meth:`command` makes the
    command from it and the path's values."""

    command_type: ClassVar[type]

    def command(self, **path: str) -> Any:
        """The command this body (and the ``InPath`` values ``path``) asks for."""
        values: dict[str, Any] = {}
        for f in wire_fields(self.command_type):
            if isinstance(f.marker, InPath):
                values[f.name] = path[f.marker.name]
            elif isinstance(f.marker, Body):
                value = getattr(self, f.name)
                # the engine takes plain JSON (it checks nested shapes itself)
                values[f.name] = value.model_dump(by_alias=True) \
                    if isinstance(value, BaseModel) else value
        return self.command_type(**values)


def body_model(command_type: type) -> type[CommandBody]:
    """The pydantic model of ``command_type``'s request body: its :class:`Body` fields under
    their aliases, with their defaults, types and checks. Subclass it to name it and to add
    what spans fields (a validator, the JSON schema's ``anyOf``)."""
    fields: dict[str, Any] = {}
    for f in wire_fields(command_type):
        if not isinstance(f.marker, Body):
            continue
        if f.required:
            info = Field(alias=f.alias, **f.marker.checks)
        elif f.default_factory is not None:
            info = Field(default_factory=f.default_factory, alias=f.alias, **f.marker.checks)
        else:
            info = Field(f.default, alias=f.alias, **f.marker.checks)
        fields[f.name] = (f.wire_type, info)
    model = create_model(f"{command_type.__name__}Body", __base__=CommandBody,
                         __module__=command_type.__module__, **fields)
    model.command_type = command_type
    return model


# --- the request a client sends -----------------------------------------------------------


def request_of(command: Any, run_id: str | None = None) -> tuple[str, str, dict[str, Any]]:
    """``(method, path, body)`` of the request that carries ``command`` (of run ``run_id``);
    ValueError for a command with no endpoint or an :class:`Internal` field set, which the
    service would never hear of."""
    kind = type(command)
    endpoint: Endpoint | None = getattr(kind, "endpoint", None)
    if endpoint is None:
        raise ValueError(f"{kind.__name__} is not sent over HTTP")
    in_path: dict[str, str] = {"run_id": run_id or ""}
    body = dict(endpoint.fixed)
    for f in wire_fields(kind):
        value = getattr(command, f.name)
        if isinstance(f.marker, InPath):
            in_path[f.marker.name] = str(value)
        elif isinstance(f.marker, Body):
            if value is not None:  # left out: the service's default (None everywhere)
                body[f.alias] = value
        elif value != f.default:
            raise ValueError(f"{kind.__name__}.{f.name} is not sent: {f.marker.why}")
    path = endpoint.path.format(**{k: quote(v, safe="") for k, v in in_path.items()})
    return endpoint.method, path, body
