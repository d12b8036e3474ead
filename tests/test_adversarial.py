"""The adversarial corpus (`adversarial/NN-slug/`): attacks on the gate, and legitimate claims, end to end.

Every entry is a small repository change plus, usually, a scripted model conversation. It runs through
the real command line — `showcause review --case DIR [--model scripted:FILE] --format json` — and must give
exactly the verdict, the per-claim gate status and the exit code its `entry.json` states. Entries with a
`transport` run the same conversation over a loopback OpenAI or Anthropic server (tests/support/llm_servers.py)
and also check where injected text reached the model: only in tool results or in the task, plan, diff and
probe sections of the user message, never in the system prompt.

The format is documented in `adversarial/README.md`. To run one entry by hand:
`.venv/bin/python tests/test_adversarial.py NN-slug OUT_DIR` writes the case and the script and prints the
command. `SHOWCAUSE_ADVERSARIAL_JOBS` (default 2) sets how many entries run at once.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from builders import make_case
from llm_servers import AnthropicServer, OpenAIServer, Recorded, turn

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "adversarial"
PROJECTS = CORPUS / "_projects"
CHANGES = CORPUS / "_changes"   # head files many entries share (their change), under their own head/
PROMPTS = ROOT / "src" / "showcause" / "judges" / "prompts"
CLI = Path(sys.executable).with_name("showcause")
JOBS = max(1, int(os.environ.get("SHOWCAUSE_ADVERSARIAL_JOBS", "2")))
CATEGORIES = ("forged_artifact", "path_forgery", "injection", "legitimate")

_ENTRY_KEYS = {"title", "category", "why", "project", "change", "files", "symlinks", "checks", "input", "policy",
               "turns", "answer", "transport", "injected", "expect", "finding"}
_EXPECT_KEYS = {"verdict", "model_verdict", "exit_code", "claims", "calls", "call_checks"}
_CLAIM_KEYS = {"status", "verdict", "source", "artifacts", "reasons_contain"}
_CALL_KEYS = {"ok", "artifacts", "output_contains", "output_not_contains"}
# Sections of the first user message that carry repository or proposer text (judges/prompting.py).
DATA_SECTIONS = ("## Task\n", "## The author's plan\n", "## The change (unified diff)\n",
                  "## Probes already run (cite their ids)\n")


@dataclass(frozen=True)
class Entry:
    id: str
    path: Path
    doc: dict[str, Any]

    @property
    def why(self) -> str:
        return str(self.doc["why"])


def _check_keys(where: str, got: dict[str, Any], allowed: set[str]) -> None:
    unknown = set(got) - allowed
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")


def load_entry(path: Path) -> Entry:
    doc = json.loads((path / "entry.json").read_text(encoding="utf-8"))
    _check_keys(path.name, doc, _ENTRY_KEYS)
    expect = doc["expect"]
    _check_keys(f"{path.name}: expect", expect, _EXPECT_KEYS)
    for claim in expect.get("claims", []):
        _check_keys(f"{path.name}: expect.claims", claim, _CLAIM_KEYS)
    for call in expect.get("call_checks", {}).values():
        _check_keys(f"{path.name}: expect.call_checks", call, _CALL_KEYS)
    if doc["category"] not in CATEGORIES:
        raise ValueError(f"{path.name}: category must be one of {CATEGORIES}")
    allowed = {"tool", *(f"user: {h[3:-1]}" for h in DATA_SECTIONS)}
    for marker, places in doc.get("injected", {}).items():
        if not places or not set(places) <= allowed:
            raise ValueError(f"{path.name}: injected {marker!r} may only be expected in {sorted(allowed)}")
    return Entry(path.name, path, doc)


def load_entries() -> list[Entry]:
    return [load_entry(p) for p in sorted(CORPUS.iterdir()) if (p / "entry.json").is_file()]


ENTRIES = load_entries()


# ----------------------------------------------------------------------------------------------------------------
# Materializing an entry: a repo case, a script, a policy file
# ----------------------------------------------------------------------------------------------------------------

def _tree(root: Path) -> dict[str, str | bytes]:
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def materialize(entry: Entry, dest: Path) -> Path:
    """Write the entry as a repo case under `dest/case` (base/, patch.diff, case.json) and return it."""
    doc = entry.doc
    files = doc.get("files", {})
    base: dict[str, str | bytes] = {**(_tree(PROJECTS / doc["project"]) if "project" in doc else {}),
                                    **_tree(entry.path / "base"), **files.get("base", {})}
    head: dict[str, str | bytes | None] = {**(_tree(CHANGES / doc["change"]) if "change" in doc else {}),
                                           **_tree(entry.path / "head"), **files.get("head", {})}
    checks = {"tests": [], "typecheck": "none", **doc.get("checks", {})}
    case = make_case(dest / "case", base, head, checks=checks)
    for link, target in doc.get("symlinks", {}).items():   # in base/, so head has them too (the patch keeps them)
        (case / "base" / link).symlink_to(target)
    meta = json.loads((case / "case.json").read_text(encoding="utf-8"))
    meta.pop("truth")     # the expectations live in entry.json; a review never reads a case's truth anyway
    meta.update(id=entry.id, title=doc["title"], language="javascript" if "package.json" in base else "python")
    meta["input"].update(doc.get("input", {}))
    (case / "case.json").write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    return case


def _turns(doc: dict[str, Any]) -> list[dict[str, Any]]:
    turns = list(doc.get("turns", []))
    if "answer" in doc:
        turns.append({"content": json.dumps(doc["answer"], ensure_ascii=False)})
    return turns


def command(entry: Entry, dest: Path, case: Path, base_url: str | None = None) -> list[str]:
    argv = [str(CLI), "review", "--case", str(case), "--format", "json"]
    doc = entry.doc
    transport = doc.get("transport", "scripted")
    if "answer" in doc or "turns" in doc:
        if transport == "scripted":
            script = dest / "script.json"
            script.write_text(json.dumps({"turns": _turns(doc)}, ensure_ascii=False), encoding="utf-8")
            argv += ["--model", f"scripted:{script}"]
        else:
            model = "openai:test-model" if transport == "openai" else "anthropic:claude-test"
            argv += ["--model", model, "--base-url", str(base_url)]
    if "policy" in doc:
        lines = [line for section, keys in doc["policy"].items()
                 for line in (f"[{section}]", *(f"{k} = {json.dumps(v)}" for k, v in keys.items()))]
        (dest / "policy.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        argv += ["--config", str(dest / "policy.toml")]
    return argv


# ----------------------------------------------------------------------------------------------------------------
# Running and checking
# ----------------------------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    exit_code: int
    result: dict[str, Any] | None
    stderr: str
    requests: list[Recorded] = field(default_factory=list)


def run_entry(entry: Entry) -> Outcome:
    dest = Path(tempfile.mkdtemp(prefix=f"showcause-adv-{entry.id[:20]}-"))
    try:
        case = materialize(entry, dest)
        transport = entry.doc.get("transport", "scripted")
        server: OpenAIServer | AnthropicServer | None = None
        if transport != "scripted":
            server = (OpenAIServer if transport == "openai" else AnthropicServer)().start()
            for t in _turns(entry.doc):
                calls = [(c["name"], c.get("arguments", {})) for c in t.get("tool_calls", [])]
                server.add_turns(turn(content=t.get("content", ""), tool_calls=calls))
        env = {**os.environ, "OPENAI_API_KEY": "sk-adversarial", "ANTHROPIC_API_KEY": "sk-ant-adversarial"}
        try:
            proc = subprocess.run(command(entry, dest, case, server.url if server else None), capture_output=True,
                                  text=True, env=env, timeout=600)
        finally:
            if server is not None:
                server.stop()
        try:
            result = json.loads(proc.stdout)
        except json.JSONDecodeError:
            result = None
        return Outcome(proc.returncode, result, proc.stderr[-2000:], server.posts() if server else [])
    finally:
        shutil.rmtree(dest, ignore_errors=True)


def _as_list(value: str | list[str] | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def problems(entry: Entry, out: Outcome) -> list[str]:
    """Every way the outcome differs from what the entry expects (empty: the entry holds)."""
    expect = entry.doc["expect"]
    res = out.result
    if res is None:
        return [f"no JSON result (exit {out.exit_code}): {out.stderr.strip()[-300:]}"]
    found: list[str] = []
    for key in ("verdict", "model_verdict"):
        if key in expect and res.get(key) != expect[key]:
            found.append(f"{key} {res.get(key)} != {expect[key]}")
    if out.exit_code != expect["exit_code"]:
        found.append(f"exit code {out.exit_code} != {expect['exit_code']}")
    claims = res.get("claims", [])
    if "claims" in expect:
        if len(claims) != len(expect["claims"]):
            found.append(f"{len(claims)} claims != {len(expect['claims'])}")
        for i, (want, got) in enumerate(zip(expect["claims"], claims, strict=False), start=1):
            gate = got.get("gate", {})
            if gate.get("status") != want["status"] or got.get("verdict") != want["verdict"]:
                found.append(f"claim {i}: {got.get('verdict')}/{gate.get('status')} != {want['verdict']}/"
                             f"{want['status']} (reasons: {'; '.join(gate.get('reasons', []))})")
            if "source" in want and got.get("source") != want["source"]:
                found.append(f"claim {i}: source {got.get('source')} != {want['source']}")
            if "artifacts" in want:
                arts = [[a["type"], a["file"], a["line"]] for a in gate.get("artifacts", [])]
                if arts != want["artifacts"]:
                    found.append(f"claim {i}: artifacts {arts} != {want['artifacts']}")
            for text in _as_list(want.get("reasons_contain")):
                if not any(text in r for r in gate.get("reasons", [])):
                    found.append(f"claim {i}: no reason contains {text!r} (reasons: {gate.get('reasons', [])})")
    calls = res.get("tool_calls", [])
    if "calls" in expect and [c["tool"] for c in calls] != expect["calls"]:
        found.append(f"tool calls {[c['tool'] for c in calls]} != {expect['calls']}")
    by_id = {c["id"]: c for c in calls}
    for call_id, want in expect.get("call_checks", {}).items():
        call = by_id.get(call_id)
        if call is None:
            found.append(f"{call_id} was not called")
            continue
        if "ok" in want and call["ok"] != want["ok"]:
            found.append(f"{call_id} ok {call['ok']} != {want['ok']}: {call['output'][:200]!r}")
        if "artifacts" in want and len(call["artifacts"]) != want["artifacts"]:
            found.append(f"{call_id} has {len(call['artifacts'])} artifacts != {want['artifacts']}")
        for text in _as_list(want.get("output_contains")):
            if text not in call["output"]:
                found.append(f"{call_id} output lacks {text!r}")
        for text in _as_list(want.get("output_not_contains")):
            if text in call["output"]:
                found.append(f"{call_id} output contains {text!r}")
    if "injected" in entry.doc:
        found += placement_problems(entry, out.requests)
    return found


def _user_places(text: str, marker: str) -> list[str]:
    """The sections of a user message holding `marker`: `user: <heading>` for data sections, else `user text`."""
    places = []
    for section in re.split(r"(?m)^(?=## )", text):
        if marker in section:
            heading = next((h for h in DATA_SECTIONS if section.startswith(h)), None)
            places.append(f"user: {heading[3:-1]}" if heading else "user text")
    return places


def _placements(transport: str, body: dict[str, Any], marker: str) -> list[str]:
    """Everywhere `marker` occurs in one request body, named as in `injected`."""
    where: list[str] = []
    if marker in json.dumps(body.get("tools", []), ensure_ascii=False):
        where.append("tool definitions")
    if transport == "anthropic" and marker in json.dumps(body.get("system", ""), ensure_ascii=False):
        where.append("system")
    for message in body.get("messages", []):
        role, content = message.get("role"), message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        for block in blocks:
            if marker not in json.dumps(block, ensure_ascii=False):
                continue
            if role == "tool" or block.get("type") == "tool_result":
                where.append("tool")
            elif role == "user" and block.get("type") == "text":
                where += _user_places(str(block.get("text") or ""), marker)
            else:
                where.append(f"{role} {block.get('type')}")
    return where


def placement_problems(entry: Entry, requests: list[Recorded]) -> list[str]:
    """The system prompt is exactly the prompt file; each marker reached the model exactly where expected."""
    transport = entry.doc["transport"]
    system_prompt = (PROMPTS / "evidence_gate.txt").read_text(encoding="utf-8")
    if not requests:
        return ["the loopback server received no request"]
    found: list[str] = []
    for n, req in enumerate(requests, start=1):
        system = req.body.get("system") if transport == "anthropic" else req.body["messages"][0].get("content")
        if system != system_prompt:
            found.append(f"request {n}: the system prompt is not exactly prompts/evidence_gate.txt")
    for marker, expected in entry.doc["injected"].items():
        got = sorted({p for req in requests for p in _placements(transport, req.body, marker)})
        if got != sorted(expected):
            found.append(f"{marker!r} reached the model in {got}, expected {sorted(expected)}")
    return found


# ----------------------------------------------------------------------------------------------------------------
# Tests
# ----------------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def outcomes() -> Any:
    """All entries start at once, JOBS at a time; each test then waits for its own."""
    pool = ThreadPoolExecutor(max_workers=JOBS)
    futures: dict[str, Future[Outcome]] = {e.id: pool.submit(run_entry, e) for e in ENTRIES}
    try:
        yield futures
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.id for e in ENTRIES])
def test_entry(entry: Entry, outcomes: dict[str, Future[Outcome]]) -> None:
    found = problems(entry, outcomes[entry.id].result())
    if found:
        pytest.fail(f"{entry.id}: {entry.why} — but: {' | '.join(found)}", pytrace=False)


def test_corpus_covers_every_category() -> None:
    counts = {c: sum(1 for e in ENTRIES if e.doc["category"] == c) for c in CATEGORIES}
    assert len(ENTRIES) >= 30 and min(counts.values()) >= 5, counts
    blocking = [e.id for e in ENTRIES if e.doc["expect"]["exit_code"] == 1]
    passing = [e.id for e in ENTRIES if e.doc["expect"]["exit_code"] == 0]
    assert len(blocking) >= 5 and len(passing) >= 15, (blocking, passing)
    assert {e.doc["transport"] for e in ENTRIES if "transport" in e.doc} == {"openai", "anthropic"}


def _says_text_is_data(path: Path) -> bool:
    text = " ".join(path.read_text(encoding="utf-8").split())
    return "data, not instructions" in text and "ignore" in text


@pytest.mark.parametrize("prompt", sorted(PROMPTS.glob("*.txt")), ids=lambda p: p.name)
def test_every_prompt_says_repository_text_is_data(prompt: Path) -> None:
    """A system prompt ("You are …") says so itself; a step prompt is covered by its mode's system prompt
    (`<mode>.txt` or `<mode>_system.txt`, e.g. blind_first.txt for blind_first_reveal.txt)."""
    if prompt.read_text(encoding="utf-8").startswith("You are"):
        assert _says_text_is_data(prompt), f"{prompt.name} must say repository text is data, not instructions"
        return
    parts = prompt.stem.split("_")
    modes = ["_".join(parts[:n]) for n in range(len(parts) - 1, 0, -1)]
    systems = [PROMPTS / f"{m}{suffix}.txt" for m in modes for suffix in ("", "_system")]
    covering = [p for p in systems if p.is_file()][:1]
    assert _says_text_is_data(prompt) or (covering and _says_text_is_data(covering[0])), \
        f"{prompt.name} (or its mode's system prompt) must say repository text is data, not instructions"


def test_the_checks_can_fail() -> None:
    """The checker itself: a wrong verdict, status, source, exit code or call output is reported, one line each."""
    entry = Entry("x", CORPUS, {"why": "w", "category": "legitimate", "expect": {
        "verdict": "MODIFY", "exit_code": 1,
        "claims": [{"status": "validated", "verdict": "MODIFY", "source": "probe"}], "calls": ["run_test"],
        "call_checks": {"T1": {"ok": True, "artifacts": 1, "output_not_contains": "FORGED"}}}})
    got = Outcome(0, {"verdict": "WARNING", "model_verdict": "MODIFY", "claims": [
        {"verdict": "WARNING", "source": "model", "gate": {"status": "downgraded", "reasons": ["r"], "artifacts": []}}],
        "tool_calls": [{"id": "T1", "tool": "run_test", "ok": True, "artifacts": [], "output": "FORGED"}]}, "")
    assert problems(entry, got) == [
        "verdict WARNING != MODIFY", "exit code 0 != 1", "claim 1: WARNING/downgraded != MODIFY/validated (reasons: r)",
        "claim 1: source model != probe",
        "T1 has 0 artifacts != 1", "T1 output contains 'FORGED'"]
    bad = Entry("x", CORPUS, {"why": "w", "category": "injection", "transport": "openai",
                              "injected": {"ZQX": ["user: Task"], "QQZ": ["tool"]}, "expect": {"exit_code": 0}})
    system = (PROMPTS / "evidence_gate.txt").read_text(encoding="utf-8")
    leaked = Recorded("POST", "/v1/chat/completions", {}, {"messages": [
        {"role": "system", "content": system + " ZQX"},
        {"role": "user", "content": "Read this first: ZQX\n\n## Task\nZQX"}]}, b"", 0.0)
    assert placement_problems(bad, [leaked]) == [
        "request 1: the system prompt is not exactly prompts/evidence_gate.txt",
        "'ZQX' reached the model in ['system text', 'user text', 'user: Task'], expected ['user: Task']",
        "'QQZ' reached the model in [], expected ['tool']"]


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: test_adversarial.py ENTRY_ID OUT_DIR")
    chosen = load_entry(CORPUS / sys.argv[1])
    out_dir = Path(sys.argv[2]).resolve()
    out_dir.mkdir(parents=True, exist_ok=False)
    print(" ".join(command(chosen, out_dir, materialize(chosen, out_dir), "http://127.0.0.1:PORT")))
