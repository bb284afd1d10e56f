"""Read and write ``*.flow.yaml`` workflow files: safe, located errors, stable output."""

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from desktop.contract.executor import executor_json
from desktop.disk.atomic import atomic_write_text
from desktop.graph.as_written import validate_as_written
from desktop.graph.document import DOCUMENT_VERSION, WorkflowDocument, assign_edge_ids
from desktop.graph.errors import Problem, WorkflowLoadError
from desktop.graph.fields import from_validation_error, locate, unknown_fields, wide_integers
from desktop.graph.sourcemap import SourceMap, map_lines
from desktop.graph.unique_ids import raw_repeat_problems
from desktop.store.safe_yaml import (
    MAX_YAML_BYTES,
    YamlError,
    as_yaml_error,
    compose_yaml,
    construct_yaml,
    read_yaml_text,
)

WORKFLOW_SUFFIX = ".flow.yaml"
MAX_WORKFLOW_BYTES = MAX_YAML_BYTES
"""Workflow (and suite) files above this size are refused before they are read."""


def load_workflow(path: str | os.PathLike[str]) -> WorkflowDocument:
    """Read a workflow file; WorkflowLoadError lists every problem found."""
    return read_workflow(path)[0]


def loads_workflow(text: str, source: str = "<string>") -> WorkflowDocument:
    """Parse workflow YAML text; ``source`` names it in error messages."""
    return parse_workflow(text, source)[0]


def read_workflow(path: str | os.PathLike[str]) -> tuple[WorkflowDocument, SourceMap]:
    """Like load_workflow, also returning the line map for later validation messages.

    Files above MAX_WORKFLOW_BYTES are refused before they are read.
    """
    file = str(path)
    target = Path(path)
    if target.is_dir():
        raise WorkflowLoadError([Problem(
            "", "is a folder, not a workflow file",
            f"give the path of a *{WORKFLOW_SUFFIX} file inside it", file=file)])
    try:
        text = read_yaml_text(target, MAX_WORKFLOW_BYTES)
    except FileNotFoundError:
        raise WorkflowLoadError([Problem(
            "", "file not found", "check the path and the spelling", file=file)]) from None
    except OSError as exc:
        raise WorkflowLoadError([Problem(
            "", f"cannot read file: {exc.strerror or exc}", "check permissions",
            file=file)]) from None
    except YamlError as exc:
        raise WorkflowLoadError([_yaml_problem(exc)]) from None
    doc, smap = parse_workflow(text, file)
    doc._source = str(target.resolve())
    return doc, smap


def parse_workflow(text: str, source: str = "<string>") -> tuple[WorkflowDocument, SourceMap]:
    """Parse YAML text into a document and its line map; WorkflowLoadError if it is bad."""
    raw, smap = parse_fields(text, source)
    return document_of(raw, smap, source), smap


def parse_fields(text: str, source: str = "<string>") -> tuple[dict[str, Any], SourceMap]:
    """The YAML text as a mapping of fields, with its line map, not yet checked against the
    document's schema; WorkflowLoadError if it is not YAML or not a mapping."""
    text = text.removeprefix("\ufeff")
    try:
        root, loader = compose_yaml(text, source, strict=False)
    except YamlError as exc:
        raise WorkflowLoadError([_yaml_problem(exc)]) from None
    smap, problems = map_lines(root, source)
    if problems:
        raise WorkflowLoadError(problems)
    try:
        raw = construct_yaml(root, loader)
    except YamlError as exc:
        raise WorkflowLoadError([_yaml_problem(exc)]) from None
    if raw is None:
        raise WorkflowLoadError([Problem(
            "", "the file is empty", "a workflow needs at least `name:` and `nodes:`",
            file=source)])
    if not isinstance(raw, dict):
        raise WorkflowLoadError([Problem(
            "", f"a workflow is a mapping of fields, not {_yaml_kind(raw)}",
            "start with `version: 1`, `name: ...`, `nodes: ...`", line=1, file=source)])
    return raw, smap


def _yaml_kind(value: object) -> str:
    """What a YAML value is, in YAML's words (``a list``), not Python's (``a int``)."""
    if isinstance(value, bool):
        return f"a true/false value ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        return "a line of text"
    return "a list" if isinstance(value, list) else f"a {type(value).__name__}"


def document_of(raw: dict[str, Any], smap: SourceMap | None, source: str) -> WorkflowDocument:
    """The document the fields describe; WorkflowLoadError lists every field that is wrong."""
    found = unknown_fields(WorkflowDocument, raw)
    # a number inside an unknown field is no more wrong than the field: name the field once
    unknown = tuple(p.location for p in found)
    wide = [p for p in wide_integers(raw)
            if not any(p.location == u or p.location.startswith((f"{u}.", f"{u}["))
                       for u in unknown)]
    # two nodes (or edges) with one id cannot be told apart by anything that names them
    found += raw_repeat_problems(raw)
    doc = None
    try:
        doc = validate_as_written(WorkflowDocument, raw)
    except ValidationError as exc:
        # a number out of range is named once, as that (the editor leaves each field out once)
        out_of_range = {p.location for p in wide}
        found += [p for p in from_validation_error(exc) if p.location not in out_of_range]
    found += wide
    version = raw.get("version", DOCUMENT_VERSION)
    if isinstance(version, int) and version > DOCUMENT_VERSION:
        found.append(Problem(
            "version", f"this file is format version {version}; this program reads "
            f"version {DOCUMENT_VERSION}", "open it with a newer Agent Canvas"))
    if found or doc is None:
        located = locate(found, smap, source)
        raise WorkflowLoadError(sorted(located, key=lambda p: p.line or 0))
    return doc


