"""Repo-snapshot benchmark runs: cases, the runner, metrics and reports. Calls the review service."""
