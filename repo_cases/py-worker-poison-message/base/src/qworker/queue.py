from collections import deque
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Message:
    id: str
    kind: str
    body: dict[str, Any]
    deliveries: int = 0


@dataclass
class MemoryQueue:
    """Stand-in for the broker client: same ack/nack semantics, no network."""

    pending: deque[Message] = field(default_factory=deque)
    in_flight: dict[str, Message] = field(default_factory=dict)
    dead_letters: list[Message] = field(default_factory=list)
    acked: list[str] = field(default_factory=list)

    def publish(self, message: Message) -> None:
        self.pending.append(message)

    def receive(self) -> Message | None:
        if not self.pending:
            return None
        message = self.pending.popleft()
        message.deliveries += 1
        self.in_flight[message.id] = message
        return message

    def ack(self, message: Message) -> None:
        del self.in_flight[message.id]
        self.acked.append(message.id)

    def nack(self, message: Message, requeue: bool) -> None:
        del self.in_flight[message.id]
        if requeue:
            self.pending.append(message)
        else:
            self.dead_letters.append(message)
