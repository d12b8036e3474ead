"""`report.md` and `recall_fi.png` from a benchmark's results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from showcause.bench.cells import advantage_cell, rate_cell
from showcause.bench.quorum_report import quorum_section

__all__ = ["import_plotting", "render_report", "write_plot"]


def _usd(v: float | None) -> str:
    return "unknown" if v is None else f"${v:.4f}"


def _arm(m: dict[str, Any]) -> str:
    return f"`{m['mode']}`" + (f" · `{m['model']}`" if m["model"] else "")


def _mode_section(m: dict[str, Any]) -> list[str]:
    g, u = m["gated"], m["ungated"]
    failures = ", ".join(f"{k}: {v}" for k, v in m["failures_by_code"].items())
    out = [f"## {_arm(m)}", "",
           f"{m['expected']} expected, {m['ok']} ok, {m['failed']} failed"
           + (f" ({failures})" if failures else "") + f", {m['not_run']} not run; "
           f"{m['attempts']} attempts, {m['retried_records']} record(s) retried.", "",
           "| defect kind | recall (verdict acceptable) | intervention (MODIFY/REPLACE) | ungated recall |",
           "|---|---|---|---|"]
    for kind in g["recall"]:
        out.append(f"| {kind} | {rate_cell(g['recall'][kind])} | "
                   f"{rate_cell(g['intervention_recall'][kind]) if kind in g['intervention_recall'] else '—'} | "
                   f"{rate_cell(u['recall'][kind])} |")
    t, s = m["tokens_per_ok_review"], m["seconds"]
    out += ["", "| on correct cases | gated | ungated |", "|---|---|---|",
            f"| false intervention (MODIFY/REPLACE) | {rate_cell(g['false_intervention'])} | "
            f"{rate_cell(u['false_intervention'])} |",
            f"| WARNING | {rate_cell(g['warning_on_correct'])} | {rate_cell(u['warning_on_correct'])} |",
            f"| flagged (WARNING or worse) | {rate_cell(g['flagged_on_correct'])} | "
            f"{rate_cell(u['flagged_on_correct'])} |",
            "", f"Flagged on defects: {rate_cell(g['flagged_on_defects'])}.", "",
            "| gate | claims | validated | downgraded | unconfirmed |", "|---|---|---|---|---|",
            f"| | {m['gate']['claims']} | {m['gate']['validated']} | {m['gate']['downgraded']} | "
            f"{m['gate']['unconfirmed']} |", "",
            f"Seconds per ok review: mean {s['mean']}, median {s['median']}, max {s['max']}; sum {s['total']}. "
            f"Tokens per ok review: mean {t['mean']}, median {t['median']}; all attempts: "
            f"{m['tokens'].get('prompt_tokens', 0)} prompt + {m['tokens'].get('completion_tokens', 0)} completion "
            f"in {m['tokens'].get('calls', 0)} model calls. Cost (all attempts, failures included): "
            f"{_usd(m['cost_usd'])}, {_usd(m['cost_per_review_usd'])} per record; sources "
            f"{m['cost_sources']}.", ""]
    return out


def _header(results: dict[str, Any], command: str) -> list[str]:
    truth = results["truth"]
    kinds: dict[str, int] = {}
    for t in truth.values():
        key = "correct" if t["status"] == "correct" else t["kind"]
        kinds[key] = kinds.get(key, 0) + 1
    git = results.get("git") or {}
    sha = "not a git checkout" if not git.get("sha") else f"{git['sha'][:12]}{' (dirty)' if git.get('dirty') else ''}"
    out = ["# Benchmark report", "",
           f"Case set `{results['case_set']}`: {len(truth)} cases "
           f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); modes {', '.join(results['modes'])}; "
           f"{results['runs']} run(s); wall time {results['wall_seconds']} s; showcause {results['version']} "
           f"({sha}).", "", f"Reproduce: `{command}`", ""]
    if results.get("models"):
        hosts = results.get("base_url_hosts") or {}
        out += ["| model | server |", "|---|---|"]
        out += [f"| `{m}` | {hosts.get(m) or 'none'} |" for m in results["models"]]
        out.append("")
        budgets = "; ".join(f"{name}: {b['tokens']} tokens, {b['tool_calls']} tool calls, {b['completion_tokens']} "
                            f"completion tokens per call, {b['seconds']} s, {b['turns']} turns"
                            for name, b in (results.get("budgets") or {}).items())
        out += [f"Budgets per review ({budgets}). Prompt hashes: "
                f"{', '.join(f'{k} `{v}`' for k, v in (results.get('prompt_hashes') or {}).items())}.", ""]
    limit = "none" if results.get("max_cost_usd") is None else _usd(results["max_cost_usd"])
    slots = f" ({results['process_slots']} sandboxed processes at a time)" if results.get("process_slots") else ""
    isolation = f", isolation {results['isolation']}" if results.get("isolation") else ""
    out += [f"Retries {results.get('retries')}, concurrency {results.get('concurrency')}{slots}{isolation}, max rpm "
            f"{results.get('max_rpm') or 'none'}, max cost {limit}, seed {results.get('seed')}.", ""]
    if results.get("stopped"):
        st = results["stopped"]
        out += [f"**Stopped at the cost limit**: spent ${st['spent_usd']:.4f} of ${st['max_cost_usd']:.4f}; the next "
                f"review ({st['next']}) reserves ${st['next_reserve_usd']:.4f}. {len(results['not_run'])} record(s) "
                "did not run (listed below); raise --max-cost and rerun with --resume.", ""]
    out += ["Recall counts a defect as caught when the verdict is one its label accepts; intervention = MODIFY or "
            "REPLACE. Every rate is over successful runs; '+f failed' beside it counts the runs of the same "
            "population that failed (by code below). Intervals are Wilson 95% (runs of one case are correlated, "
            "so they are optimistic). 'Ungated' is the judge's own verdict before the gate.", ""]
    return out


def _summary(results: dict[str, Any]) -> list[str]:
    out = ["## Summary", "", "| mode | model | expected | ok | failed | not run | recall | false interventions | "
           "ungated recall | ungated FI | tokens/review (median) | cost | latency median (s) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in results["metrics"].values():
        g, u = m["gated"], m["ungated"]
        out.append(f"| {m['mode']} | {m['model'] or '—'} | {m['expected']} | {m['ok']} | {m['failed']} | "
                   f"{m['not_run']} | {rate_cell(g['recall']['all_defects'])} | {rate_cell(g['false_intervention'])} | "
                   f"{rate_cell(u['recall']['all_defects'])} | {rate_cell(u['false_intervention'])} | "
                   f"{m['tokens_per_ok_review']['median'] if m['model'] else '—'} | "
                   f"{_usd(m['cost_usd']) if m['model'] else '—'} | {m['seconds']['median']} |")
    out.append("")
    comps = results.get("comparisons") or []
    if comps:
        out += [f"## Against the baseline `{results['baseline']}` (paired cluster bootstrap)", "",
                "Difference = mode minus baseline over the cases where both have a successful run; "
                f"{comps[0]['resamples']} resamples of cases, seed {comps[0]['seed']}; 95% interval from the "
                "2.5%/97.5% quantiles. A negative false-intervention difference means the mode intervenes less on "
                "correct changes.", "",
                "| model | mode | metric | mode | baseline | difference [95% CI] | cases |",
                "|---|---|---|---|---|---|---|"]
        for c in comps:
            a, b = c["a"], c["b"]
            diff = "n/a" if c["difference"] is None else (
                f"{100 * c['difference']:+.0f} pp [{100 * c['ci95'][0]:+.0f}, {100 * c['ci95'][1]:+.0f}]")
            out.append(f"| {c['model'] or '—'} | {c['mode']} | {c['metric'].replace('_', ' ')} | {a['k']}/{a['n']} | "
                       f"{b['k']}/{b['n']} | {diff} | {c['cases']} |")
        out.append("")
    fails = [(m, code, n) for m in results["metrics"].values() for code, n in m["failures_by_code"].items()]
    out += ["## Failures by code", ""]
    if fails:
        out += ["| mode | model | code | records |", "|---|---|---|---|"]
        out += [f"| {m['mode']} | {m['model'] or '—'} | {code} | {n} |" for m, code, n in fails]
    else:
        out.append("No review failed.")
    sp = results.get("spend") or {}
    out += ["", "## Spend", "",
            f"Ledger `{sp.get('ledger')}`: {sp.get('attempts')} attempts; cost {_usd(sp.get('cost_usd'))} "
            f"({_usd(sp.get('cost_reported_usd'))} reported by providers, {_usd(sp.get('cost_estimated_usd'))} "
            f"estimated), {sp.get('unpriced_calls')} call(s) of unknown price; counted against the limit "
            f"{_usd(sp.get('charged_usd'))}, of which {_usd(sp.get('charged_before_this_session_usd'))} in earlier "
            "sessions.", ""]
    return out


def _questions(results: dict[str, Any]) -> list[str]:
    """The pre-registered questions of `--rules` (bench/rules.py), when there were any."""
    qs = results.get("questions") or []
    if not qs:
        return []
    out = [f"## Pre-registered questions (`{results['rules']['path']}`, sha256 `{results['rules']['sha256']}`)", "",
           "| question | model | compares | metric | advantage [95% CI] | cases | label |",
           "|---|---|---|---|---|---|---|"]
    for q in qs:
        out.append(f"| {q['id']} | {q.get('model') or '—'} | {q['a']} vs {q['b']} | {q['metric']} | "
                   f"{advantage_cell(q)} | {q.get('cases', 0)} | {q['label']} |")
    return [*out, ""]


def render_report(results: dict[str, Any], command: str) -> str:

    truth = results["truth"]
    out = _header(results, command) + _summary(results) + quorum_section(results) + _questions(results)
    for m in results["metrics"].values():
        out += _mode_section(m)
    if results.get("not_run"):
        out += ["## Not run", "", "| case | mode | model | run |", "|---|---|---|---|"]
        out += [f"| {j['case']} | {j['mode']} | {j['model'] or '—'} | {j['run']} |" for j in results["not_run"]]
        out.append("")
    out += ["## Per case", "", "| case | kind | mode | model | run | verdict | ungated | seconds | attempts | cost | "
            "status |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["records"]:
        t = truth[r["case"]]
        kind = "correct" if t["status"] == "correct" else t["kind"]
        miss = "" if r["verdict"] in t["acceptable"] else " ✗"
        out.append(f"| {r['case']} | {kind} | {r['mode']} | {r.get('model') or '—'} | {r['run']} | "
                   f"{r['verdict']}{miss} | {r['model_verdict']} | {r['seconds']:.1f} | {r.get('attempts', 1)} | "
                   f"{_usd(r.get('cost_usd')) if r.get('model') else '—'} | {r['status']}"
                   + (f" {r['error']['code']}" if r.get("error") else "") + " |")
    return "\n".join(out) + "\n"


def import_plotting() -> None:
    """Import matplotlib (about a second): `write_plot` needs it, and a bench calls this early on a core
    its last reviews leave idle."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot


