"""Text a pull request wrote (test ids, file names, failure output, claims, model text) as data in each format.

One function per format, used by every renderer: Markdown and HTML for comments and job summaries (no mention,
no image, no link, no raw HTML, no way out of a code span, a code block or a `<details>` block), plain text for
SARIF and workflow annotations (no control characters; the annotation's own `%`, CR and LF encoding).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["annotation_data", "annotation_property", "md_code_block", "md_code_span", "md_text", "plain_text",
           "sarif_text"]

# The characters Markdown (CommonMark and GitHub's extensions) reads as syntax inside a line: emphasis, code,
# links and images (nothing is a link or an image without `[`), tables and strikethrough. Line-start syntax
# (headings, lists, setext underlines) can arise only at the text's start, which is escaped on its own.
# `<`, `>`, `&` and `"` are written as HTML entities instead (a backslash before an entity would show it).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_LINE_START = re.compile(r"^(\d{0,9})([#+=-]|(?<=\d)[.)])")   # a heading, a list item, an underline
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
# @user, @org/team, #123 (linked and notified by GitHub), and the starts of bare links GitHub turns into links.
_LINKISH = re.compile(r"([@#])(?=[A-Za-z0-9])|(?<=[A-Za-z])(\\?:)(?=//)|(?<![A-Za-z0-9])(www)(?=\\?\.)", re.I)
_WORD_JOINER = "\u2060"                          # invisible: breaks the mention, the reference, the link


def plain_text(text: str) -> str:
    """One line with no control or format characters (newlines, escapes, bidi overrides become spaces)."""
    cleaned = "".join(" " if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in text)
    return " ".join(cleaned.split())


def md_text(text: str) -> str:
    """Inline Markdown that renders exactly `text`, wherever on a line it is written: HTML is escaped, Markdown's
    inline characters backslashed, and mentions, issue references and bare links broken by an invisible
    joiner."""
    escaped = _MD_SPECIAL.sub(r"\\\1", plain_text(text))
    escaped = _LINE_START.sub(r"\1\\\2", escaped, count=1)
    html = "".join(_HTML.get(c, c) for c in escaped)
    return _LINKISH.sub(lambda m: next(g for g in m.groups() if g) + _WORD_JOINER, html)


def _longest_run(text: str, char: str) -> int:
    return max((len(m) for m in re.findall(f"{re.escape(char)}+", text)), default=0)


def md_code_span(text: str) -> str:
    """An inline code span holding `text` on one line: its fence is longer than any backtick run inside."""
    flat = plain_text(text)
    fence = "`" * (_longest_run(flat, "`") + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def md_code_block(text: str, info: str = "text") -> str:
    """A fenced code block holding `text` verbatim (control characters but tab and newline removed): its fence
    is longer than any backtick run inside, so nothing in it closes the block or the `<details>` around it."""
    body = "".join(c if c in "\t\n" or unicodedata.category(c) not in ("Cc", "Cf") else " " for c in text)
    fence = "`" * max(3, _longest_run(body, "`") + 1)
    return f"{fence}{info}\n{body.rstrip(chr(10))}\n{fence}"


def sarif_text(text: str) -> str:
    """A SARIF plain-text message: one line, and `\\`, `[` and `]` backslashed (SARIF reads `[text](n)` in a
    message as an embedded link to a related location)."""
    return re.sub(r"([\\\[\]])", r"\\\1", plain_text(text))


def annotation_data(text: str) -> str:
    """A workflow command's message: one line, with its `%`, CR and LF encoded as the runner reads them."""
    return plain_text(text).replace("%", "%25")


def annotation_property(text: str) -> str:
    """A workflow command's property value (`file=`, `title=`): also `:` and `,` encoded."""
    return annotation_data(text).replace(":", "%3A").replace(",", "%2C")