def _yaml_problem(exc: yaml.YAMLError, source: str = "<string>") -> Problem:
    exc = as_yaml_error(exc, source)
    hint = exc.hint.replace("this file is", "workflow files are")
    return Problem("", exc.message, hint, line=exc.line, file=exc.file)


# ---------------------------------------------------------------- writing


class _Dumper(yaml.SafeDumper):
    """Block style, indented lists, no anchors, literal blocks for multi-line text."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value and all(line == line.rstrip() for line in value.split("\n")):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str_representer)


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else value


def document_data(doc: WorkflowDocument) -> dict[str, Any]:
    """The document as plain data in file order: camelCase keys, defaults left out."""
    data: dict[str, Any] = {"version": doc.version, "name": doc.name}
    if doc.description:
        data["description"] = doc.description
    if doc.task:
        data["task"] = doc.task
    data["mode"] = str(doc.mode)
    data["globalMode"] = str(doc.global_mode)
    if doc.executor != "local":
        data["executor"] = _tidy_numbers(executor_json(doc.executor))
    if doc.workspace is not None:
        data["workspace"] = doc.workspace
    if doc.worktree_setup is not None:
        data["worktreeSetup"] = doc.worktree_setup.model_dump(mode="json", by_alias=True,
                                                              exclude_defaults=True)
    if doc.isolation is not None:
        data["isolation"] = str(doc.isolation)
    if doc.budget is not None:
        data["budget"] = _tidy_numbers(doc.budget.to_json_dict())
    data["nodes"] = [_node_data(n) for n in doc.nodes]
    if doc.node_configs:
        # Node order, not dict order: an undo that re-inserts a config must save the same bytes.
        order = {n.id: i for i, n in enumerate(doc.nodes)}
        keys = sorted(doc.node_configs, key=lambda k: order.get(k, len(order)))
        data["nodeConfigs"] = {key: _config_data(doc.node_configs[key]) for key in keys}
    data["edges"] = [_edge_data(e) for e in doc.edges]
    if doc.notes:
        data["notes"] = [_decoration_data(n, "text") for n in doc.notes]
    if doc.groups:
        data["groups"] = [_decoration_data(g, "label") for g in doc.groups]
    if doc.extra:
        data["extra"] = doc.extra
    return data


def _tidy_numbers(value: Any) -> Any:
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, dict):
        return {k: _tidy_numbers(v) for k, v in value.items()}
    return value


def _config_data(cfg: Any) -> dict[str, Any]:
    data = cfg.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    script = data.pop("script", None)
    data = _tidy_numbers(data)  # 120 reads better than 120.0; the model makes it a float again
    if script is not None:
        data["script"] = script
    return data


def _node_data(node: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"id": node.id, "label": node.label,
                           "roleTemplate": node.role_template, "provider": str(node.provider)}
    if node.entry:
        out["entry"] = True
    if node.kind != "agent":
        out["kind"] = node.kind
        out["flow"] = node.flow
    for key, model in (("capabilities", node.capabilities), ("permissions", node.permissions)):
        if model is not None:
            out[key] = model.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    if node.position is not None:
        out["position"] = {"x": _number(node.position.x), "y": _number(node.position.y)}
    return out


def _decoration_data(item: Any, words: str) -> dict[str, Any]:
    out: dict[str, Any] = {"id": item.id, words: getattr(item, words)}
    out["box"] = {k: _number(v) for k, v in item.box.model_dump().items()}
    if item.color is not None:
        out["color"] = item.color
    return out


def _edge_data(edge: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if edge.id is not None:
        out["id"] = edge.id
    out.update({"from": edge.from_, "to": edge.to, "type": str(edge.type)})
    if edge.label is not None:
        out["label"] = edge.label
    if edge.bidirectional:
        out["bidirectional"] = True
    return out


def dumps_workflow(doc: WorkflowDocument) -> str:
    """The document as YAML text; the same document always gives the same bytes.

    Edges still without an id (appended in code) get one here, in ``doc`` too, so what
    is saved and what runs name their edges alike.
    """
    assign_edge_ids(doc.edges)
    return yaml.dump(document_data(doc), Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)


def save_workflow(doc: WorkflowDocument, path: str | os.PathLike[str]) -> None:
    """Write the document to ``path`` atomically, keeping the mode of the file it replaces
    (the user's file: a rewrite does not change who may read it)."""
    atomic_write_text(path, dumps_workflow(doc), keep_mode=True)
