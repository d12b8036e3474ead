"""The MCP server through the SDK's own client, in memory: the tool list and its schemas, reviews of a working
tree (an uncommitted breaking edit, a correct one, an untracked failing test, nothing at all), the registry
tools, decision review, should_review, outcomes, the roots, hostile arguments, progress, the review resource,
cancellation mid-review and concurrent reviews."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from blind_samples import EXAMPLE, POSITION, POSITION_JSON, SENTINEL, SHOWCAUSE, VERDICT_JSON
from builders import git_repo
from showcause.mcpserver import Roots, ServerConfig, build_server
from showcause.service.catalog import tool_schemas

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

CALC = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
REGISTRY = [t["name"] for t in tool_schemas()]
ALL_TOOLS = ["review_change", *REGISTRY, "review_decision", "should_review", "record_outcome"]


def repo(root: Path, name: str = "r") -> Path:
    return git_repo(root / name, [{"calc.py": CALC, "test_calc.py": TEST, ".gitignore": "*.log\n"}])


def call(cfg: ServerConfig, name: str, args: dict[str, Any], **kw: Any) -> Any:
    async def go() -> Any:
        async with Client(build_server(cfg)) as client:
            return await client.call_tool(name, args, **kw)
    return anyio.run(go)


def error(result: Any) -> dict[str, str]:
    assert result.is_error is True
    return json.loads(result.content[0].text)["error"]


@pytest.fixture
def cfg(tmp_path: Path) -> ServerConfig:
    return ServerConfig(roots=Roots.of([tmp_path]))


def test_the_tools_and_their_schemas_are_the_registries(cfg: ServerConfig):
    async def go() -> Any:
        async with Client(build_server(cfg)) as client:
            return (await client.list_tools()).tools
    tools = {t.name: t for t in anyio.run(go)}
    assert list(tools) == ALL_TOOLS
    for spec in tool_schemas():
        schema = tools[spec["name"]].input_schema
        own = spec["input_schema"]["properties"]
        assert {k: v for k, v in schema["properties"].items() if k not in ("repo", "base", "head")} == own
        assert schema["required"] == ["repo", *spec["input_schema"].get("required", [])]
        assert schema["additionalProperties"] is False and tools[spec["name"]].description == spec["description"]
    review = tools["review_change"]
    assert set(review.input_schema["properties"]) == {"repo", "base", "head", "mode", "task", "plan"}
    assert review.output_schema is not None and "verdict" in review.output_schema["required"]
    assert set(tools["review_decision"].input_schema["properties"]) == {
        "objective", "constraints", "context", "environment", "evidence", "decision_type", "risk_level",
        "proposed_solution", "review_mode"}
    assert tools["record_outcome"].input_schema["required"] == [
        "review_id", "accepted_review", "later_rework_required", "review_was_useful"]
    assert all(tools[n].annotations.read_only_hint for n in ALL_TOOLS if n != "record_outcome")


def test_an_uncommitted_breaking_edit_is_blocked_with_its_evidence_and_progress(tmp_path: Path, cfg: ServerConfig):
    r = repo(tmp_path)
    (r / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    seen: list[str] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append(str(message))

    result = call(cfg, "review_change", {"repo": str(r)}, progress_callback=progress)
    assert result.is_error is False
    doc = result.structured_content
    assert doc["verdict"] == "MODIFY" and doc["meta"]["mode"] == "mechanical"
    [claim] = [c for c in doc["claims"] if c["gate"]["status"] == "validated"]
    assert [a["detail"] for a in claim["gate"]["artifacts"]] == ["test_calc.py::test_add: failed — assert -1 == 5"]
    text = result.content[0].text
    assert text.startswith("verdict: MODIFY") and "evidence " in text and "test_calc.py::test_add" in text
    assert any("run_test on head: started" in m for m in seen) and any("run_test on head: done" in m for m in seen)
    assert (r / "calc.py").read_text() == CALC.replace("a + b", "a - b")   # the agent's tree is untouched

    async def full() -> Any:   # the same server instance serves the stored result as its resource
        async with Client(server) as client:
            again = await client.call_tool("review_change", {"repo": str(r)})
            uri = again.structured_content["meta"]["review_id"]
            body = await client.read_resource(f"showcause://review/{uri}")
            return again.structured_content, json.loads(body.contents[0].text)
    server = build_server(cfg)
    shown, stored = anyio.run(full)
    assert stored == shown and stored["verdict"] == "MODIFY"
    # The second review of the same repository does not run the base side again.
    [run] = [c for c in shown["tool_calls"] if c["tool"] == "run_test"]
    assert "base ran the same 1 target(s) (from the base cache)" in run["output"]


def test_a_correct_edit_is_kept_and_a_clean_tree_is_nothing_to_review(tmp_path: Path, cfg: ServerConfig):
    r = repo(tmp_path)
    err = error(call(cfg, "review_change", {"repo": str(r)}))
    assert err["code"] == "NOTHING_TO_REVIEW" and "has no change against" in err["message"]
    (r / "calc.py").write_text(CALC + "\n\ndef mul(a, b):\n    return a * b\n")
    (r / "debug.log").write_text("ignored, never copied")
    doc = call(cfg, "review_change", {"repo": str(r), "task": "add mul"}).structured_content
    assert doc["verdict"] == "KEEP" and [c for c in doc["claims"] if c["verdict"] in ("MODIFY", "REPLACE")] == []


def test_an_untracked_new_test_that_fails_and_a_committed_branch_against_its_merge_base(tmp_path: Path,
                                                                                        cfg: ServerConfig):
    r = repo(tmp_path)
    (r / "test_more.py").write_text("from calc import add\n\n\ndef test_neg():\n    assert add(-1, -1) == -3\n")
    doc = call(cfg, "review_change", {"repo": str(r)}).structured_content
    assert doc["verdict"] == "MODIFY"
    assert any("test_more.py::test_neg" in a["detail"] for c in doc["claims"] for a in c["gate"]["artifacts"])
    (r / "test_more.py").unlink()
    git = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    subprocess.run([*git, "checkout", "-q", "-b", "feature"], cwd=r, check=True)
    (r / "calc.py").write_text(CALC.replace("a + b", "a * b"))
    subprocess.run([*git, "commit", "-qam", "break it"], cwd=r, check=True)   # committed: the tree is clean
    doc = call(cfg, "review_change", {"repo": str(r)}).structured_content
    assert doc["verdict"] == "MODIFY"
    assert call(cfg, "review_change", {"repo": str(r), "base": "HEAD"}).is_error is True   # nothing against HEAD


def test_registry_tools_give_the_cli_record(tmp_path: Path, cfg: ServerConfig):
    r = repo(tmp_path)
    (r / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    record = call(cfg, "read_file", {"repo": str(r), "path": "calc.py"}).structured_content
    proc = subprocess.run([SHOWCAUSE, "tools", "run", "read_file", "--repo", str(r), "--base", "HEAD", "--json",
                           "--args", '{"path": "calc.py"}'], capture_output=True, text=True, check=True)
    cli = json.loads(proc.stdout)
    assert {k: v for k, v in record.items() if k != "ms"} == {k: v for k, v in cli.items() if k != "ms"}
    assert "a - b" in record["output"]
    refused = call(cfg, "read_file", {"repo": str(r), "path": "../../etc/passwd"}).structured_content
    assert refused["ok"] is False and "refused" in refused["output"] and "root:x:" not in refused["output"]


@pytest.mark.parametrize(("tool", "args", "needle"), [
    ("search", {"pattern": "x", "flags": "-e"}, "Additional properties are not allowed ('flags' was unexpected)"),
    ("search", {"pattern": 3}, "pattern: 3 is not of type 'string'"),
    ("search", {}, "arguments: 'pattern' is a required property"),
    ("read_file", {"path": ["a"]}, "path: ['a'] is not of type 'string'"),
    ("review_change", {"mode": "rm -rf"}, "mode: 'rm -rf' is not valid"),
    ("review_change", {"base": 7}, "base: 7 is not valid"),
])
def test_wrong_arguments_are_refused_by_the_schema_before_any_work(tmp_path: Path, cfg: ServerConfig,
                                                                   tool: str, args: dict[str, Any], needle: str):
    r = repo(tmp_path)
    err = error(call(cfg, tool, {"repo": str(r), **args}))
    assert err["code"] == "INVALID_INPUT" and err["message"].startswith(f"invalid arguments for {tool}: ")
    assert needle in err["message"].replace('"', "'")


def test_nothing_outside_the_roots_is_reachable(tmp_path: Path):
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    repo(outside)
    (inside / "link").symlink_to(outside / "r")
    cfg = ServerConfig(roots=Roots.of([inside]))
    for given in (str(outside / "r"), str(inside / "link"), "../out/r", str(inside / ".." / "out" / "r"), "/etc",
                  "/", "a\0b", ""):
        for tool, extra in (("search", {"pattern": "add"}), ("review_change", {})):
            err = error(call(cfg, tool, {"repo": given, **extra}))
            assert err["code"] == "INVALID_INPUT", (given, err)
    # A root inside a repository does not open the repository above it.
    (outside / "r" / "sub").mkdir()
    nested = ServerConfig(roots=Roots.of([outside / "r" / "sub"]))
    assert "outside the allowed roots" in error(call(nested, "search", {"repo": ".", "pattern": "add"}))["message"]


def test_base_and_head_refs_that_look_like_flags_are_refused(tmp_path: Path, cfg: ServerConfig):
    r = repo(tmp_path)
    for ref in ("--output=/tmp/pwned", "-p", "HEAD..HEAD", "nope"):
        err = error(call(cfg, "search", {"repo": str(r), "base": ref, "head": "HEAD", "pattern": "add"}))
        assert err["code"] == "INVALID_INPUT" and not Path("/tmp/pwned").exists()


def test_should_review_and_its_bad_input(cfg: ServerConfig):
    result = call(cfg, "should_review", {"decision_type": "architecture", "risk_level": "critical"})
    assert result.structured_content == {"should_review": True, "reasons": ["architecture change", "critical risk"],
                                         "summary": "review recommended: architecture change; critical risk"}
    assert result.content[0].text.startswith("should_review: true: ")
    assert "risk_level" in error(call(cfg, "should_review", {"decision_type": "architecture",
                                                              "risk_level": "extreme"}))["message"]
    assert error(call(cfg, "should_review", {"decision_type": "other", "risk_level": "low", "x": 1}))["code"] == \
        "INVALID_INPUT"


def _script(tmp_path: Path, *turns: dict[str, Any]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": list(turns)}), encoding="utf-8")
    return f"scripted:{path}"


def test_review_decision_blind_first_and_the_outcome_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    log = tmp_path / "t.jsonl"
    monkeypatch.setenv("SHOWCAUSE_TELEMETRY", str(log))
    model = _script(tmp_path, {"content": json.dumps(POSITION_JSON)}, {"content": json.dumps(VERDICT_JSON)})
    cfg = ServerConfig(roots=Roots.of([tmp_path]), model=model)
    fields = {**json.loads(EXAMPLE.read_text(encoding="utf-8")), "review_mode": "blind_first"}
    fields["proposed_solution"] += f" {SENTINEL}"
    result = call(cfg, "review_decision", fields)
    doc = result.structured_content
    assert (doc["verdict"], doc["meta"]["mode"], doc["meta"]["phases"], doc["confidence"]) == \
        ("MODIFY", "blind_first", 2, 0.8)
    assert POSITION not in json.dumps(doc) and "preferred_solution" not in json.dumps(doc)
    assert result.content[0].text.startswith("verdict: MODIFY")
    review_id = doc["meta"]["review_id"]
    outcome = {"review_id": review_id, "accepted_review": True, "later_rework_required": False,
               "review_was_useful": True}
    recorded = call(cfg, "record_outcome", outcome).structured_content
    assert {k: v for k, v in recorded.items() if k != "timestamp"} == {
        "type": "outcome", "id": review_id, "accepted_review": True, "later_rework_required": False,
        "review_was_useful": True}
    assert [json.loads(x)["type"] for x in log.read_text().splitlines()] == [
        "review", "outcome"]
    assert "no review nope" in error(call(cfg, "record_outcome", {**outcome, "review_id": "nope"}))["message"]
    assert error(call(cfg, "record_outcome", {**outcome, "accepted_review": "yes"}))["code"] == "INVALID_INPUT"


def test_review_decision_refuses_a_leak_before_any_call_and_needs_a_model(tmp_path: Path):
    model = _script(tmp_path)   # no turns: any model call would fail as MALFORMED_RESPONSE, not a leak
    fields = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    leaky = {**fields, "context": fields["proposed_solution"]}
    doc = call(ServerConfig(roots=Roots.of([tmp_path]), model=model), "review_decision", leaky).structured_content
    assert doc["error"]["code"] == "BLINDNESS_LEAK" and (doc["meta"]["phases"], doc["meta"]["usage"]) == (0, {})
    err = error(call(ServerConfig(roots=Roots.of([tmp_path])), "review_decision", fields))
    assert err["code"] == "MODEL_REQUIRED"


def _marked(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


def test_a_cancelled_review_kills_its_tests_at_once_and_the_server_goes_on(tmp_path: Path, cfg: ServerConfig):
    marker = f"showcause-cancel-{os.getpid()}-{time.monotonic_ns()}"
    slow = ("import subprocess, sys\n\n\ndef test_slow():\n"
            f"    subprocess.run([sys.executable, '-c', 'import time; time.sleep(120)', '{marker}'])\n")
    r = git_repo(tmp_path / "r", [{"calc.py": CALC, "test_slow.py": slow}])
    (r / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    server = build_server(cfg)

    async def go() -> tuple[float, Any]:
        async with Client(server) as client:
            async with anyio.create_task_group() as tg:
                async def review() -> None:
                    await client.call_tool("review_change", {"repo": str(r)})
                tg.start_soon(review)
                for _ in range(600):
                    if _marked(marker):
                        break
                    await anyio.sleep(0.1)
                assert _marked(marker), "the slow test never started"
                tg.cancel_scope.cancel()
            gone = time.monotonic()
            while _marked(marker) and time.monotonic() - gone < 10:
                await anyio.sleep(0.05)
            waited = time.monotonic() - gone
            after = await client.call_tool("should_review", {"decision_type": "other", "risk_level": "low",
                                                            "trivial_kind": "docs"})
            return waited, after

    waited, after = anyio.run(go)
    assert _marked(marker) == [] and waited < 5
    assert after.structured_content["should_review"] is False


def test_two_concurrent_reviews_each_get_their_own_verdict(tmp_path: Path, cfg: ServerConfig):
    bad, good = repo(tmp_path, "bad"), repo(tmp_path, "good")
    (bad / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    (good / "calc.py").write_text(CALC + "# a comment\n")

    async def go() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with Client(build_server(cfg)) as client:
            async def one(name: str, path: Path) -> None:
                out[name] = (await client.call_tool("review_change", {"repo": str(path)})).structured_content
            async with anyio.create_task_group() as tg:
                tg.start_soon(one, "bad", bad)
                tg.start_soon(one, "good", good)
        return out

    out = anyio.run(go)
    assert (out["bad"]["verdict"], out["good"]["verdict"]) == ("MODIFY", "KEEP")
    assert out["bad"]["meta"]["review_id"] != out["good"]["meta"]["review_id"]


def test_a_hostile_argument_corpus_is_refused_or_confined_in_one_session(tmp_path: Path, cfg: ServerConfig):
    r = repo(tmp_path)
    pwned = tmp_path / "pwned"
    deep: Any = "x"
    for _ in range(200):
        deep = [deep]
    corpus: list[tuple[str, dict[str, Any], str]] = [   # (tool, arguments, what must come back)
        ("read_file", {"path": "/etc/passwd"}, "refused: absolute paths are not allowed"),
        ("read_file", {"path": "../../../etc/passwd"}, "refused: path escapes the repository root"),
        ("run_test", {"test": ["--collect-only", "-p", "evil"]}, "refused: test must be a test file or test id"),
        ("run_test", {"test": ["../../etc"]}, "refused: path escapes the repository root"),
        ("search", {"pattern": "a\0b"}, "refused: invalid arguments: pattern: Value error, must not contain NUL"),
        ("search", {"pattern": "x" * 200_000}, "characters cut]"),
        ("search", {"pattern": "x", "glob": deep}, "INVALID_INPUT"),
        ("review_change", {"head": f"--upload-pack=touch {pwned}"}, "invalid git ref"),
        ("list_files", {"base": f"--output={pwned}", "head": "HEAD"}, "invalid git ref"),
        ("record_outcome", {"review_id": "../../etc/passwd", "accepted_review": True,
                            "later_rework_required": False, "review_was_useful": True}, "must be the id of a review"),
    ]

    async def go() -> list[Any]:
        async with Client(build_server(cfg)) as client:
            out = []
            for tool, args, _ in corpus:
                full = args if tool == "record_outcome" else {"repo": str(r), **args}
                out.append(await client.call_tool(tool, full))
            return out

    for (tool, _, expected), result in zip(corpus, anyio.run(go), strict=True):
        text = result.content[0].text
        assert expected in text, (tool, text[:300])
        assert len(text) < 60_000 and "root:x:" not in text
    assert not pwned.exists()


def test_the_server_answers_other_calls_while_it_reviews_a_hostile_repository(tmp_path: Path):
    """A repository whose pyright include is a backtracking glob and whose change adds a file named with 200
    `a`s: host-side matching is linear (core/globmatch.py), so the review ends and another call (the tool list
    and should_review; `ping` is gone from the 2026 protocol) is answered within a second all along; a regex
    holding the GIL would stall every client."""
    glob = "**" + "a**" * 12 + "b.py"
    r = git_repo(tmp_path / "hostile", [{"calc.py": CALC, "test_calc.py": TEST,
                                        "pyrightconfig.json": json.dumps({"include": [glob, "calc.py"]})}])
    (r / ("a" * 200 + ".py")).write_text("x = 1\n")
    (r / ("a" * 200 + "b.py")).write_text("y = 2\n")
    cfg = ServerConfig(roots=Roots.of([tmp_path]))

    async def go() -> tuple[list[float], Any]:
        waits: list[float] = []
        done: list[Any] = []
        async with Client(build_server(cfg)) as client, anyio.create_task_group() as tg:
            async def review() -> None:
                done.append(await client.call_tool("review_change", {"repo": str(r)}))
            tg.start_soon(review)
            while not done:
                started = time.monotonic()
                await client.list_tools()
                await client.call_tool("should_review", {"decision_type": "other", "risk_level": "low",
                                                         "trivial_kind": "docs"})
                waits.append(time.monotonic() - started)
                await anyio.sleep(0.05)
        return waits, done[0]

    waits, result = anyio.run(go)
    assert result.is_error is False, result
    assert result.structured_content["verdict"] in ("KEEP", "WARNING"), result.structured_content
    assert waits and max(waits) < 1.0, waits
