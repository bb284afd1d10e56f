"""Shipped example workflows and role templates are valid and useful."""

from pathlib import Path

import pytest

from desktop.graph.io import dumps_workflow, load_workflow
from desktop.graph.resources import ENV_VAR, examples_dir, resources_dir
from desktop.graph.roles import RoleNotFoundError, list_roles, load_role
from desktop.graph.validate import check_file

EXAMPLES = sorted(examples_dir().glob("*.flow.yaml"))
REQUIRED_ROLES = {"orchestrator", "planner", "implementer", "reviewer", "investigator"}


def test_expected_examples_exist() -> None:
    names = {p.name for p in EXAMPLES}
    assert {"plan-implement-review.flow.yaml", "orchestrator-two-implementers.flow.yaml",
            "single-agent.flow.yaml"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_validates_and_runs_without_keys(path: Path) -> None:
    doc, found = check_file(str(path))
    assert doc is not None and [p for p in found if p.is_error] == []
    assert doc.task.strip()
    for node in doc.nodes:
        assert node.position is not None
        if node.kind == "subflow":  # its file is an example of its own, checked as one
            continue
        assert node.provider == "scripted"
        cfg = doc.config(node.id)
        assert cfg.instructions and cfg.script, node.id
        assert node.position is not None
    assert path.read_text(encoding="utf-8") == dumps_workflow(doc)  # saved canonically


def test_review_loop_hands_back_only_once() -> None:
    doc = load_workflow(examples_dir() / "plan-implement-review.flow.yaml")
    turns = doc.config("reviewer").script["turns"]
    handoffs = [[s for s in turn if "handoff" in s] for turn in turns]
    assert handoffs[0] and not handoffs[-1]
    assert any("done" in s for s in turns[-1])


def test_roles_are_complete() -> None:
    roles = {r.name: r for r in list_roles()}
    assert set(roles) >= REQUIRED_ROLES
    for role in roles.values():
        assert role.title and role.description and role.constraints
        assert len(role.instructions.split()) > 60  # a real paragraph, not a stub
    assert roles["orchestrator"].capabilities.delegate_only is True
    assert roles["reviewer"].capabilities.write_code is False


def test_unknown_role_lists_known_names() -> None:
    with pytest.raises(RoleNotFoundError) as info:
        load_role("wizard")
    assert "planner" in str(info.value) and "reviewer" in str(info.value)
    with pytest.raises(RoleNotFoundError):
        load_role("../roles/planner")


def test_resources_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "roles").mkdir()
    (tmp_path / "roles" / "solo.yaml").write_text(
        "title: Solo\ndescription: d\ninstructions: i\n", encoding="utf-8")
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert resources_dir() == tmp_path
    assert [r.name for r in list_roles()] == ["solo"]
