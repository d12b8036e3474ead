"""The harness that runs the hostile-repository corpus (`sandbox/attacks/`) for tests/test_attacks.py."""
