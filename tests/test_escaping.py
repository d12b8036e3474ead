"""What a pull request writes is data in every rendered format (core/escape.py).

The injection corpus below goes through each escaping function and a CommonMark parser (markdown-it-py), and
end to end: a real regression whose failing test's parametrize id is the payload, reviewed by the CLI, then
rendered as Markdown, GitHub annotations and SARIF."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from builders import make_case
from showcause.core.escape import (
    annotation_data,
    annotation_property,
    md_code_block,
    md_code_span,
    md_text,
    plain_text,
    sarif_text,
)

SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
WJ = "\u2060"
CORPUS = [
    "``` </details> @octocat ![p](https://evil.example/id.png) <img src=x onerror=alert(1)>",
    "</details><details open><summary>fake</summary>",
    "[click](javascript:alert(1)) <a href='https://evil.example'>x</a> <!-- hidden -->",
    "# heading\n- list\n> quote\n|a|b|\n|-|-|",
    "@org/team #123 GH-1 www.evil.example https://evil.example user@example.com",
    "*emph* _emph_ **bold** ~~strike~~ `code` $math$ \\escaped &amp; &lt;b&gt;",
    "bidi \u202etxt.exe\u202c zero\u200bwidth\x1b[31mred\x07",
    "%0A::error title=x::forged annotation\r\n::warning::forged",
]
_MD = MarkdownIt("commonmark")


def _rendered_text(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup)).replace(WJ, "").strip()


@pytest.mark.parametrize("payload", CORPUS)
def test_md_text_renders_exactly_the_text_and_no_markup(payload: str) -> None:
    out = _MD.render(md_text(payload))
    assert re.sub(r"</?p>", "", out).count("<") == 0, out   # no element at all: no link, image, HTML, heading
    assert _rendered_text(out) == plain_text(payload)
    assert not re.search(r"[@#](?=[A-Za-z0-9])", out.replace("&quot;", "")), out   # no mention or reference


@pytest.mark.parametrize("payload", CORPUS)
def test_code_spans_and_blocks_hold_the_text_and_cannot_be_closed_from_inside(payload: str) -> None:
    span = _MD.render(f"before {md_code_span(payload)} after")
    assert span.count("<code>") == 1 and span.startswith("<p>before <code>") and span.endswith(" after</p>\n")
    assert html.unescape(span.split("<code>", 1)[1].split("</code>", 1)[0]) == plain_text(payload)
    block = _MD.render(f"<details><summary>Evidence</summary>\n\n{md_code_block(payload)}\n\n</details>\n")
    assert block.count("<pre><code") == 1 and block.count("<details>") == 1 and block.count("</details>") == 1
    inside = html.unescape(block.split("<pre><code", 1)[1].split(">", 1)[1].split("</code></pre>", 1)[0])
    assert inside.rstrip("\n") == "".join(c if c in "\t\n" or c.isprintable() else " " for c in payload).rstrip("\n")


@pytest.mark.parametrize("payload", CORPUS)
def test_annotations_and_sarif_get_one_plain_line(payload: str) -> None:
    for out in (annotation_data(payload), annotation_property(payload), sarif_text(payload)):
        assert "\n" not in out and "\r" not in out and "\x1b" not in out and "\u202e" not in out
    assert "::" not in annotation_property(payload)
    assert re.search(r"(?<!\\)[\[\]]", sarif_text(payload)) is None


@pytest.mark.isolation
def test_a_pull_request_cannot_inject_through_a_test_id_into_any_format(tmp_path: Path) -> None:
    payload = CORPUS[0]
    test = ("import pytest\nfrom calc import add\n\n\n@pytest.mark.parametrize('x', [1], ids=[" + repr(payload)
            + "])\ndef test_add(x):\n    assert add(2, x) == 3\n")
    case = make_case(tmp_path / "case", {"calc.py": "def add(a, b):\n    return a + b\n", "test_calc.py": test},
                     {"calc.py": "def add(a, b):\n    return a - b\n"},
                     checks={"tests": ["test_calc.py"], "typecheck": "none"})
    outputs = {}
    for fmt in ("markdown", "github", "sarif", "json"):
        proc = subprocess.run([SHOWCAUSE, "review", "--case", str(case), "--format", fmt], capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 1, proc.stderr
        outputs[fmt] = proc.stdout
    assert payload in json.dumps(json.loads(outputs["json"]), ensure_ascii=False)   # the payload is in the claim
    page = _MD.render(outputs["markdown"])
    assert "<img" not in page and "<a " not in page
    assert page.count("<details>") == page.count("</details>") == 1 and page.count("<pre>") == 1
    prose = re.sub(r"<pre>.*?</pre>", "", page, flags=re.S)   # tool output: verbatim, where nothing is linked
    assert "@octocat" not in prose and f"@{WJ}octocat" in prose   # shown, as text
    for line in outputs["github"].splitlines():
        assert line.startswith(("::error ", "::warning ", "::notice ")), line
    doc = json.loads(outputs["sarif"])
    texts = [r["message"]["text"] for r in doc["runs"][0]["results"]]
    assert texts and all(re.search(r"(?<!\\)[\[\]]", t) is None for t in texts)
