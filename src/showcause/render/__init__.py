"""Renderers: one registry from format name to function (result -> text)."""

from __future__ import annotations

import json
from collections.abc import Callable

from showcause.core.result import ReviewResult
from showcause.render.github import render_github
from showcause.render.markdown import render_markdown
from showcause.render.sarif import render_sarif
from showcause.render.text import render_text

__all__ = ["RENDERERS", "render"]


def _json(result: ReviewResult) -> str:
    return json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n"


RENDERERS: dict[str, Callable[[ReviewResult], str]] = {
    "json": _json, "markdown": render_markdown, "sarif": render_sarif, "github": render_github, "text": render_text,
}


def render(result: ReviewResult, fmt: str) -> str:
    return RENDERERS[fmt](result)
