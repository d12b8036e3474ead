"""A worker process for :mod:`showcause.symbols.pool`, which starts it and is the only one to talk to it.

Reads frames from stdin, each a pickled ``(seconds, jobs)``: the time the chunk may take (None: no limit
but each parse's own) and a list of ``(path, language, digest)`` jobs.  It answers each with a frame holding
one result per job: ``(definitions, imports, has_errors)``, an error message (str; :data:`GAVE_UP` and the
reason when a parse gave up), or None when the file's content no longer has the digest (the parent then
reads it itself).  A frame is an 8-byte
big-endian length and that many bytes.  Exits at the end of stdin.
"""

from __future__ import annotations

import pickle
import struct
import sys
import time
from typing import IO, cast

from .cache import digest_of
from .extract import parse_definitions
from .languages import ParseTimeout, read_source

__all__ = ["GAVE_UP", "Job", "Result", "extract_jobs", "main", "read_frame", "write_frame"]

Job = tuple[str, str, bytes]  # path, language, digest
Result = tuple[dict[str, bytes], tuple[str, ...], bool] | str | None
_HEADER = struct.Struct(">Q")
GAVE_UP = "gave up: "


def write_frame(stream: IO[bytes], payload: object) -> None:
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> object | None:
    """The next frame's object, or None at a clean end of stream; EOFError for a truncated frame."""
    header = stream.read(_HEADER.size)
    if not header:
        return None
    if len(header) != _HEADER.size:
        raise EOFError("truncated frame header")
    size = _HEADER.unpack(header)[0]
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("truncated frame")
    return pickle.loads(data)


def extract_jobs(jobs: list[Job], seconds: float | None = None) -> list[Result]:
    deadline = time.monotonic() + seconds if seconds is not None else None
    out: list[Result] = []
    for path, language, digest in jobs:
        data = read_source(path)
        if data is None or digest_of(data) != digest:
            out.append(None)
            continue
        try:
            left = max(0.0, deadline - time.monotonic()) if deadline is not None else None
            found = parse_definitions(data, language, path, left)
        except ParseTimeout as exc:
            out.append(GAVE_UP + str(exc))
            continue
        except Exception as exc:  # reported by the parent, like an in-process failure
            out.append(f"{type(exc).__name__}: {exc}")
            continue
        out.append((dict(found.definitions), found.imports, found.has_errors))
    return out


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        frame = read_frame(stdin)
        if frame is None:
            return 0
        seconds, jobs = cast("tuple[float | None, list[Job]]", frame)  # only the parent writes to us
        write_frame(stdout, extract_jobs(jobs, seconds))
