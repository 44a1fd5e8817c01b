"""The thor domain's worked examples and lexicon: they fit the domain and load into the prompts and the grounder."""

from __future__ import annotations

from l3mp.domain.triplets import Fact, fact_from_triplet
from l3mp.llm.prompts import load_examples
from l3mp.planning.goal import goal_example_text
from l3mp.retrieval.grounding import Lexicon
from l3mp.updates.prompt import example_text
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.model import Observation, WorldModel
from tests.thor.support import thor_domain


def _example_world(section: dict, facts: list[Fact]) -> WorldModel:
    world = WorldModel(thor_domain())
    entities = {n: EntitySpec(s["type"], s.get("label")) for n, s in section["entities"].items()}
    world.apply(Delta(add=tuple(facts), entities=entities), source="import")
    return world


def test_the_update_examples_are_a_valid_kitchen_and_every_answer_applies():
    section = load_examples(thor_domain().source)["update"]
    facts = [Fact(p, (name, *args)) for name, spec in section["entities"].items()
             for p, *args in (f.split() for f in spec.get("facts", []))]
    world = _example_world(section, facts)
    for event in section["events"]:
        changes = tuple((Fact(c[0], tuple(c[1:-1])), c[-1]) for c in event["answer"])
        delta = world.perception_delta(Observation(changes))  # a new place supersedes the old one
        assert world.verify(delta, source="perception").ok, event["text"]
        assert len(delta.add) == sum(1 for _, truth in changes if truth), event["text"]
    assert "I put the mug in the sink." in example_text(section)


def test_the_goal_examples_are_a_valid_kitchen_and_name_only_its_predicates():
    section = load_examples(thor_domain().source)["goal"]
    world = _example_world(section, [fact_from_triplet(t)[0] for t in section["facts"]])
    predicates = thor_domain().predicates
    for task in section["tasks"]:
        for literal in task["answer"]:
            assert literal["predicate"] in predicates
            assert len(literal["args"]) == predicates[literal["predicate"]].arity
            for arg in literal["args"]:
                assert arg.startswith("ALL_") or world.graph.has_entity(arg) or arg in thor_domain().constants
    assert "coffee in a clean mug" in goal_example_text(section)


def test_the_lexicon_loads_and_names_real_types():
    lexicon = Lexicon.for_domain(thor_domain())
    assert "refrigerator" in lexicon.type_words["fridge"] and "island" in lexicon.type_words["counter_top"]
    assert all(thor_domain().has_type(t) for t in lexicon.type_words)
    assert all(p in thor_domain().predicates for p in lexicon.states)
    assert lexicon.states["dirty"][False] >= {"washed", "clean"}
