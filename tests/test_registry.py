"""The generic registry (showcause.core.registry) and the tool registry built on it: built-ins by dotted path,
imported on first use; plugins by `register` or a real entry point; a taken name refused."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from showcause.core.registry import DuplicateName, Registry, load_dotted
from showcause.tools.registry import TOOLS, get_tool, register
from showcause.tools.search import SearchTool

BUILTINS = ["search", "find_symbol", "read_file", "list_files", "run_test", "typecheck", "run_probe"]


def _module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> None:
    (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)


def _python(code: str, *, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter: every registry starts as a user's process does (and the suite's stay untouched)."""
    env_path = [str(path)] if path else []
    code = f"import sys\nsys.path[:0] = {env_path!r}\n{code}"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_a_dotted_path_is_imported_on_first_use_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _module(tmp_path, monkeypatch, "lazy_entries", "VALUE = 41\n")
    registry: Registry[int] = Registry("number", "showcause.test-none", {"answer": "lazy_entries:VALUE"},
                                       lambda _name, loaded: int(loaded) + 1)  # type: ignore[call-overload]
    assert registry.names() == ["answer"] and "answer" in registry
    assert "lazy_entries" not in sys.modules and not registry.loaded("answer")
    assert registry.get("answer") == 42
    assert "lazy_entries" in sys.modules and registry.loaded("answer")


def test_registering_a_plugin_first_keeps_every_built_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _module(tmp_path, monkeypatch, "first_entries", "A = 'a'\nB = 'b'\n")
    builtins = {"a": "first_entries:A", "b": "first_entries:B"}
    registry: Registry[str] = Registry("letter", "showcause.test-none", builtins, lambda _name, loaded: str(loaded))
    registry.register("z", "z")
    assert registry.names() == ["a", "b", "z"] and registry.entries() == ["a", "b", "z"]


def test_a_taken_name_is_refused_unless_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _module(tmp_path, monkeypatch, "taken_entries", "A = 'a'\n")
    registry: Registry[str] = Registry("letter", "showcause.test-none", {"a": "taken_entries:A"},
                                       lambda _name, loaded: str(loaded))
    with pytest.raises(DuplicateName, match="letter 'a' is already registered"):
        registry.register_path("a", "taken_entries:A")
    assert registry.get("a") == "a"
    registry.register("a", "other", replace=True)
    assert registry.get("a") == "other"
    with pytest.raises(DuplicateName, match="tool 'search' is already registered"):
        register(SearchTool())
    assert isinstance(get_tool("search"), SearchTool)


def test_a_broken_plugin_is_left_out_and_a_broken_built_in_raises(caplog: pytest.LogCaptureFixture):
    registry: Registry[str] = Registry("letter", "showcause.test-none", {"a": "no_such_module_here:A"},
                                       lambda _name, loaded: str(loaded))
    registry.register_path("p", "no_such_plugin_module:P")
    with caplog.at_level(logging.WARNING, logger="showcause.registry"):
        assert registry.get("p") is None
    assert "letter 'p' (no_such_plugin_module:P) could not be loaded" in caplog.text
    assert registry.names() == ["a"]
    with pytest.raises(ModuleNotFoundError):
        registry.get("a")
    with pytest.raises(ValueError, match="not of the form"):
        load_dotted("no_colon")


def test_the_tool_registry_imports_a_tool_module_only_when_that_tool_is_used():
    proc = _python("from showcause.tools.registry import TOOLS, get_tool\n"
                   "print(TOOLS.names())\n"
                   "print('showcause.tools.run_test' in sys.modules, 'showcause.tools.search' in sys.modules)\n"
                   "get_tool('search')\n"
                   "print('showcause.tools.run_test' in sys.modules, 'showcause.tools.search' in sys.modules)\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [str(BUILTINS), "False False", "False True"]


def test_a_tool_registered_before_any_lookup_does_not_hide_the_builtins():
    proc = _python("from showcause.tools.registry import all_tools, register\n"
                   "from showcause.tools.read_file import ReadFileTool\n"
                   "class Peek(ReadFileTool):\n    name = 'peek'\n"
                   "register(Peek())\nprint([t.name for t in all_tools()])\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str([*BUILTINS, "peek"])


def test_every_tool_says_whether_it_only_reads():
    assert {t.name: t.read_only for t in TOOLS} == {
        "search": True, "find_symbol": True, "read_file": True, "list_files": True, "run_test": False,
        "typecheck": False, "run_probe": False}


def test_a_provider_says_whether_it_costs_money():
    from showcause.providers.registry import is_free, known_prefixes

    assert known_prefixes() == ["anthropic", "ollama", "openai", "openrouter", "scripted"]
    assert {p: is_free(p) for p in known_prefixes()} == {
        "anthropic": False, "ollama": True, "openai": False, "openrouter": False, "scripted": True}
    assert not is_free("no-such-provider")


def test_a_provider_registered_before_any_lookup_does_not_hide_the_built_ins(tmp_path: Path):
    script = tmp_path / "s.json"
    script.write_text('{"turns": [{"content": "{}"}]}', encoding="utf-8")
    proc = _python("from showcause.providers.registry import get_provider, is_free, known_prefixes, register_provider\n"
                   "from showcause.providers.scripted import scripted_provider\n"
                   "register_provider('replay', scripted_provider)\n"
                   "print(known_prefixes(), is_free('replay'))\n"
                   f"print(*(type(get_provider(f'{{p}}:{script}')).__name__ for p in ('scripted', 'replay')))\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["['anthropic', 'ollama', 'openai', 'openrouter', 'replay', 'scripted'] False",
                                        "ScriptedProvider ScriptedProvider"]
