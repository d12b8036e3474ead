# pyright: strict
"""The policy: every limit and rule a review runs under, as one typed model, and how it is loaded.

The bottom layer beside `core` (which is all it imports): the sandbox, the tools, the judges and the service
read it, so it depends on none of them. Import it from here; `showcause.policy.doc` is the generator of
`sandbox/policy.toml` and docs/configuration.md (`make docs`), not part of what is read at run time.
"""

from showcause.policy.load import default_policy_path, load_policy, tighter_only
from showcause.policy.model import (
    LEVELS,
    SAFE_LEVELS,
    SECTIONS,
    AnalysisSection,
    OutputSection,
    PathsSection,
    Policy,
    ProcessSection,
    ReviewSection,
    SandboxSection,
    SearchSection,
    SymbolsSection,
    TelemetrySection,
    TestsSection,
    tightening,
)

__all__ = ["LEVELS", "SAFE_LEVELS", "SECTIONS", "AnalysisSection", "OutputSection", "PathsSection", "Policy",
           "ProcessSection", "ReviewSection", "SandboxSection", "SearchSection", "SymbolsSection", "TelemetrySection",
           "TestsSection", "default_policy_path", "load_policy", "tightening", "tighter_only"]
