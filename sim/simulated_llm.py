"""A simulated LLM for fast, offline evaluation runs: it answers the project's prompts from an oracle (the true
answer the simulator knows) and corrupts its answers at documented, configurable rates.

It is an evaluation instrument, not a language model: it measures how the rest of l3mp (retrieval,
verification with re-prompting, planning, execution) copes with a model that makes the kinds of mistakes
LLMs make. It answers the four prompt kinds by their schema name: ``kg_update`` (Algorithm 3), ``entity_selection``
(R+), ``query_graph`` (R^S) and ``pddl_goal`` (Algorithm 4). Its text goes through the same parsing and schema
check as a real model's (`parse_and_validate`), and its token use is counted with the project's counter.

What it can know is limited the way a model's is: it can only name entities its prompt shows (the schema's
enums), it states what holds after an event (new places, new states; the program derives the old places from
the memory, as for a real model), it reads prompts through the prompt contract (`l3mp.llm.contract`), it
recognises an entity for R+ only by the words of its name and label, and for R^S it describes
entities with the words the request used. Errors, each drawn at most once per answer with probability
``rate x (1 + context_per_1k x prompt_tokens / 1000)`` (longer prompts, more mistakes; set ``context_per_1k``
to 0 to turn that off):

- ``wrong_predicate``: one change (or goal literal) gets another predicate of the same arity;
- ``wrong_entity``: one argument (or selected entity) becomes another entity of the same type from the prompt;
- ``missed_fact``: one change, goal literal, selected entity or query node is left out;
- ``hallucinated_entity``: one argument becomes a name that is not in the memory (breaks the schema's enum);
- ``malformed``: the answer is cut off mid-JSON.

On a re-prompt it answers again with fresh draws (it does not read the feedback). Draws are seeded by the
seed and the whole prompt, so a run is reproducible and resumable without extra state.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact
from l3mp.errors import LLMError
from l3mp.llm.client import count_message_tokens, count_tokens
from l3mp.llm.contract import ENTITY_SELECTION, KG_UPDATE, PDDL_GOAL, QUERY_GRAPH, read_user_message
from l3mp.llm.jsonparse import parse_and_validate
from l3mp.llm.types import LLMReply, Message, TokenLedger, Usage
from l3mp.world.delta import Delta

ERROR_KINDS = ("wrong_predicate", "wrong_entity", "missed_fact", "hallucinated_entity", "malformed")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"the", "a", "an", "in", "on", "of", "to", "from", "s", "and"})


@dataclass(frozen=True)
class ErrorModel:
    """Base probability of each error kind per answer, and how prompt length raises them."""

    wrong_predicate: float = 0.02
    wrong_entity: float = 0.03
    missed_fact: float = 0.03
    hallucinated_entity: float = 0.02
    malformed: float = 0.01
    context_per_1k: float = 0.3

    def __post_init__(self) -> None:
        for kind in ERROR_KINDS:
            value = getattr(self, kind)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"error rate {kind}={value} must be between 0 and 1")
        if self.context_per_1k < 0:
            raise ValueError(f"context_per_1k={self.context_per_1k} must be >= 0")

    def rate(self, kind: str, prompt_tokens: int) -> float:
        """The probability of `kind` in an answer to a prompt of `prompt_tokens` tokens."""
        return min(1.0, getattr(self, kind) * (1.0 + self.context_per_1k * prompt_tokens / 1000.0))

    @classmethod
    def parse(cls, spec: str) -> ErrorModel:
        """``"none"`` (no errors), ``"default"``, or ``kind=rate,...`` over the defaults
        (e.g. ``"wrong_entity=0.1,malformed=0,context_per_1k=0"``)."""
        spec = spec.strip()
        if spec in ("", "default"):
            return cls()
        if spec == "none":
            return cls(**{k: 0.0 for k in (*ERROR_KINDS, "context_per_1k")})
        values: dict[str, float] = {}
        names = {f.name for f in fields(cls)}
        for part in spec.split(","):
            key, _, raw = part.partition("=")
            key = key.strip()
            if key not in names:
                raise ValueError(f"unknown error kind {key!r} in {spec!r}; valid: {', '.join(sorted(names))}")
            try:
                values[key] = float(raw)
            except ValueError:
                raise ValueError(f"{key}={raw!r}: the rate must be a number") from None
        return cls(**values)

    def to_json(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def spec(self) -> str:
        return ",".join(f"{k}={v:g}" for k, v in self.to_json().items())


@dataclass(frozen=True)
class Oracle:
    """What the simulator knows about the current request: the true changes of an event, the gold goal
    literals of a task (``l3mp.planning.goal.Literal``), the entities the text names (entity -> the words used),
    their types and the relations among them."""

    changes: Delta | None = None
    goal: tuple[Any, ...] = ()
    mentions: Mapping[str, str] = field(default_factory=dict)
    types: Mapping[str, str] = field(default_factory=dict)
    relations: tuple[Fact, ...] = ()
    """True binary facts among the named entities before the request (what a query graph's edges may state)."""


@dataclass
class _Prompt:
    """What the simulated model reads from a prompt: entity listing (name -> (type, label)) and memory facts."""

    entities: dict[str, tuple[str, str]]
    facts: set[Fact]
    tokens: int
    request: str = ""


class SimulatedLLM:
    """The LLM protocol answered from an `Oracle` with errors drawn from an `ErrorModel` (see the module doc)."""

    def __init__(self, domain: Domain, errors: ErrorModel | None = None, *, seed: int = 0,
                 rules: RuleSet | None = None) -> None:
        self._domain = domain
        self._rules = rules if rules is not None else RuleSet.for_domain(domain)
        self.errors = errors or ErrorModel()
        self.seed = seed
        self._oracle: Oracle | None = None
        self.injected: Counter[str] = Counter()
        """Errors injected so far, by kind (including those that later checks caught)."""

    @property
    def name(self) -> str:
        return f"simulated:oracle-with-errors({self.errors.spec()})"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "provider": "simulated", "seed": self.seed, "error_model": self.errors.to_json()}

    def set_oracle(self, oracle: Oracle | None) -> None:
        """What the next calls are about (the runner sets it before each update or task)."""
        self._oracle = oracle

    def close(self) -> None:
        """Nothing to release (same interface as ChatLLM)."""

    def complete_json(
        self,
        messages: Sequence[Message],
        *,
        schema: dict,
        schema_name: str,
        purpose: str,
        ledger: TokenLedger | None = None,
    ) -> LLMReply:
        if self._oracle is None:
            raise LLMError("the simulated LLM has no oracle: call set_oracle() with what the request is about")
        answer = _ANSWERS.get(schema_name)
        if answer is None:
            raise LLMError(f"the simulated LLM cannot answer prompts of kind {schema_name!r}; it knows "
                           f"{', '.join(sorted(_ANSWERS))}")
        prompt = _read_prompt(messages)
        rng = random.Random(_seed(self.seed, schema_name, messages))
        draw = _Errors(self, rng, prompt.tokens)
        try:
            text = json.dumps(answer(self, self._oracle, prompt, schema, draw))
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"the simulated LLM cannot read the {schema_name!r} schema it was given ({exc!r}); it "
                           "answers the schemas of l3mp's own prompts") from exc
        if draw.happens("malformed"):
            text = text[: max(1, len(text) // 2)]
        usage = Usage(prompt.tokens, count_tokens(text), estimated=True)
        if ledger is not None:
            ledger.add(purpose, usage)
        data = parse_and_validate(text, schema)
        return LLMReply(data, text, usage, self.name)

    # ---- kg_update --------------------------------------------------------------------
    def _update(self, oracle: Oracle, prompt: _Prompt, schema: dict, draw: _Errors) -> dict:
        """What holds after the event: each added fact, and each removed fact that no added fact supersedes
        (a state that stopped); only literals the schema lets it write (grounded entities of the right types)."""
        options = _literal_options(schema["properties"]["changes"]["items"])
        delta = oracle.changes or Delta()
        changes = [(fact, True) for fact in delta.add]
        changes += [(fact, False) for fact in delta.remove if not self._supersedes(delta.add, fact)]
        changes = [(f, now) for f, now in changes if f.predicate in options
                   and all(a in o for a, o in zip(f.args, options[f.predicate], strict=True))]
        changes = draw.corrupt_facts(changes, prompt)
        return {"changes": [{"predicate": f.predicate, "args": list(f.args), "true": now} for f, now in changes]}

    def _supersedes(self, added: Sequence[Fact], old: Fact) -> bool:
        """Whether an added fact takes the place of `old` under a rule that allows only one of them."""
        for rule in self._rules.for_predicate(old.predicate):
            if rule.max != 1:
                continue
            keys = set(rule.keys_of(old.predicate, old.args))
            if any(keys & set(rule.keys_of(f.predicate, f.args)) for f in added):
                return True
        return False

    # ---- entity_selection -------------------------------------------------------------
    def _select(self, oracle: Oracle, prompt: _Prompt, schema: dict, draw: _Errors) -> dict:
        chosen: list[str] = []
        for entity, words in oracle.mentions.items():
            wanted = _words(words)
            if entity in prompt.entities and _overlap(wanted, entity, prompt.entities[entity][1]):
                chosen.append(entity)
                continue
            score, best = max(((_overlap(wanted, n, label), n) for n, (_, label) in prompt.entities.items()),
                              default=(0, ""))
            if score:
                chosen.append(best)
        free = "enum" not in schema["properties"]["entities"]["items"]
        return {"entities": draw.corrupt_names(list(dict.fromkeys(chosen)), prompt, free=free)}

    # ---- query_graph ------------------------------------------------------------------
    def _query(self, oracle: Oracle, prompt: _Prompt, schema: dict, draw: _Errors) -> dict:
        types = schema["properties"]["nodes"]["items"]["properties"]["type"]["enum"]
        ids = {entity: f"n{i}" for i, entity in enumerate(oracle.mentions, 1)}
        nodes = [{"id": ids[entity], "description": words, "type": oracle.types.get(entity, "unknown")}
                 for entity, words in oracle.mentions.items()]
        request = prompt.request.lower()
        edges = []
        for fact in oracle.relations:
            if len(fact.args) == 2 and all(a in ids for a in fact.args):
                evidence = _span(request, [oracle.mentions[a].lower() for a in fact.args])
                if evidence:
                    edges.append({"source": ids[fact.args[0]], "relation": fact.predicate,
                                  "target": ids[fact.args[1]], "evidence": evidence})
        if nodes and draw.happens("missed_fact"):
            gone = nodes.pop(draw.rng.randrange(len(nodes)))["id"]
            edges = [e for e in edges if gone not in (e["source"], e["target"])]
        if nodes and draw.happens("wrong_entity"):
            nodes[draw.rng.randrange(len(nodes))]["type"] = draw.rng.choice(types)
        return {"nodes": nodes, "edges": edges}

    # ---- pddl_goal --------------------------------------------------------------------
    def _goal(self, oracle: Oracle, prompt: _Prompt, schema: dict, draw: _Errors) -> dict:
        options = _goal_options(schema)
        literals = []
        for lit in oracle.goal:
            allowed = options.get(lit.predicate)
            if allowed is None:
                continue
            args = []
            for arg, choices in zip(lit.args, allowed, strict=True):
                named = [c for c in choices if not c.startswith("ALL_")]
                args.append(arg if arg in choices else (draw.rng.choice(named) if named else None))
            if None not in args:
                literals.append({"predicate": lit.predicate, "args": args, "negated": lit.negated, "quote": ""})
        return {"literals": draw.corrupt_literals(literals, options)}


_ANSWERS = {KG_UPDATE: SimulatedLLM._update, ENTITY_SELECTION: SimulatedLLM._select,
            QUERY_GRAPH: SimulatedLLM._query, PDDL_GOAL: SimulatedLLM._goal}


class _Errors:
    """The error draws of one answer."""

    def __init__(self, llm: SimulatedLLM, rng: random.Random, tokens: int) -> None:
        self.llm = llm
        self.rng = rng
        self.tokens = tokens

    def happens(self, kind: str) -> bool:
        if self.rng.random() < self.llm.errors.rate(kind, self.tokens):
            self.llm.injected[kind] += 1
            return True
        return False

    def _fake(self, name: str) -> str:
        return re.sub(r"_\d+$", "", name) + f"_{self.rng.randint(90, 99)}"

    def _same_type(self, name: str, prompt: _Prompt) -> str | None:
        kind = prompt.entities.get(name, ("", ""))[0]
        others = sorted(n for n, (t, _) in prompt.entities.items() if t == kind and n != name)
        return self.rng.choice(others) if others else None

    def corrupt_facts(self, changes: list[tuple[Fact, bool]], prompt: _Prompt) -> list[tuple[Fact, bool]]:
        changes = list(changes)
        domain = self.llm._domain
        if changes and self.happens("missed_fact"):
            changes.pop(self.rng.randrange(len(changes)))
        if changes and self.happens("wrong_predicate"):
            i = self.rng.randrange(len(changes))
            fact, now = changes[i]
            same = sorted(p for p, d in domain.predicates.items() if d.arity == len(fact.args) and p != fact.predicate)
            if same:
                changes[i] = (Fact(self.rng.choice(same), fact.args), now)
        if changes and self.happens("wrong_entity"):
            changes = self._replace_arg(changes, lambda a: self._same_type(a, prompt))
        if changes and self.happens("hallucinated_entity"):
            changes = self._replace_arg(changes, self._fake)
        return changes

    def _replace_arg(self, changes: list[tuple[Fact, bool]], replace: Any) -> list[tuple[Fact, bool]]:
        i = self.rng.randrange(len(changes))
        fact, now = changes[i]
        if not fact.args:
            return changes
        j = self.rng.randrange(len(fact.args))
        new = replace(fact.args[j])
        if new is not None:
            changes[i] = (Fact(fact.predicate, (*fact.args[:j], new, *fact.args[j + 1:])), now)
        return changes

    def corrupt_names(self, names: list[str], prompt: _Prompt, *, free: bool) -> list[str]:
        """Errors in an entity selection; a hallucinated name is invented only where the schema does not
        constrain names to an enum (structured output would not let it through), else an unrelated listed
        entity is added."""
        if names and self.happens("missed_fact"):
            names.pop(self.rng.randrange(len(names)))
        if names and self.happens("wrong_entity"):
            i = self.rng.randrange(len(names))
            names[i] = self._same_type(names[i], prompt) or names[i]
        if names and self.happens("hallucinated_entity"):
            names.append(self._fake(self.rng.choice(names)) if free else self.rng.choice(sorted(prompt.entities)))
        return names

    def corrupt_literals(self, literals: list[dict], options: dict[str, list[list[str]]]) -> list[dict]:
        literals = [dict(lit, args=list(lit["args"])) for lit in literals]
        if len(literals) > 1 and self.happens("missed_fact"):
            literals.pop(self.rng.randrange(len(literals)))
        if literals and self.happens("wrong_predicate"):
            lit = literals[self.rng.randrange(len(literals))]
            same = sorted(p for p, o in options.items() if p != lit["predicate"] and len(o) == len(lit["args"])
                          and all(a in c for a, c in zip(lit["args"], o, strict=True)))
            if same:
                lit["predicate"] = self.rng.choice(same)
            else:
                lit["negated"] = not lit["negated"]
        if literals and self.happens("wrong_entity"):
            lit = literals[self.rng.randrange(len(literals))]
            j = self.rng.randrange(len(lit["args"]))
            choices = [c for c in options[lit["predicate"]][j] if c != lit["args"][j] and not c.startswith("ALL_")]
            if choices:
                lit["args"][j] = self.rng.choice(choices)
        if literals and self.happens("hallucinated_entity"):
            lit = literals[self.rng.randrange(len(literals))]
            j = self.rng.randrange(len(lit["args"]))
            lit["args"][j] = self._fake(lit["args"][j])
        return literals


def _seed(seed: int, kind: str, messages: Sequence[Message]) -> str:
    digest = hashlib.sha256(json.dumps([kind, list(messages)], sort_keys=True).encode()).hexdigest()
    return f"{seed}/{digest}"


def _read_prompt(messages: Sequence[Message]) -> _Prompt:
    """The entity listing, memory facts and request of the first user message, read with the prompt contract
    (the system message holds worked examples of another home, which are not this memory)."""
    user = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
    read = read_user_message(user)
    entities = {name: (line.type, line.words) for name, line in read.entities.items()}
    return _Prompt(entities, set(read.facts), count_message_tokens(messages), read.request)


def _literal_options(items: dict) -> dict[str, list[list[str]]]:
    """Predicate -> for each argument the names a typed-literal schema allows."""
    out = {}
    for variant in items.get("anyOf", []):
        props = variant["properties"]
        out[props["predicate"]["enum"][0]] = [p["enum"] for p in props["args"]["prefixItems"]]
    return out


def _span(text: str, phrases: list[str]) -> str:
    """The shortest stretch of `text` from the first to the last of `phrases` (all must occur), else ""."""
    found = [(text.find(p), p) for p in phrases]
    if any(start < 0 for start, _ in found):
        return ""
    start = min(s for s, _ in found)
    end = max(s + len(p) for s, p in found)
    return text[start:end]


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower())) - _STOP


def _overlap(wanted: set[str], name: str, label: str) -> int:
    """How many of the `wanted` words an entity's name and label hold."""
    return len(wanted & _words(name.replace("_", " ") + " " + label))


def _goal_options(schema: dict) -> dict[str, list[list[str]]]:
    """Predicate -> for each argument the names the goal schema allows."""
    return _literal_options(schema["properties"]["literals"]["items"])
