"""Plain-text accounts for people: change records, states, fact histories, update results, plans and executions.

The one home of these texts: the CLI, the main job and its ROS 2 session all tell them the same way.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING, Any

from l3mp.domain.triplets import WORLD, Fact
from l3mp.world.delta import Delta
from l3mp.world.graph import WorldGraph
from l3mp.world.history import FactStory
from l3mp.world.record import ChangeRecord

if TYPE_CHECKING:
    from l3mp.planning.execute import ExecutionReport
    from l3mp.planning.pipeline import PlanResult
    from l3mp.updates import UpdateResult

FACTS_SHOWN = 25
"""Retrieved facts an update result lists unless asked for all."""


def iso(seconds: float) -> str:
    """A unix time as local ISO 8601 with its offset, to the second."""
    return dt.datetime.fromtimestamp(seconds).astimezone().isoformat(timespec="seconds")


def record_header(record: ChangeRecord) -> str:
    """``#seq  time  source  "input"  [ref]``."""
    header = f"#{record.seq}  {iso(record.time)}  {record.source}"
    if record.input:
        header += f'  "{record.input}"'
    return header + (f"  [{record.ref}]" if record.ref else "")


def format_record(record: ChangeRecord, *, limit: int | None = None) -> str:
    """A change record: its header line, then at most `limit` lines of what it changed (all if None)."""
    header = record_header(record)
    lines = delta_lines(record.delta)
    if limit is not None and len(lines) > limit:
        delta = record.delta
        summary = (f"{len(delta.entities)} new entities, {len(delta.remove)} facts removed, "
                   f"{len(delta.add)} added, {len(delta.remove_entities)} entities removed")
        lines = [*lines[:limit], f"    ... {len(lines) - limit} more lines ({summary})" if limit else f"    {summary}"]
    return "\n".join([header, *lines])


def delta_lines(delta: Delta) -> list[str]:
    """What a delta does, one indented line per change (new entities, removals, additions)."""
    lines = [f"    + entity {entity_title(n, {'type': s.type, **s.attrs()})}" for n, s in delta.entities.items()]
    lines += [f"    - {f}" for f in delta.remove]
    lines += [f"    + {f}" for f in delta.add]
    lines += [f"    - entity {n}" for n in delta.remove_entities]
    return lines


def entity_title(name: str, attrs: dict) -> str:
    """``name (type, "label")``."""
    label = attrs.get("label")
    return f"{name} ({attrs['type']}" + (f', "{label}")' if label else ")")


def story_lines(stories: list[FactStory]) -> list[str]:
    """Each fact with when it became true and why (the record that made it true)."""
    lines = []
    for story in stories:
        lines.append(str(story.fact))
        if story.time is None:
            lines.append("    true since before the recorded history (no record)")
            continue
        why = f"    since {iso(story.time)}: record #{story.seq}, {story.source}"
        why += f' "{story.input}"' if story.input else ""
        lines.append(why + (f" [{story.ref}]" if story.ref else ""))
    return lines


def graph_lines(graph: WorldGraph) -> list[str]:
    """Every entity with its type and label, then the facts it is the first argument of."""
    by_subject: dict[str, list[Fact]] = {}
    for fact in graph.facts():
        by_subject.setdefault(fact.args[0] if fact.args else WORLD, []).append(fact)
    lines = []
    if WORLD in by_subject:
        lines.append(WORLD)
        lines += [f"    {f.predicate}" for f in sorted(by_subject[WORLD])]
    for name in sorted(graph.entities()):
        lines.append(entity_title(name, graph.entity_attrs(name)))
        lines += [f"    {' '.join((f.predicate, *f.args[1:]))}" for f in sorted(by_subject.get(name, []))]
    return lines


