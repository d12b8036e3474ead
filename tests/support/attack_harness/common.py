"""Constants of the attack harness: where the corpus lives, the keys of attack.json, the levels it runs at."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from showcause.policy import SAFE_LEVELS
from showcause.sandbox.levels import probe

ROOT = Path(__file__).resolve().parents[3]
ATTACKS_DIR = ROOT / "sandbox" / "attacks"
CLI = Path(sys.executable).with_name("showcause")
SECRET_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "SHOWCAUSE_CANARY")
FORCED_ISOLATION = os.environ.get("SHOWCAUSE_ATTACK_ISOLATION", "")
# The levels every attack runs at: each level that hides the host and works on this host.
LEVELS_HERE = [FORCED_ISOLATION] if FORCED_ISOLATION else [lv for lv in SAFE_LEVELS if probe(lv).ok]
JOBS = max(1, int(os.environ.get("SHOWCAUSE_ATTACK_JOBS", "4")))
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "attacker",
            "GIT_AUTHOR_EMAIL": "a@example.invalid", "GIT_COMMITTER_NAME": "attacker",
            "GIT_COMMITTER_EMAIL": "a@example.invalid"}
STEP_KEYS = {"via", "tool", "args", "raw_args", "expect", "note", "cwd", "path_prepend"}
EXPECT_KEYS = {"ok", "exit_code", "output_contains", "output_not_contains", "output_matches", "output_not_matches",
                "max_seconds", "max_output_chars", "isolation", "outcomes", "outcomes_all", "artifacts"}
ATTACK_KEYS = {"title", "threat", "steps", "setup", "input", "policy", "after", "requires", "known_escape",
                "known_bug", "note"}


# ----------------------------------------------------------------------------------------------------------------
# Bait: canary secrets, canary files and canary servers
# ----------------------------------------------------------------------------------------------------------------



