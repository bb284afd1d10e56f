"""Engine, dispatch and recovery do not import each other in a circle: recovery builds an
engine and gives it dispatch's turn runner; the engine imports neither of them."""

from __future__ import annotations

import ast
from pathlib import Path

RUNTIME = Path(__file__).resolve().parents[2] / "desktop" / "runtime"
THREE = ("engine", "dispatch", "recovery")


def _type_only(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def runtime_imports(module: str) -> set[str]:
    """The desktop.runtime modules ``module`` imports when it runs (anywhere in it,
    function bodies included; a ``TYPE_CHECKING`` block is for the type checker only)."""
    tree = ast.parse((RUNTIME / f"{module}.py").read_text())
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_only(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "desktop.runtime":
                found.update(alias.name for alias in node.names)
            elif node.module.startswith("desktop.runtime."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[2] for a in node.names
                         if a.name.startswith("desktop.runtime."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def test_the_engine_imports_neither_dispatch_nor_recovery() -> None:
    assert runtime_imports("engine") & {"dispatch", "recovery"} == set()


def test_no_two_of_engine_dispatch_and_recovery_import_each_other() -> None:
    edges = {m: runtime_imports(m) & set(THREE) for m in THREE}
    for a in THREE:
        for b in edges[a]:
            assert a not in edges[b], f"{a} and {b} import each other"
