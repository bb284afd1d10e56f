"""A fake model server for tests and rehearsals: scripted replies on four vendor wires."""

from desktop.providers.fakeserver.script import Script, ScriptError
from desktop.providers.fakeserver.server import FakeModelServer

__all__ = ["FakeModelServer", "Script", "ScriptError"]