def write_plot(results: dict[str, Any], path: Path) -> None:
    """Recall per defect kind and false-intervention rate per (mode, model), with Wilson intervals."""
    import_plotting()
    import matplotlib.pyplot as plt

    arms = list(results["metrics"])
    kinds = sorted({k for m in results["metrics"].values() for k in m["gated"]["recall"]})
    labels = [*kinds, "false intervention"]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(labels) * max(1, len(arms))), 4.0))
    width = 0.8 / max(1, len(arms))
    for i, arm in enumerate(arms):
        g = results["metrics"][arm]["gated"]
        stats = [g["recall"].get(k) or {"rate": None, "ci95": [0.0, 0.0]} for k in kinds] + [g["false_intervention"]]
        xs = [j + i * width for j in range(len(labels))]
        vals = [s["rate"] or 0.0 for s in stats]
        err = [[max(0.0, v - s["ci95"][0]) for v, s in zip(vals, stats, strict=True)],
               [max(0.0, s["ci95"][1] - v) for v, s in zip(vals, stats, strict=True)]]
        ax.bar(xs, vals, width, yerr=err, capsize=3, label=arm)
    ax.set_xticks([j + width * (len(arms) - 1) / 2 for j in range(len(labels))], labels, rotation=20)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("rate over ok runs (Wilson 95%)")
    ax.set_title(f"showcause bench — case set {results['case_set']}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
