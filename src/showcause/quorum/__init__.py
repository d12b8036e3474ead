"""The weighted quorum: tiers of peers, an arbiter that rates their answers against a consensus, and a
certainty score (the predecessor's behaviour, its configuration file and its result fields)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from showcause.quorum.arbiter import REPLY_SCHEMA, Evaluation, arbiter_messages, parse_reply
    from showcause.quorum.config import QuorumConfig, Source, load_config, parse_config
    from showcause.quorum.engine import Request, run_quorum
    from showcause.quorum.peers import Peers, Turn
    from showcause.quorum.result import AGREEMENT_BAR, QuorumResult, SourceReport, certainty, result_text
    from showcause.quorum.single import count_tokens, default_source, query_one

__all__ = ["AGREEMENT_BAR", "REPLY_SCHEMA", "Evaluation", "Peers", "QuorumConfig", "QuorumResult", "Request",
           "Source", "SourceReport", "Turn", "arbiter_messages", "certainty", "count_tokens", "default_source",
           "load_config", "parse_config", "parse_reply", "query_one", "result_text", "run_quorum"]

# Each name's module, loaded on first use: a review that only needs the certainty score (or a mechanical
# review, whose mode registry lists the quorum mode) never loads the peers' HTTP clients.
_WHERE = {
    **dict.fromkeys(("REPLY_SCHEMA", "Evaluation", "arbiter_messages", "parse_reply"), "arbiter"),
    **dict.fromkeys(("QuorumConfig", "Source", "load_config", "parse_config"), "config"),
    **dict.fromkeys(("Request", "run_quorum"), "engine"),
    **dict.fromkeys(("Peers", "Turn"), "peers"),
    **dict.fromkeys(("AGREEMENT_BAR", "QuorumResult", "SourceReport", "certainty", "result_text"), "result"),
    **dict.fromkeys(("count_tokens", "default_source", "query_one"), "single"),
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'showcause.quorum' has no attribute {name!r}")
    return getattr(importlib.import_module(f"showcause.quorum.{module}"), name)
