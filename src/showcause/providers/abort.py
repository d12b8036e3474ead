"""An HTTP client whose requests another thread can abort at once, mid-read, with no request sent after.

Closing an httpx client does not wake a thread blocked reading a response (the socket stays open until
the read returns), so an early-finished quorum would still wait for, and pay for, a slow peer. Here every
socket the client opens is tracked and `abort()` shuts them down: the blocked read fails at once, the
server sees the connection go, and every later attempt or backoff fails with ABORTED.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from showcause.core.errors import PeerAborted
from showcause.providers.api import ApiProvider
from showcause.providers.http import HttpClient, tls_context

__all__ = ["AbortableHttpClient", "make_abortable"]


class _Stream(httpcore.NetworkStream):
    """A network stream that registers itself (and the TLS stream it becomes) with its backend."""

    def __init__(self, inner: httpcore.NetworkStream, backend: _Backend) -> None:
        self._inner = inner
        self._backend = backend
        backend.track(self)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, timeout), self._backend)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)

    def shutdown(self) -> None:
        sock = self._inner.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):   # already closed or never connected: nothing to wake
                sock.shutdown(socket.SHUT_RDWR)


class _Backend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()
        self._streams: list[_Stream] = []
        self._lock = threading.Lock()
        self.aborted = threading.Event()

    def track(self, stream: _Stream) -> None:
        with self._lock:
            self._streams.append(stream)
        if self.aborted.is_set():
            stream.shutdown()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        if self.aborted.is_set():
            raise httpcore.ConnectError("aborted")
        return _Stream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options), self)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(path, timeout, socket_options), self)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)

    def abort(self) -> None:
        self.aborted.set()
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            stream.shutdown()


class AbortableHttpClient(HttpClient):
    """`HttpClient` with `abort()`: in-flight reads fail now, backoffs end, and no new attempt starts."""

    def __init__(self, *, label: str, max_retries: int, backoff_base_s: float, backoff_max_s: float) -> None:
        self._backend = _Backend()
        super().__init__(label=label, max_retries=max_retries, backoff_base_s=backoff_base_s,
                         backoff_max_s=backoff_max_s, sleep=self._sleep_unless_aborted)

    def _sleep_unless_aborted(self, seconds: float) -> None:
        if self._backend.aborted.wait(seconds):
            raise PeerAborted(f"{self.label}: request aborted")

    def _http(self) -> httpx.Client:
        if self._backend.aborted.is_set():
            raise PeerAborted(f"{self.label}: request aborted")
        with self._lock:
            if self._client is None:
                # httpx offers no public hook for the network backend: its pool is rebuilt with ours.
                transport = httpx.HTTPTransport(verify=tls_context())
                transport._pool = httpcore.ConnectionPool(ssl_context=tls_context(),
                                                          network_backend=self._backend)
                self._client = httpx.Client(transport=transport, follow_redirects=False)
            return self._client

    def abort(self) -> None:
        self._backend.abort()

    @property
    def aborted(self) -> bool:
        return self._backend.aborted.is_set()


def make_abortable(provider: ApiProvider) -> AbortableHttpClient:
    """Give `provider` an abortable HTTP client (same retry settings) and return it, for `abort()`."""
    old = provider._http
    client = AbortableHttpClient(label=old.label, max_retries=old.max_retries, backoff_base_s=old.backoff_base_s,
                                 backoff_max_s=old.backoff_max_s)
    provider._http = client
    return client
