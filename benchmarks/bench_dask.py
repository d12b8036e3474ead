"""Coordinator overhead per record and scaling efficiency of `showcause bench --executor dask-local:N`.

Model-bound records: every model call is answered by a loopback OpenAI-compatible server after a fixed
delay, so a record costs that delay plus the mechanical part of a review of a tiny case. Each repeat runs
the same plan three times: the local executor with one worker thread, a Dask cluster of one worker, and one
of two.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_dask.py [--delay 2.0] [--records 12] [--repeats 3]

Overhead per record = (dask 1 worker - local 1 thread) / records. Efficiency = T1 / (2 * T2), on the bench's
wall time (`wall_seconds`: from the first record to the last) and end to end (the cluster's start and the
warm-up of its workers included).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from benchcases import bench_cases
from showcause.bench.runner import BenchConfig, run_bench

KEEP = json.dumps({"summary": "fine", "claims": []})


def slow_server(delay: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            time.sleep(delay)
            body = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "slow-model",
                               "choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant", "content": KEEP}}],
                               "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def one_repeat(cases: Path, out: Path, url: str, runs: int) -> dict[str, tuple[float, float]]:
    """(wall_seconds, end to end) of each executor."""
    walls = {}
    for name, executor, workers in (("local", "local", 1), ("dask-1", "dask-local:1", 1),
                                    ("dask-2", "dask-local:2", 2)):
        cfg = BenchConfig(cases, ("decision_judge",), runs, workers, out / name, models=("openai:slow-model",),
                          base_url=url, executor=executor)
        started = time.monotonic()
        results = run_bench(cfg)
        assert all(r["status"] == "ok" for r in results["records"]), results["records"]
        walls[name] = (results["wall_seconds"], time.monotonic() - started)
        print(f"{name:7} {len(results['records'])} records  wall {walls[name][0]:.2f} s  "
              f"end to end {walls[name][1]:.2f} s", flush=True)
    return walls


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=2.0, help="seconds per model call")
    ap.add_argument("--records", type=int, default=12, help="records (a multiple of 3)")
    ap.add_argument("--repeats", type=int, default=1, help="repeats of the three runs")
    args = ap.parse_args()
    httpd = slow_server(args.delay)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    runs = max(1, args.records // 3)
    n = runs * 3
    overheads, efficiency, end_to_end = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        cases = bench_cases(Path(tmp) / "cases")
        for repeat in range(args.repeats):
            walls = one_repeat(cases, Path(tmp) / f"r{repeat}", url, runs)
            overheads.append((walls["dask-1"][0] - walls["local"][0]) / n)
            efficiency.append(walls["dask-1"][0] / (2 * walls["dask-2"][0]))
            end_to_end.append(walls["dask-1"][1] / (2 * walls["dask-2"][1]))
            print(f"repeat {repeat + 1}: overhead per record {overheads[-1]:.3f} s, efficiency 1 -> 2 workers "
                  f"{efficiency[-1]:.3f} (end to end {end_to_end[-1]:.3f})", flush=True)
    httpd.shutdown()
    for label, values, unit in (("coordinator overhead per record", overheads, " s"),
                                ("scaling efficiency 1 -> 2 workers", efficiency, ""),
                                ("end to end", end_to_end, "")):
        print(f"{label}: median {statistics.median(values):.3f}{unit}, min {min(values):.3f}, "
              f"max {max(values):.3f} over {len(values)} repeats (model delay {args.delay:g} s per call)")


if __name__ == "__main__":
    main()
