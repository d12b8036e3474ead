"""Decision telemetry: an opt-in, local JSON Lines log of what each review was — never what it said.

On only when the user asks: `[telemetry] path` in the `--config` file (a relative path resolves against
that file; a repository's own config may not set it), else the `SHOWCAUSE_TELEMETRY` environment variable.
Each record is one line appended with one `write` on an `O_APPEND` descriptor, so concurrent reviews never
interleave. A review record holds only ids, mode, type and risk, model,
tokens, latency, verdict, confidence, status — and no text of the review: no objective, context, proposal,
task, plan, diff, file name, claim or recommendation, and no error message (only its code). docs/telemetry.md.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from showcause.core.decision import DecisionInput
from showcause.core.decision_result import DecisionResult
from showcause.core.errors import InputError
from showcause.core.meta import DecisionMeta, ReviewMeta
from showcause.core.result import ReviewResult
from showcause.policy import load_policy

__all__ = ["ENV", "MAX_LINE_BYTES", "append", "change_record", "decision_record", "log_review", "now",
           "read_log", "telemetry_path"]

ENV = "SHOWCAUSE_TELEMETRY"
MAX_LINE_BYTES = 64_000        # a line longer than this is not one of ours: skipped when the log is read
_USAGE_KEY = re.compile(r"[a-z_]{1,40}")


def telemetry_path(config: Path | None = None) -> Path | None:
    """The log file, or None when telemetry is off. The config's key wins over the environment variable."""
    if config is not None:
        if not config.is_file():
            raise InputError(f"{config}: no such config file")
        configured = load_policy(config).telemetry.path
        if configured:
            path = Path(configured).expanduser()
            return path if path.is_absolute() else (config.resolve().parent / path)
    env = os.environ.get(ENV, "").strip()
    return Path(env).expanduser().absolute() if env else None


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _usage(usage: Any) -> dict[str, int | float]:
    """Token counts only: numeric values under short lower-case keys (nothing a provider could put text in)."""
    if not isinstance(usage, dict):
        return {}
    return {k: v for k, v in usage.items() if isinstance(k, str) and _USAGE_KEY.fullmatch(k)
            and isinstance(v, int | float) and not isinstance(v, bool)}


def _model(spec: str | None) -> str | None:
    """The `--model` spec without what could name a file: `scripted:FILE` is just `scripted`."""
    if not spec:
        return None
    prefix = spec.partition(":")[0]
    return "scripted" if prefix == "scripted" else spec[:200]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _common(meta: ReviewMeta | DecisionMeta, verdict: str, error: dict[str, str] | None,
            model: str | None) -> dict[str, Any]:
    return {"type": "review", "id": str(meta.review_id), "timestamp": now(),
            "mode": str(meta.mode), "model": _model(model), "usage": _usage(meta.usage),
            "cost_usd": _number(meta.cost_usd), "seconds": _number(meta.seconds),
            "verdict": verdict, "status": "error" if error else "ok",
            "error_code": error["code"] if error else None}


def decision_record(result: DecisionResult, decision: DecisionInput, model: str | None) -> dict[str, Any]:
    """What a decision review was: its type and risk, mode, model, tokens, latency, verdict, confidence."""
    record = _common(result.meta, result.verdict, result.error, model)
    record.update(kind="decision", decision_type=decision.decision_type, risk_level=decision.risk_level,
                  confidence=_number(result.confidence))
    if result.meta.budget_exhausted and not result.error:
        record["status"] = "incomplete"     # the proposal was never judged: not a verdict to count
    return record


def change_record(result: ReviewResult, change_kind: str, model: str | None) -> dict[str, Any]:
    """What a code review was: where its trees came from (`change_kind`), mode, isolation, verdict, tokens."""
    record = _common(result.meta, result.verdict, result.error, model)
    record.update(kind="change", change_kind=change_kind, isolation=str(result.meta.isolation))
    return record


def append(path: Path, record: dict[str, Any]) -> None:
    """One line, one write, O_APPEND: a record is whole or absent, never interleaved with another's."""
    line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        written = os.write(fd, line)
    finally:
        os.close(fd)
    if written != len(line):
        raise OSError(f"short write to {path} ({written} of {len(line)} bytes)")


def log_review(path: Path | None, record: dict[str, Any], meta: ReviewMeta | DecisionMeta) -> None:
    """Append a review's record when telemetry is on. A log that cannot be written never changes the review:
    the result says so in `meta.telemetry_error`."""
    if path is None:
        return
    try:
        append(path, record)
    except OSError as exc:
        meta.telemetry_error = f"the review was not logged to {path}: {exc.strerror or exc}"


def read_log(path: Path) -> Iterator[dict[str, Any] | None]:
    """Each record of the log in order; None for a line that is not a JSON object (cut, or not ours)."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"cannot read the telemetry log {path}: {exc.strerror}") from None
    with handle:
        for raw in handle:
            if not raw.strip():
                continue
            if len(raw) > MAX_LINE_BYTES:
                yield None
                continue
            try:
                doc = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                doc = None
            yield doc if isinstance(doc, dict) else None
