"""``check artifacts``: every file of a result folder against the contract's MUSTs.

Checked per version directory (``run.json`` beside case files):

- every JSON file has ``schema_version``; ``run.json`` and each case file validate
  against the v1 models (required fields, types, nullable fields present);
- a case file is named after its ``case_id``, has the directory's ``version``,
  and every id in ``selected_case_ids`` has its case file;
- every evidence ref resolves: in ``events`` (call ids, doc ids, indexes) or in
  ``assets/`` (an asset id of the manifest or an href that exists);
- asset hrefs (payloads, snippets, failure bodies and their meta files) exist;
  a ``body_snippet`` comes with its full body (section 9);
- ``assets/manifest.json`` validates and lists every asset with its real size
  and sha256;
- path fields are relative, and no file (JSON or report) holds the result folder's
  own absolute path (it would break when the folder is copied).

Each violation is one ``file: field: message`` line; nothing here raises on a
broken file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from desktop.contract.artifacts import (
    AssetsManifest,
    FailureMeta,
    RunArtifact,
    event_index,
    is_relative_path,
)
from desktop.eval.artifact_rules import RuleProblem, case_rules, validation_problems
from desktop.eval.index import SIDES

SKIP = frozenset({"evaluation.json"})


class Checker:
    """Collects the violations of one result folder."""

    def __init__(self, root: Path):
        self.root = root
        self.violations: list[str] = []
        # (file, field) of each path field already reported as not relative: the
        # model's own check of that field would say it again in other words.
        self.not_relative: set[tuple[str, str]] = set()
        self.own_paths = sorted({str(root.resolve()), str(root.absolute())}, key=len,
                                reverse=True)

    def bad(self, path: Path, field: str, message: str) -> None:
        self.problem(path, RuleProblem(field, message))

    def problem(self, path: Path, problem: RuleProblem) -> None:
        self.violations.append(f"{self.where(path)}: {problem}")

    def where(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) \
            else str(path)

    def load(self, path: Path, schema: bool = True) -> Any:
        """The JSON object in ``path``, None when it is none; ``schema``: whether a missing
        ``schema_version`` is reported here (a case file's rules report it)."""
        try:
            data = orjson.loads(path.read_bytes())
        except OSError as exc:
            self.bad(path, "", f"cannot read: {exc.strerror or exc}")
            return None
        except orjson.JSONDecodeError as exc:
            self.bad(path, "", f"not JSON ({exc.msg} at line {exc.lineno})")
            return None
        if not isinstance(data, dict):
            self.bad(path, "", "must be a JSON object")
            return None
        if schema and not isinstance(data.get("schema_version"), str):
            self.bad(path, "schema_version", "missing — every JSON file names its schema")
        self.no_absolute(path, data)
        return data

    def validate(self, path: Path, model: Any, data: Any) -> Any:
        try:
            if isinstance(model, TypeAdapter):
                return model.validate_python(data)
            return model.model_validate(data)
        except ValidationError as exc:
            for problem in validation_problems(exc, data):
                if (self.where(path), problem.field) not in self.not_relative:
                    self.problem(path, problem)
            return None

    def no_absolute(self, path: Path, data: Any) -> None:
        """The result folder's own absolute path must not appear anywhere in a file."""
        for text in _strings(data):
            if any(own in text for own in self.own_paths):
                self.bad(path, "", "holds the result folder's absolute path; paths must be "
                                   "relative to the file's folder")
                return
        for field, value in _path_fields(data):
            if not is_relative_path(value):
                self.not_relative.add((self.where(path), field))
                self.bad(path, field, f"{value!r} is not a relative path — paths in "
                         "artifacts are relative to the folder that holds the file")

    # --- one version directory ----------------------------------------------------------

    def version(self, folder: Path, side: str | None) -> None:
        run_path = folder / "run.json"
        run = self.load(run_path) if run_path.exists() else None
        if not run_path.exists():
            self.bad(run_path, "", "missing — every version directory needs run.json")
        model = self.validate(run_path, RunArtifact, run) if run is not None else None
        if model is not None and side and model.version != side:
            self.bad(run_path, "version", f"is {model.version!r} but the folder is {side}/")
        manifest = self.manifest(folder)
        seen: set[str] = set()
        for path in sorted(folder.glob("*.json")):
            if path.name == "run.json":
                continue
            if path.name in SKIP:
                self.load(path)
                continue
            case_id = self.case(path, folder, side, model, manifest)
            if case_id:
                seen.add(case_id)
        for case_id in _selected(run, model):
            if case_id not in seen:
                self.bad(folder / f"{case_id}.json", "", "missing — run.json selects this "
                                                         "case, so its case file is required")

    def case(self, path: Path, folder: Path, side: str | None, run: RunArtifact | None,
             manifest: dict[str, str]) -> str | None:
        data = self.load(path, schema=False)
        if data is None:
            return None
        if side is not None:
            version, said = side, f"it is in {side}/"
        elif run is not None:
            version, said = run.version, f"run.json says {run.version!r}"
        else:
            version, said = None, ""
        case, problems = case_rules(path.name, data, version, said)
        for problem in problems:
            self.problem(path, problem)
        if case is None:
            return data.get("case_id") if isinstance(data.get("case_id"), str) else None
        if case.status == "ok":
            self.evidence(path, folder, case, manifest)
        else:
            self.failure(path, folder, case)
        return case.case_id

    def evidence(self, path: Path, folder: Path, case: Any, manifest: dict[str, str]) -> None:
        for i, action in enumerate(case.proposed_actions):
            for j, ref in enumerate(action.evidence_refs):
                where = f"proposed_actions.{i}.evidence_refs.{j}.id"
                by_path = ref.kind == "asset" and ref.id not in manifest
                if by_path and not _in_assets(folder, str(ref.id)):
                    self.bad(path, where, f"asset {ref.id!r} points outside assets/ — name "
                             "an asset id of assets/manifest.json, or a file by its path "
                             "from the case file's folder (assets/..., no '..')")
                elif by_path and not (folder / str(ref.id)).is_file():
                    self.bad(path, where, f"asset {ref.id!r} is neither in "
                             "assets/manifest.json nor a file")
                if ref.kind == "event" and event_index(ref.id or "") is None:
                    self.bad(path, where, f"event ref {ref.id!r} is not events[N]")
        for i, event in enumerate(case.events):
            for field in ("payload_asset_href", "snippets_asset_href"):
                href = getattr(event, field, None)
                if isinstance(href, str) and not (folder / href).is_file():
                    self.bad(path, f"events.{i}.{field}", f"{href} does not exist")

    def failure(self, path: Path, folder: Path, case: Any) -> None:
        f = case.runner_failure
        if f.full_body_saved_to and not (folder / f.full_body_saved_to).is_file():
            self.bad(path, "runner_failure.full_body_saved_to",
                     f"{f.full_body_saved_to} does not exist")
        meta = f.full_body_meta_saved_to
        if meta:
            if not (folder / meta).is_file():
                self.bad(path, "runner_failure.full_body_meta_saved_to", f"{meta} does not exist")
            else:
                data = self.load(folder / meta)
                if data is not None:
                    self.validate(folder / meta, FailureMeta, data)

    def manifest(self, folder: Path) -> dict[str, str]:
        """Asset id -> href of a valid manifest (its items checked against the files)."""
        assets = folder / "assets"
        path = assets / "manifest.json"
        if not assets.is_dir():
            return {}
        files = {p.relative_to(folder).as_posix() for p in assets.rglob("*")
                 if p.is_file() and p != path and not p.name.startswith(".")}
        if not path.exists():
            if files:
                self.bad(path, "", "missing — it lists every asset with its size and sha256")
            return {}
        data = self.load(path)
        manifest = self.validate(path, AssetsManifest, data) if data is not None else None
        if manifest is None:
            return {}
        listed = {}
        for i, item in enumerate(manifest.items):
            listed[item.asset_id] = item.href
            target = folder / item.href
            if not target.is_file():
                self.bad(path, f"items.{i}.href", f"{item.href} does not exist")
                continue
            body = target.read_bytes()
            if len(body) != item.size_bytes:
                self.bad(path, f"items.{i}.size_bytes", f"{item.size_bytes} but the file has "
                                                        f"{len(body)} bytes")
            if item.sha256 and hashlib.sha256(body).hexdigest() != item.sha256:
                self.bad(path, f"items.{i}.sha256", "does not match the file")
            files.discard(item.href)
        for href in sorted(files):
            self.bad(path, "items", f"{href} is in assets/ but not listed")
        return listed


def _selected(run: Any, model: RunArtifact | None) -> list[str]:
    """The case ids run.json selects, from its raw data when it is otherwise invalid: a
    broken field elsewhere must not hide a missing case file."""
    if model is not None:
        return model.selected_case_ids
    ids = run.get("selected_case_ids") if isinstance(run, dict) else None
    return [i for i in ids if isinstance(i, str) and i] if isinstance(ids, list) else []


def _in_assets(folder: Path, href: str) -> bool:
    """Whether ``href`` names a place inside ``folder/assets`` (relative, no ``..``, and
    no link out of it): evidence is the case's own, never any file of the machine."""
    if not is_relative_path(href) or not href.startswith("assets/") or \
            ".." in href.split("/"):
        return False
    assets = (folder / "assets").resolve()
    return (folder / href).resolve().is_relative_to(assets)


_PATH_FIELDS = frozenset({"run_folder", "href", "output_href", "workflow_file", "file",
                          "suite_file", "cases_path", "out_dir"})


def _path_fields(value: Any, where: str = "") -> Any:
    """``(field, value)`` of every path-named string field, however deep."""
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{where}.{key}" if where else str(key)
            if key in _PATH_FIELDS and isinstance(item, str):
                yield here, item
            else:
                yield from _path_fields(item, here)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _path_fields(item, f"{where}.{i}")


def _strings(value: Any) -> Any:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def check_artifacts(root: str | Path) -> list[str]:
    """Every violation in a result folder (or one version directory).

    Raises FileNotFoundError when ``root`` is not a folder, ValueError when it holds no
    version directory."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no such folder")
    checker = Checker(root)
    if (root / "run.json").exists():
        side = root.parent.name if root.parent.name in SIDES else None
        checker.version(root, side)
        return checker.violations
    folders = [(side, p) for side in SIDES if (root / side).is_dir()
               for p in sorted((root / side).iterdir()) if p.is_dir()]
    if not folders:
        raise ValueError(f"{root}: holds no run.json, nor baseline/<runId>/ or new/<runId>/")
    for side, folder in folders:
        checker.version(folder, side)
    for extra in ("comparison.json", "eval.json"):
        if (root / extra).is_file():
            checker.load(root / extra)
    for report in root.glob("*.html"):
        text = report.read_text(encoding="utf-8", errors="replace")
        checker.no_absolute(report, [text])
    return checker.violations

