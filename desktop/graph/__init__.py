"""Workflow documents: YAML load/save, validation, layout and export."""
