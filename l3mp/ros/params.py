"""The ROS parameters of every l3mp node: name, type, default and description, declared in one place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from l3mp.errors import FormatError
from l3mp.llm.settings import LLMSettings


@dataclass(frozen=True)
class Param:
    """One declared parameter; the type is that of `default` (str, bool, int or float)."""

    name: str
    default: str | bool | int | float
    description: str


COMMON = (
    Param("domain", "household", "PDDL domain: a shipped domain name or a path to a .pddl file"),
    Param("rules", "", "world-state rules file (YAML); empty: the domain's <name>.rules.yaml if shipped"),
    Param("world_model", "world_model", "name (relative topic prefix) of the world-model node to talk to"),
    Param("diagnostics_period_s", 1.0, "seconds between diagnostics on /diagnostics"),
)

LLM = (
    Param("llm.provider", "", "LLM provider: embedded | openai | compatible; empty: $L3MP_LLM_PROVIDER or embedded"),
    Param("llm.base_url", "", "endpoint of a compatible provider, e.g. http://127.0.0.1:8000/v1; empty: unset"),
    Param("llm.model", "", "model name; empty: the provider's default"),
    Param("llm.timeout_s", 120.0, "seconds one LLM call may take"),
    Param("llm.cache", False, "replay identical LLM requests from the SQLite response cache"),
)

WORLD_MODEL = (
    *COMMON,
    *LLM,
    Param("store_path", "", "store directory; empty: $L3MP_STORE, else $XDG_DATA_HOME/l3mp/world"),
    Param("fsync", True, "fsync the journal before a change is acknowledged (off only for tests and benchmarks)"),
    Param("snapshot_every", 10_000, "records between compacted snapshots of the store"),
    Param("update.retrieval", "search", "retrieval for NL updates: full | entities | search (R-, R+, R^S)"),
    Param("update.verify", True, "verify LLM proposals and re-prompt with the verifier's messages"),
    Param("update.max_attempts", 3, "LLM attempts per NL update (1 when update.verify is false)"),
    Param("update.max_delta", 24, "most facts one NL update may change"),
    Param("update.read_text", True, "with update.verify: read plain reports without the LLM (l3mp.updates.reading)"),
    Param("update.depth", 1, "fact depth around retrieved entities (entities and search retrieval)"),
    Param("state_period_s", 1.0, "least seconds between two publications of ~/state while the graph changes"),
    Param("limits.max_message_bytes", 8_000_000, "largest accepted request message in bytes"),
    Param("limits.max_batch_triplets", 100_000, "most triplets in one perception message"),
    Param("limits.max_queue", 32, "most NL updates waiting; more are refused with an error"),
)

PLANNER = (
    *COMMON,
    *LLM,
    Param("planner", "lapkt", "planner engine: lapkt | fast-downward"),
    Param("retrieval", "search", "retrieval for goals and :init: full | entities | search"),
    Param("retrieval_depth", 1, "fact depth around retrieved entities (entities and search retrieval)"),
    Param("timeout_s", 60.0, "planner seconds per attempt"),
    Param("max_expansions", 2, "times the context is widened after no plan or an invalid plan"),
    Param("goal_attempts", 3, "LLM attempts to write a valid goal"),
    Param("execute_by_default", True, "a task request without 'execute' asks the executor to run its plan"),
    Param("limits.max_message_bytes", 1_000_000, "largest accepted task message in bytes"),
    Param("limits.max_queue", 16, "most tasks waiting; more are refused with an error"),
)

EXECUTOR = (
    *COMMON,
    Param("planner_node", "planner", "name (relative topic prefix) of the planner node, for plans and replanning"),
    Param("adapter", "graph", "world adapter: graph (a simulated copy of the believed state) or module:factory"),
    Param("adapter_options", "{}", "JSON object passed to the adapter factory"),
    Param("max_replans", 3, "replanning rounds per plan after a failed or blocked step"),
    Param("ack_timeout_s", 10.0, "seconds to wait for the world model to acknowledge a step's effects"),
    Param("replan_timeout_s", 300.0, "seconds to wait for the planner's answer to a replanning request"),
    Param("limits.max_message_bytes", 1_000_000, "largest accepted plan message in bytes"),
    Param("limits.max_queue", 16, "most plans waiting; more are refused with an error"),
)

SPEECH = (
    *COMMON,
    Param("enabled", False, "start the speech node with the stack in l3mp-ros-bringup (ros2 launch: speech:=true)"),
    Param("planner_node", "planner", "name (relative topic prefix) of the planner node that gets spoken tasks"),
    Param("min_confidence", 0.5, "below this transcript confidence (0..1) the robot asks back"),
    Param("dictation.base_url", "", "OpenAI-compatible transcription endpoint for speech the grammar is unsure of; "
          "empty: $L3MP_SPEECH_DICTATION_URL, else offline only"),
    Param("dictation.model", "", "its model; empty: $L3MP_SPEECH_DICTATION_MODEL or whisper-1"),
    Param("limits.max_message_bytes", 100_000, "largest accepted ~/audio_wav message in bytes"),
    Param("limits.max_queue", 8, "most utterances waiting; more are refused with an error"),
)

THOR_BRIDGE = (
    *COMMON,
    Param("enabled", False, "start the AI2-THOR bridge with the stack in l3mp-ros-bringup (config/l3mp_thor.yaml)"),
    Param("scene", "FloorPlan1", "the iTHOR scene of the controller (FloorPlan1-30, 201-230, 301-330, 401-430)"),
    Param("offline", False, "use the TEST DOUBLE controller (real iTHOR metadata, approximated physics) instead of "
          "AI2-THOR"),
    Param("executable", "", "a local AI2-THOR Unity build; empty: ai2thor's own (downloaded on first use)"),
    Param("host_executor", False, "also run the executor node in this process, sharing the controller "
          "(ros2 launch l3mp_thor.launch.py; the bringup starts it itself)"),
    Param("poll_period_s", 0.5, "seconds between looks at the controller's latest event; 0: only the events of "
          "plan steps"),
    Param("ack_timeout_s", 10.0, "seconds a plan step waits for the world model to apply its perception batch"),
    Param("limits.max_queue", 1000, "most perception batches waiting to be published"),
)

NODES: dict[str, tuple[Param, ...]] = {"world_model": WORLD_MODEL, "planner": PLANNER, "executor": EXECUTOR,
                                       "speech": SPEECH, "thor_bridge": THOR_BRIDGE}
"""Declared parameters by node name (the names the launch files and config/*.yaml use)."""


def declare(node: Any, params: tuple[Param, ...]) -> dict[str, Any]:
    """Declare `params` on an rclpy node (typed, described, read-only) and return their values by name."""
    from rcl_interfaces.msg import ParameterDescriptor

    values = {}
    for param in params:
        descriptor = ParameterDescriptor(name=param.name, description=param.description, read_only=True)
        values[param.name] = node.declare_parameter(param.name, param.default, descriptor).value
    return values


def llm_settings(values: dict[str, Any]) -> LLMSettings:
    """LLM settings from declared parameters (empty strings are unset), over the environment and defaults."""
    params = {}
    for name, value in values.items():
        if name.startswith("llm."):
            params[name.removeprefix("llm.")] = None if value == "" else value
    return LLMSettings.from_sources(params=params)


def check_retrieval(mode: str, where: str) -> None:
    """FormatError, saying `where` the value came from, unless `mode` is a retrieval mode or its paper name."""
    from l3mp.retrieval import ALIASES, MODES

    if mode not in MODES and mode not in ALIASES:
        raise FormatError(f"unknown retrieval {mode!r} in {where}; valid: {', '.join(MODES)} "
                          f"(or the paper's {', '.join(ALIASES)})")
