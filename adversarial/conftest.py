"""Guard: the repositories below are hostile on purpose (forged tool output, injected instructions).

pytest must never collect them on the host; `tests/test_adversarial.py` turns each entry into a repo case
and reviews it through the `showcause` command instead.
"""

collect_ignore_glob = ["*"]
