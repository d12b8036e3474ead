"""Lazy escalation against asking every source: tokens of the weighted quorum on a scripted workload.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_quorum.py [--questions 20]

The predecessor's three-tier stack (two flash-class voters at tier 1, a mid model at tier 2, a frontier
model at tier 3, thresholds 2/3/4) on loopback servers speaking the OpenAI and Anthropic wire formats.
Each question is easy (everyone agrees), contested (a tier-1 outlier) or split (nobody agrees enough),
in a fixed 60/25/15 mix. Peers report fixed token counts per model size; the arbiter reports a quarter of
the characters it was shown as prompt tokens. The baseline puts every source in one tier with the whole
weight required, so each one answers and the arbiter rates them once. Prints tokens (and the ratio) per
question kind and in all.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "support")]

from llm_server_base import turn  # noqa: E402
from quorum_servers import (  # noqa: E402
    QuorumAnthropic,
    QuorumOpenAI,
    SourceSpec,
    config_for,
    peer_posts,
    ratings_arbiter,
)

# (prompt, completion) tokens a peer of each size reports
SIZES = {"gemini-flash": (120, 90), "gpt-mini": (120, 140), "gemini-pro": (120, 380), "claude": (120, 520)}
KINDS = {
    "easy": {"gemini-flash": 1.0, "gpt-mini": 1.0, "gemini-pro": 0.95, "claude": 0.9},
    "contested": {"gemini-flash": 0.2, "gpt-mini": 0.95, "gemini-pro": 0.9, "claude": 0.85},
    "split": {"gemini-flash": 0.9, "gpt-mini": 0.3, "gemini-pro": 0.4, "claude": 0.8},
}
# Illustrative list prices, USD per million tokens (input, output): what makes the top tier worth avoiding.
PRICES = {"gemini-flash": (0.30, 2.50), "gpt-mini": (0.25, 2.00), "gemini-pro": (1.25, 10.00), "claude": (3.00, 15.00)}
MIX = ["easy"] * 12 + ["contested"] * 5 + ["split"] * 3   # per 20 questions


class _Arbiter(QuorumOpenAI):
    def role_turn(self, body: dict[str, Any]) -> dict[str, Any]:
        data = super().role_turn(body)
        if body.get("temperature") == 0:
            shown = len(json.dumps(body["messages"]))
            data = turn(data["content"], usage={"prompt_tokens": shown // 4, "completion_tokens": 60})
        return data


def _stack(kind: str) -> tuple[list[SourceSpec], list[Any]]:
    arbiter = ratings_arbiter("the consensus answer", KINDS[kind])
    servers: list[Any] = []
    specs = []
    for name, weight, tier in (("gemini-flash", 1, 1), ("gpt-mini", 1, 1), ("gemini-pro", 2, 2), ("claude", 2, 3)):
        text = f"{name}'s answer " * (SIZES[name][1] // 4)
        if name == "claude":
            server: Any = QuorumAnthropic(answer=text, tokens=SIZES[name])
        elif name == "gpt-mini":
            server = _Arbiter(answer=text, tokens=SIZES[name], arbiter=arbiter)
        else:
            server = QuorumOpenAI(answer=text, tokens=SIZES[name])
        servers.append(server.start())
        specs.append(SourceSpec(name, server, weight, tier))
    return specs, servers


def _price(name: str, prompt: int, completion: int) -> float:
    price_in, price_out = PRICES[name]
    return (prompt * price_in + completion * price_out) / 1_000_000


def _ask(specs: list[SourceSpec], flat: bool, tmp: Path) -> tuple[int, int, float]:
    """Tokens, arbiter calls and the priced cost of one question (peers at their price, the arbiter at
    gpt-mini's)."""
    from showcause.service.quorum import ask_quorum, load_quorum

    if flat:
        specs = [SourceSpec(s.name, s.server, s.weight, 1) for s in specs]
        thresholds = {"tier1": sum(s.weight for s in specs)}
    else:
        thresholds = {"tier1": 2, "tier2": 3, "tier3": 4}
    path = tmp / ("flat.json" if flat else "tiers.json")
    path.write_text(json.dumps(config_for(specs, thresholds, "gpt-mini", timeoutMs=10000)), encoding="utf-8")
    before = {s.name: len(peer_posts(s.server)) for s in specs}
    result = ask_quorum(load_quorum(path), "a scripted question")
    calls = {s.name: len(peer_posts(s.server)) - before[s.name] for s in specs}
    cost = sum(n * _price(name, *SIZES[name]) for name, n in calls.items())
    peer_prompt = sum(n * SIZES[name][0] for name, n in calls.items())
    peer_completion = sum(n * SIZES[name][1] for name, n in calls.items())
    cost += _price("gpt-mini", result.prompt_tokens - peer_prompt, result.completion_tokens - peer_completion)
    return result.prompt_tokens + result.completion_tokens, result.arbiter_calls, cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=20)
    args = parser.parse_args()
    os.environ["QUORUM_TEST_KEY"] = "sk-bench-quorum"
    lazy: Counter[str] = Counter()
    every: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    lazy_usd: Counter[str] = Counter()
    every_usd: Counter[str] = Counter()
    kinds = [MIX[i % len(MIX)] for i in range(args.questions)]
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            specs, servers = _stack(kind)
            try:
                tokens, arbiter_calls, usd = _ask(specs, False, Path(tmp))
                lazy[kind] += tokens
                calls[kind] += arbiter_calls
                lazy_usd[kind] += usd
                tokens, _, usd = _ask(specs, True, Path(tmp))
                every[kind] += tokens
                every_usd[kind] += usd
            finally:
                for server in servers:
                    server.stop()
    print(f"{'kind':<10} {'questions':>9} {'lazy tokens':>12} {'every source':>13} {'ratio':>6} "
          f"{'priced ratio':>13} {'arbiter calls':>14}")
    for kind in KINDS:
        n = kinds.count(kind)
        if n:
            print(f"{kind:<10} {n:>9} {lazy[kind]:>12} {every[kind]:>13} {lazy[kind] / every[kind]:>6.2f} "
                  f"{lazy_usd[kind] / every_usd[kind]:>13.2f} {calls[kind] / n:>14.1f}")
    total_lazy, total_every = sum(lazy.values()), sum(every.values())
    priced = sum(lazy_usd.values()) / sum(every_usd.values())
    print(f"{'all':<10} {len(kinds):>9} {total_lazy:>12} {total_every:>13} {total_lazy / total_every:>6.2f} "
          f"{priced:>13.2f}")


if __name__ == "__main__":
    main()
