"""Plugins: a tool, a mode and a provider added through the registries, by `register` and by real entry
points (a tiny installed distribution: a `.dist-info` on sys.path). Built-ins are never hidden, a taken
name is refused, and what a plugin adds shows up in everything generated from the registries.

Each test runs in a fresh interpreter, as a user's process starts: the suite's registries stay the built-ins.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo-case"

# One module holding a tool, a mode that runs it, a provider, and impostors of built-in names.
PLUGIN = textwrap.dedent('''
    from typing import ClassVar

    from showcause.core.claims import FinalAnswer
    from showcause.judges.base import JudgeAnswer
    from showcause.judges.contract import ModeSpec
    from showcause.judges.mechanical import MechanicalJudge
    from showcause.providers.base import ProviderSpec
    from showcause.providers.scripted import scripted_provider
    from showcause.tools.read_file import ReadFileTool


    class PeekTool(ReadFileTool):
        name: ClassVar[str] = "peek"
        description: ClassVar[str] = "Read the first lines of a file (a plugin tool)."


    class PeekMode:
        spec: ClassVar[ModeSpec] = ModeSpec(name="peek_mode", description="Peeks at one file (a plugin mode).",
                                            needs_model=False, passes=0, budget=None, tools=("peek",))

        def judge(self, request, ledger):
            ledger.call("peek", {"path": "src/shop/cart.py", "end_line": 2})
            return JudgeAnswer(FinalAnswer(summary="peeked", claims=[]))


    class Impostor(MechanicalJudge):   # claims a built-in's name: refused, the built-in stays
        spec: ClassVar[ModeSpec] = ModeSpec(name="mechanical", description="not the real one", needs_model=False,
                                            passes=0, budget=None)


    class Doubter:   # a decision mode: no model, always asks for evidence
        spec: ClassVar[ModeSpec] = ModeSpec(name="doubter", description="Always asks for more (a plugin decision "
                                            "mode).", needs_model=False, passes=0, budget=None)

        def review(self, decision, options):
            from showcause.core.decision import DecisionVerdict, FalsificationProbe
            from showcause.core.decision_result import DecisionResult
            from showcause.core.meta import DecisionMeta
            verdict = DecisionVerdict(verdict="INSUFFICIENT_EVIDENCE", confidence=0.0, recommendation="Show more.",
                                      falsification_probe=FalsificationProbe(description="d", expected_signal="s"))
            return DecisionResult.from_verdict(verdict, DecisionMeta(mode="doubter"))


    REPLAY = ProviderSpec(scripted_provider, free=True)
''')
ENTRY_POINTS = textwrap.dedent('''
    [showcause.tools]
    peek = showcause_demo_plugin:PeekTool
    search = showcause_demo_plugin:PeekTool

    [showcause.modes]
    peek_mode = showcause_demo_plugin:PeekMode
    mechanical = showcause_demo_plugin:Impostor

    [showcause.decision_modes]
    doubter = showcause_demo_plugin:Doubter

    [showcause.providers]
    replay = showcause_demo_plugin:REPLAY
    openai = showcause_demo_plugin:REPLAY
''')
BUILTIN_TOOLS = ["search", "find_symbol", "read_file", "list_files", "run_test", "typecheck", "run_probe"]
BUILTIN_MODES = ["mechanical", "evidence_gate", "decision_judge", "proposal_first", "proposal_first_2pass",
                 "blind_first", "quorum"]


def _python(code: str, path: Path) -> subprocess.CompletedProcess[str]:
    code = f"import sys\nsys.path.insert(0, {str(path)!r})\n{textwrap.dedent(code)}"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def _plugin_module(tmp_path: Path) -> Path:
    (tmp_path / "showcause_demo_plugin.py").write_text(PLUGIN, encoding="utf-8")
    return tmp_path


def _installed(tmp_path: Path) -> Path:
    """The plugin as an installed distribution: its module and a dist-info with entry points."""
    info = _plugin_module(tmp_path) / "showcause_demo_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: showcause-demo-plugin\nVersion: 0.1\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return tmp_path


REPORT = '''
    import json
    from showcause.decision.registry import DECISION_MODES
    from showcause.judges.registry import CHANGE_MODES as MODES
    from showcause.service.catalog import modes_markdown
    from showcause.providers.registry import get_provider, is_free, known_prefixes
    from showcause.tools.registry import TOOLS, get_tool, tool_schemas, tools_markdown
    script = {script!r}
    print(json.dumps({{
        "tools": TOOLS.names(), "modes": MODES.names(), "decision_modes": DECISION_MODES.names(),
        "providers": known_prefixes(),
        "search_is": type(get_tool("search")).__name__, "mechanical_is": type(MODES.get("mechanical")).__name__,
        "openai_free": is_free("openai"), "replay_free": is_free("replay"),
        "replay_makes": type(get_provider("replay:" + script)).__name__,
        "schemas": [s["name"] for s in tool_schemas()],
        "tools_md_has_peek": "## `peek`" in tools_markdown(),
        "modes_md_has_peek": "| `peek_mode` |" in modes_markdown(),
    }}))
'''


def _script(tmp_path: Path) -> str:
    path = tmp_path / "turns.json"
    path.write_text('{"turns": [{"content": "{}"}]}', encoding="utf-8")
    return str(path)


def _check_report(report: dict[str, object]) -> None:
    assert report["tools"] == [*BUILTIN_TOOLS, "peek"] and report["schemas"] == report["tools"]
    assert report["modes"] == [*BUILTIN_MODES, "peek_mode"]
    assert report["decision_modes"] == ["blind_first", "proposal_first", "doubter"]
    assert report["providers"] == ["anthropic", "ollama", "openai", "openrouter", "replay", "scripted"]
    assert report["search_is"] == "SearchTool" and report["mechanical_is"] == "MechanicalJudge"
    assert report["openai_free"] is False and report["replay_free"] is True
    assert report["replay_makes"] == "ScriptedProvider"
    assert report["tools_md_has_peek"] and report["modes_md_has_peek"]


def test_plugins_by_register_keep_the_built_ins_and_a_taken_name_is_refused(tmp_path: Path):
    code = '''
        from showcause.core.registry import DuplicateName
        from showcause.judges.registry import register_mode
        from showcause.providers.registry import register_provider
        from showcause.tools.registry import register
        import showcause_demo_plugin as p

        # Registered before any lookup: the built-ins are entries from the start, not loaded when empty.
        from showcause.decision.registry import register_decision_mode
        register(p.PeekTool()); register_mode(p.PeekMode()); register_provider("replay", p.REPLAY)
        register_decision_mode(p.Doubter())
        for attempt in (lambda: register(type("S", (p.PeekTool,), {"name": "search"})()),
                        lambda: register_mode(p.Impostor()), lambda: register_provider("openai", p.REPLAY)):
            try:
                attempt()
            except DuplicateName as exc:
                print("refused:", exc)
    '''
    report = textwrap.dedent(REPORT.format(script=_script(tmp_path)))
    proc = _python(textwrap.dedent(code) + report, _plugin_module(tmp_path))
    assert proc.returncode == 0, proc.stderr
    *refusals, last = proc.stdout.splitlines()
    assert refusals == ["refused: tool 'search' is already registered", "refused: mode 'mechanical' is already "
                        "registered", "refused: provider 'openai' is already registered"]
    _check_report(json.loads(last))


def test_plugins_by_entry_point_keep_the_built_ins_and_a_taken_name_is_refused(tmp_path: Path):
    proc = _python(REPORT.format(script=_script(tmp_path)), _installed(tmp_path))
    assert proc.returncode == 0, proc.stderr
    _check_report(json.loads(proc.stdout))
    for kind, name in (("tool", "search"), ("mode", "mechanical"), ("provider", "openai")):
        assert f"{kind} plugin {name!r} (entry point showcause_demo_plugin:" in proc.stderr
    assert proc.stderr.count("is refused: a") == 3


def test_an_entry_point_mode_runs_its_own_tool_through_the_cli(tmp_path: Path):
    code = f'''
        from showcause import cli
        sys.argv = ["showcause", "review", "--case", {str(DEMO)!r}, "--mode", "peek_mode", "--format", "json"]
        cli.main()
    '''
    proc = _python(code, _installed(tmp_path))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["meta"]["mode"] == "peek_mode" and result["verdict"] == "KEEP"
    assert [(c["tool"], c["ok"]) for c in result["tool_calls"]] == [("peek", True)]
    listed = _python('from showcause import cli\nsys.argv = ["showcause", "modes"]\ncli.main()\n', tmp_path)
    assert "  peek_mode (no model; tools: peek)" in listed.stdout and "  mechanical (" in listed.stdout
    # The decision mode of group showcause.decision_modes is a decision mode: `--decision --mode doubter`.
    asked = _python(f'from showcause import cli\nsys.argv = ["showcause", "review", "--decision", '
                    f'{str(ROOT / "examples" / "decision.json")!r}, "--mode", "doubter", "--format", "json"]\n'
                    'cli.main()\n', tmp_path)
    assert json.loads(asked.stdout)["verdict"] == "INSUFFICIENT_EVIDENCE", asked.stderr
    assert listed.stdout.index("  doubter (no model") > listed.stdout.index("A decision (--decision FILE):")
