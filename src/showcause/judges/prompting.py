"""Prompts (text files, hashed into every result) and the messages that carry a change to a model."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from showcause.core.records import ToolCall
from showcause.judges.base import ReviewRequest
from showcause.snapshot import Snapshot
from showcause.snapshot.gitcmd import git

__all__ = ["change_text", "load_prompt", "task_sections", "unified_diff"]

_DIR = Path(__file__).with_name("prompts")
_MAX_DIFF = 40_000


@cache
def load_prompt(name: str) -> tuple[str, str]:
    """(text, sha256 prefix) of `prompts/<name>.txt`."""
    text = (_DIR / f"{name}.txt").read_text(encoding="utf-8")
    return text, hashlib.sha256(text.encode()).hexdigest()[:12]


def task_sections(heading: str, text: str, constraints: Sequence[str], context: str) -> list[str]:
    """What every blind phase starts from: the task (or objective) under `heading`, its constraints, its context."""
    parts = [f"## {heading}\n{text}"]
    if constraints:
        parts.append("## Constraints\n" + "\n".join(f"- {c}" for c in constraints))
    if context.strip():
        parts.append(f"## Context\n{context}")
    return parts


def unified_diff(snapshot: Snapshot, context: int = 3) -> str:
    """The real diff between the two trees, with a/ b/ paths and some context, capped."""
    parent = snapshot.head.parent
    proc = git(["diff", "--no-index", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv",
                f"-U{context}", "--", snapshot.base.name, snapshot.head.name], cwd=parent, check=False)
    text = proc.stdout.replace(f"a/{snapshot.base.name}/", "a/").replace(f"b/{snapshot.head.name}/", "b/")
    if len(text) > _MAX_DIFF:
        text = text[:_MAX_DIFF] + f"\n… [diff cut: {len(text) - _MAX_DIFF} more characters; read files with tools]\n"
    return text


def change_text(snapshot: Snapshot, request: ReviewRequest, probes: list[ToolCall] | None = None,
                with_diff: bool = True) -> str:
    parts = []
    if request.task:
        parts.append(f"## Task\n{request.task}")
    if request.plan:
        parts.append(f"## The author's plan\n{request.plan}")
    if with_diff:
        parts.append(f"## The change (unified diff)\n```diff\n{unified_diff(snapshot)}```")
    if probes:
        parts.append("## Probes already run (cite their ids)\n" + "\n\n".join(c.output for c in probes))
    return "\n\n".join(parts)
