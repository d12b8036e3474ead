from dataclasses import dataclass

from notify.mailer import Transport, send_email
from notify.templates import render


@dataclass(frozen=True)
class Subscriber:
    name: str
    email: str
    active: bool = True


def format_items(items: list[str]) -> str:
    return "\n".join(f"  * {item}" for item in items)


def send_weekly_digest(transport: Transport, subscribers: list[Subscriber], items: list[str]) -> int:
    if not items:
        return 0
    sent = 0
    for sub in subscribers:
        if not sub.active:
            continue
        subject, body = render("digest", count=len(items), name=sub.name, items=format_items(items))
        send_email(transport, sub.email, subject, body)
        sent += 1
    return sent
