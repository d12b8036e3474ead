"""The policy model: a key sets only its own section, bad config files are INVALID_INPUT (exit 2), a repository
may only tighten, and the generated files (sandbox/policy.toml, docs/configuration.md) match the model."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builders import make_case
from showcause.core.errors import EXIT_BAD_INPUT, InputError, exit_status
from showcause.evidence.ledger import Ledger
from showcause.judges.budget import Budget
from showcause.policy import SECTIONS, Policy, default_policy_path, load_policy, tightening, tighter_only
from showcause.policy.doc import configuration_markdown, main, policy_toml
from showcause.service.inputs import open_snapshot, tool_context

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

ROOT = Path(__file__).resolve().parents[1]
SHOWCAUSE = str(Path(sys.executable).parent / "showcause")
# Key names that more than one section has: (name, [sections]).
SHARED = sorted((name, [s for s, m in SECTIONS.items() if name in m.model_fields])
                for name in {n for m in SECTIONS.values() for n in m.model_fields}
                if sum(name in m.model_fields for m in SECTIONS.values()) > 1)


def _values(policy: Policy, name: str) -> dict[str, object]:
    return {s: getattr(getattr(policy, s), name) for s, m in SECTIONS.items() if name in m.model_fields}


# ---------------------------------------------------------------------------------------------------------------
# A key sets the key of its own section only (sections were flattened: `[search] timeout_s` set the process one)
# ---------------------------------------------------------------------------------------------------------------

def test_some_key_names_are_in_more_than_one_section() -> None:
    assert ("timeout_s", ["search", "process"]) in SHARED


@pytest.mark.parametrize(("name", "sections"), SHARED)
def test_a_key_in_one_section_never_sets_the_same_name_in_another(name: str, sections: list[str]) -> None:
    default = load_policy()
    for section in sections:
        value = getattr(getattr(default, section), name) / 2
        changed = _values(load_policy({section: {name: value}}), name)
        assert changed == {**_values(default, name), section: value}


def test_search_and_process_timeouts_from_a_file_stay_apart(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[search]\ntimeout_s = 5.0\n", encoding="utf-8")
    assert (load_policy(config).search.timeout_s, load_policy(config).process.timeout_s) == (5.0, 60.0)
    config.write_text("[sandbox.process]\ntimeout_s = 30.0\n", encoding="utf-8")
    assert (load_policy(config).search.timeout_s, load_policy(config).process.timeout_s) == (10.0, 30.0)


def test_a_short_search_timeout_does_not_kill_the_tests(tmp_path: Path) -> None:
    """The ripgrep timeout of 1 s once also became the wall clock of every sandboxed process."""
    slow = "import time\n\n\ndef test_slow():\n    time.sleep(1.5)\n"
    case = make_case(tmp_path / "case", {"tests/test_slow.py": slow, "a.py": "x = 1\n"}, {"a.py": "x = 2\n"},
                     checks={"tests": ["tests/test_slow.py"], "typecheck": "none"})
    config = tmp_path / "c.toml"
    config.write_text("[search]\ntimeout_s = 1.0\n", encoding="utf-8")
    with open_snapshot(case=case) as snap:
        call = Ledger(tool_context(snap, config)).call("run_test", {"test": "tests/test_slow.py"})
    assert call.results == [{"test": "tests/test_slow.py::test_slow", "head": "passed", "base": None}], call.output


# ---------------------------------------------------------------------------------------------------------------
# Bad config files: INVALID_INPUT, exit 2, a message naming the section and key
# ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("doc", "message"), [
    ({"search": {"no_such_key": 1}}, "unknown sandbox policy key 'no_such_key' in [search]"),
    ({"nope": {"x": 1}}, "unknown sandbox policy section 'nope'"),
    ({"no_such_key": 1}, "unknown sandbox policy key 'no_such_key'"),
    ({"review": {"timeout_s": 1.0}}, "timeout_s belongs under [search] or [process], not [review]"),
    ({"timeout_s": 1.0}, "timeout_s belongs under [search] or [process], not outside a section"),
    ({"sandbox": {"max_read_lines": 2}}, "max_read_lines belongs under [sandbox.paths], not outside a section"),
    ({"sandbox": {"paths": {"zz": 1}}}, "unknown sandbox policy key 'zz' in [sandbox.paths]"),
    ({"search": {"search_timeout_s": 1.0}}, "search_timeout_s is now timeout_s under [search], not [search]"),
    ({"paths": 3}, "[paths] must be a table of keys"),
    ({"paths": {"max_read_lines": 2.5}}, "[paths] max_read_lines must be an integer"),
    ({"paths": {"max_read_lines": 2.0}}, "[paths] max_read_lines must be an integer"),
    ({"paths": {"max_read_lines": True}}, "[paths] max_read_lines must be an integer"),
    ({"sandbox": {"paths": {"max_read_lines": "2"}}}, "[sandbox.paths] max_read_lines must be an integer"),
    ({"search": {"timeout_s": "1"}}, "[search] timeout_s must be a number"),
    ({"search": {"timeout_s": False}}, "[search] timeout_s must be a number"),
    ({"process": {"isolation": 3}}, "[process] isolation must be a string"),
    ({"process": {"isolation": "chroot"}}, "[process] isolation must be auto, bwrap, unshare or none"),
    ({"process": {"env_allow": "LANG"}}, "[process] env_allow must be a list of strings"),
    ({"process": {"env_allow": ["LANG", 1]}}, "[process] env_allow must be a list of strings"),
    ({"paths": {"max_read_lines": 0}}, "[paths] max_read_lines must be positive"),
    ({"symbols": {"symbol_worker_min_files": -1}}, "[symbols] symbol_worker_min_files must be 0 or more"),
    ({"review": {"blindness_leak": 0}}, "[review] blindness_leak must be above 0 and at most 1, got 0"),
])
def test_a_bad_document_is_invalid_input(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as caught:
        load_policy(doc)
    assert caught.value.code == "INVALID_INPUT" and exit_status(caught.value) == EXIT_BAD_INPUT
    assert str(caught.value).startswith("config: ") and message in str(caught.value), str(caught.value)


def test_a_repository_config_with_a_flat_key_stops_the_review_with_exit_2(tmp_path: Path) -> None:
    case = make_case(tmp_path / "case", {"a.py": "x = 1\n", ".showcause.toml": "[sandbox]\ntimeout_s = 5.0\n"},
                     {"a.py": "x = 2\n"})
    proc = subprocess.run([SHOWCAUSE, "review", "--case", str(case), "--format", "json"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert "timeout_s belongs under [sandbox.search] or [sandbox.process], not outside a section" in proc.stderr


# ---------------------------------------------------------------------------------------------------------------
# A repository's config may only tighten, key by key, as the model says
# ---------------------------------------------------------------------------------------------------------------

def _loosened(rule: str, value: Any) -> Any:
    if rule == "subset":
        return [*value, "OPENAI_API_KEY"]
    if rule == "safe level":
        return "none"
    return value * 2 if rule == "lower" else value // 2   # shares default to at most 0.5: doubled, still a share


_RULED = [(s, n, tightening(f)) for s, m in SECTIONS.items() for n, f in m.model_fields.items()]


@pytest.mark.parametrize(("section", "name", "rule"), [r for r in _RULED if r[2] not in ("any", "never")])
def test_a_repository_may_not_loosen(section: str, name: str, rule: str) -> None:
    default = load_policy()
    value = getattr(getattr(default, section), name)
    if isinstance(value, bool):   # on by default: a repository may not turn back on what the user turned off
        assert (value, rule) == (True, "lower")
        default, looser = load_policy({section: {name: False}}), load_policy({section: {name: True}})
    else:
        looser = load_policy({section: {name: _loosened(rule, value)}})
    with pytest.raises(InputError, match=f"{name} may only be tightened by the repository"):
        tighter_only(default, looser, "repo")


def test_a_repository_may_tighten_name_a_level_and_change_discovery() -> None:
    default = load_policy()
    tighter = load_policy({"search": {"timeout_s": 1.0}, "process": {"isolation": "bwrap", "env_allow": ["LANG"]},
                           "symbols": {"symbol_worker_min_files": 900}, "tests": {"discover": ["t/*.py"]},
                           "review": {"blindness_warn": 0.0}})
    tighter_only(default, tighter, "repo")
    tighter_only(default, load_policy({"process": {"isolation": "unshare"}}), "repo")
    assert {r for _, _, r in _RULED} == {"lower", "higher", "subset", "safe level", "any", "never"}


_USERS_OWN = {("sandbox", "python"): "it chooses which host directories are bound into the sandbox (use --python",
              ("telemetry", "path"): "it names a host file showcause appends to (use SHOWCAUSE_TELEMETRY"}


@pytest.mark.parametrize(("section", "name"), [(s, n) for s, n, r in _RULED if r == "never"])
def test_a_repository_may_not_set_a_key_of_the_user(section: str, name: str) -> None:
    assert {(s, n) for s, n, r in _RULED if r == "never"} == set(_USERS_OWN)
    with pytest.raises(InputError) as err:
        tighter_only(load_policy(), load_policy({section: {name: "/usr/bin/python3"}}), "repo")
    assert err.value.message == (f"repo: [{section}] {name} may not be set by the repository: "
                                 f"{_USERS_OWN[section, name]} or your own --config)")


def test_a_sandbox_table_of_its_own_keys_is_that_section_beside_the_others(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[process]\ntimeout_s = 30.0\n\n[sandbox]\npython = "/opt/py/bin/python"\n', encoding="utf-8")
    loaded = load_policy(config)
    assert (loaded.process.timeout_s, loaded.sandbox.python) == (30.0, "/opt/py/bin/python")
    config.write_text('[sandbox]\npython = "~/venv"\n\n[sandbox.process]\ntimeout_s = 20.0\n', encoding="utf-8")
    assert (load_policy(config).process.timeout_s, load_policy(config).sandbox.python) == (20.0, "~/venv")
    with pytest.raises(InputError, match=r"\[sandbox\] python must be an absolute path"):
        load_policy({"sandbox": {"python": "venv/bin/python"}})


# ---------------------------------------------------------------------------------------------------------------
# One source of defaults; the generated files match the model
# ---------------------------------------------------------------------------------------------------------------

def test_the_defaults_file_is_the_model_and_the_budget_its_review_keys() -> None:
    assert load_policy() == Policy()
    review = Policy().review
    assert dataclasses.astuple(Budget()) == (review.max_tool_calls, review.max_review_tokens,
                                             review.max_completion_tokens, review.review_timeout_s, review.max_turns)
    assert Budget() == Budget.from_policy(load_policy())


def test_every_section_and_key_is_described() -> None:
    for section, model in SECTIONS.items():
        assert (model.__doc__ or "").strip(), section
        for name, field in model.model_fields.items():
            assert (field.description or "").strip(), f"[{section}] {name}"
            assert f"| `{name}` |" in configuration_markdown() and f"\n{name} = " in policy_toml()


def test_sandbox_policy_toml_is_generated_from_the_model() -> None:
    assert default_policy_path() == ROOT / "sandbox" / "policy.toml"
    committed = (ROOT / "sandbox" / "policy.toml").read_text(encoding="utf-8")
    assert committed == policy_toml(), "sandbox/policy.toml is stale: run `make docs`"


def test_docs_configuration_md_is_generated_from_the_model() -> None:
    committed = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == configuration_markdown(), "docs/configuration.md is stale: run `make docs`"


def test_the_generator_writes_both_files(tmp_path: Path) -> None:
    toml, markdown = tmp_path / "policy.toml", tmp_path / "configuration.md"
    proc = subprocess.run([sys.executable, "-m", "showcause.policy.doc", str(toml), str(markdown)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (toml.read_text(encoding="utf-8"), markdown.read_text(encoding="utf-8")) == (policy_toml(),
                                                                                        configuration_markdown())
    main([str(toml), str(markdown)])
    assert load_policy(toml.resolve()) == Policy()


def test_the_example_configs_are_valid_and_the_repositorys_only_tightens() -> None:
    examples = Path(__file__).resolve().parents[1] / "examples"
    default = load_policy()
    repo = load_policy(examples / "showcause.toml")
    tighter_only(default, repo, "repo")   # raises if the example loosened anything
    assert (repo.process.isolation, repo.process.tmpfs_mb, repo.tests.test_reruns) == ("bwrap", 128, 1)
    user = load_policy(examples / "user-config.toml")
    assert (user.sandbox.python, user.process.timeout_s, user.review.max_tool_calls) == ("~/work/project/.venv",
                                                                                         300.0, 12)
    with pytest.raises(InputError):
        tighter_only(default, user, "repo")   # what only a user may say
