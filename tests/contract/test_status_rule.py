"""One rule for when a run or a turn has ended: desktop/contract/enums.py holds the sets
(``RUN_ENDED``, ``RUN_LIVE``, ``RUN_WORKING``, ``TURN_ENDED``, ``TURN_CUT_SHORT``), and no
other module spells a set of those statuses out again."""

from __future__ import annotations

import ast
from pathlib import Path

from desktop.contract.enums import (
    RUN_ENDED,
    RUN_LIVE,
    RUN_WORKING,
    TURN_CUT_SHORT,
    TURN_ENDED,
    RunStatus,
    TurnStatus,
    shown_status,
)

DESKTOP = Path(__file__).resolve().parents[2] / "desktop"
STATUS_WORDS = {str(s) for s in RunStatus} | {str(s) for s in TurnStatus}
HOME = DESKTOP / "contract" / "enums.py"
NATIVE = DESKTOP / "providers"
"""The agents' own words (an ACP tool call's status) are theirs, not the run's."""


def status_sets(path: Path) -> list[str]:
    """``line: literal`` of each tuple, list or set in ``path`` made only of statuses."""
    found = []
    tree = ast.parse(path.read_text(), str(path))
    typed = {id(n.slice) for n in ast.walk(tree) if isinstance(n, ast.Subscript)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Tuple | ast.List | ast.Set) or len(node.elts) < 2 \
                or id(node) in typed:  # Literal["paused", ...]: a type, not a rule
            continue
        words = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        if len(words) == len(node.elts) and set(words) <= STATUS_WORDS:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_defines_its_own_set_of_run_or_turn_statuses() -> None:
    offences = {str(path.relative_to(DESKTOP)): hits
                for path in sorted(DESKTOP.rglob("*.py"))
                if path != HOME and not path.is_relative_to(NATIVE)
                and (hits := status_sets(path))}
    assert offences == {}, "use the sets of desktop/contract/enums.py"


def test_the_scan_finds_a_set_spelled_out(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('ENDED = ("completed", "failed", "cancelled")\n'
                      'def f(s):\n    return s in {"queued", "running"}\n')
    assert len(status_sets(module)) == 2


def test_the_rules() -> None:
    assert set(RunStatus) == RUN_ENDED | RUN_LIVE and not RUN_ENDED & RUN_LIVE
    assert {"queued", "running"} == RUN_WORKING and TURN_CUT_SHORT < TURN_ENDED
    assert "started" not in TURN_ENDED and "pending" not in TURN_ENDED
    assert shown_status("paused", True) == "interrupted"
    assert shown_status("completed", True) == "completed"
    assert shown_status("running", False) == "running"
