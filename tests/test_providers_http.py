"""The HTTP path every provider shares, over real loopback servers: retries, timeouts, malformed bodies,
keys and their redaction, refused parameters."""

# ruff: noqa: F811  (the fixtures imported from provider_harness are parameters of the tests below)
from __future__ import annotations

import json
import logging
import socket
import ssl
import threading
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from llm_servers import (
    OpenAIServer,
    close_connection,
    malformed,
    rate_limited,
    slow,
    status,
    turn,
)
from provider_harness import (  # noqa: F401  (clean_env, oa, an: fixtures)
    CONVERSATION,
    FAST,
    SECRET,
    clean_env,
    clear_provider_env,
    gaps,
    oa,
    openai_at,
)
from showcause.core.errors import (
    EXIT_INCONCLUSIVE,
    ConfigError,
    MalformedResponseError,
    ProviderHTTPError,
    ProviderNetworkError,
    ProviderTimeoutError,
    RateLimitedError,
    exit_status,
)
from showcause.providers import (
    CompletionOptions,
    Message,
    ProviderConfig,
    get_provider,
    keys,
    known_prefixes,
)
from showcause.providers.http import HttpResult, find_rejected_param, redact, retry_after_s, tls_context
from showcause.providers.keys import CommandKey, NoKey
from showcause.providers.openai import OPTIONAL_PARAMS

pytestmark = pytest.mark.timeout(60)


# ---------------------------------------------------------------- retries, timeouts, malformed bodies


