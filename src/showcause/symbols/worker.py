"""A worker process for :mod:`showcause.symbols.workers`, which starts it and is the only one to talk to it.

Reads frames from stdin, each a pickled list of ``(path, language, digest)`` jobs, and answers each with a
frame holding one result per job: ``(definitions, imports, has_errors)``, an error message (str), or None
when the file's content no longer has the digest (the parent then reads it itself).  A frame is an 8-byte
big-endian length and that many bytes.  Exits at the end of stdin.
"""

from __future__ import annotations

import pickle
import struct
import sys
from typing import IO, cast

from .cache import digest_of
from .extract import parse_definitions
from .languages import read_source

__all__ = ["Job", "Result", "extract_jobs", "main", "read_frame", "write_frame"]

Job = tuple[str, str, bytes]  # path, language, digest
Result = tuple[dict[str, bytes], tuple[str, ...], bool] | str | None
_HEADER = struct.Struct(">Q")


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


def extract_jobs(jobs: list[Job]) -> list[Result]:
    out: list[Result] = []
    for path, language, digest in jobs:
        data = read_source(path)
        if data is None or digest_of(data) != digest:
            out.append(None)
            continue
        try:
            found = parse_definitions(data, language, path)
        except Exception as exc:  # reported by the parent, like an in-process failure
            out.append(f"{type(exc).__name__}: {exc}")
            continue
        out.append((dict(found.definitions), found.imports, found.has_errors))
    return out


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        jobs = read_frame(stdin)
        if jobs is None:
            return 0
        write_frame(stdout, extract_jobs(cast("list[Job]", jobs)))  # only the parent writes to us
