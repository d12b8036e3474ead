import signal


def test_evade():
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        pass
