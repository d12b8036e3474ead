"""Providers in general: the scripted provider, the error codes they raise, what a review loads."""


from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from provider_harness import (  # noqa: F401  (clean_env, oa, an: fixtures)
    CONVERSATION,
    SEARCH,
    clean_env,
    clear_provider_env,
)
from showcause.core.errors import (
    EXIT_INCONCLUSIVE,
    EXIT_STATUS,
    ConfigError,
    MalformedResponseError,
    OutputTruncatedError,
    ProviderError,
    ProviderHTTPError,
    ProviderNetworkError,
    ProviderTimeoutError,
    RateLimitedError,
    exit_status,
)
from showcause.providers import (
    CompletionOptions,
    ToolCallRequest,
    get_provider,
)
from showcause.providers.scripted import ScriptedProvider

pytestmark = [pytest.mark.timeout(60), pytest.mark.isolation]   # isolation: tests/support/isolation_audit.py


# ---------------------------------------------------------------- scripted


def write_script(tmp_path: Path, turns: list[dict[str, Any]]) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}))
    return path


def test_scripted_replays_turns_then_runs_out(tmp_path: Path) -> None:
    path = write_script(tmp_path, [
        {"tool_calls": [{"name": "search", "arguments": {"pattern": "legacy_id"}}]},
        {"content": '{"summary": "fine", "claims": []}', "usage": {"prompt_tokens": 9, "completion_tokens": 3}},
    ])
    provider = get_provider(f"scripted:{path}")
    assert isinstance(provider, ScriptedProvider) and provider.name == f"scripted:{path}"
    first = provider.complete(CONVERSATION[:2], CompletionOptions(tools=(SEARCH,)))
    assert first.finish_reason == "tool_calls" and first.model == "scripted"
    assert first.tool_calls == (ToolCallRequest("call_1_1", "search", {"pattern": "legacy_id"}),)
    assert first.usage.estimated and first.usage.cost_usd == 0.0 and first.usage.prompt_tokens > 0
    second = provider.complete(CONVERSATION[:2], CompletionOptions(tool_choice="none"))
    assert second.content == '{"summary": "fine", "claims": []}' and second.finish_reason == "stop"
    assert (second.usage.prompt_tokens, second.usage.completion_tokens, second.usage.estimated) == (9, 3, False)
    with pytest.raises(MalformedResponseError, match="no turn 3") as info:
        provider.complete(CONVERSATION[:2])
    assert exit_status(info.value) == EXIT_INCONCLUSIVE
    assert [c.tool_choice for c in provider.calls] == ["auto", "none", "auto"]


def test_scripted_finish_reason_raw_arguments_and_errors(tmp_path: Path) -> None:
    path = write_script(tmp_path, [
        {"content": "cut", "finish_reason": "length"},
        {"tool_calls": [{"id": "x1", "name": "read_file", "arguments": "{not json"}]},
        {"error": "RATE_LIMITED"},
        {"error": {"code": "OUTPUT_TRUNCATED", "message": "scripted truncation"}},
    ])
    provider = ScriptedProvider(path)
    assert provider.complete(()).finish_reason == "length"
    assert provider.complete(()).tool_calls == (ToolCallRequest("x1", "read_file", "{not json"),)
    with pytest.raises(RateLimitedError):
        provider.complete(())
    with pytest.raises(OutputTruncatedError, match="scripted truncation"):
        provider.complete(())


@pytest.mark.parametrize(
    "content",
    ["not json", '{"nope": []}', '{"turns": [{"content": 5}]}', '{"turns": [{"error": "WHATEVER"}]}'],
)
def test_scripted_bad_files_are_config_errors(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ConfigError):
        get_provider(f"scripted:{path}")
    with pytest.raises(ConfigError, match="not found"):
        get_provider(f"scripted:{tmp_path / 'missing.json'}")


def test_every_provider_error_is_inconclusive() -> None:
    classes = [ConfigError, ProviderHTTPError, RateLimitedError, ProviderNetworkError, ProviderTimeoutError,
               OutputTruncatedError, MalformedResponseError]
    codes = {cls.code for cls in classes}
    assert codes == {"CONFIG_ERROR", "PROVIDER_HTTP_ERROR", "RATE_LIMITED", "PROVIDER_NETWORK_ERROR", "TIMEOUT",
                     "OUTPUT_TRUNCATED", "MALFORMED_RESPONSE"}
    assert all(issubclass(cls, ProviderError) and EXIT_STATUS[cls.code] == EXIT_INCONCLUSIVE for cls in classes)


def test_a_review_without_a_model_never_loads_the_http_providers():
    # httpx and the HTTP providers cost about 0.25 s of every start; only a model review needs them.
    code = ("import sys\nfrom showcause.cli import app\n"
            "from showcause.service.inputs import open_snapshot, tool_context\n"
            "from showcause.judges.base import ReviewRequest\nfrom showcause.service.review import run_review\n"
            f"with open_snapshot(case={str(Path(__file__).parents[1] / 'examples' / 'demo-case')!r}) as snap:\n"
            "    print(run_review(tool_context(snap), 'mechanical', ReviewRequest()).verdict)\n"
            "print(sorted(m for m in sys.modules if m == 'httpx' or m.startswith('showcause.providers.')))\n"
            "import showcause.providers as p\nprint(p.OpenAIProvider.__name__, p.ScriptedProvider.__name__)\n"
            "print('httpx' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["MODIFY", "['showcause.providers.base', 'showcause.providers.registry']",
                                        "OpenAIProvider ScriptedProvider", "True"]
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchProvider'"):
        import showcause.providers

        _ = showcause.providers.NoSuchProvider
