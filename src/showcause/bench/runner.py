"""`showcause bench`: every (case, mode, run) is a record; checkpointed, resumable, never silent on failure."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from showcause import __version__
from showcause.bench.cases import Case, case_set_hash, find_cases, load_case
from showcause.bench.metrics import compute_metrics
from showcause.errors import InputError, ShowcauseError
from showcause.inputs import open_snapshot, tool_context
from showcause.judges.base import ReviewRequest, get_mode
from showcause.review.engine import run_review

__all__ = ["BenchConfig", "run_bench"]

CHECKPOINT = "records.jsonl"
RUN_INFO = "run.json"


@dataclass(frozen=True)
class BenchConfig:
    cases_dir: Path
    modes: tuple[str, ...]
    runs: int
    concurrency: int
    out: Path
    resume: bool = False
    config: Path | None = None

    def identity(self, case_set: str) -> dict[str, Any]:
        """What a resumed run must share with the original."""
        cfg = self.config.read_text(encoding="utf-8") if self.config else ""
        return {"case_set": case_set, "modes": list(self.modes), "runs": self.runs, "config": cfg,
                "version": __version__}


def _review_one(case: Case, mode: str, run: int, config: Path | None) -> dict[str, Any]:
    started = time.monotonic()
    record: dict[str, Any] = {"case": case.id, "mode": mode, "run": run}
    try:
        with open_snapshot(case=case.path) as snap:
            ctx = tool_context(snap, config)
            ctx.eager_base = False   # many reviews share the cores: no speculative base checks
            result = run_review(ctx, mode, ReviewRequest.from_case_input(case.doc.input.model_dump()))
        record.update({"verdict": result.verdict, "model_verdict": result.model_verdict,
                       "status": "error" if result.error else "ok", "error": result.error,
                       "seconds": round(time.monotonic() - started, 3), "usage": result.meta.get("usage") or {},
                       "cost_usd": result.meta.get("cost_usd"), "claims": [c.to_json() for c in result.claims],
                       "tool_calls": len(result.tool_calls)})
    except ShowcauseError as exc:
        record.update({"verdict": "INCONCLUSIVE", "model_verdict": "INCONCLUSIVE", "status": "error",
                       "error": {"code": exc.code, "message": exc.message}, "seconds": time.monotonic() - started,
                       "usage": {}, "cost_usd": None, "claims": []})
    except Exception as exc:  # a crash in one review is a failed record, not a lost benchmark
        record.update({"verdict": "INCONCLUSIVE", "model_verdict": "INCONCLUSIVE", "status": "error",
                       "error": {"code": "INTERNAL_ERROR", "message": f"{type(exc).__name__}: {exc}"},
                       "seconds": time.monotonic() - started, "usage": {}, "cost_usd": None, "claims": []})
    return record


def _load_checkpoint(out: Path, identity: dict[str, Any], resume: bool) -> list[dict[str, Any]]:
    info, ckpt = out / RUN_INFO, out / CHECKPOINT
    if not resume:
        if ckpt.exists():
            raise InputError(f"{out} already holds a benchmark run; use --resume or another --out")
        return []
    if not info.exists():
        raise InputError(f"--resume: {out} holds no benchmark run")
    saved = json.loads(info.read_text(encoding="utf-8"))
    changed = [k for k in identity if saved.get(k) != identity[k]]
    if changed:
        raise InputError(f"--resume refused: {', '.join(changed)} changed since the run started")
    records = []
    for line in ckpt.read_text(encoding="utf-8").splitlines() if ckpt.exists() else []:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut by a crash: that review runs again
    # Failed reviews are transient by assumption and run again; successful ones are kept.
    return [r for r in records if r.get("status") == "ok"]


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def run_bench(cfg: BenchConfig, progress: Callable[[int, int, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    for mode in cfg.modes:
        judge = get_mode(mode)
        if judge is None:
            raise InputError(f"unknown mode {mode!r}")
        if judge.needs_model:
            raise InputError(f"mode {mode!r} needs a model (--model)")
    if cfg.runs < 1 or cfg.concurrency < 1:
        raise InputError("--runs and --concurrency must be at least 1")
    paths = find_cases(cfg.cases_dir)
    if not paths:
        raise InputError(f"{cfg.cases_dir}: no cases")
    cases = [load_case(p) for p in paths]
    identity = cfg.identity(case_set_hash(paths))
    cfg.out.mkdir(parents=True, exist_ok=True)
    kept = _load_checkpoint(cfg.out, identity, cfg.resume)
    _atomic_write(cfg.out / RUN_INFO, json.dumps(identity, indent=2))
    done = {(r["case"], r["mode"], r["run"]) for r in kept}
    todo = [(c, m, r) for r in range(1, cfg.runs + 1) for m in cfg.modes for c in cases if (c.id, m, r) not in done]
    ckpt = cfg.out / CHECKPOINT
    lock = threading.Lock()
    # Rewrite the checkpoint with the kept records only, then append as reviews finish.
    _atomic_write(ckpt, "".join(json.dumps(r) + "\n" for r in kept))
    records = list(kept)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=cfg.concurrency) as pool, ckpt.open("a", encoding="utf-8") as fh:
        futures = [pool.submit(_review_one, c, m, r, cfg.config) for c, m, r in todo]
        for i, fut in enumerate(as_completed(futures), 1):
            record = fut.result()
            with lock:
                records.append(record)
                fh.write(json.dumps(record) + "\n")
                fh.flush()
            if progress:
                progress(i, len(todo), record)
    wall = round(time.monotonic() - started, 2)
    order = {(c.id, m, r): i for i, (c, m, r) in enumerate((c, m, r) for r in range(1, cfg.runs + 1)
                                                             for m in cfg.modes for c in cases)}
    records.sort(key=lambda r: order.get((r["case"], r["mode"], r["run"]), 0))
    truth = {c.id: c.doc.truth.model_dump() | {"language": c.doc.language, "source": c.doc.source.kind}
             for c in cases}
    results = {"case_set": identity["case_set"], "version": __version__, "modes": list(cfg.modes), "runs": cfg.runs,
               "wall_seconds": wall, "records": records, "metrics": compute_metrics(records, truth), "truth": truth}
    _atomic_write(cfg.out / "results.json", json.dumps(results, indent=2))
    return results
