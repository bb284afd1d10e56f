"""Check a workflow document and report every problem at once."""

import fnmatch
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from desktop.contract.enums import CliPermissionsMode, EdgeType, Provider
from desktop.contract.executor import INSTALL_FIX, as_ray
from desktop.contract.sandbox import NETWORK_PROVIDERS, Sandbox
from desktop.contract.secrets import is_secret_name
from desktop.contract.state import NodeConfig
from desktop.disk.paths import data_dir
from desktop.graph.attempts_check import check_attempts
from desktop.graph.document import WorkflowDocument
from desktop.graph.errors import Problem
from desktop.graph.fields import from_validation_error, locate, wide_integers
from desktop.graph.isolation_check import (
    check_isolation,
    check_setups,
    check_submodules,
    check_workspaces,
)
from desktop.graph.roles import role_names
from desktop.graph.sourcemap import SourceMap
from desktop.graph.subflows import check_subflows, has_subflows
from desktop.graph.topology import links, reachable
from desktop.graph.unique_ids import repeat_problems
from desktop.store.secret_names import user_patterns

COMMAND_PROVIDERS = {Provider.COMMAND.value, Provider.CUSTOM.value}
IN_ENGINE_PROVIDERS = {Provider.PERPLEXITY.value, Provider.XAI.value}
NODE_CLI_MIN_MB = 1024


def validate(doc: WorkflowDocument, source: str | None = None,
             lines: SourceMap | dict[str, int] | None = None) -> list[Problem]:
    """Every problem in ``doc``; errors make it unrunnable, warnings are advice.

    ``source`` (the file name) and ``lines`` (from io.read_workflow) only make
    the messages point at file:line.
    """
    smap = lines if isinstance(lines, SourceMap) else SourceMap(lines)
    problems: list[Problem] = []
    problems += _check_nodes(doc)
    problems += _check_edges(doc)
    problems += _check_reachability(doc)
    problems += _check_providers(doc)
    problems += _check_configs(doc)
    problems += _check_executors(doc)
    problems += check_workspaces(doc, source)
    problems += check_isolation(doc, source)
    problems += check_setups(doc, source)
    problems += check_submodules(doc, source)
    problems += check_attempts(doc)
    # a document made in the editor or sent to the service was never through the loader
    problems += wide_integers(doc.model_dump(by_alias=True))
    return locate(problems, smap, source)


def _err(location: str, message: str, hint: str = "") -> Problem:
    return Problem(location, message, hint, "error")


def _warn(location: str, message: str, hint: str = "") -> Problem:
    return Problem(location, message, hint, "warning")


def _check_nodes(doc: WorkflowDocument) -> list[Problem]:
    if not doc.nodes:
        return [_err("nodes", "the workflow has no nodes", "add at least one node")]
    out = repeat_problems("node", [n.id for n in doc.nodes])
    marked = [i for i, n in enumerate(doc.nodes) if n.entry]
    for i in marked[1:]:
        out.append(_err(f"nodes[{i}].entry", f"more than one entry node "
                        f"({', '.join(repr(doc.nodes[j].id) for j in marked)})",
                        "mark only the node that starts the run with `entry: true`"))
    if doc.entry_node() is None:
        out.append(_err("nodes", "no entry node: every node receives a handoff",
                        "mark the node that starts the run with `entry: true`"))
    known = role_names()
    for i, node in enumerate(doc.nodes):
        if known and node.role_template not in known:
            out.append(_err(f"nodes[{i}].roleTemplate",
                            f"unknown role template {node.role_template!r}",
                            f"use one of: {', '.join(known)}"))
    return out


def _check_edges(doc: WorkflowDocument) -> list[Problem]:
    out: list[Problem] = []
    ids = {n.id for n in doc.nodes}
    known = ", ".join(sorted(ids)) or "(no nodes)"
    out += repeat_problems("edge", [e.id for e in doc.edges])
    pairs: Counter = Counter()
    for i, edge in enumerate(doc.edges):
        for end, node_id in (("from", edge.from_), ("to", edge.to)):
            if node_id not in ids:
                out.append(_err(f"edges[{i}].{end}", f"no node has id {node_id!r}",
                                f"use one of: {known}"))
        if edge.from_ == edge.to:
            out.append(_err(f"edges[{i}]", f"edge from {edge.from_!r} to itself",
                            "a node cannot hand off to itself; remove the edge"))
        key = (edge.from_, edge.to, str(edge.type))
        pairs[key] += 1
        if pairs[key] == 2:
            out.append(_warn(f"edges[{i}]", f"second {edge.type} edge from {edge.from_!r} "
                             f"to {edge.to!r}", "remove the duplicate"))
    return out


