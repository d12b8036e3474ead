"""The oracle benchmark: the mechanical review's test verdict against each project's own full suite.

    .venv/bin/python -m benchmarks.oracle [--sample N] [--shard I/N] [--projects a,b] [--report-only]

See docs/oracle.md for what it measures and the latest table.
"""
