"""TEST DOUBLE: a world adapter for the executor tests, loaded by name (``tests.ros.flaky_adapter:make``): the graph
adapter, except that each action listed in the option ``fail_once`` fails the first time it runs in a plan's execution
(a skill that fails once on a real robot), which drives replanning through the planner node; ``delay_s`` makes
every action take that long (a robot is slower than a graph), so that a plan can be cancelled while it runs.

``tests.ros.flaky_adapter:watching`` makes the same robot with ``reached(goal)``: whether the goal holds in its
simulated home. The option ``unseen`` maps a goal to ``{"triplets": [...], "times": N}``: the first N times
``reached`` is asked about that goal in a plan's execution, someone has just changed the home (perception
triplets such as ``["lamp2", "light_on", false]``); the robot sees it, reports it to the world model through
`SEEN` (set by the test: publish the batch and wait until the world model applied it, as the AI2-THOR bridge
does) and answers from what it sees. ``reached_raises`` lists goals for which ``reached`` crashes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from l3mp.domain.triplets import fact_from_triplet
from l3mp.planning.execute import Executor, GraphExecutor, StepOutcome
from l3mp.planning.validate import validate_plan
from l3mp.ros.adapters import AdapterContext

SEEN: Callable[[dict[str, Any]], None] | None = None
"""Set by a test: sends a perception batch (JSON) of what the robot saw to the world model and waits for it."""


class FailOnce:
    """Runs actions in the inner adapter; the listed ones fail on their first try."""

    def __init__(self, inner: Executor, fail_once: list[str], delay_s: float) -> None:
        self._inner = inner
        self._pending = set(fail_once)
        self._delay_s = delay_s

    def execute(self, action: str) -> StepOutcome:
        time.sleep(self._delay_s)
        if action in self._pending:
            self._pending.discard(action)
            return StepOutcome(False, f"{action} failed: the gripper slipped")
        return self._inner.execute(action)


class Watching(FailOnce):
    """A FailOnce robot that looks at its home when asked whether a goal holds (see the module docstring)."""

    def __init__(self, context: AdapterContext, inner: GraphExecutor, options: dict[str, Any]) -> None:
        super().__init__(inner, list(options.get("fail_once", [])), float(options.get("delay_s", 0.0)))
        self._domain = context.domain
        self._home = inner.truth
        self._unseen = {goal: [list(spec["triplets"]), int(spec.get("times", 1))]
                        for goal, spec in options.get("unseen", {}).items()}
        self._raises = set(options.get("reached_raises", []))

    def reached(self, goal: str) -> bool:
        if goal in self._raises:
            raise RuntimeError("the camera is unplugged")
        unseen = self._unseen.get(goal)
        if unseen is not None and unseen[1] > 0:  # someone has just changed the home: the robot sees it
            unseen[1] -= 1
            for triplet in unseen[0]:
                fact, true = fact_from_triplet(triplet, allow_false=True)
                (self._home.add_fact if true else self._home.remove_fact)(fact)
            if SEEN is not None:
                SEEN({"observation_id": f"seen-{time.monotonic_ns()}", "triplets": unseen[0]})
        return validate_plan(self._domain, self._home, [], goal).valid


def make(context: AdapterContext) -> Executor:
    """FailOnce (no ``reached``: a plan is not checked against its goal at its end)."""
    options = context.options
    return FailOnce(GraphExecutor(context.domain, context.believed), list(options.get("fail_once", [])),
                    float(options.get("delay_s", 0.0)))


def watching(context: AdapterContext) -> Executor:
    """Watching (``tests.ros.flaky_adapter:watching``): FailOnce with ``reached`` and the ``unseen`` option."""
    return Watching(context, GraphExecutor(context.domain, context.believed), context.options)
