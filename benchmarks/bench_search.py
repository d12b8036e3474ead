"""`search` against raw `rg --json` on the same query and tree, timed in one run.

    .venv/bin/python benchmarks/bench_search.py [--tree PATH] [--repeat N]

Both sides search the same files with the same matching flags (--no-ignore --hidden); the raw
side only reads rg's JSON into memory, ours also confines the path, keeps the first hits in path
order, counts the rest and formats the text a model sees. Goal: ratio <= 1.2.
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

from _common import big_tree, fake_snapshot, median_time

QUERIES = [r"def \w+_cache", "import os", "TODO|FIXME", r"class \w+Error\(", "self"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tree", type=Path, default=big_tree())
    ap.add_argument("--repeat", type=int, default=5)
    opts = ap.parse_args()

    from showcause.core.rg import rg_binary
    from showcause.evidence.ledger import Ledger
    from showcause.policy import load_policy
    from showcause.tools.base import ToolContext

    tree = opts.tree.resolve()
    n_files = sum(len(f) for _, _, f in os.walk(tree))
    ledger = Ledger(ToolContext(snapshot=fake_snapshot(tree), policy=load_policy()))
    rg = rg_binary()
    print(f"tree: {tree} ({n_files} files), rg: {rg}, repeat {opts.repeat}, median seconds")
    print(f"{'query':<24} {'raw rg':>8} {'search':>8} {'ratio':>6}  hits")
    ratios = []
    for q in QUERIES:
        raw = median_time(lambda q=q: subprocess.run([rg, "--json", "--no-config", "--no-ignore", "--hidden", "-e", q,
                                                      "--", "."], cwd=tree, capture_output=True), opts.repeat)
        ours = median_time(lambda q=q: ledger.call("search", {"pattern": q}), opts.repeat)
        total = ledger.calls[-1].output.splitlines()[0].rsplit(": ", 1)[-1]
        ratios.append(ours / raw)
        print(f"{q:<24} {raw:8.3f} {ours:8.3f} {ours / raw:6.2f}  {total}")
    print(f"worst ratio {max(ratios):.2f}, mean ratio {sum(ratios) / len(ratios):.2f} (goal <= 1.2)")


if __name__ == "__main__":
    main()