def _check_reachability(doc: WorkflowDocument) -> list[Problem]:
    entry = doc.entry_node()
    if entry is None:
        return []
    from_entry = reachable(links(doc), entry.id)
    # a judge of best-of-N attempts is reached through the attempts, not an edge
    from_entry |= {n.id for n in doc.nodes
                   if {n.id, n.label} & {c.judge for c in doc.node_configs.values()}}
    out = [
        _warn(f"nodes[{i}]", f"node {n.id!r} cannot be reached from the entry node "
              f"{entry.id!r}", "connect it with an edge, or delete it")
        for i, n in enumerate(doc.nodes) if n.id not in from_entry
    ]
    handoffs = links(doc, EdgeType.HANDOFF)
    downstream: dict[str, set[str]] = {}  # one walk per start, however many report edges

    def leads(start: str, end: str) -> bool:
        if start not in downstream:
            downstream[start] = reachable(handoffs, start)
        return end in downstream[start]

    for i, edge in enumerate(doc.edges):
        if edge.type != EdgeType.REPORT or edge.from_ == edge.to:
            continue
        if edge.from_ not in handoffs or edge.to not in handoffs:
            continue
        fed = leads(edge.to, edge.from_)
        if edge.bidirectional:
            fed = fed or leads(edge.from_, edge.to)
        if not fed:
            out.append(_warn(
                f"edges[{i}]", f"report edge {edge.from_!r} -> {edge.to!r} leads nowhere: "
                f"{edge.to!r} never hands work to {edge.from_!r}",
                f"add a handoff path from {edge.to!r} to {edge.from_!r}, or make it a handoff"))
        elif edge.from_ not in from_entry:
            out.append(_warn(f"edges[{i}]", f"report edge source {edge.from_!r} is never "
                             "reached, so it never reports", "connect it to the entry node"))
    return out


def _registry() -> tuple[set[str], object] | None:
    """Providers runnable here and the gate check; None while providers cannot be loaded."""
    try:
        from desktop.providers import registry

        return set(registry.available()), registry.can_gate
    except Exception:  # provider modules are optional at validation time
        return None


def _sandbox_problem() -> str | None:
    """Why the process sandbox cannot run on this machine (None: it can, or unknown)."""
    try:
        from desktop.runtime.sandbox import bwrap_problem
    except Exception:  # the runtime is optional at validation time
        return None
    return bwrap_problem()


def _check_providers(doc: WorkflowDocument) -> list[Problem]:
    out: list[Problem] = []
    allowed = [p.value for p in Provider]
    reg = _registry()
    for i, node in enumerate(doc.nodes):
        name = str(node.provider)
        if name not in allowed:
            out.append(_err(f"nodes[{i}].provider", f"unknown provider {name!r}",
                            f"use one of: {', '.join(allowed)}"))
            continue
        if reg is None:
            continue
        available, can_gate = reg
        if name not in available:
            out.append(_warn(f"nodes[{i}].provider",
                             f"provider {name!r} cannot run on this machine",
                             f"install it, or use one of: {', '.join(sorted(available))}"))
            continue
        gated = node.permissions is not None and (
            str(node.permissions.cli_permissions_mode) == CliPermissionsMode.GATED.value)
        if gated and not can_gate(name):  # type: ignore[operator]
            out.append(_err(f"nodes[{i}].permissions.cliPermissionsMode",
                            f"provider {name!r} cannot hold tool calls for approval",
                            "use cliPermissionsMode: skip, or a provider that can gate"))
    return out


