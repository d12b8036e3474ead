"""The six read-only tools a judge uses, their registry, and what they run (tests, type checkers)."""
