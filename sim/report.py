"""Evaluation outputs: per-variant summaries, the paper-style table beside Table I, CSV, JSON and Figures 2-4."""

from __future__ import annotations

import csv
import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PAPER_TABLE = {"R-": (71.5, 72.5), "R-_V": (71.0, 72.5), "R+": (77.5, 80.0), "R+_V": (92.5, 85.0),
               "R^S": (96.0, 87.5), "R^S_V": (98.0, 90.0)}
"""Table I of the paper (GPT-4o): final state-change and plan success rates, %."""
PAPER_SPEEDUP = 12.5
"""Mean speedup of R^S_V (retrieval + planner) over the planner on the full state, for its solved tasks."""
PAPER_TOKEN_SAVING = 67.6
"""% fewer tokens per successful state change for R^S_V than for R-."""

CSV_COLUMNS = ("variant", "index", "kind", "step", "channel", "text", "success", "graph_match", "accepted",
               "attempts", "prompt_tokens", "completion_tokens", "total_tokens", "llm_calls", "seconds",
               "task_kind", "status", "retrieval_seconds", "planner_seconds", "full_state_seconds", "injected")


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def summarize(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The numbers of one variant's run (rates in %, None where there was nothing to count)."""
    changes = [r for r in records if r["kind"] == "change"]
    spoken = [r for r in changes if r["channel"] == "nl"]
    tasks = [r for r in records if r["kind"] == "task"]
    solved = [r for r in tasks if r["success"]]
    judged = [r for r in tasks if "goal_correct" in r]
    good_tokens = [r["tokens"]["total"] for r in spoken if r["success"]]
    agent_s = [r["retrieval_seconds"] + r["planner_seconds"] for r in solved]
    timed = [r for r in solved if r.get("full_state_seconds") is not None]  # full state not planned on large houses
    full_s = [r["full_state_seconds"] for r in timed]
    timed_agent_s = [r["retrieval_seconds"] + r["planner_seconds"] for r in timed]
    injected: dict[str, int] = {}
    for r in records:
        for kind, count in r.get("injected", {}).items():
            injected[kind] = injected.get(kind, 0) + count
    return {
        "changes": len(changes),
        "nl_changes": len(spoken),
        "state_change_success": _pct(sum(r["success"] for r in changes), len(changes)),
        "nl_state_change_success": _pct(sum(r["success"] for r in spoken), len(spoken)),
        "graph_match_rate": _pct(sum(r["graph_match"] for r in changes), len(changes)),
        "graph_match_final": bool(records[-1]["graph_match"]) if records else None,
        "tasks": len(tasks),
        "plan_success": _pct(len(solved), len(tasks)),
        "plans_valid_in_truth": _pct(sum(r["valid_in_truth"] for r in tasks), len(tasks)),
        "goals_correct": _pct(sum(r["goal_correct"] for r in judged), len(judged)),
        "tokens_per_successful_change_mean": round(statistics.mean(good_tokens), 1) if good_tokens else None,
        "tokens_per_successful_change_median": statistics.median(good_tokens) if good_tokens else None,
        "tokens_total": sum(r["tokens"]["total"] for r in records),
        "llm_calls": sum(r["tokens"]["calls"] for r in records),
        "attempts_mean": round(statistics.mean(r["attempts"] for r in spoken), 2) if spoken else None,
        "planning_seconds_mean": round(statistics.mean(agent_s), 3) if agent_s else None,
        "full_state_planning_seconds_mean": round(statistics.mean(full_s), 3) if full_s else None,
        "planning_speedup": round(statistics.mean(full_s) / statistics.mean(timed_agent_s), 2)
        if timed_agent_s and statistics.mean(timed_agent_s) > 0 else None,
        "wall_seconds": round(sum(r["seconds"] for r in records), 1),
        "injected_errors": injected,
    }


def write_outputs(out_dir: Path, meta: Mapping[str, Any], runs: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict:
    """Write results.json, results.csv, table.md and the three figures; returns the results document."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summaries = {v: summarize(records) for v, records in runs.items()}
    saving = _token_saving(summaries)
    document = {"format": "l3mp.eval-results/1", **meta, "summary": summaries,
                "token_saving_vs_full_pct": saving,
                "paper": {"table_i": {v: {"state_changes": s, "plans": p} for v, (s, p) in PAPER_TABLE.items()},
                          "speedup": PAPER_SPEEDUP, "token_saving_pct": PAPER_TOKEN_SAVING},
                "runs": runs}
    (out_dir / "results.json").write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    _write_csv(out_dir / "results.csv", runs)
    (out_dir / "table.md").write_text(table_markdown(meta, summaries, saving), encoding="utf-8")
    plot_figures(out_dir, runs)
    return document


def _token_saving(summaries: Mapping[str, Mapping[str, Any]]) -> float | None:
    """% fewer tokens per successful state change of R^S_V than R- (the paper's 67.6 %)."""
    full = summaries.get("R-", {}).get("tokens_per_successful_change_mean")
    search = summaries.get("R^S_V", {}).get("tokens_per_successful_change_mean")
    return round(100.0 * (1 - search / full), 1) if full and search else None


def _write_csv(path: Path, runs: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, CSV_COLUMNS)
        writer.writeheader()
        for variant, records in runs.items():
            for r in records:
                tokens = r["tokens"]
                writer.writerow({
                    "variant": variant, "index": r["index"], "kind": r["kind"], "step": r["step"],
                    "channel": r.get("channel", ""), "text": r["text"], "success": r["success"],
                    "graph_match": r["graph_match"], "accepted": r.get("accepted", ""),
                    "attempts": r.get("attempts", ""), "prompt_tokens": tokens["prompt"],
                    "completion_tokens": tokens["completion"], "total_tokens": tokens["total"],
                    "llm_calls": tokens["calls"], "seconds": r["seconds"], "task_kind": r.get("task_kind", ""),
                    "status": r.get("status", ""), "retrieval_seconds": r.get("retrieval_seconds", ""),
                    "planner_seconds": r.get("planner_seconds", ""),
                    "full_state_seconds": r.get("full_state_seconds", ""),
                    "injected": json.dumps(r.get("injected", {}), sort_keys=True)})


def _cell(value: Any, suffix: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}{suffix}" if isinstance(value, float) else f"{value}{suffix}"


def table_markdown(meta: Mapping[str, Any], summaries: Mapping[str, Mapping[str, Any]],
                   saving: float | None) -> str:
    """The paper-style table: measured success rates beside Table I, and the costs."""
    llm, config = meta["llm"], meta["config"]
    sim = config["sim"]
    lines = [
        f"LLM: `{llm['name']}`" + (f" (model sha256 {str(llm['model_sha256'])[:12]}…)" if llm.get("model_sha256")
                                   else ""),
        "",
        f"Episode: seed {sim['seed']}, house scale {sim['scale']:g}, {config['events']} state changes, a task every "
        f"{config['tasks_every']} changes, labels {sim['labels']}, perception share {sim['perception_prob']:g}, "
        f"planner {sim['planner']}.",
        "",
        *(["Steps done so far (a run stopped or still going): "
           + ", ".join(f"{v} {n}" for v, n in meta["steps_done"].items()), ""] if meta.get("steps_done") else []),
        "| variant | state changes % | plans % | paper: state changes % | paper: plans % | graph = truth "
        "(% of changes / at the end) | goals right % | tokens per successful change | LLM calls | "
        "attempts per change | wall time s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for variant, s in summaries.items():
        paper = PAPER_TABLE.get(variant, (None, None))
        lines.append(
            f"| {variant} | {_cell(s['state_change_success'])} | {_cell(s['plan_success'])} "
            f"({s['tasks']} tasks) | {_cell(paper[0])} | {_cell(paper[1])} | {_cell(s['graph_match_rate'])} / "
            f"{_cell(s['graph_match_final'])} | {_cell(s['goals_correct'])} | "
            f"{_cell(s['tokens_per_successful_change_mean'])} | "
            f"{s['llm_calls']} | {_cell(s['attempts_mean'])} | {_cell(s['wall_seconds'])} |")
    lines += ["", "Planning time for the tasks each variant solved (retrieval + planner vs the planner on the "
              "ground-truth problem over the full state; the paper: 12.5x for R^S_V):", "",
              "| variant | retrieval + planner s (mean) | full state s (mean) | speedup |", "|---|---|---|---|"]
    for variant, s in summaries.items():
        lines.append(f"| {variant} | {_cell(s['planning_seconds_mean'])} | "
                     f"{_cell(s['full_state_planning_seconds_mean'])} | {_cell(s['planning_speedup'], 'x')} |")
    lines += ["", f"Tokens per successful state change, R^S_V vs R-: {_cell(saving, ' % fewer')} "
              f"(paper: {PAPER_TOKEN_SAVING} % fewer).", ""]
    return "\n".join(lines)


def plot_figures(out_dir: Path, runs: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
    """fig2_cumulative.png, fig3_planning_time.png, fig4_tokens.png (matplotlib, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    markers = "osD^vx"
    for index, (variant, records) in enumerate(runs.items()):
        changes = [r for r in records if r["kind"] == "change"]
        done = 0
        rates = []
        for n, r in enumerate(changes, 1):
            done += bool(r["success"])
            rates.append(100.0 * done / n)
        # verified variants dashed and every variant its own marker: equal curves stay visible
        ax.plot(range(1, len(rates) + 1), rates, label=variant, linestyle="--" if variant.endswith("_V") else "-",
                marker=markers[index % len(markers)], markersize=4, alpha=0.85)
    ax.set(xlabel="state change", ylabel="cumulative success rate (%)", ylim=(0, 102),
           title="Cumulative state-change success (cf. the paper's Fig. 2)")
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)  # beside the plot, off the curves
    _save(fig, out_dir / "fig2_cumulative.png")

    fig, ax = plt.subplots(figsize=(9, 4))
    data, labels = [], []
    for variant, records in runs.items():
        solved = [r for r in records if r["kind"] == "task" and r["success"]]
        if solved:
            data.append([r["retrieval_seconds"] + r["planner_seconds"] for r in solved])
            labels.append(f"{variant}\nretrieved")
        full = [r["full_state_seconds"] for r in solved if r.get("full_state_seconds") is not None]
        if full:
            data.append(full)
            labels.append(f"{variant}\nfull state")
    if data:
        ax.boxplot(data, showmeans=True)
        ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=7)
    ax.set(ylabel="seconds", title="Planning time of solved tasks: retrieval + planner vs planner on the full "
           "true state (cf. the paper's Fig. 3)")
    _save(fig, out_dir / "fig3_planning_time.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    data, labels = [], []
    for variant, records in runs.items():
        tokens = [r["tokens"]["total"] for r in records if r["kind"] == "change" and r["channel"] == "nl"
                  and r["success"]]
        if tokens:
            data.append(tokens)
            labels.append(variant)
    if data:
        ax.boxplot(data, showmeans=True)
        ax.set_xticks(range(1, len(labels) + 1), labels)
    ax.set(ylabel="tokens (prompt + completion)", title="Tokens per successful state change (cf. the paper's Fig. 4)")
    _save(fig, out_dir / "fig4_tokens.png")


def _save(fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
