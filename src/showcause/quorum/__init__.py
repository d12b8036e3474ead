"""The weighted quorum: tiers of peers, an arbiter that rates their answers against a consensus, and a
certainty score (the predecessor's behaviour, its configuration file and its result fields)."""

from showcause.quorum.arbiter import REPLY_SCHEMA, Evaluation, arbiter_messages, parse_reply
from showcause.quorum.config import QuorumConfig, Source, load_config, parse_config
from showcause.quorum.engine import Request, run_quorum
from showcause.quorum.peers import Peers, Turn
from showcause.quorum.result import AGREEMENT_BAR, QuorumResult, SourceReport, certainty, result_text
from showcause.quorum.single import count_tokens, default_source, query_one

__all__ = ["AGREEMENT_BAR", "REPLY_SCHEMA", "Evaluation", "Peers", "QuorumConfig", "QuorumResult", "Request",
           "Source", "SourceReport", "Turn", "arbiter_messages", "certainty", "count_tokens", "default_source",
           "load_config", "parse_config", "parse_reply", "query_one", "result_text", "run_quorum"]
