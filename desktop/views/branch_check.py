"""The app's door to git's rule for a branch's name: the Create branch dialog checks a
name when OK is pressed, before the service is asked, with the runtime's own check (so
the dialog and ``runs apply --branch`` refuse the same names in the same words)."""

from __future__ import annotations

from desktop.runtime.branch_name import BadBranchName, check_format

__all__ = ["BadBranchName", "check_format"]
