"""unified-planning engines written for l3mp, and their registration in unified-planning's factory."""

from unified_planning.shortcuts import get_environment

from l3mp.planning.engines.lapkt import LAPKTPlanner


def register_engines() -> None:
    """Add the LAPKT engine to unified-planning's factory as ``lapkt`` (once); silence the credits banner."""
    env = get_environment()
    env.credits_stream = None
    if "lapkt" not in env.factory.engines:
        env.factory.add_engine("lapkt", "l3mp.planning.engines.lapkt", "LAPKTPlanner")


__all__ = ["LAPKTPlanner", "register_engines"]
