"""The AI2-THOR bridge node: the controller's events, as perception batches, on the world model's perception topic.

It holds the process's `l3mp.thor.adapter.ThorLink` for its scene (a real ``ai2thor.controller.Controller``, or
with ``offline: true`` the TEST DOUBLE of `l3mp.thor.offline`). Every batch the link's perception makes goes to
``<world_model>/perception`` in order, as perception JSON (`Observation.to_json`; a fact no longer true with an
object is ``[s, p, o, false]``):

- the survey of the scene when the link starts (against the world model's graph, so only what differs);
- what the agent saw after each plan step, when the executor node's AI2-THOR adapter (`l3mp.thor.adapter:make`)
  runs in the same process on the same link: the step waits (``ack_timeout_s``) until the world model applied
  the batch, so a surprise is in the world model before the executor asks the planner for a new plan;
- every ``poll_period_s``, the controller's latest event if no batch came from it yet (someone else stepped it).

Batches are incremental: the link's perception diffs each event against its belief, which starts as the world
model's graph and takes every batch sent (and, with the executor adapter, each plan's state and effects).

One controller per process: the bridge and the adapter share it only when their options name the same scene,
``offline`` and ``executable``. The bringup (``l3mp-ros-bringup --params-file config/l3mp_thor.yaml``) runs
every node in one process; ``ros2 launch l3mp l3mp_thor.launch.py`` runs the executor in the bridge's process
(``host_executor``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from typing import Any

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup

from l3mp.errors import L3mpError
from l3mp.ros import protocol as m
from l3mp.ros.base import L3mpNode
from l3mp.ros.follow import Follower
from l3mp.ros.health import ERROR, OK, WARN, age
from l3mp.ros.params import THOR_BRIDGE
from l3mp.ros.replica import Replica
from l3mp.ros.worker import Worker
from l3mp.world.model import Observation

WORKER = "l3mp-thor-bridge"
IDLE_S = 0.2
"""How often the worker looks for the world model's state before the link starts (and without polling)."""


