"""Running an attack's steps (API or CLI) and checking each step's expectations."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from attack_harness.bait import Bait
from attack_harness.common import CLI, EXPECT_KEYS, FORCED_ISOLATION
from attack_harness.setup import Attack
from showcause.evidence.ledger import Ledger
from showcause.service.inputs import open_snapshot, tool_context
from showcause.snapshot import Snapshot, diff_trees

# ----------------------------------------------------------------------------------------------------------------
# Bait: canary secrets, canary files and canary servers
# ----------------------------------------------------------------------------------------------------------------


@dataclass
class StepResult:
    record: dict[str, Any] | None      # the ledger record (None when the CLI exited non-zero)
    text: str                          # what the caller is shown: the record's output (+ the CLI's stderr)
    raw: str                           # every byte the caller got, echoed arguments included (canary check)
    exit_code: int                     # CLI exit status (0 for API calls)
    seconds: float


class StepRunner:
    """Runs an attack's steps; API steps share one snapshot and one ledger (so T1, T2, … accumulate)."""

    def __init__(self, attack: Attack) -> None:
        self.attack = attack
        self.stack = contextlib.ExitStack()
        self.ledger: Ledger | None = None

    def close(self) -> None:
        self.stack.close()

    def _input_argv(self) -> list[str]:
        a = self.attack
        assert a.user_tree is not None
        if a.kind == "case":
            argv = ["--case", str(a.user_tree)]
        elif a.kind == "repo":
            argv = ["--repo", str(a.user_tree)]
        elif a.kind == "git":
            inp = a.spec["input"]
            argv = ["--repo", str(a.user_tree), "--base", inp["base"], "--head", inp["head"]]
        else:
            raise AssertionError(f"{a.name}: input kind {a.kind!r} has no CLI form; use via=api")
        return argv + (["--config", str(a.config)] if a.config else [])

    def _snapshot(self) -> Snapshot:
        a = self.attack
        assert a.user_tree is not None
        if a.kind == "case":
            return self.stack.enter_context(open_snapshot(case=a.user_tree))
        if a.kind == "repo":
            return self.stack.enter_context(open_snapshot(repo=a.user_tree))
        if a.kind == "git":
            inp = a.spec["input"]
            return self.stack.enter_context(open_snapshot(repo=a.user_tree, base=inp["base"], head=inp["head"]))
        # "raw": both trees are plain copies with nothing filtered (not even .git), as a future snapshot source
        # might produce: the tools' own defences are then all that stands between the model and the files.
        parent = Path(tempfile.mkdtemp(prefix="showcause-rawsnap-"))
        self.stack.callback(shutil.rmtree, parent, True)
        for side in ("base", "head"):
            shutil.copytree(a.user_tree, parent / side, symlinks=True)
        return Snapshot(base=parent / "base", head=parent / "head", diff=diff_trees(parent), label="raw")

    def run(self, step: dict[str, Any]) -> StepResult:
        if step.get("via", "api") == "cli":
            return self._cli(step)
        return self._api(step)

    def _cli_env(self, step: dict[str, Any]) -> tuple[Path | None, dict[str, str] | None]:
        """The working directory and environment of a CLI step: a user running showcause from inside the
        hostile checkout (`cwd: user_tree`), with PATH entries of their own ahead of the real ones."""
        cwd = self.attack.user_tree if step.get("cwd") == "user_tree" else None
        assert step.get("cwd") in (None, "user_tree"), f"cwd must be 'user_tree', not {step.get('cwd')!r}"
        if "path_prepend" not in step:
            return cwd, None
        return cwd, {**os.environ, "PATH": os.pathsep.join([*step["path_prepend"], os.environ.get("PATH", "")])}

    def _cli(self, step: dict[str, Any]) -> StepResult:
        if step["tool"] == "review":      # a whole review; `args`: extra command-line arguments
            argv = [str(CLI), "review", *self._input_argv(), "--format", "json", *step.get("args", [])]
        else:
            raw_args = step["raw_args"] if "raw_args" in step else json.dumps(step.get("args", {}))
            argv = [str(CLI), "tools", "run", step["tool"], "--json", *self._input_argv(), "--args", raw_args]
        limit = float(step.get("expect", {}).get("max_seconds", 60)) * 2 + 30
        cwd, env = self._cli_env(step)
        started = time.monotonic()
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=limit, stdin=subprocess.DEVNULL,
                                  cwd=cwd, env=env)
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(f"the CLI did not return within {limit:g} s") from exc
        seconds = time.monotonic() - started
        record = None
        if proc.returncode == 0 or step["tool"] == "review":   # a review exits 1 on MODIFY, 3 on INCONCLUSIVE
            try:
                record = json.loads(proc.stdout)
            except json.JSONDecodeError:
                record = None
        if step["tool"] == "review":      # what a review's caller is shown: its whole report
            text = proc.stdout + "\n" + proc.stderr
        else:
            text = record["output"] + "\n" + proc.stderr if record else proc.stderr + proc.stdout
        return StepResult(record, text, proc.stdout + proc.stderr, proc.returncode, seconds)

    def _api(self, step: dict[str, Any]) -> StepResult:
        if self.ledger is None:
            snap = self._snapshot()
            self.ledger = Ledger(tool_context(snap, self.attack.config))
        started = time.monotonic()
        call = self.ledger.call(step["tool"], step.get("args", {}))
        seconds = time.monotonic() - started
        record = call.to_json()
        return StepResult(record, call.output, json.dumps(record, ensure_ascii=False), 0, seconds)



