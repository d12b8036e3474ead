"""What the blind_first and decision-mode tests share: the example decision, sentinels, the JSON a model
sends back for a position and a verdict, and small helpers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from llm_servers import Recorded
from showcause.core.decision import DecisionInput

__all__ = ["DEMO", "EXAMPLE", "POSITION", "POSITION_JSON", "ROOT", "SENTINEL",
           "SHOWCAUSE", "SIX", "VERDICT_JSON", "decision", "run_cli", "texts"]


ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo-case"
EXAMPLE = ROOT / "examples" / "decision.json"
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
SENTINEL = "PLAN-SENTINEL-4be1c9"
POSITION = "POSITION-SENTINEL-77d0a2"
SIX = {"search", "find_symbol", "read_file", "list_files", "run_test", "typecheck"}

POSITION_JSON = {"main_assumptions": ["deliveries are lost only while a pod restarts"],
                 "directions": [{"approach": f"a durable inbox table {POSITION}", "pros": ["no new service"],
                                 "cons": ["a worker to run"]},
                                {"approach": "a Redis stream", "pros": ["fast"], "cons": ["persistence settings"]}],
                 "failure_modes": ["the acknowledgement is sent before the payload is stored"],
                 "preferred_solution": f"Store first, acknowledge second, process asynchronously. {POSITION}",
                 "assumptions_to_test": ["handlers are idempotent"]}
VERDICT_JSON = {"Verdict": "modify", "recommendation": "Keep the inbox, but add a unique key on the delivery id.",
                "Critical-Assumptions": ["handlers are idempotent"], "risks": "the inbox table grows without bound",
                "better_alternative": "N/A",
                "falsification_probe": {"description": "kill a pod during a burst of deliveries",
                                        "signal": "a delivery id missing from the inbox"},
                "confidence": "80%"}


def decision(**changes: Any) -> DecisionInput:
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data.update(changes)
    return DecisionInput.model_validate(data)


def texts(posts: list[Recorded]) -> list[str]:
    return [p.raw.decode() for p in posts]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SHOWCAUSE, "review", *args], capture_output=True, text=True, timeout=300)
