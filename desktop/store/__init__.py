"""Run folders: event log, reducer, snapshots, artifacts and run records."""
