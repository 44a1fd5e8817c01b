"""Running plan actions in AI2-THOR: each action's controller steps, their success checked, the new event perceived.

`ThorExecutor` is an `Executor` for `l3mp.planning.run_plan`. Before each action it perceives the event of the
previous one (so what the agent saw on arrival is in the world model before it acts); when what it saw breaks
the action's preconditions, or the rest of the plan (`expect`), the action fails without running and run_plan
re-plans. A step whose ``lastActionSuccess`` is false fails the action, and its event is perceived at once.
`reached(goal)` perceives the last action's event and says whether the goal holds in what was seen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from l3mp.errors import DeltaRejected, ProblemError
from l3mp.planning.execute import ActionEffects, StepOutcome
from l3mp.planning.problem import action_words
from l3mp.planning.validate import validate_plan
from l3mp.thor.actions import GOTO, controller_steps
from l3mp.thor.errors import ThorError
from l3mp.thor.perception import ThorPerception
from l3mp.thor.poses import Pose, PoseFinder
from l3mp.world.model import Observation, WorldModel


class Controller(Protocol):
    """What the adapter needs of ``ai2thor.controller.Controller``."""

    last_event: Any

    def step(self, action: dict[str, Any]) -> Any: ...


class ThorExecutor:
    """Carries out the thor domain's ground actions with an AI2-THOR controller (see the module docstring)."""

    def __init__(self, controller: Controller, world: WorldModel, perception: ThorPerception,
                 poses: PoseFinder, *, writes_back: bool = False,
                 on_perceived: Callable[[Observation], None] | None = None) -> None:
        self._controller = controller
        self._world = world
        self._writes_back = writes_back
        self._on_perceived = on_perceived
        self._perception = perception
        self._poses = poses
        self._effects_of: ActionEffects | None = None
        self._at: str | None = None
        self._pending: Any = None
        self._expected: list[str] = []
        self._goal: str | None = None
        self._last_seen_event: Any = None
        self.lock = threading.RLock()
        """Held while the controller steps or an event is perceived: a plan's thread and a bridge share it."""
        self.perceived: list[Observation] = []
        """Every perception batch this executor sent to the world model, in order."""
        self.rejected: list[str] = []
        """Why any batch (or written-back effect) was rejected by the world model (it should never be)."""

    @property
    def at(self) -> str | None:
        """The entity whose interaction pose the agent stands at."""
        return self._at

    def start(self, *, survey: bool = True) -> str:
        """Put the agent at the interaction pose of the object nearest to it and perceive the scene (with
        `survey`, every object: the agent's prior map). Returns the entity it stands at."""
        with self.lock:
            return self._start(survey)

    def _start(self, survey: bool) -> str:
        event = self._controller.last_event
        objects = list(event.metadata["objects"])
        self._perception.namer.name_all(objects)
        here = event.metadata["agent"]["position"]
        candidates = [(o, self._poses.pose(o)) for o in objects if not o.get("pickupable")]
        reachable = [(o, p) for o, p in candidates if p is not None]
        if not reachable:
            raise ThorError("no object of the scene has an interaction pose; is the scene's layout empty?")
        nearest, pose = min(reachable, key=lambda op: ((op[1].x - here["x"]) ** 2 + (op[1].z - here["z"]) ** 2,
                                                       op[0]["objectId"]))
        event = self._controller.step(pose.teleport(here["y"]))
        if not event.metadata["lastActionSuccess"]:
            raise ThorError(f"cannot reach the start pose at {nearest['objectId']}: {event.metadata['errorMessage']}")
        self._at = self._perception.namer.name(nearest["objectId"])
        self._perceive(event, survey=survey)
        return self._at

    def expect(self, plan: Sequence[str], goal: str | None) -> None:
        """The plan about to run and its goal: before each of its actions the rest of it is checked against
        what was seen, so a surprise re-plans at once instead of at the step it breaks."""
        with self.lock:
            self._expected = list(plan)
            self._goal = goal

    def execute(self, action: str) -> StepOutcome:
        with self.lock:
            return self._execute(action)

    def _execute(self, action: str) -> StepOutcome:
        self.flush()
        surprise = self._surprise(action)
        if surprise is not None:
            return StepOutcome(False, surprise)
        try:
            steps = controller_steps(action, object_id=self._perception.namer.object_id, pose=self._pose,
                                     agent_y=self._controller.last_event.metadata["agent"]["position"]["y"])
        except (ThorError, ProblemError) as exc:
            return StepOutcome(False, str(exc))
        words = action_words(action)
        for step in steps:
            event = self._controller.step(step)
            if not event.metadata["lastActionSuccess"]:
                self._perceive(event)
                return StepOutcome(False, f"{step['action']} failed in AI2-THOR: {event.metadata['errorMessage']}")
        if words[0] == GOTO:
            self._at = words[3]
        if self._writes_back:
            self._write_back(action)
        self._pending = self._controller.last_event
        return StepOutcome(True, f"{action}: {len(steps)} AI2-THOR step(s) done")

    def use_world(self, world: WorldModel, *, writes_back: bool) -> None:
        """Check and perceive against another belief from now on (`writes_back`: this executor records each
        action's effects in it, because the `run_plan` it serves writes to a different world model)."""
        with self.lock:
            self.flush()
            self._world = world
            self._writes_back = writes_back
            self._expected, self._goal = [], None

    def flush(self) -> None:
        """Perceive the last successful action's event, if not done yet."""
        with self.lock:
            if self._pending is not None:
                event, self._pending = self._pending, None
                self._perceive(event)

    def finish(self) -> None:
        """The end of a plan's run (the executor node calls it): perceive the last action's event."""
        self.flush()

    def reached(self, goal: str) -> bool:
        """Whether what the agent sees makes `goal` (PDDL) true: the last action's event is perceived first, then
        the controller's latest event if another client stepped it since (each batch sent, and with the bridge
        applied by the world model, before this returns); the goal is then checked against the belief. The
        executor node and `ThorSession.run` ask this when a plan has run to its end, and re-plan on False."""
        with self.lock:
            self.flush()
            event = self._controller.last_event
            if event is not None and event is not self._last_seen_event:
                self._perceive(event)
            return validate_plan(self._world.domain, self._world.graph, [], goal).valid

    def look(self) -> Observation | None:
        """Perceive the controller's latest event if no batch came from it yet (another client stepped it); the
        batch sent, or None when nothing changed, an action is running or a plan's last event waits for the plan
        (a look never runs between a plan's actions and their effects: the plan perceives its own events)."""
        if not self.lock.acquire(blocking=False):
            return None
        try:
            event = self._controller.last_event
            if self._pending is not None or event is None or event is self._last_seen_event:
                return None
            count = len(self.perceived)
            self._perceive(event)
            return self.perceived[-1] if len(self.perceived) > count else None
        finally:
            self.lock.release()

    @property
    def _effects(self) -> ActionEffects:
        """The domain's action effects, compiled on first use (a survey alone never needs them)."""
        if self._effects_of is None:
            self._effects_of = ActionEffects(self._world.domain)
        return self._effects_of

    def _surprise(self, action: str) -> str | None:
        """Why what was seen stops `action` (its preconditions, or the rest of the expected plan), or None."""
        graph = self._world.graph
        try:
            false = self._effects.unsatisfied(graph, action)
        except ProblemError as exc:
            return str(exc)
        if false:
            return f"what the agent saw makes {action} impossible: {', '.join(false)}"
        if self._goal is not None and action in self._expected:
            rest = self._expected[self._expected.index(action):]
            verdict = validate_plan(self._world.domain, graph, rest, self._goal)
            self._expected = rest[1:]
            if not verdict.valid:
                return f"what the agent saw breaks the rest of the plan: {verdict.message}"
        return None

    def _pose(self, name: str) -> Pose | None:
        """The interaction pose of an entity where the agent last saw it (None if never seen)."""
        seen = self._perception.seen_as(name)
        return None if seen is None else self._poses.pose(seen)

    def _write_back(self, action: str) -> None:
        try:
            self._world.apply(self._effects.delta(self._world.graph, action), source="plan", input=action)
        except (DeltaRejected, ProblemError) as exc:
            self.rejected.append(f"{action}: {exc}")

    def _perceive(self, event: Any, *, survey: bool = False) -> None:
        self._last_seen_event = event
        observation = self._perception.observe(event.metadata, self._world.graph, at=self._at, survey=survey)
        if not observation.facts and not observation.entities and not observation.remove_entities:
            return
        try:
            self._world.perceive(observation)
        except DeltaRejected as exc:
            self.rejected.append(str(exc))
            return
        self.perceived.append(observation)
        if self._on_perceived is not None:
            self._on_perceived(observation)
