"""Guard: the repositories below are hostile on purpose (they steal secrets, phone home, fork and hang).

pytest must never collect them on the host; `tests/test_attacks.py` copies each one and runs it inside
the sandbox instead. This keeps `pytest sandbox/`, `pytest .` or an IDE's test discovery from running them.
"""

collect_ignore_glob = ["*"]
