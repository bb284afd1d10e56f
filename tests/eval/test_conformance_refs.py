"""`check artifacts` on evidence refs and path fields: an asset ref stays inside the
version directory's assets/ (no '..', no absolute path, no link out), named by its
field; each broken path field is one violation."""

import os
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.eval.conformance import check_artifacts
from tests.eval.test_evaluate import _case
from tests.eval.test_evaluate_rules import _folder


def _with_ref(root: Path, ref_id: str) -> Path:
    case = _case("clamp", "new", "pass")
    case["proposed_actions"] = [{
        "action_id": "a1", "action_type": "tool_call", "tool_name": "read", "params": {},
        "risk_level": "low", "risk_tags": [], "evidence_refs": [{"kind": "asset",
                                                                 "id": ref_id}]}]
    folder = _folder(root, "new", {"clamp.json": case})
    (folder / "assets" / "clamp").mkdir(parents=True)
    (folder / "assets" / "clamp" / "out.txt").write_text("evidence")
    (folder / "assets" / "manifest.json").write_bytes(orjson.dumps({
        "schema_version": "assets-manifest.v1", "generated_at": "2026-01-01T00:00:00Z",
        "items": [{"asset_id": "clamp/out.txt", "href": "assets/clamp/out.txt",
                   "kind": "other", "case_id": "clamp", "side": "new", "size_bytes": 8}]}))
    return folder


def _ref_violations(root: Path) -> list[str]:
    return [v for v in check_artifacts(root) if "evidence_refs" in v]


FIELD = "new/r1/clamp.json: proposed_actions.0.evidence_refs.0.id: "


@pytest.mark.parametrize("ref_id", ["../../../../../etc/passwd", "/etc/passwd",
                                    "assets/../run.json", "run.json", "~/x",
                                    "assets/clamp/../../../../etc/passwd"])
def test_an_asset_ref_out_of_assets_is_refused_by_its_field(tmp_path: Path,
                                                            ref_id: str) -> None:
    _with_ref(tmp_path, ref_id)
    [violation] = _ref_violations(tmp_path)
    assert violation.startswith(f"{FIELD}asset {ref_id!r} points outside assets/ — "), violation


def test_a_link_out_of_assets_is_refused(tmp_path: Path) -> None:
    folder = _with_ref(tmp_path, "assets/clamp/passwd")
    os.symlink("/etc/passwd", folder / "assets" / "clamp" / "passwd")
    [violation] = _ref_violations(tmp_path)
    assert violation.startswith(f"{FIELD}asset 'assets/clamp/passwd' points outside")


@pytest.mark.parametrize("ref_id", ["clamp/out.txt", "assets/clamp/out.txt"])
def test_an_asset_ref_by_id_or_by_path_inside_is_accepted(tmp_path: Path, ref_id: str) -> None:
    _with_ref(tmp_path, ref_id)
    assert _ref_violations(tmp_path) == []


segments = st.lists(st.sampled_from(["..", ".", "assets", "clamp", "out.txt", "etc", "passwd",
                                     "run.json"]), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(segments, st.booleans())
def test_only_a_file_inside_assets_resolves(tmp_path_factory, parts: list[str],
                                            absolute: bool) -> None:
    ref_id = ("/" if absolute else "") + "/".join(parts)
    root = tmp_path_factory.mktemp("refs")
    folder = _with_ref(root, ref_id)
    inside = not absolute and parts[0] == "assets" and ".." not in parts and \
        (folder / ref_id).resolve().is_relative_to((folder / "assets").resolve())
    exists = (folder / ref_id).is_file()
    assert (_ref_violations(root) == []) == ((inside and exists) or ref_id == "clamp/out.txt")


def test_an_absolute_path_field_is_one_violation(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "new", {"clamp.json": _case("clamp", "new", "pass")})
    run = orjson.loads((folder / "run.json").read_bytes())
    run["cases_path"] = "/abs/suite.yaml"
    run["selected_case_ids"].append(5)  # run.json is invalid now
    (folder / "run.json").write_bytes(orjson.dumps(run))
    violations = check_artifacts(tmp_path)
    about = [v for v in violations if "cases_path" in v]
    assert about == ["new/r1/run.json: cases_path: '/abs/suite.yaml' is not a relative path "
                     "— paths in artifacts are relative to the folder that holds the file"]
    # an invalid run.json still says which selected case files are missing
    assert "new/r1/readme.json: missing — run.json selects this case, so its case file " \
           "is required" in violations
