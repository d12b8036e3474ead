import os
import tempfile


def test_tmpfs_flood():
    total = 0
    chunk = b"\xff" * (4 * 1024 * 1024)
    try:
        for i in range(6):
            with open(os.path.join(tempfile.gettempdir(), f"fill-{i}"), "wb") as fh:
                for _ in range(15):
                    fh.write(chunk)
                    total += len(chunk)
    except OSError:
        pass
    mb = total // (1024 * 1024)
    raise AssertionError(f"tmpfs_mb={mb} {'OVER-LIMIT' if mb > 256 else 'bounded'}")