def update_lines(result: UpdateResult | dict[str, Any], *, verbose: bool = False) -> list[str]:
    """An NL update told for people: context, every attempt with its problems, tokens, outcome.

    `result` is an UpdateResult (then its retrieved facts are listed too, FACTS_SHOWN of them unless `verbose`), or
    its JSON as the world-model node publishes it (``ok``, and ``error`` instead of ``reason`` when it failed).
    """
    facts = None
    if not isinstance(result, dict):
        from l3mp.llm.contract import fact_lines

        facts = fact_lines(result.retrieved.facts).splitlines()
        result = result.to_json()
    retrieval = result.get("retrieval") or {}
    lines = [f"update: {result.get('text')!r}", f"variant {result.get('variant')}, LLM {result.get('llm')}",
             f"retrieved ({retrieval.get('mode')}): {retrieval.get('entities')} entities, "
             f"{retrieval.get('facts')} facts"]
    if facts is not None:
        shown = facts if verbose else facts[:FACTS_SHOWN]
        lines += [f"    {f}" for f in shown]
        if len(shown) < len(facts):
            lines.append(f"    ... and {len(facts) - len(shown)} more (-v shows all)")
    mentions = result.get("mentions") or []
    if mentions:
        lines.append("grounded: " + "; ".join(f"{m['words']!r} -> {', '.join(m['candidates'])}" for m in mentions))
    for a in result.get("attempts", []):
        lines.append(f"attempt {a['number']}: {a['prompt_tokens']} prompt + {a['completion_tokens']} completion "
                     f"tokens, {a['seconds']:.1f} s")
        lines.append(f"    proposed: {json.dumps(a['delta']) if a['delta'] is not None else a['answer'][:300]!r}")
        lines += [f"    - {p}" for p in a["problems"]]
    tokens = result.get("tokens") or {}
    lines.append(f"tokens: {tokens.get('prompt_tokens', 0)} prompt + {tokens.get('completion_tokens', 0)} completion "
                 f"in {tokens.get('calls', 0)} call(s)")
    reason = result.get("reason") or (result.get("error") or {}).get("message")
    record = result.get("record")
    if result.get("question"):
        lines.append(f"not applied, the graph is unchanged; I need to know: {result['question']}")
    elif result.get("accepted", result.get("ok")) and record:
        lines.append("applied, and it says what the text says:" if not reason else f"applied ({reason}):")
        lines.append(format_record(ChangeRecord.from_json(record)))
    elif result.get("accepted", result.get("ok")):
        lines.append(f"nothing to change: {reason or 'the text reports no change'}")
    else:
        lines.append(f"not applied, the graph is unchanged: {reason}")
    return lines


def plan_lines(result: PlanResult) -> list[str]:
    """A planned task told for people: goal, problem, plan, times, validation, outcome."""
    source = {"read": " (read from the request, no LLM)", "given": " (given)"}.get(result.goal_source, "")
    lines = [f"task: {result.task!r}", f"goal: {result.goal or '(none)'}{source}"]
    for attempt in result.goal_attempts:
        lines.append(f"goal attempt {attempt.number}: {' '.join(attempt.literals) or attempt.answer[:300]!r}")
        lines += [f"    - {p}" for p in attempt.problems]
    if result.problem_pddl:
        lines += ["problem:", *(f"    {line}" for line in result.problem_pddl.splitlines())]
    lines.append(f"plan ({len(result.plan)} step(s)):" if result.status == "solved" else f"no plan: {result.status}")
    lines += [f"    {i}. {step}" for i, step in enumerate(result.plan, 1)]
    lines.append(f"planner {result.engine or '-'}: {result.planner_seconds:.2f} s; retrieval "
                 f"{result.retrieval_seconds:.2f} s; {result.expansions} expansion(s); "
                 f"{result.context_entities} objects in the problem")
    if result.validation is not None:
        lines.append(f"validation (full state): {result.validation.message}")
    t = result.ledger
    lines.append(f"tokens: {t.prompt_tokens} prompt + {t.completion_tokens} completion in {len(t.calls)} call(s)")
    if result.outcome == "asked":
        lines.append(f"ASKED: {result.question} (nothing planned)")
    elif result.outcome == "satisfied":
        lines.append("NOTHING TO DO: the goal holds already")
    else:
        lines.append("OK: the plan is valid in the full state" if result.ok else f"FAILED: {result.reason}")
    return lines


def execution_lines(report: ExecutionReport) -> list[str]:
    """Each executed step with the facts it removed (-) and added (+) in the store, then the outcome."""
    lines = ["execution:"]
    for number, step in enumerate(report.steps, 1):
        seq = f" [record {step.record_seq}]" if step.record_seq is not None else ""
        lines.append(f"    {number}. {step.action}: {'done' if step.ok else 'FAILED'}{seq}"
                     + ("" if step.ok else f": {step.message}"))
        if step.delta is not None:
            lines += [f"        - {fact}" for fact in step.delta.remove]
            lines += [f"        + {fact}" for fact in step.delta.add]
    lines.append(f"execution {report.message}")
    return lines


def goal_source(source: str) -> str:
    """How a plan's goal came about (`PlanResult.goal_source`), for people."""
    return {"read": "read from the request, no LLM", "given": "given", "llm": "written by the LLM"}.get(
        source, source or "unknown")
