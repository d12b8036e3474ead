"""Provider error codes. Every one makes a review INCONCLUSIVE (exit 3); none ever carries a key."""

from __future__ import annotations

from showcause.core.errors import EXIT_INCONCLUSIVE, ShowcauseError

__all__ = [
    "ConfigError",
    "MalformedResponseError",
    "OutputTruncatedError",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderNetworkError",
    "ProviderTimeoutError",
    "RateLimitedError",
]


class ProviderError(ShowcauseError):
    """Base of every provider failure. `status` is the HTTP status when there was one."""

    code = "PROVIDER_ERROR"
    exit_code = EXIT_INCONCLUSIVE

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r})"


class ConfigError(ProviderError):
    """Bad `--model` spec, unknown provider prefix, missing key, unreadable scripted file."""

    code = "CONFIG_ERROR"


class ProviderHTTPError(ProviderError):
    """The server answered with an error status we do not (or no longer) retry."""

    code = "PROVIDER_HTTP_ERROR"


class RateLimitedError(ProviderHTTPError):
    """429 persisted through every retry (or the server asked us to wait longer than we may)."""

    code = "RATE_LIMITED"


class ProviderNetworkError(ProviderError):
    """Connection refused/reset/closed, DNS failure: persisted through every retry."""

    code = "PROVIDER_NETWORK_ERROR"


class ProviderTimeoutError(ProviderError):
    """One call exceeded its per-call timeout."""

    code = "TIMEOUT"


class OutputTruncatedError(ProviderError):
    """The answer hit the token cap. Providers report it in the turn; the caller decides to raise this."""

    code = "OUTPUT_TRUNCATED"


class MalformedResponseError(ProviderError):
    """A body we cannot parse, a response without the expected fields, or a scripted run out of turns."""

    code = "MALFORMED_RESPONSE"
