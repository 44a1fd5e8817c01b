"""Console scripts of the ROS layer: one node per process (``ros2 run`` / launch files) or the bringup that starts
the nodes in one process from the same parameters YAML (where ``ros2 launch`` is not available)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from l3mp.domain.paths import share_dirs
from l3mp.errors import L3mpError

NODE_NAMES = ("world_model", "planner", "executor")
OPTIONAL_NODES = ("speech", "thor_bridge")
"""Nodes the bringup starts only when their ``enabled`` parameter is true in its parameters file (or --nodes names
them)."""
DEFAULT_PARAMS = "l3mp.yaml"
# How soon a stop signal ends the spin when no message arrives.
STOP_POLL_SECONDS = 0.2


def prepare_environment() -> None:
    """Make the ROS wheels of this Python environment findable: they need AMENT_PREFIX_PATH to name it."""
    prefix = sys.prefix
    if not (Path(prefix) / "share" / "ament_index").is_dir():
        return
    paths = [p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    if prefix not in paths:
        os.environ["AMENT_PREFIX_PATH"] = os.pathsep.join([*paths, prefix])


def node_factory(name: str) -> Callable[[], Any]:
    """The class of the node called `name` (imported after `prepare_environment`)."""
    if name == "world_model":
        from l3mp.ros.world_model_node import WorldModelNode

        return WorldModelNode
    if name == "planner":
        from l3mp.ros.planner_node import PlannerNode

        return PlannerNode
    if name == "executor":
        from l3mp.ros.executor_node import ExecutorNode

        return ExecutorNode
    if name == "speech":
        from l3mp.ros.speech_node import SpeechNode

        return SpeechNode
    if name == "thor_bridge":
        from l3mp.ros.thor_bridge import ThorBridgeNode

        return ThorBridgeNode
    raise L3mpError(f"unknown node {name!r}; valid: {', '.join(NODE_NAMES + OPTIONAL_NODES)}")


def run_nodes(names: Sequence[str], argv: Sequence[str]) -> int:
    """Start the named nodes in this process with ROS arguments `argv`, spin them on one executor thread
    until SIGINT or SIGTERM, then close them (flushing the store, releasing the LLM). 0, or 1 if a node cannot
    start (the reason on stderr)."""
    prepare_environment()
    import rclpy
    from rclpy.exceptions import ParameterException
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
    from rclpy.signals import SignalHandlerOptions

    # Our own SIGINT/SIGTERM handlers only set `stop`. rclpy's handlers end in a KeyboardInterrupt that can land
    # while rclpy converts an incoming message, which then fails as a RuntimeError ("Unable to convert call
    # argument '0' to Python object") instead of a clean stop.
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    rclpy.init(args=list(argv), signal_handler_options=SignalHandlerOptions.NO)
    nodes: list[Any] = []
    code = 0
    try:
        for name in names:
            nodes.append(node_factory(name)())
            if name == "thor_bridge" and nodes[-1].params["host_executor"] and "executor" not in names:
                nodes.append(nodes[-1].hosted_executor(argv))  # one process, one AI2-THOR controller
        # One executor thread: callbacks only hand work to the nodes' worker threads or do short work under a lock.
        # rclpy's MultiThreadedExecutor delayed deliveries by 0.1-1.3 s on an idle 2-core machine (task latency
        # minus planner: p50 207 ms against 10 ms with this one; `l3mp bench ros`).
        executor = SingleThreadedExecutor()
        for node in nodes:
            executor.add_node(node)
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=STOP_POLL_SECONDS)
    except ExternalShutdownException:
        pass
    except (L3mpError, ValueError, OSError, ParameterException) as exc:
        print(f"l3mp: cannot start {', '.join(names)}: {exc}", file=sys.stderr)
        code = 1
    finally:
        for node in reversed(nodes):
            node.close()
            node.destroy_node()
        rclpy.try_shutdown()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return code


def world_model_main() -> int:
    return run_nodes(["world_model"], sys.argv)


def planner_main() -> int:
    return run_nodes(["planner"], sys.argv)


def executor_main() -> int:
    return run_nodes(["executor"], sys.argv)


def speech_main() -> int:
    return run_nodes(["speech"], sys.argv)


def thor_bridge_main() -> int:
    return run_nodes(["thor_bridge"], sys.argv)


def config_path(name: str = DEFAULT_PARAMS) -> Path:
    """A shipped parameters file (``config/<name>``), from the checkout or an install."""
    for base in share_dirs():
        path = base / "config" / name
        if path.is_file():
            return path
    searched = ", ".join(str(d / "config") for d in share_dirs())
    raise L3mpError(f"no shipped parameters file {name} (looked in {searched})")


def bringup_args(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """The node names and the ROS arguments of a bringup command line."""
    parser = argparse.ArgumentParser(prog="l3mp-ros-bringup", description="Start l3mp's ROS 2 nodes in one process "
                                     "with a parameters YAML (the same files the launch files use).")
    parser.add_argument("--params-file", metavar="YAML", help=f"parameters (default: the shipped {DEFAULT_PARAMS})")
    parser.add_argument("--nodes", help=f"comma-separated nodes to start (default: {','.join(NODE_NAMES)}, and "
                        f"{', '.join(OPTIONAL_NODES)} when enabled in the parameters file)")
    ours, ros = (list(argv), []) if "--ros-args" not in argv else \
        (list(argv[:argv.index("--ros-args")]), list(argv[argv.index("--ros-args") + 1:]))
    args = parser.parse_args(ours)
    params = Path(args.params_file) if args.params_file else config_path()
    if not params.is_file():
        parser.error(f"no parameters file {params}")
    names = [n.strip() for n in args.nodes.split(",") if n.strip()] if args.nodes is not None else [
        *NODE_NAMES, *enabled_nodes(params)]
    unknown = [n for n in names if n not in NODE_NAMES + OPTIONAL_NODES]
    if unknown or not names:
        parser.error(f"unknown node(s) {', '.join(unknown) or '(none given)'}; valid: "
                     f"{', '.join(NODE_NAMES + OPTIONAL_NODES)}")
    return names, ["l3mp-ros-bringup", "--ros-args", "--params-file", str(params), *ros]


def enabled_nodes(params: Path) -> list[str]:
    """The optional nodes whose ``enabled`` parameter is true in the parameters YAML `params`."""
    import yaml

    try:
        document = yaml.safe_load(params.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return []  # the nodes say what is wrong with the file when they load it
    return [name for name in OPTIONAL_NODES
            if isinstance(document, dict) and ((document.get(name) or {}).get("ros__parameters") or {}).get("enabled")
            is True]


def bringup_main(argv: Sequence[str] | None = None) -> int:
    """``l3mp-ros-bringup [--params-file YAML] [--nodes a,b] [--ros-args ...]``."""
    try:
        names, ros_args = bringup_args(sys.argv[1:] if argv is None else argv)
    except L3mpError as exc:
        print(f"l3mp-ros-bringup: {exc}", file=sys.stderr)
        return 2
    return run_nodes(names, ros_args)
