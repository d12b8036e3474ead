from qworker.queue import MemoryQueue, Message


def test_nack_requeue_and_dead_letter() -> None:
    q = MemoryQueue()
    q.publish(Message("1", "k", {}))
    m = q.receive()
    assert m is not None and m.deliveries == 1
    q.nack(m, requeue=True)
    m = q.receive()
    assert m is not None and m.deliveries == 2
    q.nack(m, requeue=False)
    assert q.receive() is None
    assert [d.id for d in q.dead_letters] == ["1"]