def _check_configs(doc: WorkflowDocument) -> list[Problem]:
    out: list[Problem] = []
    ids = [n.id for n in doc.nodes]
    for key, cfg in doc.node_configs.items():
        base = f"nodeConfigs.{key}"
        if key not in ids:
            out.append(_err(base, f"config for {key!r}, which is not a node",
                            f"rename it to a node id ({', '.join(ids) or 'none'}) or delete it"))
        try:  # configs built in code skip pydantic checks; repeat them here
            NodeConfig.model_validate(cfg.model_dump(by_alias=True))
        except ValidationError as exc:
            out += [Problem(f"{base}.{p.location}", p.message, p.hint)
                    for p in from_validation_error(exc)]
            continue
        if cfg.script is not None:
            out += _check_script(cfg.script, f"{base}.script", ids)
        if cfg.max_restarts and not cfg.until_done:
            out.append(_warn(f"{base}.maxRestarts", "maxRestarts has no effect without untilDone",
                             "set untilDone: true, or remove maxRestarts"))
        if cfg.sandbox is not None:
            node = next((n for n in doc.nodes if n.id == key), None)
            out += _check_sandbox(cfg.sandbox, f"{base}.sandbox", key,
                                  str(node.provider) if node else "")
        out += _check_env_allowlist(cfg.env_allowlist, f"{base}.envAllowlist")
        limits = cfg.limits
        if limits.timeout_sec is not None and limits.timeout_sec < 1:
            out.append(_warn(f"{base}.limits.timeoutSec", "under a second: no agent can finish",
                             "use a few minutes, e.g. 600"))
        if limits.max_output_bytes is not None and limits.max_output_bytes < 1024:
            out.append(_warn(f"{base}.limits.maxOutputBytes",
                             "under 1 KiB: most agents exceed it at once",
                             "use at least 1048576 (1 MiB)"))
    for i, node in enumerate(doc.nodes):
        if str(node.provider) in COMMAND_PROVIDERS and not doc.config(node.id).command:
            where = (f"nodeConfigs.{node.id}.command" if node.id in doc.node_configs
                     else f"nodes[{i}].provider")
            out.append(_err(where,
                            f"node {node.id!r} uses provider {node.provider!r} but has no command",
                            "set nodeConfigs.<id>.command to the program to run"))
    return out


RAY_PROVIDERS = {Provider.SCRIPTED.value, Provider.COMMAND.value, Provider.CUSTOM.value,
                 Provider.CLAUDE.value, Provider.CODEX.value, Provider.GEMINI.value}
"""Providers whose agent can run on a Ray worker (a process fed over its stdio)."""


def _ray_missing() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("ray") is None
    except (ImportError, ValueError):  # a broken or blocked install counts as missing
        return True


def _check_executors(doc: WorkflowDocument) -> list[Problem]:
    """Ray executors need Ray installed, and a provider whose agent can run remotely."""
    out: list[Problem] = []
    run_ray = as_ray(doc.executor)
    places = [("executor", run_ray)] if run_ray else []
    for node in doc.nodes:
        cfg = doc.node_configs.get(node.id)
        own = cfg.executor if cfg is not None else None
        ray = as_ray(own) if own is not None else run_ray
        where = f"nodeConfigs.{node.id}.executor" if own is not None else "executor"
        if own is not None and ray is not None:
            places.append((where, ray))
        if ray is None:
            continue
        provider = str(node.provider)
        gated = node.permissions is not None and (
            str(node.permissions.cli_permissions_mode) == CliPermissionsMode.GATED.value)
        if provider not in RAY_PROVIDERS:
            out.append(_err(where, f"node {node.id!r} uses provider {provider!r}, which cannot "
                            "run on a Ray worker (its requests are served by the engine)",
                            f"set nodeConfigs.{node.id}.executor: local"))
        elif gated and provider != Provider.SCRIPTED.value:
            out.append(_err(where, f"node {node.id!r} is gated, and {provider}'s permission "
                            "hook talks to the engine over a local socket a Ray worker "
                            "cannot reach", f"set nodeConfigs.{node.id}.executor: local, "
                            "or cliPermissionsMode: skip"))
    if places and _ray_missing():
        out += [_err(where, "executor kind 'ray' needs Ray, which is not installed here",
                     INSTALL_FIX) for where, _ in places[:1]]
    addresses = sorted({ray.address for _, ray in places})
    if len(addresses) > 1:
        out.append(_err(places[-1][0], f"one run uses one Ray cluster; this workflow names "
                        f"{', '.join(addresses)}", "give every Ray executor the same address"))
    return out


def _check_env_allowlist(patterns: list[str], where: str) -> list[Problem]:
    """A warning when the allowlist lets secret-looking variables of this environment
    (or, with ``*``, of any environment) through to the agent."""
    if not patterns:
        return []
    extra = user_patterns(data_dir())
    passed = sorted(name for name in os.environ if is_secret_name(name, extra)
                    and any(fnmatch.fnmatchcase(name, p) for p in patterns))
    hint = ("list only the variables the agent needs; secret values are redacted from the "
            "run's files, but the agent can use them")
    if passed:
        shown = ", ".join(passed[:8]) + (f" and {len(passed) - 8} more" if len(passed) > 8
                                         else "")
        return [_warn(where, f"passes secret-looking variables to the agent: {shown}", hint)]
    if "*" in patterns:
        return [_warn(where, "'*' passes every variable of the environment the run starts "
                      "in, secrets included", hint)]
    return []


