"""The layers of ../shared/DESIGN.md, read from the source: what may import what, and who
reads events by their type.

- Nothing below ``desktop/ui`` imports Qt (``desktop/cli.py`` opens the window from a
  function, which is the one way up).
- ``desktop/ui`` reaches ``runtime``, ``providers`` and ``store`` through the doors listed in
  ``UI_DEBTS`` only. The list may shrink, never grow: an entry no longer used fails too,
  so it is struck off when its import goes.
- No module of ``desktop/ui``, nor the CLI's live views, switches on an event's ``type``:
  they follow the typed notices of desktop/views/notices.py and the run's state.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

DESKTOP = Path(__file__).resolve().parents[1] / "desktop"
QT = ("PySide6", "shiboken6", "qasync")
BELOW_UI = ("runtime", "providers", "store")

UI_DEBTS: set[tuple[str, str]] = set()
"""Imports of runtime, providers or store the app may still make (none left): a run
folder no service holds is read through views (desktop/views/runs.py, reader.py)."""


def _modules(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _name(path: Path) -> str:
    return path.relative_to(DESKTOP).as_posix()


def test_nothing_below_the_ui_imports_qt() -> None:
    offenders = []
    for path in _modules(DESKTOP):
        name = _name(path)
        if name.startswith("ui/") or name == "cli.py":
            continue
        qt = {m for m in imports(path) if m.split(".")[0] in QT}
        if qt:
            offenders.append(f"{name}: {sorted(qt)}")
    assert offenders == []


def test_the_ui_reaches_the_layers_below_views_only_through_the_listed_doors() -> None:
    used = set()
    for path in _modules(DESKTOP / "ui"):
        for module in imports(path):
            parts = module.split(".")
            if parts[0] == "desktop" and len(parts) > 1 and parts[1] in BELOW_UI:
                used.add((_name(path), module))
    assert used - UI_DEBTS == set(), "a new import of runtime, providers or store in ui/"
    assert UI_DEBTS - used == set(), "strike these off UI_DEBTS: their imports are gone"


SWITCH = re.compile(r"""\b(event|e|ev|evt|created|first|last)"""
                    r"""(\.get\(\s*["']type["']\s*\)|\[\s*["']type["']\s*\])\s*(==|!=|\bin\b)"""
                    r"""|^\s*\w+\s*=\s*(event|e|ev|evt)\.get\(\s*["']type["']\s*(,[^)]*)?\)\s*$""")


def test_no_ui_module_switches_on_an_event_type() -> None:
    """Nor the CLI's live views, which follow the same notices."""
    views = [*_modules(DESKTOP / "ui"), DESKTOP / "cli" / "run_view.py",
             DESKTOP / "cli" / "run_table.py"]
    offenders = [f"{_name(path)}:{n}" for path in views
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if SWITCH.search(line)]
    assert offenders == []


def test_the_switch_pattern_finds_what_it_must() -> None:
    assert SWITCH.search('if event.get("type") == "run.stalled":')
    assert SWITCH.search("if e['type'] in KINDS:")
    assert SWITCH.search('            kind = event.get("type")')  # then `if kind == ...`
    assert SWITCH.search('            kind = e.get("type", "")')
    assert not SWITCH.search('return event.get("type", "")')
    assert not SWITCH.search('if err.get("type") == "string_pattern_mismatch":')  # pydantic


ENDED = re.compile(r"""[\(\{\[]\s*(["'](completed|failed|stopped)["']\s*,\s*){2}"""
                   r"""["'](completed|failed|stopped)["']\s*,?\s*[\)\}\]]""")


def test_the_statuses_a_run_ends_in_are_written_once() -> None:
    """desktop/contract/enums.py's RUN_ENDED is the one rule; no module spells it again."""
    offenders = [f"{_name(path)}:{n}" for path in _modules(DESKTOP)
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if ENDED.search(line)]
    assert offenders == []
    assert ENDED.search('TERMINAL = ("completed", "failed", "stopped")')
    assert ENDED.search("if status in {'stopped', 'completed', 'failed'}:")


def test_every_module_opens_with_what_it_holds() -> None:
    bare = [_name(path) for path in _modules(DESKTOP)
            if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))]
    assert bare == []


FOLD = {"apply_event", "apply_events", "fold_events"}


def _fold_callers(root: Path) -> list[str]:
    return sorted(f"{_name(path)}: {alias.name}" for path in _modules(root)
                  for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                  if isinstance(node, ast.ImportFrom) and node.module == "desktop.store.reducer"
                  for alias in node.names if alias.name in FOLD)


def test_every_fold_goes_through_the_views_projection() -> None:
    """The reducer is store's; only views (RunProjection, replay at an event) call its
    fold. Commands, the engine, the service and the GUI take the projection."""
    outside = [c for c in _fold_callers(DESKTOP)
               if not c.startswith(("store/", "views/"))]
    assert outside == []
    assert any(c.startswith("views/state.py") for c in _fold_callers(DESKTOP))


