"""The one HTTP path of every provider: retries with backoff and jitter, Retry-After, timeouts, redaction."""

from __future__ import annotations

import email.utils
import json
import logging
import random
import re
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any, Protocol

import httpx

from showcause.core import jsonsafe
from showcause.core.errors import (
    ConfigError,
    MalformedResponseError,
    ProviderHTTPError,
    ProviderNetworkError,
    ProviderTimeoutError,
    RateLimitedError,
)

__all__ = [
    "HttpClient",
    "HttpResult",
    "call_json",
    "error_detail",
    "find_rejected_param",
    "header_secrets",
    "is_retryable",
    "redact",
    "retry_after_s",
    "tls_context",
]

log = logging.getLogger("showcause.providers")

_NEVER_RETRY_5XX = frozenset({501, 505})


def is_request_validation_error(result: HttpResult) -> bool:
    """A 500 that reports a failed validation of the request body (llama-cpp-python's answer to a body its
    schema refuses): the same body fails again, so it is not retried; the caller may adjust it."""
    return result.status == 500 and "validation error" in result.text


def is_retryable(status: int) -> bool:
    """408/409/429 and every 5xx except 501/505 are worth another attempt."""
    return status in (408, 409, 429) or (500 <= status < 600 and status not in _NEVER_RETRY_5XX)

_KEYLIKE = re.compile(
    r"(?i)(bearer\s+)[^\s\"',]+|\b(sk-[A-Za-z0-9_\-]{8,})|((?:api[_-]?key|x-api-key|authorization)[\"']?\s*[:=]\s*[\"']?(?:bearer\s+)?)[^\s\"',]+"
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every known secret, and anything shaped like a key or bearer token, replaced by `***`."""
    for secret in sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True):
        text = text.replace(secret, "***")

    def _mask(match: re.Match[str]) -> str:
        if match.group(1):
            return match.group(1) + "***"
        if match.group(3):
            return match.group(3) + "***"
        return "***"

    return _KEYLIKE.sub(_mask, text)


def header_secrets(headers: Mapping[str, str]) -> list[str]:
    """Values of configured headers that look like credentials (names with auth/key/token/secret)."""
    words = ("auth", "key", "token", "secret")
    return [value for name, value in headers.items() if any(word in name.lower() for word in words)]


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, `Retry-After` seconds, or an HTTP date."""
    lowered = {k.lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def error_detail(text: str, limit: int = 400) -> str:
    """The human part of an error body (OpenAI `error.message`, Anthropic `error.message`), shortened."""
    try:
        data: Any = jsonsafe.loads(text, max_bytes=jsonsafe.MAX_RESPONSE_BYTES)
    except ValueError:
        data = None
    if isinstance(data, dict):
        err: Any = data.get("error", data)
        if isinstance(err, dict):
            message: Any = err.get("message")
            kind: Any = err.get("type") or err.get("code")
            if isinstance(message, str):
                return (f"{kind}: {message}" if isinstance(kind, str) else message)[:limit]
        elif isinstance(err, str):
            return err[:limit]
    return " ".join(text.split())[:limit]


@dataclass(frozen=True)
class HttpResult:
    """A response we did not retry: 2xx, or a 4xx for the provider to interpret."""

    status: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        """The parsed body; MALFORMED_RESPONSE when it is not JSON or beyond the caps of `jsonsafe`."""
        try:
            return jsonsafe.loads(self.text, max_bytes=jsonsafe.MAX_RESPONSE_BYTES)
        except jsonsafe.ParseLimitError as exc:
            raise MalformedResponseError(f"response body refused (HTTP {self.status}): {exc.msg}",
                                         status=self.status) from None
        except ValueError:
            snippet = " ".join(self.text[:200].split())
            raise MalformedResponseError(
                f"unparsable JSON body (HTTP {self.status}): {snippet!r}", status=self.status
            ) from None


@cache
def tls_context() -> ssl.SSLContext:
    """httpx's default verifying context (its CA bundle, or SSL_CERT_FILE/SSL_CERT_DIR), built once per process:
    loading the CA bundle is about 0.1 s of CPU, which every review's fresh client would pay again."""
    return httpx.create_ssl_context()


class HttpClient:
    """A reusable httpx client that retries 429/5xx/network errors with capped exponential backoff and jitter.

    `max_retries` counts retries after the first attempt. A Retry-After longer than `backoff_max_s` is not
    waited out: the call fails at once with RATE_LIMITED. A timeout is not retried (TIMEOUT).
    """

    def __init__(
        self,
        *,
        label: str,
        max_retries: int = 4,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.label = label
        self.max_retries = max(0, max_retries)
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self._sleep = sleep
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"HttpClient(label={self.label!r}, max_retries={self.max_retries})"

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(follow_redirects=False, verify=tls_context())
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def backoff_s(self, retry: int) -> float:
        """Equal-jitter exponential backoff for retry number `retry` (0-based)."""
        cap = min(self.backoff_max_s, self.backoff_base_s * (2**retry))
        return cap / 2 + random.uniform(0, cap / 2)

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str],
        body: Any = None,
        timeout_s: float,
        secrets: Iterable[str] = (),
    ) -> HttpResult:
        """Send with retries; return any non-retryable response; raise the matching error when retries run out."""
        secrets = tuple(secrets)
        timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 15.0))
        content = None if body is None else json.dumps(body).encode()
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                response, text = self._send(method, url, dict(headers), content, timeout)
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
                raise ConfigError(f"{self.label}: bad base URL {url!r}: {exc}") from None
            except httpx.ConnectTimeout as exc:
                failure = f"connect timeout after {timeout_s:g}s: {exc}"
            except httpx.TimeoutException:
                raise ProviderTimeoutError(
                    f"{self.label}: no response within {timeout_s:g}s ({method} {url})"
                ) from None
            except (httpx.TransportError, httpx.StreamError) as exc:
                failure = f"{type(exc).__name__}: {exc}"
            else:
                status = response.status_code
                result = HttpResult(status=status, headers=dict(response.headers.items()), text=text)
                if not is_retryable(status) or is_request_validation_error(result):
                    return result
                detail = redact(error_detail(text), secrets)
                wait = retry_after_s(result.headers)
                if wait is not None and wait > self.backoff_max_s:
                    raise self._status_error(status, f"server asked to wait {wait:g}s (> {self.backoff_max_s:g}s)")
                if last:
                    raise self._status_error(status, f"{detail} (gave up after {attempt + 1} attempts)")
                delay = wait * random.uniform(1.0, 1.1) if wait is not None else self.backoff_s(attempt)
                log.warning("%s: HTTP %s (%s); retry %d in %.2fs", self.label, status, detail, attempt + 1, delay)
                self._sleep(delay)
                continue
            failure = redact(failure, secrets)
            if last:
                raise ProviderNetworkError(
                    f"{self.label}: {method} {url} failed after {attempt + 1} attempts: {failure}"
                ) from None
            delay = self.backoff_s(attempt)
            log.warning("%s: network error (%s); retry %d in %.2fs", self.label, failure, attempt + 1, delay)
            self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _send(self, method: str, url: str, headers: dict[str, str], content: bytes | None,
              timeout: httpx.Timeout) -> tuple[httpx.Response, str]:
        """One exchange, its body read as a stream up to the cap: a larger one is refused before it is held
        whole (a 300 MB body would otherwise be buffered, then decoded, before any cap applied)."""
        cap = jsonsafe.MAX_RESPONSE_BYTES
        with self._http().stream(method, url, headers=headers, content=content, timeout=timeout) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                raise MalformedResponseError(f"{self.label}: response body of {int(declared)} bytes is beyond the "
                                             f"cap of {cap} bytes")
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > cap:
                    raise MalformedResponseError(f"{self.label}: response body beyond the cap of {cap} bytes")
        return response, bytes(body).decode(response.encoding or "utf-8", errors="replace")

    def _status_error(self, status: int, detail: str) -> ProviderHTTPError:
        message = f"{self.label}: HTTP {status}: {detail}"
        if status == 429:
            return RateLimitedError(message, status=status)
        return ProviderHTTPError(message, status=status)


