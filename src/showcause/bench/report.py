"""`report.md` and `recall_fi.png` from a benchmark's results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["render_report", "write_plot"]


def _pct(r: dict[str, Any]) -> str:
    if r["rate"] is None:
        return "n/a (0 runs)"
    lo, hi = r["ci95"]
    return f"{100 * r['rate']:.0f}% [{100 * lo:.0f}-{100 * hi:.0f}] ({r['k']}/{r['n']})"


def _mode_section(mode: str, m: dict[str, Any]) -> list[str]:
    g, u = m["gated"], m["ungated"]
    out = [f"## Mode `{mode}`", "",
           f"{m['records']} reviews, {m['ok']} ok, {m['records'] - m['ok']} failed"
           + (f" ({', '.join(f'{k}: {v}' for k, v in m['failures_by_code'].items())})" if m["failures_by_code"]
              else "") + ".", "",
           "| defect kind | recall (verdict acceptable) | intervention (MODIFY/REPLACE) | ungated recall |",
           "|---|---|---|---|"]
    for kind in g["recall"]:
        out.append(f"| {kind} | {_pct(g['recall'][kind])} | "
                   f"{_pct(g['intervention_recall'][kind]) if kind in g['intervention_recall'] else '—'} | "
                   f"{_pct(u['recall'][kind])} |")
    out += ["", "| on correct cases | gated | ungated |", "|---|---|---|",
            f"| false intervention (MODIFY/REPLACE) | {_pct(g['false_intervention'])} | "
            f"{_pct(u['false_intervention'])} |",
            f"| WARNING | {_pct(g['warning_on_correct'])} | {_pct(u['warning_on_correct'])} |",
            f"| flagged (WARNING or worse) | {_pct(g['flagged_on_correct'])} | {_pct(u['flagged_on_correct'])} |",
            "", f"Flagged on defects: {_pct(g['flagged_on_defects'])}.", "",
            "| gate | claims | validated | downgraded | unconfirmed |", "|---|---|---|---|---|",
            f"| | {m['gate']['claims']} | {m['gate']['validated']} | {m['gate']['downgraded']} | "
            f"{m['gate']['unconfirmed']} |", "",
            f"Seconds per review: mean {m['seconds']['mean']}, median {m['seconds']['median']}, "
            f"max {m['seconds']['max']}; sum {m['seconds']['total']}. Tokens: {m['tokens'] or 'none'}. "
            f"Cost: ${m['cost_usd']:.4f}.", ""]
    return out


def render_report(results: dict[str, Any], command: str) -> str:
    truth = results["truth"]
    kinds: dict[str, int] = {}
    for t in truth.values():
        key = "correct" if t["status"] == "correct" else t["kind"]
        kinds[key] = kinds.get(key, 0) + 1
    out = ["# Benchmark report", "",
           f"Case set `{results['case_set']}`: {len(truth)} cases "
           f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); modes {', '.join(results['modes'])}; "
           f"{results['runs']} run(s); wall time {results['wall_seconds']} s; showcause {results['version']}.", "",
           f"Reproduce: `{command}`", "",
           "Recall counts a defect as caught when the verdict is one its label accepts; intervention = MODIFY or "
           "REPLACE. Intervals are Wilson 95%. Failed reviews stay in the denominators (a miss on a defect, "
           "no intervention on a correct case) and are counted by error code. 'Ungated' is the judge's own "
           "verdict before the gate.", ""]
    for mode, m in results["metrics"].items():
        out += _mode_section(mode, m)
    out += ["## Per case", "", "| case | kind | mode | run | verdict | ungated | seconds | status |",
            "|---|---|---|---|---|---|---|---|"]
    for r in results["records"]:
        t = truth[r["case"]]
        kind = "correct" if t["status"] == "correct" else t["kind"]
        miss = "" if r["verdict"] in t["acceptable"] else " ✗"
        out.append(f"| {r['case']} | {kind} | {r['mode']} | {r['run']} | {r['verdict']}{miss} | "
                   f"{r['model_verdict']} | {r['seconds']:.1f} | {r['status']}"
                   + (f" {r['error']['code']}" if r.get("error") else "") + " |")
    return "\n".join(out) + "\n"


def write_plot(results: dict[str, Any], path: Path) -> None:
    """Recall per defect kind and false-intervention rate per mode, with Wilson intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = list(results["metrics"])
    kinds = sorted({k for m in results["metrics"].values() for k in m["gated"]["recall"]})
    labels = [*kinds, "false intervention"]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(labels) * max(1, len(modes))), 4.0))
    width = 0.8 / max(1, len(modes))
    for i, mode in enumerate(modes):
        g = results["metrics"][mode]["gated"]
        stats = [g["recall"][k] for k in kinds] + [g["false_intervention"]]
        xs = [j + i * width for j in range(len(labels))]
        vals = [s["rate"] or 0.0 for s in stats]
        err = [[v - s["ci95"][0] for v, s in zip(vals, stats, strict=True)],
               [s["ci95"][1] - v for v, s in zip(vals, stats, strict=True)]]
        ax.bar(xs, vals, width, yerr=err, capsize=3, label=mode)
    ax.set_xticks([j + width * (len(modes) - 1) / 2 for j in range(len(labels))], labels, rotation=20)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("rate (Wilson 95%)")
    ax.set_title(f"showcause bench — case set {results['case_set']}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
