"""Agent Canvas: draw agent-orchestration graphs, run them, watch and replay them."""

__version__ = "0.1.0"
