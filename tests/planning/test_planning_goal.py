"""Goal generation from a task through the real OpenAI client and the scripted server (a TEST DOUBLE for a paid API).

The server answers with the literals each test queues, so the checks (hallucinated objects, wrong types,
contradictions, literals already true) and the re-prompting are driven deterministically.
"""

from __future__ import annotations

import json

import pytest

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.triplets import Fact
from l3mp.errors import DomainError, ProblemError
from l3mp.llm.client import ChatLLM
from l3mp.llm.types import TokenLedger
from l3mp.planning.goal import GoalGenerator, goal_example_text, parse_goal, same_goal, same_in_the_home
from l3mp.planning.pipeline import TaskPlanner
from l3mp.retrieval import FullRetriever
from l3mp.world.graph import WorldGraph
from tests.helpers import house_model, household
from tests.llm.conftest import settings_for
from tests.llm.scripted_server import ScriptedServer, reply

ALL_OFF = "(and (forall (?x0 - light) (not (light_on ?x0))) (forall (?x0 - faucet) (not (faucet_on ?x0))))"


def lit(predicate: str, *args: str, negated: bool = False, quote: str = "") -> dict:
    return {"predicate": predicate, "args": list(args), "negated": negated, "quote": quote or predicate}


def answer(*literals: dict) -> str:
    return json.dumps({"literals": list(literals)})


@pytest.fixture
def server():
    with ScriptedServer() as scripted:
        yield scripted


def generate(server: ScriptedServer, task: str, *, examples: bool = True, **options):
    world = house_model()
    llm = ChatLLM(settings_for(server.url, timeout_s=1.0, max_retries=0))
    retrieved = FullRetriever().retrieve(task, world.graph)
    return GoalGenerator(llm, world.domain, examples=examples).generate(task, world.graph, retrieved,
                                                                        ledger=TokenLedger(), **options)


def test_a_valid_literal_list_becomes_the_goal_and_the_schema_is_typed(server):
    server.push(reply(answer(lit("on", "book1", "shelf1", quote="the book on the shelf"))))
    result = generate(server, "Put the book on the shelf.")
    assert result.goal_pddl == "(and (on book1 shelf1))" and len(result.attempts) == 1
    variants = server.requests[0]["response_format"]["json_schema"]["schema"]["properties"]["literals"]["items"]
    on = next(v for v in variants["anyOf"] if v["properties"]["predicate"]["enum"] == ["on"])
    item, surface = on["properties"]["args"]["prefixItems"]
    assert {"book1", "mug1", "ALL_item", "ALL_dish"} <= set(item["enum"]) and "lamp1" not in item["enum"]
    assert {"table1", "sink1", "ALL_surface"} <= set(surface["enum"]) and "fridge1" not in surface["enum"]
    assert server.requests[0]["messages"][-1]["content"].endswith("Task: Put the book on the shelf.")


def test_the_papers_all_lights_and_faucets_off_becomes_forall_and_is_planned_and_valid(server):
    server.push(reply(answer(lit("light_on", "ALL_light", negated=True, quote="all lights"),
                             lit("faucet_on", "ALL_faucet", negated=True, quote="faucets"))))
    world = house_model()
    llm = ChatLLM(settings_for(server.url, timeout_s=1.0, max_retries=0))
    # the model's path (the plain reader reads this request on its own: test_planning_request)
    result = TaskPlanner(world, llm, FullRetriever(), read_requests=False).plan("Turn off all lights and faucets.")
    assert result.goal == ALL_OFF
    assert result.ok, result.reason
    assert result.plan == ["(move the_robot kitchen living_room)", "(turn_off_light the_robot lamp1 living_room)"]
    assert result.ledger.by_purpose()["goal"].prompt_tokens == 10


@pytest.mark.parametrize(
    ("wrong", "problem"),
    [
        (lit("light_on", "lamp9", negated=True), "object 'lamp9' is unknown"),
        (lit("on", "book1", "fridge1"), "fridge1 is a fridge, but this argument must be a surface"),
        (lit("light_off", "lamp1"), "no predicate 'light_off'"),
        (lit("on", "book1"), "on takes 2 argument(s)"),
        (lit("light_on", "ALL_faucet", negated=True), "ALL_faucet is not a type of lights"),
    ],
    ids=["hallucinated-object", "wrong-type", "unknown-predicate", "arity", "wildcard-type"],
)
def test_a_wrong_literal_is_re_prompted_with_what_is_wrong(server, wrong, problem):
    server.push(reply(answer(wrong)), reply(answer(lit("light_on", "lamp1", negated=True))))
    result = generate(server, "Switch off the lamp.")
    assert result.goal_pddl == "(and (not (light_on lamp1)))" and len(result.attempts) == 2
    assert any(problem in p for p in result.attempts[0].problems), result.attempts[0].problems
    feedback = server.requests[1]["messages"][-1]["content"]
    assert problem in feedback and "Answer again" in feedback
    assert server.requests[1]["messages"][-2]["role"] == "assistant"


