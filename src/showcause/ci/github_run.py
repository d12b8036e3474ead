"""`showcause ci github`: review a pull request (or merge group) inside a GitHub Actions job and report it.

One review of base..head from git objects, then every report GitHub reads: SARIF (for code scanning,
category `showcause`), the sticky comment, the job summary, the annotations and the step outputs. A report
that cannot be delivered (a fork's read-only token refuses the comment) is said with a notice; the exit
code is always the review's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from showcause import service
from showcause.ci.github_api import GithubClient
from showcause.ci.github_env import GithubContext, read_context
from showcause.ci.sticky import upsert_comment
from showcause.ci.workflow import append_text, cap_annotations, summary_text, write_outputs
from showcause.core.errors import GithubApiError, InputError, exit_status
from showcause.core.escape import annotation_data
from showcause.core.result import ReviewResult
from showcause.service import ChangeSource, ReviewOptions
from showcause.service.report import check_report_options
from showcause.snapshot.baseref import merge_base

__all__ = ["SARIF_CATEGORY", "GithubCiOptions", "run_github"]

SARIF_CATEGORY = "showcause"


@dataclass(frozen=True)
class GithubCiOptions:
    """The command's options, one per Action input. ``base`` overrides the event's base (a ref or sha);
    ``sarif`` None writes no SARIF; ``repo`` None is GITHUB_WORKSPACE, else the working directory."""

    mode: str | None = None
    model: str | None = None
    base_url: str | None = None
    fail_on: str | None = None
    config: Path | None = None
    python: Path | None = None
    isolation: str | None = None
    comment: bool = True
    sarif: Path | None = Path("showcause.sarif")
    annotations: bool = True
    repo: Path | None = None
    base: str | None = None


def _notice(text: str, level: str = "notice") -> str:
    return f"::{level} title=showcause::{annotation_data(text)}"


def _repo(options: GithubCiOptions, env: Mapping[str, str]) -> Path:
    if options.repo is not None:
        return options.repo
    workspace = env.get("GITHUB_WORKSPACE", "").strip()
    return Path(workspace) if workspace else Path.cwd()


def _base(ctx: GithubContext, options: GithubCiOptions, repo: Path) -> str:
    """The commit the diff starts at: the given base, else for a pull request the point its head left the
    base branch (GitHub's own diff), else the event's base commit."""
    if options.base:
        return options.base
    if ctx.event == "merge_group":
        return ctx.base_sha
    return merge_base(repo, ctx.base_sha, ctx.head_sha) or ctx.base_sha


def _sarif(result: ReviewResult, path: Path) -> None:
    doc = json.loads(service.render_result(result, "sarif"))
    for run in doc.get("runs", []):   # one category, so a later upload replaces this one's alerts
        run["automationDetails"] = {"id": f"{SARIF_CATEGORY}/"}
    try:
        path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write `sarif` {path}: {exc.strerror}") from None


def _comment(ctx: GithubContext, result: ReviewResult, markdown: str,
             transport: httpx.BaseTransport | None) -> tuple[str, str | None]:
    """(what happened to the comment, a notice line when it could not be posted)."""
    if ctx.number is None:
        return "none (a merge group has no conversation)", None
    assert ctx.token is not None     # checked before the review
    try:
        with GithubClient(ctx.api_url, ctx.repository, ctx.token, transport=transport) as api:
            outcome = upsert_comment(api, ctx.number, markdown, result.verdict, ctx.head_sha)
    except GithubApiError as exc:
        if exc.status in (403, 404):   # a fork's read-only token, or no pull-requests: write permission
            return "not posted", _notice(
                f"showcause could not comment on pull request #{ctx.number} ({exc.message}): the token is "
                "read-only here (a pull request from a fork, or no `pull-requests: write` permission). The "
                "verdict and the exit code stand; the report is in the job summary.")
        return "not posted", _notice(f"showcause could not comment on pull request #{ctx.number}: "
                                     f"{exc.message}", "warning")
    return {"created": "posted", "updated": f"updated (was {outcome.previous or 'unknown'})",
            "skipped": "none needed (KEEP)"}[outcome.action], None


def _review(ctx: GithubContext, options: GithubCiOptions, env: Mapping[str, str]) -> ReviewResult:
    repo = _repo(options, env)
    try:
        return service.review_change(
            ChangeSource(repo=repo, base=_base(ctx, options, repo), head=ctx.head_sha),
            ReviewOptions(mode=options.mode, model=options.model, base_url=options.base_url, config=options.config,
                          isolation=options.isolation, python=options.python))
    except InputError as exc:
        if ctx.output_path is not None:   # a later step can still read why the review did not happen
            write_outputs(ctx.output_path, {"verdict": "", "exit-code": str(exit_status(exc)), "sarif-file": ""})
        if "unknown git ref" in exc.message:   # the usual cause: a shallow checkout
            raise InputError(f"{exc.message}: check out with `fetch-depth: 0` so that both the base and the head "
                             "commit are in the clone") from None
        raise


def run_github(options: GithubCiOptions, env: Mapping[str, str] | None = None,
               emit: Callable[[str], None] = print, transport: httpx.BaseTransport | None = None) -> int:
    """Review the job's change and report it; returns the exit code (the review's, under ``fail_on``).

    Raises InputError (exit 2) for a bad environment, event or option, before the review starts.
    """
    env = os.environ if env is None else env
    ctx = read_context(env)
    rule = check_report_options("markdown", options.fail_on)
    if options.comment and ctx.number is not None and ctx.token is None:
        raise InputError("GITHUB_TOKEN is not set: pass `github.token` to the step, or `no_comment`")
    if options.sarif is not None and not options.sarif.parent.is_dir():
        raise InputError(f"`sarif` directory {options.sarif.parent} does not exist")
    result = _review(ctx, options, env)
    code = service.exit_code(result, rule)
    markdown = service.render_result(result, "markdown")
    if options.sarif is not None:
        _sarif(result, options.sarif)
    said, notice = _comment(ctx, result, markdown, transport) if options.comment else ("off (--no-comment)", None)
    lines = service.render_result(result, "github").splitlines() if options.annotations else []
    shown = cap_annotations(lines, {notice[2:].split(" ", 1)[0]: 1} if notice else None)
    for line in [*shown.shown, *([notice] if notice else [])]:
        emit(line)
    facts = [f"verdict: **{result.verdict}**, exit code {code} (fail on {rule})",
             f"reviewed `{ctx.head_sha[:12]}` ({ctx.event}) in mode {result.meta.mode}, "
             f"isolation {result.meta.isolation}",
             f"comment: {said}", f"SARIF: {options.sarif if options.sarif is not None else 'off (--no-sarif)'}"]
    try:
        if ctx.summary_path is not None:
            append_text(ctx.summary_path, summary_text(markdown, shown.left_out, facts))
        if ctx.output_path is not None:
            write_outputs(ctx.output_path, {"verdict": result.verdict, "exit-code": str(code),
                                            "sarif-file": str(options.sarif.resolve()) if options.sarif else ""})
    except OSError as exc:
        raise InputError(f"cannot write the job summary or outputs: {exc}") from None
    return code
