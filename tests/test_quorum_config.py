"""The quorum configuration: the predecessor's JSON and a TOML `[quorum]` table; every startup check fails
with QUORUM_CONFIG_INVALID naming the field; what only weakens a quorum is a warning."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from showcause.core.errors import EXIT_STATUS, QuorumConfigError
from showcause.quorum import load_config, parse_config

BASE: dict[str, Any] = {
    "thresholds": {"tier1": 2, "tier2": 3, "tier3": 4},
    "arbiter": "gpt-mini",
    "sources": [
        {"name": "gemini-flash", "apiType": "openai", "baseUrl": "https://generativelanguage.googleapis.com/v1beta/openai",
         "model": "gemini-3-flash-preview", "apiKeyEnv": "GEMINI_API_KEY", "weight": 1, "tier": 1},
        {"name": "gpt-mini", "apiType": "openai", "baseUrl": "https://api.openai.com/v1", "model": "gpt-5-mini",
         "apiKeyEnv": "OPENAI_API_KEY", "weight": 1, "tier": 1},
        {"name": "gemini-pro", "apiType": "openai", "baseUrl": "https://generativelanguage.googleapis.com/v1beta/openai",
         "model": "gemini-3-pro", "apiKeyEnv": "GEMINI_API_KEY", "weight": 2, "tier": 2},
        {"name": "claude", "apiType": "anthropic", "baseUrl": "https://api.anthropic.com", "model": "claude-fable-5",
         "apiKeyEnv": "ANTHROPIC_API_KEY", "weight": 2, "tier": 3},
    ],
}


def _with(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    for path, value in changes.items():
        target: Any = data
        *parents, last = path.split("__")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        if value is _DROP:
            del target[int(last) if last.isdigit() else last]
        else:
            target[int(last) if last.isdigit() else last] = value
    return data


_DROP = object()


def test_the_predecessors_example_loads_with_its_defaults_and_one_warning():
    config = parse_config(copy.deepcopy(BASE), env={})
    assert config.thresholds == {1: 2, 2: 3, 3: 4} and config.tiers == [1, 2, 3]
    assert (config.limits.deadline_s, config.limits.timeout_s, config.limits.max_output_tokens) == (750.0, 120.0, 8192)
    assert config.warnings == ("tier 1 can never win a default call: tiers <= 1 weigh 2, below thresholds.tier3 = 4 "
                               "(its sources are billed, then escalated)",)


def test_bare_numeric_threshold_keys_and_per_source_limits():
    data = _with(thresholds={"1": 2, "2": 3, "tier3": 4}, sources__0__timeoutMs=1500, sources__0__maxOutputTokens=99)
    config = parse_config(data, env={"PEER_TIMEOUT_MS": "2000", "PEER_REVIEW_DEADLINE_MS": "20000"})
    flash, mini = config.sources[0], config.sources[1]
    assert (flash.timeout_s, flash.max_output_tokens, mini.timeout_s) == (1.5, 99, 2.0)


@pytest.mark.parametrize(("changes", "message"), [
    ({"arbiter": "gpt-max"}, "arbiter: 'gpt-max' is not the name of a source"),
    ({"sources__3__tier": 4}, r"sources\[3\] \(claude\).tier: tier 4 has no threshold \(add thresholds.tier4\)"),
    ({"sources__1__name": "gemini-flash", "arbiter": "gemini-flash"},
     r"sources\[1\].name: 'gemini-flash' names two sources"),
    ({"sources__0__name": "caller"}, r"sources\[0\].name: 'caller' is reserved"),
    ({"sources__0__apiKeyCommand": "gcloud auth print-access-token"},
     r"sources\[0\] \(gemini-flash\): give exactly one of apiKeyEnv and apiKeyCommand"),
    ({"sources__0__apiKeyEnv": _DROP},
     r"sources\[0\] \(gemini-flash\): give exactly one of apiKeyEnv and apiKeyCommand"),
    ({"sources__3__jsonMode": True}, r"sources\[3\] \(claude\).jsonMode: only OpenAI-compatible sources"),
    ({"thresholds__tier3": 7}, "thresholds.tier3: 7 can never be reached: the sources of tiers <= 3 weigh 6"),
    ({"thresholds__Tier9": 1}, "thresholds.Tier9: a key is a tier"),
    ({"thresholds": {"tier1": 2, "1": 3, "tier2": 3, "tier3": 4}}, "thresholds.1: tier 1 has two thresholds"),
    ({"sources__2__weight": 0}, r"sources\[2\] \(gemini-pro\).weight: must be a positive integer \(got 0\)"),
    ({"sources__2__weight": 1.5}, r"sources\[2\] \(gemini-pro\).weight: must be a positive integer"),
    ({"sources__1__baseUrl": "ftp://example.com"}, r"sources\[1\] \(gpt-mini\).baseUrl: must be an http\(s\) URL"),
    ({"sources__1__apiType": "gemini"}, r"sources\[1\] \(gpt-mini\).apiType: must be \"openai\" or \"anthropic\""),
    ({"sources": []}, "sources: must be a non-empty array"),
    ({"deadlineMs": 600_000}, "deadlineMs: 600000 ms cannot fit 3 sequential tier waves plus their arbiter "
                              r"evaluations \(720000 ms\)"),
])
def test_every_startup_check_names_its_field(changes: dict[str, Any], message: str):
    with pytest.raises(QuorumConfigError, match=message) as caught:
        parse_config(_with(**changes), env={})
    assert caught.value.code == "QUORUM_CONFIG_INVALID" and EXIT_STATUS[caught.value.code] == 2


def test_the_environment_is_checked_and_named():
    with pytest.raises(QuorumConfigError, match=r"PEER_TIMEOUT_MS: must be a positive integer \(got 'soon'\)"):
        parse_config(copy.deepcopy(BASE), env={"PEER_TIMEOUT_MS": "soon"})
    with pytest.raises(QuorumConfigError, match=r"^PEER_REVIEW_DEADLINE_MS: 480000 ms cannot fit 3"):
        parse_config(copy.deepcopy(BASE), env={"PEER_REVIEW_DEADLINE_MS": "480000"})


def test_unknown_keys_are_warnings_not_errors():
    config = parse_config(_with(comment="mine", sources__0__temperature=1), env={})
    assert "quorum: unknown key 'comment' ignored" in config.warnings
    assert "sources[0] (gemini-flash): unknown key 'temperature' ignored" in config.warnings


def test_files_json_and_toml(tmp_path: Path):
    path = tmp_path / "peer-review.config.json"
    path.write_text(json.dumps(BASE), encoding="utf-8")
    assert [s.name for s in load_config(path, env={}).sources] == ["gemini-flash", "gpt-mini", "gemini-pro", "claude"]
    toml = tmp_path / "showcause.toml"
    toml.write_text('[quorum]\narbiter = "a"\nthresholds = { tier1 = 1 }\n[[quorum.sources]]\nname = "a"\n'
                    'apiType = "anthropic"\nbaseUrl = "http://127.0.0.1:9"\nmodel = "m"\n'
                    'apiKeyCommand = "printf k"\nweight = 1\ntier = 1\n', encoding="utf-8")
    source = load_config(toml, env={}).sources[0]
    assert (source.api_type, source.api_key_command, source.api_key_env) == ("anthropic", "printf k", None)
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(QuorumConfigError, match=r"bad\.json: not valid JSON"):
        load_config(tmp_path / "bad.json", env={})
    (tmp_path / "none.toml").write_text("[review]\n", encoding="utf-8")
    with pytest.raises(QuorumConfigError, match=r"none.toml: no \[quorum\] table"):
        load_config(tmp_path / "none.toml", env={})
    with pytest.raises(QuorumConfigError, match=r"missing\.json: cannot read the quorum configuration"):
        load_config(tmp_path / "missing.json", env={})
