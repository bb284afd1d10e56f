"""Benchmarks: each ``bench_*.py`` module measures against a reference in the same run."""
