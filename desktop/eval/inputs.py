"""Everything ``eval run`` needs, read and checked before any case starts.

:func:`make_plan` reports every problem of the inputs at once (the suite, both
workflows, the chosen case ids, the output folder) as :class:`EvalInputError`.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from desktop.disk.paths import cannot_make, runs_dir
from desktop.eval.index import INDEX_FILE, EvalIndex
from desktop.eval.resume_inputs import changed_inputs
from desktop.eval.suite import Case, Suite, SuiteLoadError, load_suite, workspace_dir
from desktop.graph.document import WorkflowDocument
from desktop.runtime.agent_env import _allowed

SCRIPTED_URL = "scripted://local"
DEFAULT_URLS = {
    "claude": ("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
    "codex": ("OPENAI_BASE_URL", "https://api.openai.com/v1"),
    "gemini": ("GOOGLE_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com"),
    "perplexity": ("PERPLEXITY_BASE_URL", "https://api.perplexity.ai"),
    "xai": ("XAI_BASE_URL", "https://api.x.ai/v1"),
}


class EvalInputError(Exception):
    """Inputs an evaluation cannot start from; ``problems`` lists every one."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass
class EvalPlan:
    suite_path: Path
    suite: Suite
    cases: list[Case]
    workflow_paths: dict[str, Path]
    docs: dict[str, WorkflowDocument]
    base_urls: dict[str, str]
    out: Path
    index: EvalIndex
    repo_commit: str | None = None
    dirty: bool | None = None

    def workspace(self, case: Case) -> Path | None:
        return workspace_dir(self.suite_path, case)


def base_url(doc: WorkflowDocument, environ: dict[str, str] | None = None) -> str:
    """The model endpoint(s) the workflow's agents use; a pseudo-URL for agents without one
    (``scripted://local``, ``command://NAME``, ``acp://NAME``)."""
    environ = dict(os.environ if environ is None else environ)
    urls = []
    for node in doc.nodes:
        provider = str(node.provider)
        config = doc.config(node.id)
        if provider in DEFAULT_URLS:
            urls.append(_endpoint(provider, node.id, config.env_allowlist, environ))
        elif provider in ("command", "custom", "acp"):
            word = (config.command or "").split()[:1]
            urls.append(f"{'acp' if provider == 'acp' else 'command'}://"
                        f"{Path(word[0]).name if word else 'unknown'}")
        else:
            urls.append(SCRIPTED_URL if provider == "scripted" else f"{provider}://local")
    return " ".join(dict.fromkeys(urls)) or SCRIPTED_URL


def _endpoint(provider: str, node_key: str, allowlist: list[str],
              environ: dict[str, str]) -> str:
    """Where a model-backed provider sends its requests: the offline server it is aimed
    at (rehearsals, tests), else its base-URL variable when the node passes it on, else
    the provider's own default."""
    from desktop.providers import registry

    try:
        instance = registry.create(provider)
    except Exception:  # a provider that cannot be made here still has a default URL
        instance = None
    offline = getattr(instance, "offline", None)
    if offline is not None and hasattr(offline, "node_url"):
        return str(offline.node_url(node_key))
    var, default = DEFAULT_URLS[provider]
    if _allowed(var, allowlist) and environ.get(var):
        return environ[var]
    own = getattr(instance, "base_url", None)
    return own if isinstance(own, str) and own else default


def _workflow(path: Path, side: str, problems: list[str]) -> WorkflowDocument | None:
    from desktop.graph.validate import check_file

    if not path.is_file():
        problems.append(f"{path}: --{side} workflow not found — check the path")
        return None
    doc, found = check_file(str(path))
    errors = [p for p in found if p.is_error]
    problems += [f"{p} (the --{side} workflow)" for p in errors]
    return doc if doc is not None and not errors else None


def _git_state(folder: Path) -> tuple[str | None, bool | None]:
    """HEAD and whether the folder has uncommitted changes, when it is in a git repository."""
    def git(*args: str) -> str | None:
        try:
            proc = subprocess.run(["git", *args], cwd=str(folder), capture_output=True,
                                  check=False, stdin=subprocess.DEVNULL, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return proc.stdout.decode(errors="replace").strip() if proc.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if not commit:
        return None, None
    status = git("status", "--porcelain", "--", ".")
    return commit, bool(status)


def make_plan(suite_path: str | os.PathLike[str], baseline: str | os.PathLike[str],
              new: str | os.PathLike[str], out: str | os.PathLike[str], *,
              case_ids: list[str] | None = None, repeat: int = 1,
              resume: bool = False) -> EvalPlan:
    """Check every input; the plan, or EvalInputError naming every problem."""
    problems: list[str] = []
    suite = None
    try:
        suite = load_suite(suite_path)
    except SuiteLoadError as exc:
        problems += [str(p) for p in exc.problems]
    paths = {"baseline": Path(baseline), "new": Path(new)}
    docs = {side: _workflow(path, side, problems) for side, path in paths.items()}
    if repeat < 1:
        problems.append(f"--repeat {repeat}: repeat each case at least once")
    cases: list[Case] = []
    if suite is not None:
        known = [c.id for c in suite.cases]
        for wanted in case_ids or []:
            if wanted not in known:
                problems.append(f"--case {wanted}: no case with this id in {suite_path} — "
                                f"known ids: {', '.join(known)}")
        cases = [c for c in suite.cases if not case_ids or c.id in case_ids]
    target = Path(out)
    if target.exists() and not target.is_dir():
        problems.append(f"--out {target}: exists and is not a folder — choose another")
    elif (why := cannot_make(runs_dir(target))) is not None:  # OUT is a data folder
        problems.append(f"--out {target}: cannot hold the results: {why} — choose a folder "
                        "you can write to")
    previous = EvalIndex.load(target) if target.is_dir() else None
    if target.is_dir() and (target / INDEX_FILE).exists() and not resume:
        problems.append(f"--out {target}: already holds an evaluation — add --resume to "
                        "finish it, or choose another folder")
    elif resume and previous is None and (target / INDEX_FILE).exists():
        problems.append(f"{target / INDEX_FILE}: unreadable — it cannot be resumed; choose "
                        "another --out")
    if problems or suite is None:
        raise EvalInputError(problems)
    final_docs = {side: doc for side, doc in docs.items() if doc is not None}
    if previous is not None:
        if previous.suite != suite.name or previous.case_ids != [c.id for c in cases] \
                or previous.repeat != repeat:
            raise EvalInputError([f"--out {target}: the evaluation there ran suite "
                                  f"{previous.suite!r} with cases {previous.case_ids} and "
                                  f"repeat {previous.repeat}; resume it with the same "
                                  "suite, --case and --repeat"])
        if changed := changed_inputs(target, Path(suite_path), paths):
            raise EvalInputError(changed)
        index = previous
    else:
        index = EvalIndex.new(suite.name, {s: d.name for s, d in final_docs.items()},
                              repeat, [c.id for c in cases])
    commit, dirty = _git_state(Path(suite_path).resolve().parent)
    return EvalPlan(Path(suite_path).resolve(), suite, cases,
                    {s: p.resolve() for s, p in paths.items()}, final_docs,
                    {s: base_url(d) for s, d in final_docs.items()}, target.resolve(), index,
                    commit, dirty)
