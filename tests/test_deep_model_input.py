"""A model's deep answer is MALFORMED_RESPONSE, its deep tool arguments a refused call, a deep body malformed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from builders import make_case
from deep import DEEP, LISTS, NESTED, OBJECTS, deep_value
from llm_servers import OpenAIServer, raw, turn
from showcause.core.answer import parse_answer
from showcause.core.decision import parse_verdict
from showcause.core.errors import ConfigError, MalformedAnswer, MalformedResponseError
from showcause.core.jsonsafe import MAX_TEXT_BYTES
from showcause.evidence.ledger import Ledger
from showcause.providers import Message, ProviderConfig, get_provider
from showcause.providers.anthropic import wire_messages
from showcause.providers.base import ToolCallRequest
from showcause.providers.http import error_detail
from showcause.providers.openai import parse_arguments
from showcause.service.inputs import open_snapshot, tool_context

GOOD = '{"summary": "ok", "claims": [{"claim": "x breaks", "verdict": "MODIFY", "result": "confirmed"}]}'


# ---- a model's final answer ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    '{"claims": ' + LISTS + "}", OBJECTS, "Here: " + "{" * DEEP, '```json\n{"summary": ' + LISTS + "}\n```",
    GOOD + " and then " + OBJECTS,
])
def test_a_deep_answer_is_malformed(text: str):
    with pytest.raises(MalformedAnswer, match=NESTED) as info:
        parse_answer(text)
    assert info.value.code == "MALFORMED_RESPONSE"


def test_an_oversized_answer_is_malformed():
    with pytest.raises(MalformedAnswer, match=f"larger than {MAX_TEXT_BYTES} bytes"):
        parse_answer(GOOD + " x" * (MAX_TEXT_BYTES // 2))


def test_brackets_inside_answer_strings_are_fine():
    text = '{"summary": "' + "[" * 5000 + '", "claims": [{"claim": "' + "{" * 3000 + '"}]}'
    answer = parse_answer(text)
    assert answer.summary == "[" * 5000 and answer.claims[0].claim == "{" * 3000
    assert parse_answer("prose { with a stray brace " + GOOD).summary == "ok"


def test_a_deep_decision_answer_is_malformed():
    with pytest.raises(MalformedAnswer, match="nested deeper"):
        parse_verdict('{"verdict": "KEEP", "falsification_probe": ' + OBJECTS + "}")


# ---- tool-call arguments and response bodies from providers ----------------------------------------------

@pytest.fixture
def oa(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-deep")
    server = OpenAIServer().start()
    yield server
    server.stop()


def openai(server: OpenAIServer):
    return get_provider("openai:m", base_url=server.url, config=ProviderConfig(max_retries=0))


def test_deep_tool_arguments_stay_raw_text_for_the_ledger(oa: OpenAIServer):
    oa.add_turns(turn(tool_calls=[("search", LISTS), ("search", OBJECTS)]))
    reply = openai(oa).complete([Message("user", "review")])
    assert [c.arguments for c in reply.tool_calls] == [LISTS, OBJECTS]
    assert parse_arguments(LISTS) == LISTS


def test_a_deep_response_body_is_malformed(oa: OpenAIServer):
    oa.fail(raw(b'{"choices": [{"message": {"content": ' + b"[" * DEEP + b"]" * DEEP + b"}}]}"))
    with pytest.raises(MalformedResponseError, match="nested deeper") as info:
        openai(oa).complete([Message("user", "review")])
    assert info.value.code == "MALFORMED_RESPONSE"
    assert error_detail(OBJECTS[:500]).startswith('{"a":')   # an error body too deep is shown as text


def test_anthropic_sends_deep_raw_arguments_back_as_text():
    call = ToolCallRequest("toolu_1", "search", OBJECTS)
    _system, wire = wire_messages([Message("user", "r"), Message("assistant", "", tool_calls=(call,))],
                                  with_tools=True)
    assert wire[1]["content"][0]["input"] == {"raw_arguments": OBJECTS}


def test_a_deep_scripted_file_is_a_config_error(tmp_path: Path):
    path = tmp_path / "script.json"
    path.write_text('{"turns": [{"tool_calls": [{"name": "search", "arguments": ' + OBJECTS + "}]}]}")
    with pytest.raises(ConfigError, match="nested deeper"):
        get_provider(f"scripted:{path}")


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ledger]:
    case = make_case(tmp_path_factory.mktemp("deep") / "deepcase", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    with open_snapshot(case=case) as snap:
        yield Ledger(tool_context(snap))


@pytest.mark.parametrize("args", [LISTS, OBJECTS, '{"pattern": ' + LISTS + "}", deep_value(),
                                  {"pattern": deep_value()}, "{" * DEEP])
def test_deep_tool_arguments_are_a_refused_call(ledger: Ledger, args: object):
    call = ledger.call("search", args)
    assert not call.ok and f"refused: arguments {NESTED}" in call.output
    json.dumps(call.to_json())   # the record renders: nothing too deep was kept in it


def test_oversized_tool_arguments_are_a_refused_call(ledger: Ledger):
    call = ledger.call("search", json.dumps({"pattern": "x" * 1_000_001}))
    assert not call.ok and "refused: arguments larger than 1000000 bytes" in call.output
