"""Host-side scanners on hostile files: each size against half of it, timed in one run.

    .venv/bin/python benchmarks/bench_analysis.py [--mb 4] [--repeat N]

For each scanner (`code_text` of .sql, .html, .json, .toml), a file of comment or string openers that never
close (the input that made the old regexes quadratic: 240 KB of `/* ` took 52 s) is timed at `--mb` MB and
at twice that. A linear scanner takes twice as long on twice the input, a quadratic one four times. Goal:
ratio <= 3 (tens of milliseconds are noisy on a shared machine). tree-sitter is bounded by a time limit
rather than linear (see showcause.core.analysis_budget), so JavaScript is not timed here.
"""

from __future__ import annotations

import argparse
import itertools
import time

HOSTILE = {"db/dump.sql": b"/* ", "web/page.html": b"<!-- ", "conf/data.json": b'"\\', "conf/app.toml": b"# x = "}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=float, default=4.0)
    ap.add_argument("--repeat", type=int, default=5)
    opts = ap.parse_args()

    from showcause.analysis import codetext

    fresh = itertools.count()   # a distinct suffix per call: the code text cache must not answer

    def timed(path: str, opener: bytes, size: int) -> float:
        """The fastest of the runs: tens of milliseconds, so the others measure the machine's neighbours."""
        data = opener * (size // len(opener))
        times = []
        for _ in range(opts.repeat):
            copy = data + b"%d" % next(fresh)
            start = time.perf_counter()
            codetext.code_text(path, copy)
            times.append(time.perf_counter() - start)
        return min(times)

    size = int(opts.mb * 1_000_000)
    print(f"repeat {opts.repeat}, fastest seconds")
    print(f"{'file':<16} {f'{opts.mb:g} MB':>8} {f'{2 * opts.mb:g} MB':>8} {'ratio':>6}")
    worst = 0.0
    for path, opener in HOSTILE.items():
        once, twice = timed(path, opener, size), timed(path, opener, 2 * size)
        worst = max(worst, twice / once)
        print(f"{path:<16} {once:8.3f} {twice:8.3f} {twice / once:6.2f}")
    print(f"worst ratio {worst:.2f} (goal <= 3; linear 2, quadratic 4)")


if __name__ == "__main__":
    main()
