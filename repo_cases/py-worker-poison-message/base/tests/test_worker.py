from qworker.queue import MemoryQueue, Message
from qworker.worker import MAX_DELIVERIES, Worker


def test_handles_and_acks() -> None:
    q = MemoryQueue()
    q.publish(Message("1", "thumbnail", {"width": 1024, "height": 512}))
    q.publish(Message("2", "webhook", {"status": 200}))
    assert Worker(q).run() == 2
    assert q.acked == ["1", "2"]


def test_unknown_kind_is_dead_lettered() -> None:
    q = MemoryQueue()
    q.publish(Message("1", "nope", {}))
    Worker(q).run()
    assert [m.id for m in q.dead_letters] == ["1"]


def test_retryable_until_limit() -> None:
    q = MemoryQueue()
    q.publish(Message("1", "webhook", {"status": 503}))
    Worker(q).run()
    assert q.dead_letters[0].deliveries == MAX_DELIVERIES
