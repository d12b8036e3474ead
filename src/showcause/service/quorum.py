"""The quorum's façade: what `showcause ask`, `showcause peers` and the MCP tools `peer_review`,
`query_peer`, `list_peers` and `count_tokens` call.

    quorum = load_quorum(Path("peer-review.config.json"))        # or load_quorum(config=Path("x.toml"))
    result = ask_quorum(quorum, "What does HTTP 431 mean?", caller_answer="…")
    print(json.dumps(result.to_dict()))                           # the predecessor's result fields

A quorum (`Peers`) keeps minted key-command tokens for their TTL: load it once and reuse it across calls. Every
function raises a ShowcauseError (InputError for bad arguments, QuorumConfigError for a bad file) and
never lets a key into a message.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from showcause.core.errors import InputError

if TYPE_CHECKING:   # the quorum (and httpx) load on first use: `showcause` starts without them
    from showcause.quorum import Peers as Quorum
    from showcause.quorum import QuorumResult, Turn

__all__ = ["ask_quorum", "count_tokens", "list_peers", "load_quorum", "parse_history", "query_peer",
           "render_quorum_result"]


def load_quorum(path: Path | None = None, *, config: Path | None = None) -> Quorum:
    """The quorum of `path` (the predecessor's JSON, or a TOML file's `[quorum]` table), else of the `[quorum]`
    table of `config`, else of the file PEER_REVIEW_CONFIG names. Its warnings (a tier that can never win,
    unknown keys) are in `quorum.config.warnings`."""
    if path is None and config is None and os.environ.get("PEER_REVIEW_CONFIG"):
        path = Path(os.environ["PEER_REVIEW_CONFIG"])   # the predecessor's variable, for its users' setups
    if (path is None) == (config is None):
        raise InputError("give the quorum configuration once: `quorum` FILE or `config` FILE with [quorum]")
    chosen = path if path is not None else config
    assert chosen is not None
    if config is not None and chosen.suffix.lower() != ".toml":
        raise InputError(f"`config` {chosen}: a TOML file is expected")
    from showcause.quorum import Peers, load_config

    return Peers(load_config(chosen))


def parse_history(data: Any) -> tuple[Turn, ...]:
    """`[{"role": "user"|"model", "content": "…"}, …]` (the predecessor's shape) as turns; InputError else."""
    from showcause.quorum import Turn

    if data is None:
        return ()
    if not isinstance(data, list):
        raise InputError("history: must be a list of {role, content} objects")
    turns: list[Turn] = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or set(item) != {"role", "content"}:
            raise InputError(f"history[{i}]: must be an object with exactly role and content")
        role, content = item["role"], item["content"]
        if role not in ("user", "model") or not isinstance(content, str):
            raise InputError(f"history[{i}]: role must be \"user\" or \"model\" and content a string")
        turns.append(Turn(role=role, content=content))
    return tuple(turns)


def ask_quorum(quorum: Quorum, prompt: str, *, history: Sequence[Turn] = (), tier: int | None = None,
               caller_answer: str | None = None, caller_source: str | None = None,
               env: Mapping[str, str] | None = None) -> QuorumResult:
    """One weighted-quorum consultation (`peer_review`). An unmet quorum is a result, not an error; a result
    where no source answered has `answered` false and `response` None. `env` (default: the process's)
    is where SHOWCAUSE_SKIP_LOCAL / PEER_REVIEW_SKIP_LOCAL are read."""
    if tier is not None and (isinstance(tier, bool) or not isinstance(tier, int) or tier < 1):
        raise InputError("tier: must be a positive integer")
    from showcause.quorum import Request, run_quorum

    request = Request(prompt=prompt, history=tuple(history), tier=tier, caller_answer=caller_answer,
                      caller_source=caller_source)
    return run_quorum(quorum, request, os.environ if env is None else env)


def query_peer(quorum: Quorum, prompt: str, *, history: Sequence[Turn] = (), source: str | None = None
               ) -> dict[str, Any]:
    """One source alone (`query_peer`): default the lowest tier's highest-weight source. Returns
    `{response, model, source, finishReason, tokenUsage{prompt, completion, total}}`."""
    from showcause.quorum import query_one

    return query_one(quorum, prompt, history, source)


def list_peers(quorum: Quorum) -> dict[str, Any]:
    """Every source in config order (`list_peers`); `available` = its credential can be resolved."""
    sources = [{"name": s.name, "apiType": s.api_type, "model": s.model, "weight": s.weight, "tier": s.tier,
                "available": quorum.available(s)} for s in quorum.config.sources]
    return {"sources": sources, "count": len(sources)}


def count_tokens(quorum: Quorum, text: str, *, source: str | None = None) -> dict[str, Any]:
    """`{totalTokens, model, source, method}`: "api" from an Anthropic source's count endpoint, else
    "estimate" (ceil(chars / 4))."""
    from showcause.quorum import count_tokens as count

    return count(quorum, text, source)


def render_quorum_result(result: QuorumResult, fmt: str) -> str:
    """`json`: the result object (the predecessor's fields and our `cost_usd`); `text`: for a terminal."""
    if fmt == "json":
        import json

        return json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n"
    from showcause.quorum import result_text

    return result_text(result)
