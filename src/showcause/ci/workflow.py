"""What a job step hands back to GitHub: annotations (workflow commands), the job summary, step outputs.

GitHub shows at most 10 error and 10 warning annotations of one step (and 10 notices); the ones beyond
that are listed in the job summary instead, so nothing is dropped silently.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path

from showcause.core.escape import md_text

__all__ = ["MAX_PER_LEVEL", "Annotations", "append_text", "cap_annotations", "summary_text", "write_outputs"]

MAX_PER_LEVEL = 10
_LEVELS = ("error", "warning", "notice")


@dataclass
class Annotations:
    """The workflow-command lines to print, and the messages of those left out (for the summary)."""

    shown: list[str] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)   # (level, message)


def _level(line: str) -> str | None:
    for level in _LEVELS:
        if line.startswith(f"::{level} ") or line.startswith(f"::{level}::"):
            return level
    return None


def _message(line: str) -> str:
    text = line.split("::", 2)[2] if line.count("::") >= 2 else line
    return text.replace("%0A", " ").replace("%0D", " ").replace("%25", "%")


def cap_annotations(lines: list[str], reserved: dict[str, int] | None = None) -> Annotations:
    """At most MAX_PER_LEVEL lines of each level, in order, the last line (the verdict) always among them;
    ``reserved`` holds back room per level for lines the caller prints itself (a notice about the comment)."""
    room = {level: MAX_PER_LEVEL - (reserved or {}).get(level, 0) for level in _LEVELS}
    last = next((i for i in range(len(lines) - 1, -1, -1) if _level(lines[i])), None)
    if last is not None:
        room[_level(lines[last]) or "notice"] -= 1
    out = Annotations()
    for i, line in enumerate(lines):
        level = _level(line)
        if level is None:
            continue
        if i == last:
            out.shown.append(line)
        elif room[level] > 0:
            room[level] -= 1
            out.shown.append(line)
        else:
            out.left_out.append((level, _message(line)))
    return out


def summary_text(markdown: str, left_out: list[tuple[str, str]], facts: list[str]) -> str:
    """The job summary: the report, the annotations GitHub would not show, then the run's facts."""
    parts = ["## showcause", "", markdown.rstrip("\n"), ""]
    if left_out:
        parts += [f"### Beyond GitHub's {MAX_PER_LEVEL} annotations per level", ""]
        parts += [f"- **{level}**: {md_text(' '.join(message.split())[:1000])}" for level, message in left_out]
        parts.append("")
    parts += [f"- {fact}" for fact in facts]
    return "\n".join(parts) + "\n"


def write_outputs(path: Path, outputs: dict[str, str]) -> None:
    """Append ``outputs`` to the GITHUB_OUTPUT file, each in the delimited form, so no value (a path with a
    newline) can inject another output."""
    lines = []
    for name, value in outputs.items():
        delimiter = f"showcause_{secrets.token_hex(8)}"
        lines += [f"{name}<<{delimiter}", value, delimiter]
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")


def append_text(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)
