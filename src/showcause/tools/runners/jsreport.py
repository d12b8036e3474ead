"""The JSON report jest and vitest write (`--json --outputFile`, `--reporter=json --outputFile`): one
outcome per test, named by its describe blocks ("suite > case", as `node --test` names them), and a
file-level error when the file itself failed (it did not load, or a hook outside every test threw)."""

from __future__ import annotations

import re
from pathlib import Path

from showcause.core import jsonsafe
from showcause.tools.runners.base import TestOutcome

__all__ = ["ANSI", "first_lines", "names_file", "ran_whole", "read_json_report", "target_files", "wanted"]

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_TIMEOUT = re.compile(r"Exceeded timeout of \d+ ?ms|Test timed out in \d+ ?ms|Timeout of \d+ms exceeded")
_STATUS = {"passed": "passed", "failed": "failed", "pending": "skipped", "skipped": "skipped", "todo": "skipped",
           "disabled": "skipped", "focused": "passed"}


def first_lines(text: object, limit: int = 300) -> str:
    """The message lines before the stack trace, on one line."""
    lines = []
    for raw in ANSI.sub("", str(text or "")).splitlines():
        line = raw.strip()
        if line.startswith("at ") or line.startswith("\u276f "):
            break
        if line and not line.startswith("●"):
            lines.append(line)
        if sum(len(x) for x in lines) > limit:
            break
    return " ".join(lines)[:limit]


def target_files(targets: list[str]) -> list[str]:
    """The files of `targets` (paths or test ids), each once, in order: what one batch process runs."""
    return list(dict.fromkeys(t.split("::", 1)[0] for t in targets))


def wanted(outcomes: list[TestOutcome], targets: list[str]) -> list[TestOutcome]:
    """The outcomes of the targets asked for; a file-level error of their file counts for each of them."""
    whole = {t for t in targets if "::" not in t}
    ids = {t for t in targets if "::" in t}
    files = {t.split("::", 1)[0] for t in targets}
    return [o for o in outcomes if o.test in ids or o.test in files or o.test.split("::", 1)[0] in whole]


def _titles(case: dict[str, object]) -> str:
    ancestors = case.get("ancestorTitles")
    parts = [str(a) for a in ancestors if isinstance(a, str | int | float)] if isinstance(ancestors, list) else []
    return " > ".join([*parts, str(case.get("title", ""))])


def _case(case: dict[str, object], file: str) -> TestOutcome:
    outcome = _STATUS.get(str(case.get("status")), "error")
    messages = case.get("failureMessages")
    message = first_lines(messages[0]) if isinstance(messages, list) and messages else ""
    if outcome == "failed" and _TIMEOUT.search(message):
        outcome = "timeout"
    return TestOutcome(f"{file}::{_titles(case)}", outcome, message if outcome != "passed" else "")


def _entry(path: Path, file: str) -> dict[str, object] | None:
    """The report's entry for `file` (the one whose path ends in the file's own path); None when there is no
    report, it does not parse, or it names other files only."""
    try:
        doc = jsonsafe.load_file(path, max_bytes=jsonsafe.MAX_TOOL_JSON_BYTES)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    results = doc.get("testResults") if isinstance(doc, dict) else None
    suffix = "/" + file
    for result in results if isinstance(results, list) else []:
        if isinstance(result, dict) and str(result.get("name", "")).replace("\\", "/").endswith(suffix):
            return result
    return None


def names_file(path: Path, file: str) -> bool:
    """Whether the report at `path` has an entry for `file` (else the run reported nothing for it)."""
    return _entry(path, file) is not None


def ran_whole(path: Path, file: str) -> bool:
    """Whether the report's entry for `file` has it run as a file: not a file that failed to load or to run
    as a whole (an error of the file and no test: jest's testExecError), which a run of its own must say."""
    result = _entry(path, file)
    if result is None or result.get("testExecError"):
        return False
    cases = result.get("assertionResults")
    return result.get("status") != "failed" or (isinstance(cases, list) and bool(cases))


def read_json_report(path: Path, file: str) -> list[TestOutcome]:
    """Every outcome the report gives for `file`."""
    result = _entry(path, file)
    if result is None:
        return []
    cases = result.get("assertionResults")
    outcomes = [_case(c, file) for c in cases if isinstance(c, dict)] if isinstance(cases, list) else []
    if result.get("status") == "failed" and not any(o.outcome in ("failed", "timeout") for o in outcomes):
        why = first_lines(result.get("message") or result.get("failureMessage") or "the test file failed")
        outcomes.append(TestOutcome(file, "error", why or "the test file failed"))
    return outcomes
