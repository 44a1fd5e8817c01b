"""Latency of the embedded LLM runtime with two purposes alternating (reproduces docs/benchmarks/llm-runtime.md).

Each call: a fixed ~700-token system prompt per purpose (an "update" one and a "retrieval" one), a ~100-token
variable user message (different every call), and a JSON-schema-constrained answer of ~40 tokens. The two purposes
alternate, as the query graph and the update prompt do in one ``l3mp update``. One warm-up call per purpose, then
`--rounds` rounds. All variants' servers run at once and their calls interleave (the cores are shared with other
work; this spreads its load evenly). Per call it records wall seconds and what llama-server reports: prompt tokens,
tokens taken from its cache, prompt and generation milliseconds.

    .venv/bin/python docs/benchmarks/llm_runtime.py --variant slots --variant single --rounds 6 --json out.json

Variants: ``single`` (one slot, no pinning: the runtime before per-purpose slots), ``slots`` (one slot per
purpose, pinned), and ``slots+FLAGS`` / ``single+FLAGS`` with extra llama-server flags, e.g.
``slots+--flash-attn on`` or ``slots+--threads-batch 2`` (split on spaces).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import psutil

from l3mp.llm import embedded
from l3mp.llm.client import ChatLLM
from l3mp.llm.embedded import SLOTS, EmbeddedServer, default_threads
from l3mp.llm.settings import LLMSettings
from l3mp.llm.types import Usage

ROOMS = ["kitchen", "bathroom", "bedroom", "living_room", "hallway", "office", "laundry_room", "garage"]
KINDS = [("light", "light_on"), ("faucet", "faucet_on"), ("door", "is_open"), ("mug", "in"), ("plate", "on"),
         ("tv", "device_on"), ("window", "is_open"), ("fridge", "is_open")]
PEOPLE = ["jessica", "tom", "maria", "ken"]


def entities() -> list[str]:
    return [f"{kind}_{i + 1}" for i, (kind, _) in enumerate(KINDS)] + [
        f"{kind}_{room}" for room in ROOMS[:6] for kind, _ in KINDS[:3]]


def fixed_prefix(purpose: str) -> str:
    """~700 tokens that do not change between calls of one purpose (instructions, domain, entity table)."""
    names = entities()
    table = "\n".join(f"- {name}: a {name.split('_')[0]} in the {ROOMS[i % len(ROOMS)].replace('_', ' ')}, "
                      f"type {name.split('_')[0]}, label \"the {name.replace('_', ' ')}\""
                      for i, name in enumerate(names))
    rules = "\n".join(f"- ({predicate} ?x): true when the {kind} is {predicate.replace('_', ' ')}"
                      for kind, predicate in KINDS)
    task = ("You update the robot's world model from one sentence. State only what the sentence says changed."
            if purpose == "update" else
            "You read one request and list the entities it mentions and the relations between them.")
    return (f"{task}\nAnswer with JSON only, matching the schema.\n\nPredicates:\n{rules}\n\nEntities of the "
            f"house (use these names exactly):\n{table}\n\nPeople: {', '.join(PEOPLE)}.\n"
            "Never invent an entity. If the sentence is not about the house, answer with an empty list.")


def variable_part(i: int) -> str:
    """~100 tokens that differ on every call (the sentence and the facts around it)."""
    person, room = PEOPLE[i % len(PEOPLE)], ROOMS[(i * 3) % len(ROOMS)]
    facts = "; ".join(f"({predicate} {kind}_{ROOMS[(i + j) % len(ROOMS)]})" for j, (kind, predicate)
                      in enumerate(KINDS[:3]))
    return (f"Call {i}. Current facts near the mention: {facts}; (at {person} {room}); (holding robot nothing). "
            f"Sentence: \"{person.title()} came into the {room.replace('_', ' ')}, switched the light off and "
            f"opened the door, then left the faucet running for a while before going to the "
            f"{ROOMS[(i + 1) % len(ROOMS)].replace('_', ' ')}, where the {KINDS[i % len(KINDS)][0]} was.\" "
            "Say which one fact changed first.")


def schema() -> dict:
    names = entities()
    predicates = sorted({p for _, p in KINDS})
    change = {"type": "object", "properties": {"entity": {"type": "string", "enum": names},
                                               "predicate": {"type": "string", "enum": predicates},
                                               "value": {"type": "boolean"}},
              "required": ["entity", "predicate", "value"], "additionalProperties": False}
    return {"type": "object", "properties": {"changes": {"type": "array", "items": change, "minItems": 1,
                                                         "maxItems": 1}},
            "required": ["changes"], "additionalProperties": False}


class Variant:
    """One server configuration and its client; `call` runs one request and records it."""

    def __init__(self, name: str, threads: int) -> None:
        self.name = name
        base, _, flags = name.partition("+")
        self.pinned = base == "slots"
        self.server = EmbeddedServer(threads=threads, slots=SLOTS if self.pinned else ("any",),
                                     extra_args=flags.split(), start_timeout_s=300)
        self.threads = threads
        self.calls: list[dict] = []
        self.llm: ChatLLM | None = None

    def start(self) -> None:
        started = time.perf_counter()
        self.server.acquire()
        self.start_s = time.perf_counter() - started
        self.llm = ChatLLM(LLMSettings(max_tokens=200, timeout_s=600), base_url=self.server.base_url,
                           api_key=self.server.api_key, slots=self.server.slot_ids if self.pinned else None)

    def call(self, i: int) -> None:
        purpose = ("update", "retrieval")[i % 2]
        messages = [{"role": "system", "content": fixed_prefix(purpose)},
                    {"role": "user", "content": variable_part(i)}]
        t = time.perf_counter()
        reply = self.llm.complete_json(messages, schema=schema(), schema_name="bench", purpose=purpose)
        seconds = time.perf_counter() - t
        u: Usage = reply.usage
        self.calls.append({"i": i, "purpose": purpose, "warmup": i < 0, "seconds": round(seconds, 3),
                           "prompt_tokens": u.prompt_tokens, "cached_prompt_tokens": u.cached_prompt_tokens,
                           "completion_tokens": u.completion_tokens, "prompt_ms": u.prompt_ms,
                           "completion_ms": u.completion_ms, "load1": round(os.getloadavg()[0], 2)})
        print(f"{self.name:>32} {purpose:>9} {seconds:6.2f} s  prompt {u.prompt_tokens} (cached "
              f"{u.cached_prompt_tokens}, {u.prompt_ms} ms), answer {u.completion_tokens} tokens "
              f"({u.completion_ms} ms)", flush=True)

    def stop(self) -> dict:
        rss = psutil.Process(self.server.pid).memory_info().rss
        self.llm.close()
        self.server.release()
        measured = [c for c in self.calls if not c["warmup"]]

        def median(key: str) -> float:
            return round(statistics.median(c[key] or 0 for c in measured), 2)

        return {"variant": self.name, "threads": self.threads, "start_s": round(self.start_s, 2),
                "rss_mib": rss >> 20, "calls_measured": len(measured), "median_s": median("seconds"),
                "p90_s": round(sorted(c["seconds"] for c in measured)[int(0.9 * (len(measured) - 1))], 2),
                "median_prompt_tokens": median("prompt_tokens"), "median_cached": median("cached_prompt_tokens"),
                "median_completion_tokens": median("completion_tokens"), "median_prompt_ms": median("prompt_ms"),
                "median_completion_ms": median("completion_ms"), "median_load1": median("load1"),
                "calls": self.calls}


def run(names: list[str], rounds: int, threads: int) -> list[dict]:
    """Start every variant's server, then interleave the calls (call i of every variant, then call i+1), so
    that the load of other processes on the shared cores falls on all variants alike."""
    variants = [Variant(name, threads) for name in names]
    try:
        for variant in variants:
            variant.start()
        for i in range(-2, 2 * rounds):
            for variant in variants:
                variant.call(i)
    finally:
        results = [variant.stop() for variant in variants if variant.llm is not None]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", required=True)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--json", type=Path)
    parser.add_argument("--untuned", action="store_true",
                        help="start from no flags instead of l3mp's TUNED_ARGS (as the published rows were measured)")
    args = parser.parse_args()
    if args.untuned:
        embedded.TUNED_ARGS = ()
    results = run(args.variant, args.rounds, args.threads)
    for result in results:
        print(json.dumps({k: v for k, v in result.items() if k != "calls"}), flush=True)
    if args.json:
        previous = json.loads(args.json.read_text()) if args.json.exists() else []
        args.json.write_text(json.dumps(previous + results, indent=1))


if __name__ == "__main__":
    main()
