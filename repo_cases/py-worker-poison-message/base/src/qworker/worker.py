import logging
from collections.abc import Mapping

from qworker.handlers import HANDLERS, Handler, RetryableError
from qworker.queue import Message, MemoryQueue

log = logging.getLogger("qworker")

MAX_DELIVERIES = 5


class Worker:
    def __init__(self, queue: MemoryQueue, handlers: Mapping[str, Handler] = HANDLERS) -> None:
        self.queue = queue
        self.handlers = handlers
        self.processed = 0

    def handle(self, message: Message) -> None:
        handler = self.handlers.get(message.kind)
        if handler is None:
            log.warning("no handler for %s, dead-lettering %s", message.kind, message.id)
            self.queue.nack(message, requeue=False)
            return
        try:
            handler(message.body)
        except RetryableError as exc:
            requeue = message.deliveries < MAX_DELIVERIES
            log.info("retryable failure on %s (%s), requeue=%s", message.id, exc, requeue)
            self.queue.nack(message, requeue=requeue)
            return
        self.queue.ack(message)

    def run(self, max_messages: int | None = None) -> int:
        handled = 0
        while max_messages is None or handled < max_messages:
            message = self.queue.receive()
            if message is None:
                break
            self.handle(message)
            handled += 1
        self.processed += handled
        return handled
