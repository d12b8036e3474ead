"""The hostile-repository corpus (`sandbox/attacks/NN-slug/`): every attack must stay contained.

Each attack folder holds `attack.json` (steps and expectations) and `repo/` (the hostile repository).
The format is documented in `sandbox/attacks/README.md`; the threat model in `sandbox/THREATS.md`.

Bait planted for the whole session (so that a leak is unambiguous):
- a random canary in OPENAI_API_KEY, ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, SHOWCAUSE_CANARY;
- the same canary in `~/.showcause-canary-*` (the real user home) and in `/tmp/showcause-canary-*.txt`;
- per attack, a TCP server on 127.0.0.1 that answers every connection with the canary (and counts them).

Invariants checked after every attack, whatever its own expectations say: the canary never appears in
any output; no process whose command line holds the attack's marker survives; no file named after the
marker appeared in /tmp, the home, the venv or the checkout; the bait files are unchanged; nothing
connected to the bait server; the user's tree (the directory given to --repo / --case) is unchanged.

Every attack runs at every isolation level that hides the host and works here (`bwrap`, `unshare`; the
test ids say which). `SHOWCAUSE_ATTACK_ISOLATION=none` runs them at `none` instead: the process attacks are
then expected to FAIL — that is how this harness shows its checks can fail.

The attacks are independent (each has its own copy, marker and canary server), so the selected ones run
`SHOWCAUSE_ATTACK_JOBS` at a time (default 4: most of an attack is spent waiting on a sandbox) as soon as the
session starts; each parametrized test then reports its own attack.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import subprocess
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from attack_harness.bait import Bait, CanaryServer, UnixCanaryServer
from attack_harness.checks import check_after, check_survivors, requirement_missing
from attack_harness.common import ATTACKS_DIR, CLI, FORCED_ISOLATION, JOBS, LEVELS_HERE, ROOT, SECRET_VARS, STEP_KEYS
from attack_harness.setup import attack_dirs, materialize, tree_digest
from attack_harness.steps import StepRunner, check_step
from showcause.policy import SAFE_LEVELS

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py


@pytest.fixture(scope="module")
def bait() -> Any:
    """Module-scoped: the fake secrets leave the environment before any other test module runs."""
    canary = "SCCANARY" + secrets.token_hex(12)        # one identifier: echoed whole by compilers and checkers
    content = f'secret_token = "{canary}";\n'           # valid Python and JavaScript
    fd, name = tempfile.mkstemp(prefix="showcause-canary-", suffix=".txt", dir="/tmp")
    os.close(fd)
    canary_file = Path(name)
    canary_file.write_text(content, encoding="utf-8")
    # Unique per session, so that two runs of this suite on one machine never share (or delete) one file.
    home_canary = Path.home() / f".showcause-canary-{secrets.token_hex(4)}"
    home_canary.write_text(content, encoding="utf-8")
    cache = Path(tempfile.mkdtemp(prefix="showcause-attack-cache-"))
    mp = pytest.MonkeyPatch()
    for var in SECRET_VARS:
        mp.setenv(var, canary)
    # Base results must not come from (or go to) the user's cache: every attack runs for real.
    mp.setenv("SHOWCAUSE_CACHE_DIR", str(cache))
    try:
        yield Bait(canary, content, canary_file, home_canary, cache)
    finally:
        mp.undo()
        shutil.rmtree(cache, ignore_errors=True)
        canary_file.unlink(missing_ok=True)
        home_canary.unlink(missing_ok=True)


# ----------------------------------------------------------------------------------------------------------------
# Attack loading and materialization
# ----------------------------------------------------------------------------------------------------------------


ATTACKS = attack_dirs()


def test_corpus_is_complete() -> None:
    assert len(ATTACKS) >= 28, f"only {len(ATTACKS)} attacks in {ATTACKS_DIR}"
    names = [p.name.split("-", 1)[0] for p in ATTACKS]
    assert len(names) == len(set(names)), "two attacks share a number"
    for folder in ATTACKS:
        spec = json.loads((folder / "attack.json").read_text(encoding="utf-8"))
        assert spec.get("title") and spec.get("threat") and spec.get("steps"), f"{folder.name}: incomplete"
        for step in spec["steps"]:
            assert set(step) <= STEP_KEYS, f"{folder.name}: unknown step keys {sorted(set(step) - STEP_KEYS)}"
            assert step.get("expect"), f"{folder.name}: a step without expectations"
    readme = (ATTACKS_DIR / "README.md").read_text(encoding="utf-8")
    threats = (ROOT / "sandbox" / "THREATS.md").read_text(encoding="utf-8")
    for folder in ATTACKS:
        assert folder.name in readme, f"{folder.name} is not listed in sandbox/attacks/README.md"
        assert folder.name in threats, f"{folder.name} is not in the table of sandbox/THREATS.md"


def _run_attack(folder: Path, level: str, bait: Bait, tmp: Path) -> list[str]:
    """Materialize one attack at one isolation level, run its steps, and return every violated expectation."""
    server = CanaryServer(bait.canary)
    # A socket path must fit in 108 bytes: not under pytest's (possibly deep) temp dir.
    sock_dir = Path(tempfile.mkdtemp(prefix="sc-sock-", dir="/tmp"))
    os.chmod(sock_dir, 0o755)
    unix = UnixCanaryServer(bait.canary, str(sock_dir / "canary.sock"))
    try:
        attack = materialize(folder, bait, tmp, server, unix, level)
        assert attack.user_tree is not None
        digest, modes = tree_digest(attack.user_tree), bait.modes()
        runner = StepRunner(attack)
        failures: list[str] = []
        try:
            for n, step in enumerate(attack.spec["steps"], 1):
                result = runner.run(step)
                failures += check_step(n, step, result, bait)
                failures += check_survivors(attack, f"step {n}")
        finally:
            runner.close()
            failures += check_after(attack, bait, digest, modes)
        return failures
    finally:
        server.close()
        unix.close()
        shutil.rmtree(sock_dir, ignore_errors=True)


def _skip_reason(spec: dict[str, Any], level: str) -> str | None:
    named = spec.get("policy", {}).get("process", {}).get("isolation")
    if named and not FORCED_ISOLATION and named != level:
        return f"the attack is about the {named} level"
    for req in spec.get("requires", []):
        reason = requirement_missing(req)
        if reason:
            return reason
    return None


def _load(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "attack.json").read_text(encoding="utf-8"))


def _params() -> list[Any]:
    """(level, attack) pairs: every attack at every level that works here; one that names a level runs there."""
    out = []
    for folder in ATTACKS:
        named = _load(folder).get("policy", {}).get("process", {}).get("isolation")
        for level in LEVELS_HERE:
            if FORCED_ISOLATION or not named or named == level:
                out.append(pytest.param(level, folder, id=f"{level}/{folder.name}"))
        if named and named not in LEVELS_HERE and not FORCED_ISOLATION:
            out.append(pytest.param(named, folder, id=f"{named}/{folder.name}"))
    return out


@pytest.fixture(scope="module")
def corpus(bait: Bait, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Any:
    """Start every selected attack at once (JOBS at a time); each test waits for its own result."""
    selected = [(item.callspec.params["level"], item.callspec.params["folder"]) for item in request.session.items
                if getattr(item, "originalname", "") == "test_attack" and hasattr(item, "callspec")]
    # Load the tool registry and the lazily imported modules once, here, not concurrently in the workers.
    from showcause.tools.registry import all_tools
    all_tools()
    with contextlib.suppress(ImportError):
        import showcause.symbols  # noqa: F401
    pool = ThreadPoolExecutor(max_workers=JOBS, thread_name_prefix="attack")
    futures: dict[tuple[str, Path], Future[list[str]]] = {}
    for level, folder in selected:
        if level in LEVELS_HERE and _skip_reason(_load(folder), level) is None:
            tmp = tmp_path_factory.mktemp(f"{level}-{folder.name}")
            futures[(level, folder)] = pool.submit(_run_attack, folder, level, bait, tmp)
    try:
        yield futures
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def test_every_host_runs_the_corpus_or_refuses() -> None:
    """Where no level that hides the host works, the corpus cannot run: then repository code must be refused."""
    if LEVELS_HERE:
        assert all(lv in (*SAFE_LEVELS, "none") for lv in LEVELS_HERE)
        return
    proc = subprocess.run([str(CLI), "review", "--case", str(ROOT / "repo_cases" / "py-invoice-vat-grouping"),
                           "--format", "json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3 and json.loads(proc.stdout)["error"]["code"] == "SANDBOX_UNAVAILABLE", proc.stderr


@pytest.mark.timeout(900)
@pytest.mark.parametrize(("level", "folder"), _params())
def test_attack(level: str, folder: Path, corpus: dict[tuple[str, Path], Future[list[str]]],
                request: pytest.FixtureRequest) -> None:
    spec = _load(folder)
    if level not in LEVELS_HERE:
        # The attack is about a level that does not work on this host: it must be refused there, not run.
        case = ROOT / "repo_cases" / "py-invoice-vat-grouping"
        proc = subprocess.run([str(CLI), "tools", "run", "run_test", "--case", str(case), "--isolation", level,
                               "--args", '{"test": "tests/test_invoice.py"}'], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 3 and "refused" in proc.stdout and "repository code is not run" in proc.stdout
        return
    reason = _skip_reason(spec, level)
    if reason:
        pytest.skip(reason)
    known = spec.get("known_escape") or spec.get("known_bug")
    if known and not FORCED_ISOLATION:
        label = "known escape" if spec.get("known_escape") else "known bug"
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"{label}: {known}"))
    failures = corpus[(level, folder)].result()
    assert not failures, f"{folder.name} at {level}: {spec['title']}\n" + "\n".join(failures)
