"""Gated approvals for real agents: a local bridge to the run's approval gate."""