def test_a_contradiction_is_rejected(server):
    contradiction = answer(lit("light_on", "ALL_light", negated=True), lit("light_on", "lamp2"))
    server.push(reply(contradiction), reply(contradiction))
    result = generate(server, "Turn off all lights but turn on the bedroom lamp.", max_attempts=2)
    assert result.goal_pddl is None and len(result.attempts) == 2
    assert "contradicts (light_on lamp2)" in result.reason and "no valid goal after 2 attempt(s)" in result.reason


def test_literals_already_true_are_dropped_but_quantified_ones_kept(server):
    server.push(reply(answer(lit("on", "book1", "table1"), lit("dirty", "mug1", negated=True),
                             lit("light_on", "lamp2", negated=True), lit("tv_on", "ALL_tv", negated=True))))
    result = generate(server, "Wash the mug.")
    assert result.goal_pddl == "(and (not (dirty mug1)) (forall (?x0 - tv) (not (tv_on ?x0))))"
    assert "dropped as already true: (on book1 table1), (not (light_on lamp2))" in result.reason


def test_a_goal_that_already_holds_entirely_is_re_prompted(server):
    server.push(reply(answer(lit("on", "book1", "table1"))), reply(answer(lit("dirty", "mug1", negated=True))))
    result = generate(server, "Wash the mug.")
    assert result.goal_pddl == "(and (not (dirty mug1)))"
    assert "every literal already holds now" in result.attempts[0].problems[0]


def test_an_unreachable_llm_fails_at_once(server):
    server.stop()
    result = generate(server, "Wash the mug.")
    assert result.goal_pddl is None and len(result.attempts) == 1 and "LLMUnavailable" in result.reason


def test_parse_goal_checks_a_given_goal_without_an_llm():
    graph = house_model().graph
    assert parse_goal(household(), "(and (on book1 shelf1) (not (dirty mug1)))", graph=graph) == (
        "(and (on book1 shelf1) (not (dirty mug1)))")
    with pytest.raises(ProblemError, match="unknown object 'lamp9'"):
        parse_goal(household(), "(and (light_on lamp9))", graph=graph)
    with pytest.raises(ProblemError, match="needs a surface"):
        parse_goal(household(), "(on book1 fridge1)", graph=graph)


def test_same_goal_ignores_conjunct_order_nesting_and_variable_names_but_not_content():
    graph, domain = house_model().graph, household()
    swapped = "(and (forall (?f - faucet) (not (faucet_on ?f))) (forall (?l - light) (not (light_on ?l))))"
    assert same_goal(domain, graph, ALL_OFF, swapped)
    assert same_goal(domain, graph, "(and (on book1 shelf1) (not (dirty mug1)))",
                     "(and (not (dirty mug1)) (and (on book1 shelf1)))")
    assert same_goal(domain, graph, "(on book1 shelf1)", "(and (on book1 shelf1))")
    assert not same_goal(domain, graph, "(and (on book1 shelf1) (not (dirty mug1)))", "(on book1 shelf1)")
    assert not same_goal(domain, graph, "(not (dirty mug1))", "(dirty mug1)")
    assert not same_goal(domain, graph, ALL_OFF, "(forall (?l - light) (not (light_on ?l)))")
    with pytest.raises(ProblemError, match="unknown object 'lamp9'"):
        same_goal(domain, graph, "(light_on lamp9)", "(on book1 shelf1)")


def test_same_in_the_home_spells_a_one_variable_forall_out_over_the_homes_things():
    graph, domain = house_model().graph, household()
    named = "(and (not (light_on lamp1)) (not (light_on lamp2)) (not (faucet_on faucet1)))"
    assert same_in_the_home(domain, graph, ALL_OFF, named)
    assert not same_goal(domain, graph, ALL_OFF, named)  # as written they differ
    assert not same_in_the_home(domain, graph, ALL_OFF, "(and (not (light_on lamp1)) (not (faucet_on faucet1)))")
    assert not same_in_the_home(domain, graph, "(forall (?l - light) (light_on ?l))",
                                "(and (not (light_on lamp1)) (not (light_on lamp2)))")
    two = "(forall (?d - dish ?s - sink) (not (on ?d ?s)))"  # two variables: compared as written
    assert same_in_the_home(domain, graph, two, two)
    assert not same_in_the_home(domain, graph, two, "(and (not (on mug1 sink1)) (not (on plate1 sink1)))")


def test_the_domains_worked_goal_examples_are_in_the_fixed_part_of_the_prompt(server):
    for examples in (True, False):
        server.push(reply(answer(lit("on", "book1", "shelf1"))))
        generate(server, "Put the book on the shelf.", examples=examples)
    with_examples, without = (r["messages"][0]["content"] for r in server.requests)
    assert with_examples.startswith(without)  # the examples follow the fixed rules: one cacheable prefix
    example = with_examples[len(without):]
    assert "Worked examples (a different, example home):" in example and "(is_open fridge_1)" in example
    assert ('Task: Tom is thirsty, bring him the lemonade.\nAnswer: {"literals": [{"predicate": "has", '
            '"args": ["tom", "lemonade_1"], "negated": false, "quote": "bring him the lemonade"}]}') in example
    assert '"args": ["ALL_light"], "negated": true' in example
    assert "Worked examples" not in without


