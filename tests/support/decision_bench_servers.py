"""Loopback OpenAI and Anthropic servers that answer a decision bench per mode: each request is told
apart by the prompt its mode sends (the blind phase, the reveal, the comparer, the second pass, the
judge, the plain critique) and the case by its proposal's tag, and gets the scripted verdict for that
(mode, case). Every request is recorded, as on the other loopback servers."""

from __future__ import annotations

import json
import time
from typing import Any

from llm_servers import AnthropicServer, OpenAIServer, Recorded, turn

__all__ = ["POSITION_TAG", "VERDICTS", "DecisionAnthropic", "DecisionOpenAI", "mode_of", "request_text"]

POSITION_TAG = "POSITION-TAG-91c4"
CASES = {"PROPOSAL-A": "a-keep-sqlite", "PROPOSAL-B": "b-keep-monolith", "PROPOSAL-C": "c-ack-before-store",
         "PROPOSAL-D": "d-retry-everything", "PROPOSAL-E": "e-unknown-load"}
# (mode, case) -> verdict; None: an unusable answer (the repair turn gets one too: MALFORMED_RESPONSE).
VERDICTS: dict[str, dict[str, str | None]] = {
    "blind_first": {"a-keep-sqlite": "KEEP", "b-keep-monolith": "KEEP", "c-ack-before-store": "MODIFY",
                    "d-retry-everything": "REPLACE", "e-unknown-load": "INSUFFICIENT_EVIDENCE"},
    "proposal_first": {"a-keep-sqlite": "MODIFY", "b-keep-monolith": "KEEP", "c-ack-before-store": "MODIFY",
                       "d-retry-everything": "MODIFY", "e-unknown-load": "MODIFY"},
    "proposal_first_2pass": {"a-keep-sqlite": "KEEP", "b-keep-monolith": "REPLACE", "c-ack-before-store": "KEEP",
                             "d-retry-everything": "REPLACE", "e-unknown-load": "INSUFFICIENT_EVIDENCE"},
    "independent_only": {"a-keep-sqlite": "KEEP", "b-keep-monolith": "KEEP", "c-ack-before-store": None,
                         "d-retry-everything": "REPLACE", "e-unknown-load": "INSUFFICIENT_EVIDENCE"},
    "decision_judge": {"a-keep-sqlite": "KEEP", "b-keep-monolith": "KEEP", "c-ack-before-store": "KEEP",
                       "d-retry-everything": "MODIFY", "e-unknown-load": "KEEP"},
}
POSITION = {"main_assumptions": ["restarts are frequent"],
            "directions": [{"approach": f"store first, then acknowledge {POSITION_TAG}", "pros": ["durable"],
                            "cons": ["a table to run"]}],
            "failure_modes": ["work lost on restart"], "preferred_solution": f"store, then reply {POSITION_TAG}",
            "assumptions_to_test": ["handlers are idempotent"]}


def request_text(body: dict[str, Any]) -> str:
    """Every text of a request (system and messages, either wire format), joined."""
    parts: list[str] = []
    system = body.get("system")
    parts += [system] if isinstance(system, str) else [b.get("text", "") for b in system or []]
    for m in body.get("messages", []):
        content = m.get("content")
        parts += [content] if isinstance(content, str) else [b.get("text", "") for b in content or []]
    return "\n".join(p for p in parts if p)


def mode_of(text: str) -> str:
    """Which mode (and phase) sent this request, from its last user message's prompt."""
    if "Another reviewer, who had not seen the proposal" in text:
        return "independent_only"
    if "Here is the proposed solution. Compare it" in text:
        return "blind_first"
    if "This is the first step of a blind review" in text:
        return "blind"
    if "Second pass. Above is your first critique" in text:
        return "proposal_first_2pass"
    if "Reviewers tend to find fault" in text:
        return "decision_judge"
    return "proposal_first"   # the plain critique, or the first of the two passes


def _answer(mode: str, case: str) -> str:
    if mode == "blind":
        return json.dumps(POSITION)
    verdict = VERDICTS[mode][case]
    if verdict is None:
        return "I would rather not answer in JSON."
    risks = [f"risk seen by {mode}"] + (["the acknowledgement is sent before the payload is stored"]
                                        if mode == "blind_first" else [])
    return json.dumps({"verdict": verdict, "recommendation": f"{mode} says {verdict}", "material_risks": risks,
                       "falsification_probe": {"description": f"probe by {mode}", "expected_signal": "a loss"},
                       "better_alternative": f"alternative by {mode}", "confidence": 0.7})


class _PerMode:
    """Answers from the request itself instead of a queue of turns (so any order and any concurrency work)."""

    cost: float | None = None

    def handle(self, method: str, path: str, headers: dict[str, str], body: Any, raw: bytes) -> Any:
        with self._lock:   # type: ignore[attr-defined]
            self.requests.append(Recorded(method, path, headers, body, raw, time.monotonic()))  # type: ignore
        problem = self.validate(path, headers, body)   # type: ignore[attr-defined]
        if problem is not None:
            return self._error(400, problem)   # type: ignore[attr-defined]
        text = request_text(body)
        mode = mode_of(text)
        # The case, from its proposal's tag; a first-step request (no proposal) needs none.
        case = next((c for tag, c in CASES.items() if tag in text), "")
        answer = turn(_answer(mode, case), usage={"prompt_tokens": 100, "completion_tokens": 20}, cost=self.cost)
        return self._json(200, self.render(answer, body))   # type: ignore[attr-defined]

    def modes_seen(self) -> list[str]:
        return [mode_of(request_text(r.body)) for r in self.requests if r.method == "POST"]  # type: ignore


class DecisionOpenAI(_PerMode, OpenAIServer):
    pass


class DecisionAnthropic(_PerMode, AnthropicServer):
    pass
