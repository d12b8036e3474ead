import os

CHUNK = b"\xff" * (1024 * 1024)


def fill(directory, allowed_mb):
    """Write 4 MiB files into `directory` until the file system refuses; say how far it got."""
    total = 0
    try:
        for i in range(200):
            with open(os.path.join(directory, f"fill-{i}"), "wb") as fh:
                for _ in range(4):
                    fh.write(CHUNK)
                    fh.flush()
                    total += 1
    except OSError as exc:
        verdict = "bounded" if total <= allowed_mb else "OVER-LIMIT"
        return f"{directory}: {verdict} errno={exc.errno} mb={total}"
    return f"{directory}: OVER-LIMIT wrote {total} MiB"


def test_flood():
    # tmpfs_mb = 64 in attack.json: /tmp 48 MiB, /dev/shm and home 8 MiB each, the root read-only.
    said = [fill("/dev/shm", 8), fill(os.path.expanduser("~"), 8), fill("/etc", 0), fill("/", 0), fill("/tmp", 48)]
    raise AssertionError(" | ".join(said))
