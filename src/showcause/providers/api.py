"""A chat model behind an HTTP JSON API: what the OpenAI-compatible and the Anthropic providers share.

One POST a call through `call_json` (retries, Retry-After, a re-minted key after a 401, a refused optional
parameter dropped and remembered), headers with the configured extras, errors reported inside a 2xx body,
redaction. A subclass maps only its wire format: `wire_body`, `read`, `body_error`, `auth_headers`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from showcause.core.errors import MalformedResponseError, ProviderHTTPError
from showcause.providers.base import CompletionOptions, Message, ModelTurn, ProviderConfig
from showcause.providers.chat import ChatProvider, Reply
from showcause.providers.http import HttpClient, HttpResult, call_json, find_rejected_param, header_secrets, redact
from showcause.providers.keys import KeySource

__all__ = ["ApiProvider", "error_message"]


def error_message(error: Any) -> str:
    """The message of an error object inside a response body (`{"message": …}`, or anything else as text)."""
    return str(error.get("message", "") if isinstance(error, dict) else error)


class ApiProvider(ChatProvider):
    """`POST url` with tools, retries, parameter fallbacks and usage; the wire format is the subclass's."""

    # Parameters a server may reject and that a request can do without: dropped once refused.
    OPTIONAL_PARAMS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *, name: str, model: str, base_url: str, url: str, keys: KeySource, config: ProviderConfig,
                 key_hint: str, free: bool = False) -> None:
        super().__init__(name=name, model=model, free=free)
        self.base_url = base_url
        self.url = url
        self._keys = keys
        self._config = config
        self._key_hint = key_hint
        self._dropped: set[str] = set()   # parameters this server rejected; not sent again
        self._http = HttpClient(label=name, max_retries=config.max_retries, backoff_base_s=config.backoff_base_s,
                                backoff_max_s=config.backoff_max_s)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    def close(self) -> None:
        self._http.close()

    # ---- the wire format: what a subclass writes

    @abstractmethod
    def wire_body(self, messages: Sequence[Message], options: CompletionOptions) -> dict[str, Any]:
        """The request body in this API's shape, before refused parameters are dropped."""

    @abstractmethod
    def read(self, data: dict[str, Any]) -> Reply:
        """The reply in a 2xx body that reports no error; MALFORMED_RESPONSE when the shape is wrong."""

    @abstractmethod
    def body_error(self, data: dict[str, Any]) -> str | None:
        """The message of an error reported inside a 2xx body (some gateways do), else None."""

    @abstractmethod
    def auth_headers(self, key: str) -> dict[str, str]:
        """The header that carries `key`."""

    def wire_headers(self) -> dict[str, str]:
        """Headers this API wants on every request besides the content type (a version …)."""
        return {}

    # ---- shared

    def headers(self, key: str | None) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json", **self.wire_headers(),
                   **self._config.extra_headers}
        return {**headers, **self.auth_headers(key)} if key else headers

    def secrets(self) -> tuple[str, ...]:
        """Every value redacted from what this provider reports: its keys and credential-like extra headers."""
        return (*self._keys.secrets(), *header_secrets(self._config.extra_headers))

    def build_body(self, messages: Sequence[Message], options: CompletionOptions) -> dict[str, Any]:
        """The exact JSON body of one request."""
        body = self.wire_body(messages, options)
        for key in self._dropped:
            body.pop(key, None)
        return body

    def answer(self, messages: Sequence[Message], options: CompletionOptions) -> Reply:
        body = self.build_body(messages, options)
        data = call_json(self._http, self.url, body, headers=self.headers, keys=self._keys,
                         timeout_s=options.timeout_s, rejected=self.rejected, adjust=self.adjust,
                         key_hint=self._key_hint, extra_secrets=header_secrets(self._config.extra_headers))
        return self.reply(data)

    def reply(self, data: Any) -> Reply:
        """The reply in a parsed 2xx body: an error reported inside it is PROVIDER_HTTP_ERROR (redacted)."""
        if not isinstance(data, dict):
            raise MalformedResponseError(f"{self.name}: response body is not a JSON object")
        error = self.body_error(data)
        if error is not None:
            detail = redact(error[:400], self._keys.secrets())
            raise ProviderHTTPError(f"{self.name}: provider error in response body: {detail}")
        return self.read(data)

    def parse_response(self, data: Any, *, prompt_chars: int = 0) -> ModelTurn:
        """A ModelTurn from a response body; MALFORMED_RESPONSE when the shape is wrong."""
        return self.settle(self.reply(data), prompt_chars=prompt_chars)

    def rejected(self, result: HttpResult, body: dict[str, Any]) -> str | None:
        """Which optional parameter a refusal names, if any."""
        return find_rejected_param(result, body, self.OPTIONAL_PARAMS)

    def adjust(self, body: dict[str, Any], param: str) -> set[str]:
        """Drop the refused optional `param` from `body` and from every later request; the names dealt with."""
        if param in self.OPTIONAL_PARAMS and param in body:
            body.pop(param)
            self._dropped.add(param)
            return {param}
        return set()
