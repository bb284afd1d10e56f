"""Where a node's agent processes run: ``local`` (this machine) or a Ray cluster.

In a workflow, ``executor`` is set for the whole run and may be overridden per node
(``nodeConfigs.<id>.executor``)::

    executor: local
    executor: {kind: ray, address: "ray://head:10001", resources: {numCpus: 1}}

``address`` is ``auto`` (the cluster this machine belongs to), ``ray://HOST:PORT``
(Ray Client, the usual way to reach a remote cluster) or ``HOST:PORT`` (the cluster's
GCS address, for an engine running inside the cluster). ``resources`` takes
``numCpus``, ``memoryMb`` and ``numGpus`` (snake_case works too); any other key is a
custom Ray resource. ``runtimeEnv`` is handed to Ray as it is.
"""

import json
import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)

ADDRESS_HELP = "use 'auto', 'ray://HOST:PORT' (Ray Client, port 10001 by default) or HOST:PORT"
_HOST_PORT = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")
RUNTIME_ENV_KEYS = ("pip", "uv", "conda", "env_vars", "working_dir", "py_modules",
                    "py_executable", "container", "image_uri", "excludes", "config",
                    "nsight", "java_jars", "plugins")
INSTALL_FIX = "install Ray with: pip install 'agent-canvas[cluster]'"


def check_address(value: str) -> str:
    """``value`` as a Ray address; ValueError naming the accepted forms."""
    text = value.strip()
    if text == "auto":
        return text
    rest = text[len("ray://"):] if text.startswith("ray://") else text
    match = _HOST_PORT.match(rest)
    if match is None or not 0 < int(match.group(2)) < 65536:
        raise ValueError(f"{value!r} is not a Ray address; {ADDRESS_HELP}")
    return text


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True,
                               exclude_defaults=False)


class RayResources(BaseModel):
    """What one agent process reserves on the cluster; other keys are custom resources."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    num_cpus: float = Field(1.0, alias="numCpus", ge=0)
    memory_mb: int | None = Field(None, alias="memoryMb", gt=0)
    num_gpus: float | None = Field(None, alias="numGpus", ge=0)

    @model_validator(mode="after")
    def _custom_amounts(self) -> "RayResources":
        for name, amount in (self.model_extra or {}).items():
            if isinstance(amount, bool) or not isinstance(amount, int | float) or amount < 0:
                raise ValueError(f"custom resource {name!r} must be a number >= 0, "
                                 f"not {amount!r}")
        return self

    @property
    def custom(self) -> dict[str, float]:
        """The custom resources (every key that is not numCpus/memoryMb/numGpus)."""
        return {k: float(v) for k, v in (self.model_extra or {}).items()}

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class RepoSource(_Strict):
    """A repository the worker clones instead of receiving the whole workspace: only the
    change since ``ref`` travels (a thin git bundle)."""

    url: str = Field(min_length=1)
    ref: str = "HEAD"


class LocalExecutor(_Strict):
    kind: Literal["local"] = "local"


class RayExecutor(_Strict):
    """Run the node's agent processes on a Ray cluster."""

    kind: Literal["ray"] = "ray"
    address: str = "auto"
    resources: RayResources = Field(default_factory=RayResources)
    runtime_env: dict[str, Any] | None = Field(None, alias="runtimeEnv")
    repo: RepoSource | None = None

    @field_validator("address")
    @classmethod
    def _address(cls, value: str) -> str:
        return check_address(value)

    @field_validator("runtime_env")
    @classmethod
    def _runtime_env(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        for key in value or {}:
            if key not in RUNTIME_ENV_KEYS:
                raise ValueError(f"unknown runtimeEnv key {key!r}; Ray knows "
                                 f"{', '.join(RUNTIME_ENV_KEYS)}")
        return value


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    given = err.get("input")
    if str(err.get("type")).endswith("_type") and isinstance(given, bool | int | float | str):
        message += f", not {json.dumps(given)}"  # numCpus: true, "2": as the file says them
    return f"{where}: {message}" if where else message


def _parse(value: Any) -> "LocalExecutor | RayExecutor | str":
    """One clear message per mistake, rather than one per branch of a union."""
    if value == "local" or isinstance(value, LocalExecutor | RayExecutor):
        return value
    if isinstance(value, dict):
        kind = value.get("kind")
        model = {"local": LocalExecutor, "ray": RayExecutor}.get(str(kind))
        if model is None:
            raise ValueError(f"kind {kind!r} is not an executor; use kind: ray "
                             "(or executor: local)")
        try:
            return model.model_validate(value, strict=True)  # as written: true is no CPU
        except ValidationError as exc:
            raise ValueError(_first_error(exc)) from None
    raise ValueError(f"{value!r} is not an executor; use 'local' or a mapping such as "
                     "{kind: ray, address: auto}")


def _schema() -> dict[str, Any]:
    number = {"type": "number", "minimum": 0}
    resources = {"type": "object", "additionalProperties": number, "properties": {
        "numCpus": number, "memoryMb": {"type": "integer", "exclusiveMinimum": 0},
        "numGpus": number}}
    ray = {"type": "object", "additionalProperties": False, "required": ["kind"], "properties": {
        "kind": {"const": "ray"}, "address": {"type": "string"}, "resources": resources,
        "runtimeEnv": {"type": "object"},
        "repo": {"type": "object", "additionalProperties": False, "required": ["url"],
                 "properties": {"url": {"type": "string"}, "ref": {"type": "string"}}}}}
    local = {"type": "object", "additionalProperties": False,
             "properties": {"kind": {"const": "local"}}}
    return {"anyOf": [{"const": "local"}, local, ray]}


ExecutorSpec = Annotated[
    Any, PlainValidator(_parse), PlainSerializer(lambda v: executor_json(v)),
    WithJsonSchema(_schema()),
]
"""The ``executor`` field: ``local``, or a mapping with ``kind``."""


def as_ray(spec: Any) -> RayExecutor | None:
    """The Ray executor ``spec`` names, or None for a local one."""
    if isinstance(spec, RayExecutor):
        return spec
    if isinstance(spec, dict) and spec.get("kind") == "ray":
        return RayExecutor.model_validate(spec)
    return None


def executor_json(spec: Any) -> Any:
    """The wire form of an executor spec (``"local"`` or a dict)."""
    if spec is None or spec == "local":
        return "local"
    if isinstance(spec, BaseModel):
        return spec.model_dump(mode="json", by_alias=True, exclude_none=True)
    return spec


def parse_executor_arg(text: str) -> LocalExecutor | RayExecutor | Literal["local"]:
    """``agent-canvas run --executor``: ``local``, ``ray://HOST:PORT``, ``ray`` / ``ray:auto``
    or ``ray:HOST:PORT``; ValueError saying which forms work."""
    value = text.strip()
    if value == "local":
        return "local"
    if value in ("ray", "ray:auto", "auto"):
        return RayExecutor(address="auto")
    if value.startswith("ray://"):
        return RayExecutor(address=value)
    if value.startswith("ray:"):
        return RayExecutor(address=value[len("ray:"):])
    raise ValueError(f"--executor {text!r}: use 'local', 'ray://HOST:PORT' (Ray Client), "
                     "'ray' (the cluster this machine belongs to) or 'ray:HOST:PORT'")
