"""Coordinator overhead per record and scaling efficiency of `showcause bench --executor dask-local:N`.

Model-bound records: every model call is answered by a loopback OpenAI-compatible server after a fixed
delay, so a record costs that delay plus the mechanical part of a review of a tiny case. Three runs of the
same plan: the local executor with one worker thread, a Dask cluster of one worker, and one of two.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_dask.py [--delay 2.0] [--records 12]

Overhead per record = (dask 1 worker - local 1 thread) / records. Efficiency = T1 / (2 * T2).
"""

from __future__ import annotations

import argparse
import json
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=2.0, help="seconds per model call")
    ap.add_argument("--records", type=int, default=12, help="records (a multiple of 3)")
    args = ap.parse_args()
    httpd = slow_server(args.delay)
    url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    with tempfile.TemporaryDirectory() as tmp:
        cases = bench_cases(Path(tmp) / "cases")
        runs = max(1, args.records // 3)
        walls = {}
        for name, executor, workers in (("local", "local", 1), ("dask-1", "dask-local:1", 1),
                                        ("dask-2", "dask-local:2", 2)):
            cfg = BenchConfig(cases, ("decision_judge",), runs, workers, Path(tmp) / name, models=(
                "openai:slow-model",), base_url=url, executor=executor)
            results = run_bench(cfg)
            assert all(r["status"] == "ok" for r in results["records"]), results["records"]
            walls[name] = results["wall_seconds"]
            print(f"{name:7} {len(results['records'])} records  wall {walls[name]:.2f} s", flush=True)
        n = runs * 3
        print(f"coordinator overhead per record: {(walls['dask-1'] - walls['local']) / n:.3f} s "
              f"(model delay {args.delay:g} s per call)")
        print(f"scaling efficiency 1 -> 2 workers: {walls['dask-1'] / (2 * walls['dask-2']):.3f}")
    httpd.shutdown()


if __name__ == "__main__":
    main()
