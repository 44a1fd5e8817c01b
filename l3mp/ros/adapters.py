"""World adapters of the executor node: what runs a plan's ground actions (a simulated world here; AI2-THOR, the
text simulator or a robot's skills plug in by name as ``module:factory``)."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from l3mp.domain.pddl_domain import Domain
from l3mp.errors import L3mpError
from l3mp.planning.execute import Executor, GraphExecutor
from l3mp.world.graph import WorldGraph


class AdapterError(L3mpError):
    """The configured world adapter cannot be found or made."""


@dataclass(frozen=True)
class AdapterContext:
    """What a factory gets for each plan: the domain, the graph the robot believes at the plan's start (a copy,
    the adapter may keep it), the ``adapter_options`` parameter as a JSON object, and the plan with its goal
    (PDDL; None when the request gave none, and then nothing is re-planned). An adapter that sees the world
    (AI2-THOR) checks the rest of the plan and the goal against what it sees, and fails the step that a surprise
    breaks, which makes the executor node re-plan."""

    domain: Domain
    believed: WorldGraph
    options: dict[str, Any]
    goal: str | None = None
    plan: tuple[str, ...] = ()


AdapterFactory = Callable[[AdapterContext], Executor]
"""Makes the Executor (``execute(action) -> StepOutcome``) that runs one plan. The executor may also have
``expect(plan, goal)``, called with each new plan after a re-plan; ``reached(goal) -> bool``, whether what the
robot sees makes the goal (PDDL) true, called when a plan with a goal has run to its end (False re-plans, as a
failed step does; what the robot saw must have reached the world model before it returns, so the planner
re-plans from it); and ``finish()``, called once when the plan's run ends (to perceive the last action's
outcome, release a resource)."""


def graph_adapter(context: AdapterContext) -> Executor:
    """A simulated home: a copy of the believed state at the plan's start in which each action's preconditions are
    checked and its effects applied (changes the world model does not hear about make steps fail there)."""
    return GraphExecutor(context.domain, context.believed)


BUILTIN: dict[str, AdapterFactory] = {"graph": graph_adapter}


def adapter_factory(name: str) -> AdapterFactory:
    """A built-in adapter by name, or ``package.module:function`` importing a factory."""
    if name in BUILTIN:
        return BUILTIN[name]
    module_name, _, attribute = name.partition(":")
    if not module_name or not attribute:
        raise AdapterError(f"unknown adapter {name!r}; use one of {', '.join(BUILTIN)} or 'package.module:factory'")
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise AdapterError(f"adapter {name!r} cannot be loaded: {exc}") from None
    if not callable(factory):
        raise AdapterError(f"adapter {name!r} is not callable")
    return factory


def adapter_options(text: str) -> dict[str, Any]:
    """The ``adapter_options`` parameter: a JSON object."""
    try:
        options = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise AdapterError(f"parameter adapter_options is not JSON: {exc}") from None
    if not isinstance(options, dict):
        raise AdapterError("parameter adapter_options must be a JSON object")
    return options
