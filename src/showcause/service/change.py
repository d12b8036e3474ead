"""The façade for a code change: what to review and how -> one ReviewResult.

The CLI, the bench and the MCP server describe a review with a `ChangeSource` (where the two trees come from)
and `ReviewOptions` (mode, model, config, isolation, the task); `review_change` assembles the snapshot, the
policy and the request, runs the mode and returns the gated result. Nothing above this module builds a
snapshot, a tool context or a request itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from showcause.core.errors import InputError, ModelRequired, NothingToReview
from showcause.core.result import ReviewResult
from showcause.judges.base import ReviewRequest
from showcause.judges.blindness import thresholds
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review
from showcause.telemetry import change_record, log_review, telemetry_path

if TYPE_CHECKING:   # the quorum (and httpx) load only for --mode quorum
    from showcause.quorum import Peers

__all__ = ["ChangeSource", "ReviewOptions", "review_change"]


@dataclass(frozen=True)
class ChangeSource:
    """Exactly one of ``case`` (a repo case folder) or ``repo`` (a repository, with ``diff`` or ``base``/``head``,
    or neither: its working tree)."""

    case: Path | None = None
    repo: Path | None = None
    diff: Path | None = None
    base: str | None = None
    head: str | None = None

    @property
    def kind(self) -> str:
        """Where the trees come from, in one word (what the telemetry log keeps of a change)."""
        if self.case is not None:
            return "case"
        return "git" if self.base is not None else "patch" if self.diff is not None else "working_tree"


@dataclass(frozen=True)
class ReviewOptions:
    """How to review. ``task``/``plan`` given here win over a case's own; ``eager_base`` lets the probes
    start base-tree checks speculatively (None: where the cores allow, `core.host.spare_cores`; off where many
    reviews share the cores); ``python`` names the project's interpreter."""

    mode: str | None = None
    model: str | None = None
    base_url: str | None = None
    config: Path | None = None
    isolation: str | None = None
    task: str | None = None
    plan: str | None = None
    blindness_warn: float | None = None
    blindness_leak: float | None = None
    eager_base: bool | None = None
    python: Path | None = None     # the project's interpreter (`--python`); None: found as docs/sandbox.md says
    quorum: Path | None = None     # `--mode quorum`: its configuration (else the [quorum] table of `config`)


_QUORUM_MODE = "quorum"   # the mode whose members come from a quorum configuration (judges/quorum_mode.py)


def _quorum(options: ReviewOptions) -> Peers | None:
    """The members of `--mode quorum`, loaded (and checked: exit 2) before anything else runs."""
    if options.mode != _QUORUM_MODE:
        if options.quorum is not None:
            raise InputError(f"`quorum` is for `mode` {_QUORUM_MODE} (or `showcause ask`)")
        return None
    if options.model is not None:
        raise InputError(f"`mode` {_QUORUM_MODE} takes its models from the quorum configuration, not `model`")
    if options.quorum is None and options.config is None and not os.environ.get("PEER_REVIEW_CONFIG"):
        raise ModelRequired(f"mode {_QUORUM_MODE!r} needs models: `quorum` FILE, or `config` FILE with a [quorum] "
                            "table")
    from showcause.service.quorum import load_quorum

    return load_quorum(options.quorum, config=options.config if options.quorum is None else None)


def review_change(source: ChangeSource, options: ReviewOptions | None = None) -> ReviewResult:
    """Review one change. Bad input raises InputError (exit 2) before any work; a review that could not run
    its probes is an INCONCLUSIVE result with an error code, never a pass."""
    options = options or ReviewOptions()
    thresholds(options.blindness_warn, options.blindness_leak)   # checked before the trees are copied
    peers = _quorum(options)
    log = telemetry_path(options.config)
    with open_snapshot(case=source.case, repo=source.repo, diff=source.diff, base=source.base,
                       head=source.head) as snap:
        if not snap.diff.files:
            # Nothing was compared, so nothing can be said about it: never a KEEP that reads as "checked".
            what = (f"the working tree of {source.repo} has no change against {source.base or 'HEAD'}"
                    if source.repo is not None and source.head is None
                    else f"{snap.label}: base and head are the same")
            raise NothingToReview(f"nothing to review: {what} (review a change with `diff` FILE or `base` REF "
                             "`head` REF)")
        ctx = tool_context(snap, options.config, isolation=options.isolation, python=options.python)
        if options.eager_base is not None:
            ctx.eager_base = options.eager_base
        request = ReviewRequest.from_case_input(snap.case.task if snap.case else {}, task=options.task,
                                                plan=options.plan, model=options.model,
                                                base_url=options.base_url)
        request.blindness_warn, request.blindness_leak = options.blindness_warn, options.blindness_leak
        if peers is not None:
            request.quorum, request.model = peers, _QUORUM_MODE
        result = run_review(ctx, options.mode, request)   # no mode: the default the specs declare
    log_review(log, change_record(result, source.kind, options.model), result.meta)
    return result
