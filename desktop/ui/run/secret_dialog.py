"""The Result view's question when the service refused to apply a result whose files hold
the value of a secret an agent was given: apply it anyway, or not (then reject the file,
or take the value out on the result's branch, and apply again).

Window-modal and opened, not exec'd: the GUI's asyncio loop goes on meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox, QWidget

ALLOW = "Apply anyway"


def ask_allow_secrets(parent: QWidget, files: list[str], message: str,
                      allowed: Callable[[], None]) -> QMessageBox:
    """Open the question; ``allowed`` is called when the user chooses to apply anyway."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("The result holds a secret")
    one = len(files) == 1
    box.setText(f"{'This file holds' if one else 'These files hold'} the value of a secret an "
                f"agent was given: {', '.join(files[:10])}"
                f"{f' and {len(files) - 10} more' if len(files) > 10 else ''}.\n\n"
                "A branch made of it, a push or a pull request carries the secret off this "
                f"machine. Reject {'the file' if one else 'them'} in the list (or take the "
                "value out on the result's branch) and apply again, or apply anyway.")
    box.setDetailedText(message[:1].upper() + message[1:])
    allow = box.addButton(ALLOW, QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.buttonClicked.connect(lambda button: allowed() if button is allow else None)
    box.open()
    return box
