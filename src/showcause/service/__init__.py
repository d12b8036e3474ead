"""The review service, as a library: review a change or a decision, run one tool, render a result, its exit
code, and which sandbox a review gets here. The result types are in `showcause.__all__`.

The front ends (the CLI, the MCP server, CI, the bench) also use the service's own modules for what only a
front end needs, each by name: `catalog` (tools and modes), `doctor` and `setup` (`showcause doctor|setup`),
`quorum` (`showcause ask|peers`), `outcomes` (the telemetry log), `toolcall`, `report`, `inputs`, `prepare`,
`hoststatus`, and `showcause.decision.review` for decision reviews. Below the service (snapshots, the sandbox,
tools, the ledger and gate, judges, renderers) nothing is theirs to reach (tests/test_layers.py).
"""

from showcause.core.triage import should_review
from showcause.decision.review import review_decision
from showcause.service.change import ChangeSource, ReviewOptions, review_change
from showcause.service.hoststatus import sandbox_status
from showcause.service.report import exit_code, render_result
from showcause.service.toolcall import run_tool

__all__ = ["ChangeSource", "ReviewOptions", "exit_code", "render_result", "review_change", "review_decision",
           "run_tool", "sandbox_status", "should_review"]
