"""The stdio relay: a session's opening requests answered with the SDK's own answers from an earlier start.

Why: the MCP SDK takes about 1.5 s to import, and an agent waits for `initialize` (or `server/discover`) and
`tools/list` before it does anything else. Those answers depend only on the request, the server's arguments and
the code (the protocol marks them cacheable). So `showcause mcp` over stdio starts this relay before it imports
anything heavy: it sits between the client's pipes and the SDK's stdio transport (two pipes of its own on fds 0
and 1, so the SDK runs unchanged). While the relay is replaying, a request whose method and params (less the
client's name and version) the SDK answered at an earlier start with the same key is answered from that record
at once, and is still passed on to the SDK under a private id: the SDK's session sees every message the client
sent, in order. Its late answer is compared with the replayed one; a difference rewrites the record and, for
`tools/list`, sends the client `notifications/tools/list_changed`. Replaying ends at the first request the
record cannot answer; from then on every message goes to the SDK and back unchanged. Answers the SDK gives to
replayable requests are recorded for the next start. Errors are never recorded.

The record's key covers this package's files (path, size, mtime), the SDK's version, the interpreter, the
arguments but the roots, the content of the files named by --config and --quorum, and the SHOWCAUSE_* and
PEER_REVIEW_* environment, so any change of what the server would say starts a new record.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

from showcause.core.cachedir import cache_root

__all__ = ["Relay", "current", "record_path", "start", "wants_relay"]

REPLAYABLE = frozenset({"initialize", "server/discover", "tools/list", "prompts/list", "resources/templates/list"})
_PRIVATE = "showcause-replay-"          # the id prefix of a replayed request the SDK answers to us
_END = b'{"showcause-relay":"end"}\n'   # written to fd 1 after the SDK returns: everything before it is drained
_KEEP = 16                              # records kept in the cache directory, newest first
_FILE_OPTIONS = ("--config", "--quorum")
_current: Relay | None = None


def wants_relay(argv: list[str]) -> bool:
    """`showcause mcp` over stdio (the default transport), not asking for help."""
    if argv[:1] != ["mcp"] or any(a in ("--help", "-h") for a in argv):
        return False
    transport = "stdio"
    for i, arg in enumerate(argv):
        if arg == "--transport" and i + 1 < len(argv):
            transport = argv[i + 1]
        elif arg.startswith("--transport="):
            transport = arg.split("=", 1)[1]
    return transport == "stdio"


def _package_stamp() -> list[tuple[str, int, int]]:
    root = Path(__file__).resolve().parents[1]
    stamp = []
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".toml", ".md", ".json") and "__pycache__" not in path.parts:
            st = path.stat()
            stamp.append((str(path.relative_to(root)), st.st_size, st.st_mtime_ns))
    return stamp


def _sdk_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{version('mcp')}/{version('mcp-types')}"
    except PackageNotFoundError:
        return "unknown"


def record_path(argv: list[str]) -> Path | None:
    """Where the record for these arguments lives; None when a named file cannot be read (no replay then)."""
    named: list[str] = []
    for i, arg in enumerate(argv):
        for option in _FILE_OPTIONS:
            value = argv[i + 1] if arg == option and i + 1 < len(argv) else \
                arg.split("=", 1)[1] if arg.startswith(option + "=") else None
            if value is not None:
                try:
                    named.append(hashlib.sha256(Path(value).read_bytes()).hexdigest())
                except OSError:
                    return None
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(("SHOWCAUSE_", "PEER_REVIEW_")))
    # The interpreter by its environment and real file: a script's `python3` shebang and `python -m` agree.
    python = [sys.prefix, os.path.realpath(sys.executable)]
    material = json.dumps({"argv": _without_roots(argv), "python": python, "sdk": _sdk_version(),
                           "package": _package_stamp(), "files": named, "env": env})
    return cache_root() / "mcp-replies" / (hashlib.sha256(material.encode()).hexdigest()[:32] + ".json")


def _without_roots(argv: list[str]) -> list[str]:
    """The arguments less `--root` (and so the working directory, its default): no answer names a root, so
    one record serves every project an agent opens (a wrong guess is caught by the SDK's own answer)."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip or arg.startswith("--root="):
            skip = False
            continue
        skip = arg == "--root"
        if not skip:
            kept.append(arg)
    return kept


_CLIENT_INFO = ("clientInfo", "io.modelcontextprotocol/clientInfo")


def _key(message: dict[str, Any]) -> str:
    """The request less the client's name and version: the SDK's answers never depend on them (the answer
    it gives anyway checks each replay), so a record made by `showcause setup` serves every client."""
    params = message.get("params")
    if isinstance(params, dict):
        params = {k: v for k, v in params.items() if k not in _CLIENT_INFO}
        meta = params.get("_meta")
        if isinstance(meta, dict):
            params["_meta"] = {k: v for k, v in meta.items() if k not in _CLIENT_INFO}
    return json.dumps({"method": message["method"], "params": params}, sort_keys=True, separators=(",", ":"))


def _parse(line: bytes) -> dict[str, Any] | None:
    return _read(line)[0]


def _read(line: bytes) -> tuple[dict[str, Any] | None, int | None]:
    """The message, or None and the JSON-RPC error a client line earns: -32700 (not JSON), -32600 (not a request
    object, or nested deeper than the parser goes: the relay answers it and keeps serving)."""
    try:
        message = json.loads(line)
    except RecursionError:
        return None, -32600
    except ValueError:
        return None, -32700 if line.strip() else None
    return (message, None) if isinstance(message, dict) else (None, -32600)


_ERRORS = {-32700: "Parse error: the line is not JSON", -32600: "Invalid Request: not a JSON-RPC request object "
           "(or nested too deeply)"}


class _Record:
    """The SDK's answers to replayable requests, by request, in one JSON file (absent: nothing to replay)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.replies: dict[str, Any] = {}
        if path is not None:
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
                self.replies = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                pass

    def store(self, key: str, result: Any) -> None:
        self.replies[key] = result
        if self.path is None:
            return
        try:   # a record that cannot be written costs the next start its speed, nothing else
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(self.replies), encoding="utf-8")
            os.replace(tmp, self.path)
            old = sorted(self.path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[_KEEP:]
            for stale in old:
                stale.unlink(missing_ok=True)
        except OSError as exc:
            print(f"showcause mcp: could not record the opening answers: {exc}", file=sys.stderr, flush=True)


class Relay:
    """Two pumps: client → SDK (answering from the record while replaying) and SDK → client (checking replays)."""

    def __init__(self, record: _Record, wire_in: BinaryIO, wire_out: BinaryIO, to_sdk: BinaryIO,
                 from_sdk: BinaryIO) -> None:
        self._record, self._wire_in, self._wire_out = record, wire_in, wire_out
        self._to_sdk, self._from_sdk = to_sdk, from_sdk
        self._lock = threading.Lock()          # one writer on the client's pipe, and the two tables below
        self._replaying = True
        self._replayed: dict[str, tuple[str, str, Any]] = {}   # private id → (method, key, answer sent)
        self._recording: dict[str, str] = {}                   # the client's id (JSON) → key
        self._count = 0
        self.replayed_total = 0
        self._out = threading.Thread(target=self._pump_out, name="mcp-relay-out", daemon=True)

    def run(self) -> None:
        threading.Thread(target=self._pump_in, name="mcp-relay-in", daemon=True).start()
        self._out.start()

    def _send(self, message: dict[str, Any] | bytes) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message, separators=(",", ":")).encode() + b"\n"
        with self._lock:
            self._wire_out.write(data)
            self._wire_out.flush()

    def _forward(self, line: bytes) -> bytes:
        """What the SDK gets for this client line (nothing for one that is no message: answered here with its
        JSON-RPC error); answers it here first when the record can."""
        message, error = _read(line)
        if error is not None:
            self._send({"jsonrpc": "2.0", "id": None, "error": {"code": error, "message": _ERRORS[error]}})
            return b""
        if message is None or "method" not in message:
            self._replaying = self._replaying and message is not None
            return line
        if "id" not in message:   # a notification never ends replaying: the SDK gets it in order
            return line
        key = _key(message) if message["method"] in REPLAYABLE else None
        with self._lock:
            answer = self._record.replies.get(key) if key is not None and self._replaying else None
            if answer is None or key is None:
                self._replaying = False
                if key is not None:
                    self._recording[json.dumps(message["id"])] = key
                return line
            self._count += 1
            private = f"{_PRIVATE}{self._count}"
            self._replayed[private] = (message["method"], key, answer)
        self._send({"jsonrpc": "2.0", "id": message["id"], "result": answer})
        self.replayed_total += 1
        return json.dumps({**message, "id": private}, separators=(",", ":")).encode() + b"\n"

    def _pump_in(self) -> None:
        try:
            for line in self._wire_in:
                forwarded = self._forward(line)
                if forwarded:
                    self._to_sdk.write(forwarded)
                    self._to_sdk.flush()
        except (OSError, ValueError):
            pass   # the SDK went away first: nothing left to deliver
        finally:
            with contextlib.suppress(OSError):
                self._to_sdk.close()   # the SDK reads EOF: the client has gone

    def _check(self, line: bytes) -> bool:
        """Whether this SDK line goes on to the client (False: the answer to a replay, or a protocol breach)."""
        message = _parse(line)
        if message is None:
            print(f"showcause mcp: dropped a non-protocol line: {line[:200]!r}", file=sys.stderr, flush=True)
            return False
        ident = message.get("id")
        if "method" in message or ident is None:
            return True
        with self._lock:
            replay = self._replayed.pop(ident, None) if isinstance(ident, str) else None
            key = self._recording.pop(json.dumps(ident), None) if replay is None else None
        if replay is not None:
            method, key, sent = replay
            if "result" in message and message["result"] != sent:
                print(f"showcause mcp: the recorded {method} answer was stale; recorded the new one",
                      file=sys.stderr, flush=True)
                self._record.store(key, message["result"])
                if method == "tools/list":
                    self._send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            return False
        if key is not None and "result" in message:
            self._record.store(key, message["result"])
        return True

    def _pump_out(self) -> None:
        for line in self._from_sdk:
            if line == _END:
                return
            if (not self._replayed and not self._recording) or self._check(line):
                self._send(line)

    def finish(self) -> None:
        """After the SDK returned: let everything it wrote reach the client."""
        try:
            os.write(1, _END)
        except OSError:
            return
        self._out.join(timeout=10)
        if self.replayed_total:
            print(f"showcause mcp: {self.replayed_total} opening answer(s) replayed from the record",
                  file=sys.stderr, flush=True)


def start(argv: list[str]) -> Relay:
    """Put the relay between the client's stdio and fds 0/1 (the SDK's stdio transport reads and writes those)."""
    global _current
    if _current is not None:
        return _current
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    sdk_in, to_sdk = os.pipe()
    from_sdk, sdk_out = os.pipe()
    os.dup2(sdk_in, 0)
    os.dup2(sdk_out, 1)
    os.close(sdk_in)
    os.close(sdk_out)
    _current = Relay(_Record(record_path(argv)), wire_in, wire_out, os.fdopen(to_sdk, "wb"),
                     os.fdopen(from_sdk, "rb"))
    _current.run()
    return _current


def current() -> Relay | None:
    return _current
