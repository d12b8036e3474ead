from dataclasses import dataclass, field

RESET_URL = "https://app.example.com/reset?token={token}"


@dataclass
class Outbox:
    messages: list[tuple[str, str]] = field(default_factory=list)

    def send_reset(self, email: str, token: str) -> None:
        self.messages.append((email, RESET_URL.format(token=token)))