class _KeySource(Protocol):
    def get(self) -> str | None: ...
    def remint(self) -> str | None: ...
    def secrets(self) -> tuple[str, ...]: ...


def find_rejected_param(result: HttpResult, body: Mapping[str, Any], candidates: Iterable[str]) -> str | None:
    """Which optional request parameter a 400/422 complains about: the error's `param`, else one it names.
    A 500 counts when it reports a failed validation of the request (llama-cpp-python answers a body its
    schema refuses with 500 and pydantic's "validation error" text)."""
    if result.status not in (400, 422) and not is_request_validation_error(result):
        return None
    present = [name for name in candidates if name in body]
    try:
        data: Any = jsonsafe.loads(result.text, max_bytes=jsonsafe.MAX_RESPONSE_BYTES)
    except ValueError:
        data = None
    err: Any = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        param: Any = err.get("param")
        if isinstance(param, str) and param in present:
            return param
    text = error_detail(result.text, limit=2000)
    for name in present:
        if re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", text):
            return name
    return None


def call_json(
    client: HttpClient,
    url: str,
    body: dict[str, Any],
    *,
    headers: Callable[[str | None], dict[str, str]],
    keys: _KeySource,
    timeout_s: float,
    rejected: Callable[[HttpResult, dict[str, Any]], str | None],
    adjust: Callable[[dict[str, Any], str], set[str]],
    key_hint: str = "",
    extra_secrets: Iterable[str] = (),
) -> Any:
    """POST `body` and return the parsed 2xx body.

    A 401 re-mints the key once (when the key source can). A 400/422 that names an optional parameter is
    retried once without it: `adjust` edits the body and returns the names it has now dealt with, which are
    never adjusted again in this call (a parameter it only reshaped, such as a response format in another
    form, is not among them and may be refused once more). Anything else is PROVIDER_HTTP_ERROR.
    """
    extra = tuple(extra_secrets)
    reminted = False
    handled: set[str] = set()
    while True:
        key = keys.get()
        result = client.request(
            "POST", url, headers=headers(key), body=body, timeout_s=timeout_s, secrets=keys.secrets() + extra
        )
        if 200 <= result.status < 300:
            return result.json()
        if result.status == 401 and not reminted:
            reminted = True
            if keys.remint() is not None:
                log.warning("%s: HTTP 401; re-minted the key once", client.label)
                continue
        param = rejected(result, body)
        if param is not None and param not in handled:
            done = adjust(body, param)  # the names dealt with: `param` itself unless it was only reshaped
            if done:
                handled |= done
                log.warning("%s: server rejected %r; retrying once without it", client.label, param)
                continue
        detail = redact(error_detail(result.text), keys.secrets() + extra)
        hint = f" (check {key_hint})" if result.status in (401, 403) and key_hint else ""
        raise ProviderHTTPError(f"{client.label}: HTTP {result.status}: {detail}{hint}", status=result.status)