def test_retry_after_is_honoured(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(rate_limited(0.2), times=2)
    oa.add_turns(turn("ok"))
    assert openai_at(oa, monkeypatch).complete(CONVERSATION[:2]).content == "ok"
    assert len(oa.requests) == 3
    assert all(0.2 <= gap < 2.0 for gap in gaps(oa)), gaps(oa)


def test_retry_after_ms_header_is_understood() -> None:
    assert retry_after_s({"retry-after-ms": "250"}) == 0.25
    assert retry_after_s({"Retry-After": "3"}) == 3.0
    assert retry_after_s({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0   # in the past
    assert retry_after_s({}) is None


def test_rate_limit_gives_up_after_n_attempts(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(rate_limited(0.05), times=10)
    with pytest.raises(RateLimitedError) as info:
        openai_at(oa, monkeypatch, max_retries=2).complete(CONVERSATION[:2])
    assert info.value.code == "RATE_LIMITED" and info.value.status == 429
    assert len(oa.requests) == 3


def test_retry_after_longer_than_allowed_fails_at_once(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(rate_limited(600))
    with pytest.raises(RateLimitedError, match="600"):
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2])
    assert len(oa.requests) == 1


@pytest.mark.parametrize("code", [500, 502, 503])
def test_5xx_is_retried_with_backoff(code: int, oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(status(code), times=2)
    oa.add_turns(turn("ok"))
    provider = openai_at(oa, monkeypatch, backoff_base_s=0.1, backoff_max_s=1.0)
    assert provider.complete(CONVERSATION[:2]).content == "ok"
    assert len(oa.requests) == 3
    # equal jitter: retry k waits between base*2^k/2 and base*2^k
    assert 0.05 <= gaps(oa)[0] < 1.0 and 0.1 <= gaps(oa)[1] < 2.0, gaps(oa)


def test_5xx_gives_up_with_provider_http_error(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(status(500), times=10)
    with pytest.raises(ProviderHTTPError) as info:
        openai_at(oa, monkeypatch, max_retries=3).complete(CONVERSATION[:2])
    assert type(info.value) is ProviderHTTPError
    assert info.value.code == "PROVIDER_HTTP_ERROR" and info.value.status == 500
    assert "gave up after 4 attempts" in str(info.value)
    assert len(oa.requests) == 4


def test_closed_port_is_a_network_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    provider = get_provider("openai:m", base_url=f"http://127.0.0.1:{port}/v1", config=replace(FAST, max_retries=2))
    with pytest.raises(ProviderNetworkError) as info:
        provider.complete(CONVERSATION[:2])
    assert info.value.code == "PROVIDER_NETWORK_ERROR" and "after 3 attempts" in str(info.value)


def test_bad_base_url_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = get_provider("ollama:m", base_url="ftp://127.0.0.1:1/v1", config=FAST)
    with pytest.raises(ConfigError, match="bad base URL"):
        provider.complete(CONVERSATION[:2])


def test_dropped_connection_is_retried(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(close_connection())
    oa.add_turns(turn("ok"))
    assert openai_at(oa, monkeypatch).complete(CONVERSATION[:2]).content == "ok"
    assert len(oa.requests) == 2


def test_slow_response_times_out_without_retry(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(slow(3.0))
    oa.add_turns(turn("too late"))
    with pytest.raises(ProviderTimeoutError) as info:
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2], CompletionOptions(timeout_s=0.3))
    assert info.value.code == "TIMEOUT" and exit_status(info.value) == EXIT_INCONCLUSIVE
    assert len(oa.requests) == 1


def test_malformed_json_body(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(malformed())
    with pytest.raises(MalformedResponseError) as info:
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2])
    assert info.value.code == "MALFORMED_RESPONSE"
    assert len(oa.requests) == 1


def test_other_4xx_is_not_retried(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    orphan = (Message("user", "hi"), Message("tool", "result", tool_call_id="call_9"))
    with pytest.raises(ProviderHTTPError, match="must be a response to a preceding") as info:
        openai_at(oa, monkeypatch).complete(orphan)
    assert info.value.status == 400 and len(oa.requests) == 1


# ---------------------------------------------------------------- registry and keys


def test_unknown_prefix_lists_known_ones() -> None:
    with pytest.raises(ConfigError) as info:
        get_provider("gemini:pro")
    for prefix in ("anthropic", "ollama", "openai", "openrouter", "scripted"):
        assert prefix in str(info.value) and prefix in known_prefixes()
    assert info.value.code == "CONFIG_ERROR" and exit_status(info.value) == EXIT_INCONCLUSIVE
    with pytest.raises(ConfigError):
        get_provider("gpt-5-mini")
    with pytest.raises(ConfigError):
        get_provider("openai:")


@pytest.mark.parametrize(
    ("spec", "env"),
    [("openai:gpt-5-mini", "OPENAI_API_KEY"), ("openrouter:x/y", "OPENROUTER_API_KEY"),
     ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY")],
)
def test_missing_key_names_the_variable(spec: str, env: str) -> None:
    with pytest.raises(ConfigError, match=env):
        get_provider(spec)
    with pytest.raises(ConfigError, match="MY_KEY"):
        get_provider(spec, config=ProviderConfig(api_key_env="MY_KEY"))


def test_key_never_in_errors_repr_or_logs(
    oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    oa.valid_keys = {"some-other-key"}
    oa.fail(rate_limited(0.01))
    provider = openai_at(oa, monkeypatch)
    with pytest.raises(ProviderHTTPError) as info:
        provider.complete(CONVERSATION[:2])
    assert info.value.status == 401 and "OPENAI_API_KEY" in str(info.value)
    assert "Incorrect API key provided" in str(info.value)   # the server echoed it; we redacted it
    texts = [str(info.value), repr(info.value), repr(provider), provider.name, caplog.text]
    assert all(SECRET not in text for text in texts)
    assert oa.posts()[-1].headers["authorization"] == f"Bearer {SECRET}"  # it was really sent


def test_extra_header_credentials_are_redacted(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.fail(status(403, echo_headers=True))
    gateway = "gw-token-77aa88bb99"
    provider = openai_at(oa, monkeypatch, extra_headers={"X-Gateway-Token": gateway})
    with pytest.raises(ProviderHTTPError) as info:
        provider.complete(CONVERSATION[:2])
    assert "x-gateway-token" in str(info.value) and info.value.status == 403
    assert gateway not in str(info.value) and SECRET not in str(info.value)
    assert oa.requests[0].headers["x-gateway-token"] == gateway


def test_redact_masks_known_and_key_shaped_values() -> None:
    text = "bad key abc12345 and sk-proj-ABCDEFGH1234 with Authorization: Bearer tok_999 and api_key=zzz"
    out = redact(text, ["abc12345"])
    for leaked in ("abc12345", "sk-proj-ABCDEFGH1234", "tok_999", "zzz"):
        assert leaked not in out


@pytest.fixture
def counter_command(tmp_path: Path) -> str:
    counter = tmp_path / "n"
    counter.write_text("0")
    return f'n=$(($(cat {counter}) + 1)); echo $n > {counter}; echo "key-$n"; echo "noise on stderr" >&2'


def test_key_command_is_cached_for_its_ttl(
    oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch, counter_command: str
) -> None:
    oa.add_turns(turn("a"), turn("b"), turn("c"))
    # The key cache's clock is stepped rather than slept through: 299 s is inside the TTL, 300 s is not.
    now = [1000.0]
    monkeypatch.setattr(keys, "time", SimpleNamespace(monotonic=lambda: now[0]))
    config = replace(FAST, key_command=counter_command, key_ttl_s=300.0)
    provider = get_provider("openai:m", base_url=oa.url, config=config)
    provider.complete(CONVERSATION[:2])
    now[0] += 299.0
    provider.complete(CONVERSATION[:2])
    now[0] += 1.0
    provider.complete(CONVERSATION[:2])
    assert [r.headers["authorization"] for r in oa.requests] == ["Bearer key-1", "Bearer key-1", "Bearer key-2"]


def test_key_command_reminted_once_on_401(
    oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch, counter_command: str
) -> None:
    oa.valid_keys = {"key-2"}
    oa.add_turns(turn("ok"))
    provider = get_provider("openai:m", base_url=oa.url, config=replace(FAST, key_command=counter_command))
    assert provider.complete(CONVERSATION[:2]).content == "ok"
    assert [r.headers["authorization"] for r in oa.requests] == ["Bearer key-1", "Bearer key-2"]


def test_key_command_reminted_only_once(oa: OpenAIServer, counter_command: str) -> None:
    oa.valid_keys = {"key-99"}
    provider = get_provider("openai:m", base_url=oa.url, config=replace(FAST, key_command=counter_command))
    with pytest.raises(ProviderHTTPError) as info:
        provider.complete(CONVERSATION[:2])
    assert info.value.status == 401 and len(oa.requests) == 2
    assert "key-1" not in str(info.value) and "key-2" not in str(info.value)


def test_env_key_is_not_reminted(oa: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    oa.valid_keys = {"nope"}
    with pytest.raises(ProviderHTTPError):
        openai_at(oa, monkeypatch).complete(CONVERSATION[:2])
    assert len(oa.requests) == 1


def test_failing_key_command_is_a_config_error_without_its_output() -> None:
    source = CommandKey("echo sk-leaked-secret-1234 >&2; exit 3")
    with pytest.raises(ConfigError) as info:
        source.get()
    assert "status 3" in str(info.value) and "sk-leaked" not in str(info.value)
    with pytest.raises(ConfigError, match="no key"):
        CommandKey("true").get()
    assert NoKey().get() is None


def test_a_500_that_reports_a_request_validation_error_names_the_rejected_parameter():
    # llama-cpp-python answers a response_format its schema refuses with 500 and pydantic's text.
    text = json.dumps({"error": {"message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                                            "'response_format', 'type'), 'msg': \"Input should be 'text' or "
                                            "'json_object'\"}", "type": "internal_server_error"}})
    body = {"model": "m", "response_format": {"type": "json_schema"}, "temperature": 0}
    assert find_rejected_param(HttpResult(500, {}, text), body, OPTIONAL_PARAMS) == "response_format"
    assert find_rejected_param(HttpResult(500, {}, '{"error": "response_format broke us"}'), body,
                               OPTIONAL_PARAMS) is None   # a plain server failure is not a refusal
    assert find_rejected_param(HttpResult(503, {}, text), body, OPTIONAL_PARAMS) is None


def test_every_client_shares_one_verifying_tls_context():
    # Loading the CA bundle costs ~0.1 s of CPU: once per process, not once per review's client.
    context = tls_context()
    assert context is tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname


def _endless_server(declare: bool) -> tuple[str, list[int], threading.Thread, socket.socket]:
    """A loopback HTTP server whose one answer is a 300 MB body (declared in Content-Length, or not):
    `sent` holds how many body bytes it managed to write before the client stopped reading."""
    listener = socket.create_server(("127.0.0.1", 0))
    sent: list[int] = []

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
            conn.sendall(head + (b"Content-Length: 300000000\r\n" if declare else b"") + b"\r\n")
            total, chunk = 0, b" " * (1 << 20)
            try:
                while total < 300_000_000:
                    conn.sendall(chunk)
                    total += len(chunk)
            except OSError:
                pass
            sent.append(total)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/v1", sent, thread, listener


@pytest.mark.parametrize("declare", [True, False])
def test_a_huge_response_is_refused_while_it_streams_in(declare: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    url, sent, thread, listener = _endless_server(declare)
    with listener:
        provider = get_provider("openai:m", base_url=url, config=replace(FAST, max_retries=0))
        with pytest.raises(MalformedResponseError, match="beyond the cap of 8000000 bytes"):
            provider.complete(CONVERSATION[:2])
        thread.join(timeout=30)
    # The client stopped reading at the cap: the server could not write the whole body into the socket.
    assert sent and sent[0] < 64_000_000, sent
