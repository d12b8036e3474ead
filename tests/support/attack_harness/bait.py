"""Bait planted for a session: canary secrets, canary files, and canary servers (TCP and unix sockets)."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

# ----------------------------------------------------------------------------------------------------------------
# Bait: canary secrets, canary files and canary servers
# ----------------------------------------------------------------------------------------------------------------


class CanaryServer:
    """Answers every TCP connection with an HTTP response whose body is the canary; counts connections."""

    def __init__(self, canary: str) -> None:
        self.connections = 0
        self._body = f"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n{canary}\n".encode()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.port = self._sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, args=(self._sock,), daemon=True)
        self._thread.start()

    def _serve(self, sock: socket.socket) -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            self.connections += 1
            with contextlib.suppress(OSError), conn:
                conn.settimeout(2)
                conn.sendall(self._body)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(timeout=5)


class UnixCanaryServer(CanaryServer):
    """The same on host unix sockets: a file in /tmp and an abstract name (both must be out of reach)."""

    def __init__(self, canary: str, path: str) -> None:
        self.connections = 0
        self.path = path
        self.abstract = "showcause-canary-" + secrets.token_hex(6)
        self._body = f"HTTP/1.0 200 OK\r\n\r\n{canary}\n".encode()
        self._socks: list[socket.socket] = []
        for address in (path, "\0" + self.abstract):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(address)
            sock.listen(16)
            self._socks.append(sock)
        os.chmod(path, 0o777)         # reachable by any uid on the host: only the sandbox may stop a test
        self._threads = [threading.Thread(target=self._serve, args=(sock,), daemon=True) for sock in self._socks]
        for thread in self._threads:
            thread.start()

    def close(self) -> None:
        for sock in self._socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        for thread in self._threads:
            thread.join(timeout=5)
        with contextlib.suppress(OSError):
            os.unlink(self.path)


@dataclass
class Bait:
    canary: str
    content: str
    canary_file: Path
    home_canary: Path
    cache: Path               # SHOWCAUSE_CACHE_DIR: the base-result cache a test must not reach

    def modes(self) -> tuple[int, int]:
        return self.canary_file.stat().st_mode, self.home_canary.stat().st_mode