@pytest.mark.parametrize("example, problem", [
    ({"entities": {"tom": {"label": "Tom"}}, "facts": [], "tasks": []}, "KeyError: 'type'"),
    ({"entities": {}, "facts": [["tom", "in_room"]], "tasks": []}, "FormatError"),
    ({"entities": {}, "facts": [], "tasks": [{"text": "x", "answer": [{"predicate": "on"}]}]}, "KeyError: 'args'"),
    ({"entities": {}, "facts": []}, "KeyError: 'tasks'"),
])
def test_a_malformed_goal_example_is_a_domain_error_naming_the_problem(example, problem):
    with pytest.raises(DomainError, match=f"malformed goal example.*{problem}.*it needs entities"):
        goal_example_text(example)


PLAIN = """(define (domain plain)
 (:requirements :strips :typing :negative-preconditions)
 (:types room lamp)
 (:predicates (lit ?l - lamp) (lamp_in ?l - lamp ?r - room))
 (:action off :parameters (?l - lamp) :precondition (lit ?l) :effect (not (lit ?l))))"""
"""A domain whose requirements allow no quantifier."""


@pytest.mark.parametrize("goal, quantifier, needs", [
    ("(forall (?l - lamp) (not (lit ?l)))", "forall", ":universal-preconditions"),
    ("(and (not (lit l1)) (exists (?l - lamp) (lit ?l)))", "exists", ":existential-preconditions"),
])
def test_a_quantified_goal_is_refused_where_the_domains_requirements_do_not_allow_it(goal, quantifier, needs):
    domain = Domain.from_string(PLAIN)
    graph = WorldGraph()
    for name, type_ in (("l1", "lamp"), ("hall", "room")):
        graph.add_entity(name, type_)
    assert parse_goal(domain, "(not (lit l1))", graph=graph) == "(not (lit l1))"
    with pytest.raises(ProblemError, match=f"the goal uses {quantifier}, but domain plain does not declare {needs}"):
        parse_goal(domain, goal, graph=graph)


def test_without_quantifier_requirements_the_llm_is_offered_no_wildcard_and_one_is_refused(server):
    domain = Domain.from_string(PLAIN)
    graph = WorldGraph()
    for name, type_ in (("l1", "lamp"), ("l2", "lamp"), ("hall", "room")):
        graph.add_entity(name, type_)
    graph.add_fact(Fact("lit", ("l1",)))
    server.push(reply(answer(lit("lit", "ALL_lamp", negated=True))), reply(answer(lit("lit", "l1", negated=True))))
    llm = ChatLLM(settings_for(server.url, timeout_s=1.0, max_retries=0))
    retrieved = FullRetriever().retrieve("lamps off", graph)
    result = GoalGenerator(llm, domain).generate("lamps off", graph, retrieved, ledger=TokenLedger())
    schema = server.requests[0]["response_format"]["json_schema"]["schema"]
    (variant,) = [v for v in schema["properties"]["literals"]["items"]["anyOf"]
                  if v["properties"]["predicate"]["enum"] == ["lit"]]
    assert variant["properties"]["args"]["prefixItems"][0]["enum"] == ["l1", "l2"]
    assert "ALL_lamp: this domain does not allow 'all' goals" in result.attempts[0].problems[0]
    assert result.goal_pddl == "(and (not (lit l1)))" and len(result.attempts) == 2


def test_the_worked_goal_examples_are_valid_goals_of_their_example_home_and_no_benchmark_request():
    from l3mp.bench.goal_suite import load_benchmark
    from l3mp.domain.triplets import fact_from_triplet
    from l3mp.llm.prompts import load_examples
    from l3mp.planning.goal import Literal, assemble_goal, holds

    domain = household()
    example = load_examples(domain.source)["goal"]
    graph = WorldGraph()
    for name, spec in example["entities"].items():
        graph.add_entity(name, spec["type"], label=spec["label"])
    for triplet in example["facts"]:
        graph.add_fact(fact_from_triplet(triplet)[0])
    benchmark = {case.text.lower() for case in load_benchmark().cases}
    kinds = set()
    for task in example["tasks"]:
        literals = [Literal(lit["predicate"], tuple(lit["args"]), lit["negated"]) for lit in task["answer"]]
        parse_goal(domain, assemble_goal(literals), graph=graph)
        assert task["text"].lower() not in benchmark
        assert not all(holds(lit, graph, domain) for lit in literals), task["text"]
        kinds |= {lit.predicate for lit in literals} | {"kept" for lit in literals if holds(lit, graph, domain)}
    assert {"light_on", "tv_on", "has", "on", "is_open", "ringing", "dirty", "kept"} <= kinds
