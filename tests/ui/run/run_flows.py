"""Workflows the run-view tests share: a gated worker whose shell calls need approval."""

from __future__ import annotations


def gated(*shells: str, position: bool = False, extra_nodes: str = "",
          extra_configs: str = "", done: bool = True) -> str:
    """YAML of a one-worker workflow (key ``worker``) that runs ``shells`` one call each,
    each waiting for an approval, then says "done"."""
    where = "\n    position: {x: 0, y: 0}" if position else ""
    steps = "".join(f"\n      - shell: {command}" for command in shells)
    finish = "\n      - done: true" if done else ""
    return f"""
version: 1
name: Gated
task: list the files
nodes:
  - id: worker
    label: Worker
    provider: scripted
    entry: true
    permissions: {{cliPermissionsMode: gated}}{where}{extra_nodes}
nodeConfigs:
  worker:
    script:{steps}
      - say: done{finish}{extra_configs}
"""
