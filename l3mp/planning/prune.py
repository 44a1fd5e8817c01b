"""Plans without needless steps: a step the plan still reaches its goal without is dropped before the robot acts.

Satisficing planners (LAPKT's BFWS, Fast Downward's lazy greedy search) may return a valid plan with steps that
serve nothing, and some of them leave the home changed for no reason: "wash the red plate" once came back with the
robot first turning on the bathroom tap it stood beside, and leaving it running. Greedy action elimination removes
such steps: drop one step, or two in a row (`WINDOW`), and keep the shorter plan when every remaining step can
still be taken in the full state and the goal still holds at the end; repeat until nothing more can go. Steps are
tried on the compiled action effects (`ActionEffects`, microseconds per step); only a shorter plan that runs is
validated with unified-planning.
"""

from __future__ import annotations

from collections.abc import Sequence

from l3mp.domain.pddl_domain import Domain
from l3mp.errors import ProblemError
from l3mp.planning.execute import ActionEffects
from l3mp.planning.validate import validate_plan
from l3mp.world.graph import WorldGraph

MAX_STEPS = 60
"""Longer plans are left as found (each pass tries every step)."""
WINDOW = 2
"""Runs of up to this many steps in a row are tried together: a step and the one that undoes it right after
("move to the hall and back") go only together."""


def without_needless_steps(domain: Domain, graph: WorldGraph, plan: Sequence[str], goal: str,
                           effects: ActionEffects | None = None) -> list[str]:
    """`plan` (valid for `goal` in `graph`) with every step it reaches the goal without removed, one at a time."""
    steps = list(plan)
    if len(steps) < 2 or len(steps) > MAX_STEPS:
        return steps
    effects = effects or ActionEffects(domain)
    dropped = True
    while dropped:
        dropped = False
        for span in range(1, WINDOW + 1):
            for i in range(len(steps) - span + 1):
                shorter = steps[:i] + steps[i + span:]
                if _runs(effects, graph, shorter) and validate_plan(domain, graph, shorter, goal).valid:
                    steps, dropped = shorter, True
                    break
            if dropped:
                break
    return steps


def _runs(effects: ActionEffects, graph: WorldGraph, steps: Sequence[str]) -> bool:
    """Whether every step can be taken in turn from `graph` (which is left as it was)."""
    state = graph.copy()
    for step in steps:
        try:
            delta = effects.delta(state, step)
        except ProblemError:
            return False
        for fact in delta.remove:
            state.remove_fact(fact)
        for fact in delta.add:
            state.add_fact(fact)
    return True