# --- no lookup of the window's or the engine's parts by name ------------------------------

REFLECTION = {"getattr", "setattr", "hasattr"}
WINDOW_OR_ENGINE = {"window", "window_", "_window", "engine", "_engine"}
"""How the ui and the runtime name the window and the engine (``window``, ``self.window``,
``self.panels.window``, ``engine``, ``self._engine``...)."""
WINDOW_CLASSES = re.compile(r"Window$|^Engine$")
"""Classes whose ``self`` is the window or the engine."""


def _named(target: ast.expr, owner: str | None) -> bool:
    """Whether ``target`` is the window or the engine (``owner``: the enclosing class)."""
    if isinstance(target, ast.Name) and target.id == "self":
        return owner is not None and bool(WINDOW_CLASSES.search(owner))
    last = target.attr if isinstance(target, ast.Attribute) else \
        target.id if isinstance(target, ast.Name) else None
    return last in WINDOW_OR_ENGINE


def reflection_on_window_or_engine(source: str) -> list[int]:
    """Lines where ``source`` calls getattr/setattr/hasattr on the window or the engine."""
    found: list[int] = []

    def visit(node: ast.AST, owner: str | None) -> None:
        if isinstance(node, ast.ClassDef):
            owner = node.name
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in REFLECTION and node.args
                and _named(node.args[0], owner)):
            found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, owner)

    visit(ast.parse(source), None)
    return found


def test_the_window_and_the_engine_are_reached_by_typed_references() -> None:
    """Their parts are attributes, WindowParts fields and the action table's methods,
    never names looked up at run time: a rename then fails where it breaks."""
    offenders = [f"{_name(path)}:{line}"
                 for root in (DESKTOP / "ui", DESKTOP / "runtime") for path in _modules(root)
                 for line in reflection_on_window_or_engine(path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_the_reflection_rule_finds_what_it_must() -> None:
    hits = reflection_on_window_or_engine(
        'a = getattr(window, spec.handler)\n'
        'b = getattr(getattr(self.window, "editor", None), "model", None)\n'
        'c = hasattr(self.panels.window, "theme")\n'
        'setattr(engine, "x", 1)\n'
        'class EditorWindow:\n'
        '    def f(self):\n'
        '        return getattr(self, "run_panels", None)\n')
    assert hits == [1, 2, 3, 4, 7]
    assert reflection_on_window_or_engine(
        'a = getattr(runner, "current_agent_run_id", None)\n'
        'b = getattr(theme, name)\n'
        'class Theme:\n'
        '    def f(self, name):\n'
        '        return getattr(self, name)\n') == []


# --- engine, dispatch and recovery: no circle -------------------------------------------

UNTANGLED = ("desktop.runtime.engine", "desktop.runtime.dispatch", "desktop.runtime.recovery")


def import_graph() -> nx.DiGraph:
    """Every desktop module and the desktop modules it imports, anywhere in it (function
    bodies and ``TYPE_CHECKING`` blocks included)."""
    graph = nx.DiGraph()
    for path in _modules(DESKTOP):
        module = ".".join(("desktop", *path.relative_to(DESKTOP).with_suffix("").parts))
        module = module.removesuffix(".__init__")
        graph.add_node(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # ``from desktop.runtime import engine`` imports the module engine
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            graph.add_edges_from((module, t) for t in targets if t.startswith("desktop."))
    return graph


def tangled(graph: nx.DiGraph, modules: tuple[str, ...]) -> list[set[str]]:
    """The groups of ``modules`` that import each other, directly or through others."""
    return [set(modules) & group for group in nx.strongly_connected_components(graph)
            if len(set(modules) & group) > 1]


def test_engine_dispatch_and_recovery_import_each_other_in_no_circle() -> None:
    """Recovery builds the engine and hands it dispatch's turn runner; dispatch takes the
    engine it is given. A circle among them (even through another module) would fail."""
    graph = import_graph()
    assert all(graph.has_node(m) for m in UNTANGLED)
    assert tangled(graph, UNTANGLED) == []
    engine, dispatch, recovery = UNTANGLED
    assert not graph.has_edge(engine, dispatch) and not graph.has_edge(engine, recovery)


def test_the_circle_rule_finds_a_circle_through_another_module() -> None:
    graph = nx.DiGraph([("desktop.runtime.engine", "desktop.runtime.turn"),
                        ("desktop.runtime.turn", "desktop.runtime.dispatch"),
                        ("desktop.runtime.dispatch", "desktop.runtime.engine")])
    assert tangled(graph, UNTANGLED) == [{"desktop.runtime.engine", "desktop.runtime.dispatch"}]


def test_disk_helpers_know_no_other_layer() -> None:
    """desktop/disk/ is below every layer (the app's included): it imports none of them."""
    offenders = [f"{_name(path)}: {module}" for path in _modules(DESKTOP / "disk")
                 for module in imports(path)
                 if module.startswith("desktop.") and not module.startswith("desktop.disk")]
    assert offenders == []
