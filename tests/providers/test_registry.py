"""The provider registry: every built-in name makes a provider of that name, and listing
what can run here imports no agent's module (the ACP schema, aiohttp, the parsers)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from desktop.contract.enums import Provider as Name
from desktop.providers import registry
from desktop.providers.rest import BACKENDS


@pytest.mark.parametrize("name", [n.value for n in Name])
def test_each_built_in_name_makes_a_provider_of_that_name(name: str) -> None:
    assert name in registry.available()
    provider = registry.create(name)
    # custom is the spec's name for an arbitrary command: the command provider
    assert provider.name == (Name.COMMAND.value if name == Name.CUSTOM.value else name)


def test_the_rest_names_are_the_rest_backends() -> None:
    assert {n for n in registry.available() if n in BACKENDS} == set(BACKENDS)


def test_listing_the_providers_imports_no_agent_module() -> None:
    script = ("import sys\n"
              "from desktop.providers import registry\n"
              "assert 'acp' in registry.available() and registry.can_gate('scripted')\n"
              "heavy = [m for m in ('acp', 'aiohttp', 'desktop.providers.cli_agents',\n"
              "                     'desktop.providers.acp_provider') if m in sys.modules]\n"
              "print(','.join(heavy))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == ""
