"""The ``executor`` of a run and of a node: its shape, its checks, its round trip."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.contract.executor import RayExecutor, parse_executor_arg
from desktop.graph import validate as validate_mod
from desktop.graph.errors import WorkflowLoadError
from desktop.graph.io import document_data, parse_workflow
from desktop.graph.validate import validate

BODY = """version: 1
name: t
{run}nodes:
  - id: a
    provider: {provider}
    entry: true
nodeConfigs:
  a:
    command: echo hi
{node}"""


def load(run: str = "", node: str = "", provider: str = "scripted"):
    return parse_workflow(BODY.format(run=run, node=node, provider=provider), "t.flow.yaml")


def problems(run: str = "", node: str = "", provider: str = "scripted") -> list:
    doc, smap = load(run, node, provider)
    return [p for p in validate(doc, "t.flow.yaml", smap) if p.is_error]


@pytest.fixture
def ray_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(validate_mod, "_ray_missing", lambda: False)


def test_local_is_the_default_and_is_not_written_back() -> None:
    doc, _ = load()
    assert doc.executor == "local" and doc.config("a").executor is None
    assert "executor" not in document_data(doc)


def test_run_and_node_executors_round_trip(ray_installed) -> None:
    doc, _ = load(run="executor:\n  kind: ray\n  address: ray://head:10001\n"
                      "  resources: {num_cpus: 0.5, memory_mb: 512, gpu_a100: 1}\n",
                  node="    executor: local\n")
    assert isinstance(doc.executor, RayExecutor)
    assert doc.executor.resources.custom == {"gpu_a100": 1.0}
    data = document_data(doc)
    assert data["executor"] == {"kind": "ray", "address": "ray://head:10001", "resources": {
        "numCpus": 0.5, "memoryMb": 512, "gpu_a100": 1}}
    assert data["nodeConfigs"]["a"]["executor"] == "local"
    assert problems(run="executor: {kind: ray, address: auto}\n") == []


@pytest.mark.parametrize(("text", "said"), [
    ("executor: remote\n", "use 'local' or a mapping"),
    ("executor: {kind: k8s}\n", "kind 'k8s' is not an executor"),
    ("executor: {kind: ray, address: 'head'}\n", "is not a Ray address"),
    ("executor: {kind: ray, adress: auto}\n", "adress"),
    ("executor: {kind: ray, resources: {numCpus: -1}}\n", "numCpus"),
    ("executor: {kind: ray, runtimeEnv: {pipp: [x]}}\n", "unknown runtimeEnv key 'pipp'"),
])
def test_a_bad_executor_is_named_with_the_fix(text: str, said: str) -> None:
    with pytest.raises(WorkflowLoadError) as err:
        load(run=text)
    shown = " ".join(str(p) for p in err.value.problems)
    assert "executor" in shown and said in shown


def test_ray_without_ray_installed_names_the_install(monkeypatch) -> None:
    monkeypatch.setattr(validate_mod, "_ray_missing", lambda: True)
    found = problems(run="executor: {kind: ray}\n")
    assert len(found) == 1 and "pip install 'agent-canvas[cluster]'" in str(found[0])
    assert problems(node="    executor: {kind: ray}\n")[0].location.startswith(
        "nodeConfigs.a.executor")


def test_providers_that_cannot_run_on_a_worker_are_refused(ray_installed) -> None:
    ray = "executor: {kind: ray}\n"
    assert problems(run=ray, provider="acp")
    assert "executor: local" in str(problems(run=ray, provider="acp")[0])
    assert problems(run=ray, provider="command") == []
    # a node that stays local is fine whatever the run's executor
    assert problems(run=ray, node="    executor: local\n", provider="acp") == []


def test_one_run_uses_one_cluster(ray_installed) -> None:
    found = problems(run="executor: {kind: ray, address: 'ray://a:1'}\n",
                     node="    executor: {kind: ray, address: 'ray://b:1'}\n")
    assert any("one Ray cluster" in str(p) for p in found)


@given(st.from_regex(r"(local|ray|ray:auto|ray://[a-z]{1,8}:[1-9][0-9]{0,3}|"
                     r"ray:[a-z]{1,8}:[1-9][0-9]{0,3}|[a-z:/]{0,12})", fullmatch=True))
def test_the_executor_option_parses_or_says_which_forms_work(text: str) -> None:
    try:
        spec = parse_executor_arg(text)
    except ValueError as exc:
        assert "ray://HOST:PORT" in str(exc)
        return
    assert spec == "local" or spec.kind == "ray"