class ThorBridgeNode(L3mpNode):
    """Publishes the perception batches of the process's AI2-THOR link on the world model's perception topic
    (see the module docstring); each batch's outcome goes to ``~/results``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("thor_bridge", THOR_BRIDGE, results_topic=f"~/{m.RESULTS}", **kwargs)
        p = self.params
        if "the_robot" not in self.domain.constants or not self.domain.has_type("counter_top"):
            raise L3mpError(f"the AI2-THOR bridge needs the thor domain (parameter domain: thor), not "
                            f"{self.domain.name!r}")
        self.options = {"scene": p["scene"], "offline": p["offline"], "executable": p["executable"] or None}
        from l3mp.thor.scenes import scene_kind

        scene_kind(p["scene"])  # a ThorError (an L3mpError) now for a scene that is not an iTHOR scene
        world = p["world_model"]
        self._perception = m.Requester(self, m.topic(world, m.PERCEPTION), m.topic(world, m.RESULTS),
                                       kind="perception", group=MutuallyExclusiveCallbackGroup())
        self.replica = Replica(self.domain, self.rules)
        self.follower = Follower(self, self.replica, world, MutuallyExclusiveCallbackGroup())
        self.link: Any = None
        self.link_error = ""
        self.sent = self.triplets = self.refused = self.dropped = 0
        self.last_batch: float | None = None
        self._stopping = threading.Event()
        poll = p["poll_period_s"]
        self._worker = Worker(WORKER, self._publish, capacity=p["limits.max_queue"], failed=self._failed,
                              idle=self._idle, idle_s=poll if poll > 0 else IDLE_S)

    # ---- the link ----------------------------------------------------------------------------
    def _idle(self) -> None:
        """On the worker thread: start the link once the world model's state is here, then look now and then."""
        self.follower.poll()
        if self.link is None:
            if self.replica.synced and not self.link_error:
                self._start_link()
            return
        if self.params["poll_period_s"] > 0:
            self.link.look()

    def _start_link(self) -> None:
        from l3mp.thor.adapter import shared_link

        try:
            link = shared_link(self.domain, self.options, belief=self.replica.graph)
        except L3mpError as exc:
            self.link_error = str(exc)
            self.get_logger().error(f"the AI2-THOR controller cannot start: {exc}")
            return
        link.listen(self._on_batch)  # replays the batches so far (the survey) into the queue
        self.link = link
        kind = "the TEST DOUBLE controller (offline)" if self.params["offline"] else "AI2-THOR"
        self.get_logger().info(f"{kind} on {link.scene}: publishing perception to "
                               f"{m.topic(self.params['world_model'], m.PERCEPTION)}")

    def _on_batch(self, observation: Observation) -> None:
        """A batch of the link (any thread): queue it; a plan step's thread waits until the world model has it."""
        done = threading.Event()
        if not self._worker.submit((observation, done)):
            self.dropped += 1
            self.get_logger().error(f"perception batch {observation.observation_id} dropped: "
                                    f"{self._worker.depth} batches wait (limits.max_queue)")
            return
        if threading.current_thread().name != WORKER and self.link is not None:
            done.wait(self.params["ack_timeout_s"])

    # ---- publishing (the worker thread) --------------------------------------------------------
    def _publish(self, job: tuple[Observation, threading.Event]) -> None:
        observation, done = job
        try:
            payload = observation.to_json()
            ident = observation.observation_id or m.new_id(m.PERCEPTION)
            payload["observation_id"] = ident
            reply = None
            while reply is None and not self._stopping.is_set():
                reply = self._perception.call(payload, self.params["ack_timeout_s"], ident=ident)
            if reply is None:
                return
            self.sent += 1
            self.triplets += len(payload["triplets"])
            self.last_batch = time.time()
            batches = reply.get("batches") or [{}]
            accepted = bool(reply.get("ok")) and all(b.get("accepted") for b in batches)
            if not accepted:
                self.refused += 1
            fields = {"triplets": len(payload["triplets"]), "entities": len(payload.get("entities", {})),
                      "seq": batches[0].get("seq"), "world_model": reply}
            if accepted:
                self.publish_result(m.result(m.PERCEPTION, ident, True, **fields))
            else:
                message = (reply.get("error") or {}).get("message") or str(batches[0].get("violations"))
                self.publish_result(m.error(m.PERCEPTION, ident, "rejected", f"the world model refused the batch: "
                                            f"{message}", **fields))
        finally:
            done.set()

    def _failed(self, job: tuple[Observation, threading.Event], exc: Exception) -> None:
        job[1].set()
        self.publish_result(m.error(m.PERCEPTION, job[0].observation_id or m.new_id(m.PERCEPTION), "internal",
                                    f"{type(exc).__name__}: {exc}"))

    def hosted_executor(self, argv: Sequence[str]) -> Any:
        """An executor node in this process (``host_executor``) whose AI2-THOR adapter uses this bridge's
        controller: the process's ROS arguments `argv` without its node-name remap, the adapter and its options
        from the bridge's parameters."""
        from rclpy.parameter import Parameter

        from l3mp.ros.executor_node import ExecutorNode

        options = {k: v for k, v in self.options.items() if v is not None}
        overrides = [Parameter("adapter", value="l3mp.thor.adapter:make"),
                     Parameter("adapter_options", value=json.dumps(options))]
        return ExecutorNode(context=self.context, use_global_arguments=False, cli_args=hosted_args(argv),
                            parameter_overrides=overrides)

    # ---- health --------------------------------------------------------------------------------
    def checks(self) -> dict[str, tuple[int, str]]:
        if self.link_error:
            controller = (ERROR, self.link_error)
        elif self.link is None:
            controller = (WARN, "waiting for the world model's state before starting")
        elif self.params["offline"]:
            controller = (OK, f"TEST DOUBLE (offline) on {self.link.scene}, step {self.link.perception.step}")
        else:
            controller = (OK, f"AI2-THOR on {self.link.scene}, step {self.link.perception.step}")
        perception = (OK, "connected") if self._perception.connected() else \
            (WARN, "the world model's perception topic has no subscriber")
        refused = (OK, "none") if not self.refused else (WARN, f"{self.refused} batch(es) refused")
        return {"world_model": self.follower.check(), "controller": controller, "perception": perception,
                "refused_batches": refused}

    def values(self) -> dict[str, Any]:
        return {**super().values(), "batches_sent": self.sent, "triplets_sent": self.triplets,
                "dropped_batches": self.dropped, "queue_depth": self._worker.depth,
                "last_batch": age(self.last_batch)}

    def close(self) -> None:
        self._stopping.set()
        self._worker.stop(timeout_s=self.params["ack_timeout_s"] + 5)


def hosted_args(argv: Sequence[str]) -> list[str]:
    """The ROS arguments of this process for another node in it: all but the remaps of the node's name (which
    ``ros2 launch`` gives for the process's own node)."""
    out: list[str] = []
    ros = False
    args = list(argv)
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--ros-args":
            ros = True
            out.append(arg)
        elif arg == "--":
            ros = False
        elif ros and arg in ("-r", "--remap") and index + 1 < len(args) and \
                args[index + 1].split(":=")[0].rsplit(":", 1)[-1] in ("__node", "__name"):
            index += 1
        elif ros:
            out.append(arg)
        index += 1
    return out
