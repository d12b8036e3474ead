from dataclasses import dataclass
from email.message import EmailMessage
from typing import Protocol

SENDER = "Acme Reports <reports@acme.example>"


class Transport(Protocol):
    def deliver(self, message: EmailMessage) -> None: ...


@dataclass
class MemoryTransport:
    sent: list[EmailMessage]

    def deliver(self, message: EmailMessage) -> None:
        self.sent.append(message)


def build_message(to: str, subject: str, body: str) -> EmailMessage:
    if "@" not in to or "\n" in to:
        raise ValueError(f"bad recipient {to!r}")
    message = EmailMessage()
    message["From"] = SENDER
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    return message


def send_email(transport: Transport, to: str, subject: str, body: str) -> EmailMessage:
    message = build_message(to, subject, body)
    transport.deliver(message)
    return message
