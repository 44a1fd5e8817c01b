"""A world adapter for the executor tests, loaded by name (``tests.ros.flaky_adapter:make``): the graph adapter,
except that each action listed in the option ``fail_once`` fails the first time it runs in a plan's execution
(a skill that fails once on a real robot), which drives replanning through the planner node; ``delay_s`` makes
every action take that long (a robot is slower than a graph), so that a plan can be cancelled while it runs."""

from __future__ import annotations

import time

from l3mp.planning.execute import Executor, StepOutcome
from l3mp.ros.adapters import AdapterContext, graph_adapter


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


def make(context: AdapterContext) -> Executor:
    options = context.options
    return FailOnce(graph_adapter(context), list(options.get("fail_once", [])), float(options.get("delay_s", 0.0)))
