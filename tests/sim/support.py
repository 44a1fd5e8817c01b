"""Shared checks of the simulator tests."""

from __future__ import annotations

from l3mp_sim.simulator import PosedTask, Simulator

from tests.helpers import verifier


def carry_out(sim: Simulator, posed: PosedTask) -> None:
    """The robot does a posed task in the truth: every gold step runs there, then the gold goal holds and the
    truth still obeys the domain and its rules."""
    for action in posed.gold_plan:
        assert sim.execute(action).ok, action
    assert sim.goal_holds(posed.task)
    assert verifier().check_state(sim.truth.graph) == []
