from datetime import timedelta
from typing import Any

from nightly.context import Context


def purge_expired_sessions(ctx: Context, **_: Any) -> int:
    expired = [sid for sid, expires in ctx.sessions.items() if expires <= ctx.now]
    for sid in expired:
        del ctx.sessions[sid]
    return len(expired)


def rotate_audit_logs(ctx: Context, keep_days: int = 30, **_: Any) -> int:
    cutoff = ctx.now - timedelta(days=keep_days)
    old = [entry for entry in ctx.audit_log if entry["at"] < cutoff]
    ctx.audit_log[:] = [entry for entry in ctx.audit_log if entry["at"] >= cutoff]
    return len(old)


def rebuild_search_index(ctx: Context, **_: Any) -> int:
    index: dict[str, set[str]] = {}
    for doc_id, text in ctx.documents.items():
        for word in text.lower().split():
            index.setdefault(word.strip(".,;:!?"), set()).add(doc_id)
    ctx.search_index = index
    return len(index)


def send_usage_report(ctx: Context, **_: Any) -> int:
    line = f"{ctx.now:%Y-%m-%d}: {len(ctx.sessions)} sessions, {len(ctx.audit_log)} audit entries"
    ctx.outbox.append(line)
    return 1