def listify(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def check_step(n: int, step: dict[str, Any], res: StepResult, bait: Bait) -> list[str]:
    exp = step.get("expect", {})
    unknown = set(exp) - EXPECT_KEYS
    assert not unknown, f"step {n}: unknown expect keys {sorted(unknown)}"
    where = f"step {n} ({step.get('via', 'api')} {step['tool']} {step.get('args', step.get('raw_args'))!r})"
    bad: list[str] = []
    if bait.canary in res.raw:
        at = res.raw.find(bait.canary)
        bad.append(f"{where}: the CANARY leaked: …{res.raw[max(0, at - 200): at + 60]!r}")
    want_exit = exp.get("exit_code", 0)
    if step.get("via", "api") == "cli" and res.exit_code != want_exit:
        bad.append(f"{where}: exit code {res.exit_code}, expected {want_exit}: {res.raw[-600:]!r}")
    rec = res.record
    if "ok" in exp:
        got = rec.get("ok") if rec else None
        if got is not exp["ok"]:
            bad.append(f"{where}: ok={got}, expected {exp['ok']}: {res.text[:600]!r}")
    for s in listify(exp.get("output_contains", [])):
        if s not in res.text:
            bad.append(f"{where}: output lacks {s!r}: {res.text[:800]!r}")
    for s in listify(exp.get("output_not_contains", [])):
        if s in res.text:
            at = res.text.find(s)
            bad.append(f"{where}: output contains {s!r}: …{res.text[max(0, at - 200): at + 200]!r}")
    for rx in listify(exp.get("output_matches", [])):
        if not re.search(rx, res.text, re.M):
            bad.append(f"{where}: output does not match /{rx}/: {res.text[:800]!r}")
    for rx in listify(exp.get("output_not_matches", [])):
        m = re.search(rx, res.text, re.M)
        if m:
            bad.append(f"{where}: output matches /{rx}/ at {res.text[max(0, m.start() - 200): m.end() + 200]!r}")
    if "max_seconds" in exp and res.seconds > exp["max_seconds"]:
        bad.append(f"{where}: took {res.seconds:.1f} s, more than {exp['max_seconds']} s")
    shown = rec.get("output", res.text) if rec else res.text
    if "max_output_chars" in exp and len(shown) > exp["max_output_chars"]:
        bad.append(f"{where}: output is {len(shown)} chars, more than {exp['max_output_chars']}")
    if "isolation" in exp:
        got = rec.get("isolation") if rec else None
        if got not in listify(exp["isolation"]) and not FORCED_ISOLATION:
            bad.append(f"{where}: isolation {got!r}, expected {exp['isolation']!r}")
    results = {r["test"]: r["head"] for r in (rec or {}).get("results") or []}
    for test_id, outcome in exp.get("outcomes", {}).items():
        if results.get(test_id) not in listify(outcome):
            bad.append(f"{where}: {test_id} outcome {results.get(test_id)!r}, expected {outcome!r}; "
                       f"output: {res.text[:600]!r}")
    if "outcomes_all" in exp:
        wrong = {t: o for t, o in results.items() if o not in listify(exp["outcomes_all"])}
        if not results or wrong:
            bad.append(f"{where}: expected every outcome in {exp['outcomes_all']!r}, got {results!r}; "
                       f"output: {res.text[:600]!r}")
    if "artifacts" in exp:
        got_n = len((rec or {}).get("artifacts") or [])
        if got_n != exp["artifacts"]:
            bad.append(f"{where}: {got_n} artifacts, expected {exp['artifacts']}")
    return bad
