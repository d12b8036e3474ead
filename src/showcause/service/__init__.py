"""The one review service: assemble -> run -> render, for a code change and for a decision document.

The CLI, the bench and the MCP server call only what is exported here; everything below (snapshots, the
sandbox, tools, the ledger and gate, judges, renderers) is reached through it.
"""

from showcause.core.triage import should_review
from showcause.service.catalog import modes, modes_markdown, modes_text, tool_schemas, tools_markdown, tools_text
from showcause.service.change import ChangeSource, ReviewOptions, default_mode, review_change
from showcause.service.decision import decision_budget, review_decision, review_decision_fields, review_decision_input
from showcause.service.doctor import HostCheck, doctor_checks
from showcause.service.hoststatus import require_sandbox, sandbox_status
from showcause.service.inputs import default_base, with_isolation
from showcause.service.outcomes import outcomes_summary, outcomes_text, record_outcome
from showcause.service.prepare import prepare_case
from showcause.service.quorum import (
    ask_quorum,
    count_tokens,
    list_peers,
    load_quorum,
    parse_history,
    query_peer,
    render_quorum_result,
)
from showcause.service.report import FAIL_ON, FORMATS, check_report_options, exit_code, render_result
from showcause.service.setup import setup_toolchain
from showcause.service.toolcall import check_tool, parse_tool_args, run_tool

__all__ = ["FAIL_ON", "FORMATS", "ChangeSource", "HostCheck", "ReviewOptions", "ask_quorum", "check_report_options",
           "check_tool", "count_tokens", "decision_budget", "default_base", "default_mode", "doctor_checks",
           "exit_code", "list_peers", "load_quorum", "modes", "modes_markdown", "modes_text", "outcomes_summary",
           "outcomes_text", "parse_history", "parse_tool_args", "prepare_case", "query_peer", "record_outcome",
           "render_quorum_result", "render_result", "require_sandbox", "review_change", "review_decision",
           "review_decision_fields", "review_decision_input", "run_tool", "sandbox_status", "setup_toolchain",
           "should_review", "tool_schemas", "tools_markdown", "tools_text", "with_isolation"]