def _check_sandbox(box: Sandbox, where: str, node: str, provider: str) -> list[Problem]:
    """What would stop this sandbox from running, or make its runner record clamp."""
    out: list[Problem] = []
    lim, lw = box.limits, f"{where}.limits"
    if box.isolated and provider in IN_ENGINE_PROVIDERS:
        out.append(_err(f"{where}.backend", f"provider {provider!r} runs inside the engine, "
                        "so it has no agent process to sandbox",
                        "set sandbox.backend: none, or use a process-based provider"))
    elif box.isolated and not box.network and provider in NETWORK_PROVIDERS:
        out.append(_err(f"{where}.network",
                        f"provider {provider!r} needs the network to reach its model",
                        "set network: true (a sandbox cannot let only the model's endpoint "
                        "through), or use a scripted or command node"))
    elif box.isolated and (problem := _sandbox_problem()) is not None:
        out.append(_warn(f"{where}.backend", f"node {node!r} cannot start here: {problem}"))
    if (lim.max_memory_mb is not None and lim.max_memory_mb < NODE_CLI_MIN_MB
            and provider in NETWORK_PROVIDERS):
        out.append(_warn(f"{lw}.maxMemoryMb", f"{provider} runs on Node, which needs about "
                         f"{NODE_CLI_MIN_MB} MB to start and work",
                         f"use at least {NODE_CLI_MIN_MB}"))
    clamped = [("timeoutSec", not 1 <= lim.timeout_sec <= 600, "1 to 600 seconds"),
               ("maxOutputFiles", lim.max_output_files > 10_000, "at most 10000"),
               ("maxOutputMb", not 1 / 1024 <= lim.max_output_mb <= 1024, "at most 1024 MB")]
    for name, outside, span in clamped:
        if outside:
            out.append(_warn(f"{lw}.{name}", f"outside the runner record's range ({span}); "
                             "the record clamps it and says so", f"use {span}"))
    return out


def _check_script(script: object, where: str, ids: list[str]) -> list[Problem]:
    out: list[Problem] = []
    try:
        from desktop.providers.scripted.agent import validate_script
    except Exception:  # the scripted provider is optional at validation time
        validate_script = None
    if validate_script is not None:
        for text in validate_script(script, where):
            location, _, message = text.partition(": ")
            out.append(_err(location, message, "see the script forms in the scripted provider"))
    for path, target in _handoff_targets(script, where):
        if target not in ids:
            out.append(_warn(path, f"handoff to {target!r}, which is not a node",
                             f"use one of: {', '.join(ids)}"))
    return out


def _handoff_targets(script: object, where: str) -> list[tuple[str, str]]:
    """(location, target) of every ``handoff`` step anywhere in a script."""
    found: list[tuple[str, str]] = []
    if isinstance(script, list):
        for i, step in enumerate(script):
            spec = step.get("handoff") if isinstance(step, dict) else None
            if isinstance(spec, dict) and isinstance(spec.get("to"), str):
                found.append((f"{where}[{i}].handoff.to", spec["to"]))
            else:
                found += _handoff_targets(step, f"{where}[{i}]")
    elif isinstance(script, dict):
        for key, value in script.items():
            found += _handoff_targets(value, f"{where}.{key}")
    return found


def check_file(path: str, adjust: Callable[[WorkflowDocument], None] | None = None
               ) -> tuple[WorkflowDocument | None, list[Problem]]:
    """Load and validate a workflow file: the document (None if unreadable) and all problems.

    ``adjust`` changes the document before it is checked (a command line's overrides); a
    ValueError it raises is passed on."""
    from desktop.graph.errors import WorkflowLoadError
    from desktop.graph.io import read_workflow

    try:
        doc, smap = read_workflow(path)
    except WorkflowLoadError as exc:
        return None, exc.problems
    if adjust is not None:
        adjust(doc)
    problems = validate(doc, str(path), smap)
    if has_subflows(doc):
        here = str(Path(path).resolve())
        # A missing file or a cycle is this file's problem: point at its line.
        problems += [locate([p], smap, str(path))[0] if p.file == here else p
                     for p in check_subflows(doc, path)]
    return doc, problems
