"""Evaluations: suites of cases run against a baseline and a new workflow, their portable
records (run.json, a file per case, assets/), the evaluation and its HTML report."""
