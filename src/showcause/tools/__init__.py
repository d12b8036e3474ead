"""The tools a judge uses (four read the tree; `run_test` and `typecheck` run its code in the sandbox), their
registry, and what they run (tests, type checkers)."""
