"""The editor window's commands live in small parts it owns (files, edit, view...), one
concern each, and the action table reaches each command through its part."""

from desktop.ui.actions import ACTIONS
from desktop.ui.window import EditorWindow


def test_every_action_calls_a_method_of_a_part_the_window_owns(editor_window) -> None:
    win = editor_window
    owned = {id(value): name for name, value in vars(win).items()}
    owners = set()
    for spec in ACTIONS:
        if spec is None:
            continue
        bound = spec.handler(win)
        part = bound.__self__
        assert part is not win, f"{spec.name} is a method of the window itself"
        assert id(part) in owned, f"{spec.name}: its part is not an attribute of the window"
        assert part.window is win
        assert type(part).__module__.startswith("desktop.ui.window_")
        owners.add(owned[id(part)])
    assert owners == {"files", "exports", "compare", "edit", "arrange", "viewing",
                      "pickers", "help"}


def test_the_window_mixes_no_commands_in() -> None:
    ours = [c for c in EditorWindow.__mro__[1:] if c.__module__.startswith("desktop.")]
    assert ours == []

