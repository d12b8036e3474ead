"""The one sticky pull-request comment: found by a hidden marker, edited in place, never posted twice.

A review that blocks or warns posts the comment (or edits it); a later KEEP edits it to say the change now
passes and what it said before. A KEEP with no earlier comment posts nothing: a clean change makes no noise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["MARKER", "MAX_COMMENT_CHARS", "CommentOutcome", "comment_body", "previous_verdict", "upsert_comment"]

MARKER = "<!-- showcause:sticky-comment -->"
MAX_COMMENT_CHARS = 65_000          # GitHub refuses a body of 65,536 characters or more
_VERDICT = re.compile(r"<!-- showcause:verdict=([A-Z]+) -->")
_CUT = "\n\n_… cut to fit GitHub's comment limit: the job summary has the whole report._\n"


class CommentApi(Protocol):
    def list_comments(self, number: int) -> list[dict[str, Any]]: ...
    def create_comment(self, number: int, body: str) -> dict[str, Any]: ...
    def update_comment(self, comment_id: int, body: str) -> dict[str, Any]: ...


@dataclass(frozen=True)
class CommentOutcome:
    """``action`` is created, updated or skipped; ``previous`` the verdict the comment showed before."""

    action: str
    comment_id: int | None = None
    previous: str | None = None


def _fit(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, a code fence or a details block left open by the cut closed."""
    if len(text) <= limit:
        return text
    room = limit - len(_CUT) - 40
    cut = text[:room].rsplit("\n", 1)[0]
    fence = _open_fence(cut)
    if fence:
        cut += "\n" + fence
    if cut.count("<details>") > cut.count("</details>"):
        cut += "\n</details>"
    return cut + _CUT


def _open_fence(text: str) -> str | None:
    """The fence of a code block `text` leaves open (core/escape.py makes each fence longer than any backtick
    run inside its block, so only a line of at least as many backticks closes it)."""
    fence: str | None = None
    for line in text.split("\n"):
        run = len(line) - len(line.lstrip("`"))
        if fence is None and run >= 3:
            fence = "`" * run
        elif fence is not None and run >= len(fence) and not line.strip("`").strip():
            fence = None
    return fence


def comment_body(markdown: str, verdict: str, head_sha: str, previous: str | None = None) -> str:
    """The comment for a review of ``head_sha``: the marker, the report and, for a KEEP that follows a
    verdict that was not one, the sentence saying so. Always under MAX_COMMENT_CHARS."""
    head = f"{MARKER}\n<!-- showcause:verdict={verdict} -->\n"
    lead = ""
    if verdict == "KEEP" and previous not in (None, "KEEP"):
        lead = (f"**Updated:** this comment said **{previous}** for an earlier commit; at `{head_sha[:12]}` "
                "nothing the change introduces blocks it any more.\n\n")
    foot = f"\n<sub>showcause · reviewed commit `{head_sha[:12]}`</sub>\n"
    return head + lead + _fit(markdown, MAX_COMMENT_CHARS - len(head) - len(lead) - len(foot)) + foot


def previous_verdict(body: str) -> str | None:
    found = _VERDICT.search(body)
    return found.group(1) if found else None


def _sticky(comments: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The oldest comment with the marker, a bot's first (anyone may paste the marker, but only the
    workflow's own comment can be edited with its token)."""
    marked = [c for c in comments if MARKER in str(c.get("body") or "") and isinstance(c.get("id"), int)]
    bots = [c for c in marked if isinstance(c.get("user"), dict) and c["user"].get("type") == "Bot"]
    return (bots or marked or [None])[0]


def upsert_comment(api: CommentApi, number: int, markdown: str, verdict: str, head_sha: str) -> CommentOutcome:
    """Edit the sticky comment of pull request ``number`` in place, or post it when there is none (and the
    verdict is not a KEEP). Raises GithubApiError when a call fails."""
    found = _sticky(api.list_comments(number))
    if found is None:
        if verdict == "KEEP":
            return CommentOutcome("skipped")
        made = api.create_comment(number, comment_body(markdown, verdict, head_sha))
        return CommentOutcome("created", made.get("id") if isinstance(made.get("id"), int) else None)
    previous = previous_verdict(str(found.get("body") or ""))
    api.update_comment(found["id"], comment_body(markdown, verdict, head_sha, previous))
    return CommentOutcome("updated", found["id"], previous)
