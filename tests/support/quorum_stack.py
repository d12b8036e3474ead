"""The predecessor's three-tier example as loopback servers: two flash voters, a mid model that also arbitrates,
and a frontier model (Anthropic); shared by the quorum tests and the MCP server's quorum tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from quorum_servers import QuorumAnthropic, QuorumOpenAI, SourceSpec, config_for, ratings_arbiter

__all__ = ["CONSENSUS", "RATINGS", "Stack"]

CONSENSUS = "HTTP 431 means the request's header fields are too large."
RATINGS = {"gemini-flash": 1.0, "gpt-mini": 1.0, "gemini-pro": 0.95, "claude": 0.85}


class Stack:
    """The predecessor's three-tier example: two flash voters, a mid model, a frontier model (Anthropic)."""

    def __init__(self, ratings: dict[str, float], caller: float | None = None) -> None:
        arbiter = ratings_arbiter(CONSENSUS, ratings, caller)
        self.flash = QuorumOpenAI(answer="Request Header Fields Too Large.").start()
        self.mini = QuorumOpenAI(answer="431: headers too large.", arbiter=arbiter).start()
        self.pro = QuorumOpenAI(answer="The server refuses oversized headers (431).", tokens=(20, 9)).start()
        self.claude = QuorumAnthropic(answer="Headers too large.", tokens=(30, 11)).start()
        gemini = {"apiKeyEnv": "GEMINI_TEST_KEY"}
        self.specs = [SourceSpec("gemini-flash", self.flash, 1, 1, gemini), SourceSpec("gpt-mini", self.mini, 1, 1),
                      SourceSpec("gemini-pro", self.pro, 2, 2, gemini), SourceSpec("claude", self.claude, 2, 3)]

    def config(self, tmp: Path, **top: Any) -> Path:
        data = config_for(self.specs, {"tier1": 2, "tier2": 3, "tier3": 4}, "gpt-mini", timeoutMs=5000, **top)
        path = tmp / "peer-review.config.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    def stop(self) -> None:
        for server in (self.flash, self.mini, self.pro, self.claude):
            server.stop()
