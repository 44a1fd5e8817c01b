"""Tests of WorldModel: verified atomic updates, sources, batches, journal failure, perception semantics."""

from __future__ import annotations

import contextlib
import itertools
import threading

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from l3mp.errors import DeltaRejected, FormatError, StoreError
from l3mp.world.delta import Delta, EntitySpec
from l3mp.world.model import Observation, Update, WorldModel
from tests.helpers import (
    ROBOT,
    F,
    StoreDouble,
    apply_effective,
    codes,
    house_delta,
    house_graph,
    house_model,
    household,
    household_rules,
    random_deltas,
    snapshot,
    typed_facts,
    verifier,
)

MOVE_BOOK = Delta(remove=(F("on", "book1", "table1"),), add=(F("on", "book1", "shelf1"),))


def ticking(start: float = 1000.0, step: float = 1.0):
    counter = itertools.count()
    return lambda: start + step * next(counter)


def rejected(model: WorldModel, delta: Delta, source: str = "nl", **kwargs) -> list[str]:
    """Apply a delta that must be rejected; check nothing changed; return the violation codes."""
    before, seq = snapshot(model.graph), model.last_seq
    with pytest.raises(DeltaRejected) as err:
        model.apply(delta, source=source, **kwargs)
    assert snapshot(model.graph) == before and model.last_seq == seq
    assert err.value.violations
    return codes(err.value.violations)


# ---- basics -------------------------------------------------------------------------------
def test_empty_model_holds_the_constants():
    model = WorldModel(household(), store=None)
    assert model.graph.entity_type(ROBOT) == "robot"
    assert model.last_seq == 0 and model.graph.fact_count() == 0
    assert model.store is None and model.warnings == []
    assert len(model.verifier.rules) == len(household_rules())  # rules found next to the domain


def test_import_builds_the_house_as_record_one():
    model = house_model()
    assert model.last_seq == 1
    assert model.graph == house_graph()
    assert verifier().check_state(model.graph) == []
    assert all(model.graph.fact_since(f) == 1 for f in model.graph.facts())
    assert model.graph.entity_attrs("book1")["since"] == 1


def test_apply_returns_the_record_with_provenance():
    model = house_model(clock=ticking())
    record = model.apply(MOVE_BOOK, source="nl", input="I put the book on the shelf", ref="utt-7")
    assert record.seq == 2 == model.last_seq
    assert record.source == "nl" and record.input == "I put the book on the shelf" and record.ref == "utt-7"
    assert record.time == 1001.0
    assert record.delta == MOVE_BOOK
    assert model.graph.has_fact(F("on", "book1", "shelf1")) and not model.graph.has_fact(F("on", "book1", "table1"))
    assert model.graph.fact_since(F("on", "book1", "shelf1")) == 2


def test_record_times_never_go_backwards():
    times = iter([500.0, 100.0, 700.0])
    model = WorldModel(household(), store=None, clock=lambda: next(times))
    r1 = model.apply(Delta(add=(F("hand_empty", ROBOT),)), source="user")
    r2 = model.apply(Delta(entities={"kitchen": EntitySpec("room")}), source="user")
    r3 = model.apply(Delta(add=(F("in_room", ROBOT, "kitchen"),)), source="user")
    assert (r1.time, r2.time, r3.time) == (500.0, 500.0, 700.0)


def test_noop_delta_makes_no_record():
    model = house_model()
    assert model.apply(Delta(add=(F("dirty", "mug1"),)), source="nl") is None
    assert model.apply(Delta(), source="plan") is None
    assert model.last_seq == 1


def test_record_holds_the_effective_delta():
    model = house_model()
    record = model.apply(
        Delta(remove_entities=("mug1",), add=(F("light_on", "lamp1"), F("tv_on", "tv1"))), source="user"
    )
    assert set(record.delta.remove) == {F("on", "mug1", "counter1"), F("dirty", "mug1")}
    assert record.delta.add == (F("tv_on", "tv1"),)
    assert record.delta.remove_entities == ("mug1",)
    assert not model.graph.has_entity("mug1")


def test_rejected_delta_changes_nothing():
    model = house_model()
    assert rejected(model, Delta(add=(F("on", "book1", "shelf1"),))) == ["rule_violation"]
    assert rejected(model, Delta(add=(F("on", "book1", "fridge1"),), remove=(F("on", "book1", "table1"),))) == [
        "wrong_type"
    ]
    assert model.graph == house_graph()


def test_the_robot_needs_no_declaration_and_cannot_be_removed():
    model = WorldModel(household(), store=None)
    model.apply(Delta(entities={"hall": EntitySpec("room")}), source="import")
    record = model.apply(Delta(add=(F("in_room", ROBOT, "hall"), F("hand_empty", ROBOT))), source="nl")
    assert record is not None and model.graph.has_fact(F("hand_empty", ROBOT))
    assert rejected(model, Delta(remove_entities=(ROBOT,)), source="user") == ["constant_removal"]


@pytest.mark.parametrize(
    ("source", "allowed"),
    [("perception", True), ("user", True), ("import", True), ("nl", False), ("plan", False)],
)
def test_which_sources_may_create_entities(source, allowed):
    model = house_model()
    delta = Delta(entities={"cup9": EntitySpec("dish", label="red cup")}, add=(F("on", "cup9", "table1"),))
    if allowed:
        model.apply(delta, source=source)
        assert model.graph.entity_attrs("cup9")["label"] == "red cup"
    else:
        assert "entity_creation_forbidden" in rejected(model, delta, source=source)


def test_allow_new_entities_overrides_the_source_default():
    delta = Delta(entities={"cup9": EntitySpec("dish")}, add=(F("on", "cup9", "table1"),))
    model = house_model()
    assert "entity_creation_forbidden" in rejected(model, delta, source="perception", allow_new_entities=False)
    model.apply(delta, source="nl", allow_new_entities=True)
    assert model.graph.entity_type("cup9") == "dish"


def test_unknown_source_is_refused_without_change():
    model = house_model()
    before = snapshot(model.graph)
    with pytest.raises(ValueError, match="unknown source 'camera'"):
        model.apply(MOVE_BOOK, source="camera")
    assert snapshot(model.graph) == before and model.last_seq == 1


def test_verify_does_not_apply():
    model = house_model()
    verdict = model.verify(MOVE_BOOK, source="nl")
    assert verdict.ok and verdict.effective == MOVE_BOOK
    assert model.graph == house_graph()
    assert not model.verify(Delta(entities={"cup9": EntitySpec("dish")}), source="nl").ok


# ---- apply_many -----------------------------------------------------------------------------
def test_apply_many_applies_valid_updates_in_order_and_rejects_invalid_ones_individually():
    model = house_model()
    updates = [
        Update(MOVE_BOOK, "nl"),
        Update(Delta(add=(F("on", "book1", "counter1"),)), "nl"),  # book is already on the shelf: two places
        Update(Delta(remove=(F("on", "book1", "shelf1"),), add=(F("on", "book1", "counter1"),)), "nl"),  # needs #1
        Update(Delta(add=(F("dirty", "mug1"),)), "plan"),  # no-op
        Update(Delta(entities={"cup9": EntitySpec("dish")}, add=(F("on", "cup9", "table1"),)), "nl"),  # forbidden
        Update(
            Delta(entities={"cup9": EntitySpec("dish")}, add=(F("on", "cup9", "table1"),)),
            "perception",
            ref="obs-1",
        ),
        Update(Delta(remove=(F("on", "cup9", "table1"),), add=(F("inside", "cup9", "cupboard1"),)), "nl"),  # needs #6
    ]
    outcomes = model.apply_many(updates)
    assert [o.accepted for o in outcomes] == [True, False, True, True, False, True, True]
    assert [o.record.seq if o.record else None for o in outcomes] == [2, None, 3, None, None, 4, 5]
    assert codes(outcomes[1].violations) == ["rule_violation"]
    assert "(on book1 shelf1)" in outcomes[1].violations[0].message
    assert codes(outcomes[4].violations) == ["entity_creation_forbidden", "unknown_entity"]
    assert outcomes[5].record.ref == "obs-1" and outcomes[5].record.source == "perception"
    assert model.last_seq == 5
    assert model.graph.has_fact(F("on", "book1", "counter1")) and model.graph.has_fact(F("inside", "cup9", "cupboard1"))
    assert verifier().check_state(model.graph) == []


def test_apply_many_journals_one_batch_with_one_append():
    store = StoreDouble(fail=False)
    model = house_model(store=store)
    assert store.appends == 1 and [r.seq for r in store.appended] == [1]
    model.apply_many([Update(MOVE_BOOK, "nl"), Update(Delta(add=(F("tv_on", "tv1"),)), "nl")])
    assert store.appends == 2 and [r.seq for r in store.appended] == [1, 2, 3]
    model.apply_many([Update(Delta(add=(F("tv_on", "tv1"),)), "nl")])  # nothing to journal
    assert model.apply_many([]) == []
    assert store.appends == 2
    assert store.meta["domain"] == "household" and store.meta["domain_sha256"] == household().sha256


def test_error_while_staging_undoes_the_earlier_updates_of_the_batch():
    model = house_model()
    before = snapshot(model.graph)
    with pytest.raises(ValueError):
        model.apply_many(
            [
                Update(MOVE_BOOK, "nl"),
                Update(Delta(add=(F("tv_on", "tv1"),)), "nl"),
                Update(Delta(), "nonsense"),
            ]
        )
    assert snapshot(model.graph) == before and model.last_seq == 1


# ---- journal failure (test double store) ----------------------------------------------------
@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), StoreError("disk gone")])
def test_journal_failure_leaves_the_graph_exactly_as_before(error):
    store = StoreDouble(fail=False, error=error)  # test double: append fails once `fail` is set
    model = house_model(store=store)
    model.apply(
        Delta(
            entities={"cup9": EntitySpec("dish", label="red cup", description="chipped")},
            add=(F("on", "cup9", "shelf1"),),
        ),
        source="perception",
    )
    before, seq = snapshot(model.graph), model.last_seq
    store.fail = True
    batch = [
        Update(MOVE_BOOK, "nl"),
        Update(Delta(remove_entities=("cup9", "lamp2"), add=(F("light_on", "lamp1"), F("tv_on", "tv1"))), "user"),
        Update(Delta(entities={"bob": EntitySpec("person")}, add=(F("in_room", "bob", "kitchen"),)), "perception"),
        Update(Delta(add=(F("on", "mug1", "table1"),)), "nl"),  # rejected on its own
        Update(Delta(remove=(F("in_room", ROBOT, "kitchen"),), add=(F("in_room", ROBOT, "bedroom"),)), "plan"),
    ]
    with pytest.raises(type(error)):
        model.apply_many(batch)
    assert snapshot(model.graph) == before  # facts, since, entities with their labels and since
    assert model.last_seq == seq
    with pytest.raises(type(error)):
        model.apply(MOVE_BOOK, source="nl")
    assert snapshot(model.graph) == before and model.last_seq == seq
    # once the journal works again, numbering continues where it stopped
    store.fail = False
    assert model.apply(MOVE_BOOK, source="nl").seq == seq + 1
    assert [r.seq for r in store.appended] == list(range(1, seq + 2))


# ---- perception ------------------------------------------------------------------------------
def perceive(model: WorldModel, doc: dict):
    return model.perceive(Observation.from_json(doc))


def test_perception_adds_true_and_removes_false_triplets():
    model = house_model()
    record = perceive(
        model,
        {
            "observation_id": "cam0-1",
            "triplets": [["lamp2", "light_on", True], ["lamp1", "light_on", False], ["MUG1", "dirty", False]],
        },
    )
    assert record.source == "perception" and record.ref == "cam0-1"
    assert model.graph.has_fact(F("light_on", "lamp2"))
    assert not model.graph.has_fact(F("light_on", "lamp1")) and not model.graph.has_fact(F("dirty", "mug1"))


def test_perception_of_an_absent_false_fact_is_a_noop():
    model = house_model()
    assert perceive(model, {"triplets": [["lamp2", "light_on", False], ["tv1", "tv_on", False]]}) is None
    assert perceive(model, {"triplets": [["lamp1", "light_on", True]]}) is None  # already true
    assert model.last_seq == 1 and model.graph == house_graph()


def test_observed_place_supersedes_the_old_one():
    model = house_model()
    perceive(model, {"triplets": [["book1", "on", "counter1"]]})
    assert set(model.graph.facts_of("book1")) == {F("on", "book1", "counter1")}
    perceive(model, {"triplets": [["apple1", "on", "table1"], ["alice", "has", "milk1"]]})
    assert set(model.graph.facts_of("apple1")) == {F("on", "apple1", "table1")}
    assert set(model.graph.facts_of("milk1")) == {F("has", "alice", "milk1")}
    assert verifier().check_state(model.graph) == []


def test_observed_room_supersedes_the_old_room():
    model = house_model()
    record = perceive(model, {"triplets": [["alice", "in_room", "bedroom"], ["the_robot", "in_room", "living_room"]]})
    assert set(record.delta.remove) == {F("in_room", "alice", "living_room"), F("in_room", ROBOT, "kitchen")}
    assert model.graph.has_fact(F("in_room", "alice", "bedroom"))
    assert model.graph.has_fact(F("in_room", ROBOT, "living_room"))


def test_observed_holding_supersedes_hand_empty_and_the_item_place():
    model = house_model()
    record = perceive(model, {"triplets": [["the_robot", "holding", "mug1"]]})
    assert set(record.delta.remove) == {F("hand_empty", ROBOT), F("on", "mug1", "counter1")}
    assert set(model.graph.facts_of(ROBOT)) == {F("holding", ROBOT, "mug1"), F("in_room", ROBOT, "kitchen")}
    # putting it down: the new place and hand_empty supersede holding
    perceive(model, {"triplets": [["mug1", "on", "sink1"], ["the_robot", "hand_empty", True]]})
    assert model.graph.has_fact(F("hand_empty", ROBOT)) and model.graph.has_fact(F("on", "mug1", "sink1"))
    assert not model.graph.has_fact(F("holding", ROBOT, "mug1"))
    assert verifier().check_state(model.graph) == []


def test_hand_empty_alone_leaves_the_held_item_nowhere_and_is_rejected():
    model = house_model()
    perceive(model, {"triplets": [["the_robot", "holding", "mug1"]]})
    with pytest.raises(DeltaRejected) as err:
        perceive(model, {"triplets": [["the_robot", "hand_empty", True]]})
    assert "'mug1' would have 0 fact(s)" in str(err.value)


def test_conflicting_places_in_one_batch_are_rejected():
    model = house_model()
    with pytest.raises(DeltaRejected) as err:
        perceive(model, {"triplets": [["book1", "on", "shelf1"], ["book1", "on", "counter1"]]})
    assert codes(err.value.violations) == ["rule_violation"]
    assert model.graph == house_graph()


def test_new_entity_with_its_location_is_accepted():
    model = house_model()
    record = perceive(
        model,
        {
            "observation_id": "cam1-7",
            "entities": {"Cup9": {"type": "dish", "label": "red cup"}},
            "triplets": [["cup9", "on", "counter1"], ["cup9", "dirty", True]],
        },
    )
    assert record.delta.entities == {"cup9": EntitySpec("dish", "red cup")}
    assert model.graph.entity_attrs("cup9")["label"] == "red cup"
    assert model.graph.has_fact(F("on", "cup9", "counter1")) and model.graph.has_fact(F("dirty", "cup9"))


def test_new_entity_without_location_is_rejected():
    model = house_model()
    with pytest.raises(DeltaRejected) as err:
        perceive(model, {"entities": {"cup9": {"type": "dish"}}, "triplets": [["cup9", "dirty", True]]})
    assert codes(err.value.violations) == ["rule_violation"]
    assert "'cup9' would have 0 fact(s)" in str(err.value)
    assert not model.graph.has_entity("cup9")


def test_known_entity_seen_again_is_not_recreated():
    model = house_model()
    assert perceive(model, {"entities": {"book1": {"type": "book"}}, "triplets": []}) is None
    with pytest.raises(DeltaRejected) as err:
        perceive(model, {"entities": {"book1": {"type": "food"}}, "triplets": []})
    assert codes(err.value.violations) == ["entity_type_conflict"]


def test_perception_removes_entities_with_their_facts():
    model = house_model()
    record = perceive(model, {"remove_entities": ["Mug1"], "triplets": []})
    assert record.delta.remove_entities == ("mug1",)
    assert not model.graph.has_entity("mug1") and not model.graph.has_fact(F("dirty", "mug1"))


def test_contradictory_triplets_in_one_batch_are_rejected():
    # the same fact observed true and false in one batch must not be applied either way
    for lamp in ("lamp1", "lamp2"):  # lamp1 is on, lamp2 is off
        model = house_model()
        with pytest.raises(DeltaRejected) as err:
            perceive(model, {"triplets": [[lamp, "light_on", True], [lamp, "light_on", False]]})
        assert "contradiction" in codes(err.value.violations)
        assert model.graph == house_graph()


@pytest.mark.parametrize(
    "triplet",
    [
        ["book1", "holding", True],
        ["@world", "on", True],
        ["alice", "has", True],
        ["the_robot", "in_room", True],
    ],
)
def test_perceived_fact_of_the_wrong_arity_is_rejected_not_a_crash(triplet):
    model = house_model()
    with pytest.raises(DeltaRejected) as err:
        perceive(model, {"triplets": [triplet]})
    assert codes(err.value.violations) == ["wrong_arity"]
    assert model.graph == house_graph()


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ([["lamp1", "light_on", True]], "must be a JSON object"),
        ("triplets", "must be a JSON object"),
        ({"triplets": [], "facts": []}, "unknown perception key(s) ['facts']"),
        ({"triplets": {"lamp1": "light_on"}}, "'triplets' must be a list"),
        ({"triplets": [["lamp1", "light_on", True], ["lamp1", "light_on"]]}, "'triplets'[1]"),
        ({"triplets": [["lamp1", "light_on", None]]}, "the object must be true"),
        ({"triplets": [[1, "light_on", True]]}, "subject must be an entity name"),
        ({"triplets": [["lamp1", "", True]]}, "relation must be a predicate name"),
        ({"triplets": [["@world", "on", "x"]]}, "'@world' only takes 0-ary facts"),
        ({"triplets": [], "remove_entities": "mug1"}, "'remove_entities' must be a list"),
        ({"triplets": [], "remove_entities": [3]}, "'remove_entities' must be a list"),
        ({"triplets": [], "observation_id": 12}, "'observation_id' must be a string"),
        ({"triplets": [], "entities": ["cup9"]}, "'entities' must be an object"),
        ({"triplets": [], "entities": {"cup9": "dish"}}, "entity 'cup9' needs an object"),
        ({"triplets": [], "entities": {"cup9": {"type": ""}}}, "non-empty string 'type'"),
        (
            {"triplets": [], "entities": {"cup9": {"type": "dish", "color": "red"}}},
            "unknown key(s) ['color']",
        ),
        ({"triplets": [], "entities": {"cup9": {"type": "dish", "label": 3}}}, "'label' must be a string"),
    ],
)
def test_malformed_perception_json_is_a_format_error(doc, needle):
    with pytest.raises(FormatError) as err:
        Observation.from_json(doc)
    assert needle in str(err.value)


def test_observation_from_json_parses_everything():
    obs = Observation.from_json(
        {
            "observation_id": "cam0-9",
            "entities": {"Cup9": {"type": "Dish"}},
            "triplets": [["CUP9", "On", "Table1"], ["lamp1", "light_on", False]],
            "remove_entities": ["Box2"],
        }
    )
    assert obs.observation_id == "cam0-9"
    assert obs.facts == ((F("on", "cup9", "table1"), True), (F("light_on", "lamp1"), False))
    assert obs.entities == {"cup9": EntitySpec("dish")}
    assert obs.remove_entities == ("box2",)
    assert Observation.from_json({}).facts == ()


# ---- properties ----------------------------------------------------------------------------
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.data())
def test_apply_is_atomic_and_keeps_the_graph_valid(data):
    model = house_model()
    for _ in range(data.draw(st.integers(1, 5), label="steps")):
        delta = data.draw(random_deltas(model.graph), label="delta")
        source = data.draw(st.sampled_from(["nl", "perception", "plan", "user"]), label="source")
        before, seq = model.graph.to_json(), model.last_seq
        expected = model.graph.copy()
        try:
            record = model.apply(delta, source=source)
        except DeltaRejected as exc:
            assert exc.violations
            assert model.graph.to_json() == before and model.last_seq == seq
            event("rejected")
            continue
        if record is None:
            assert model.graph.to_json() == before and model.last_seq == seq
            event("no-op")
            continue
        event("applied")
        assert record.seq == seq + 1 == model.last_seq
        apply_effective(expected, record.delta)
        assert model.graph == expected  # the whole effective delta, nothing else
        assert all(model.graph.fact_since(f) == record.seq for f in record.delta.add)
        assert verifier().check_state(model.graph) == []


@SETTINGS
@given(st.data())
def test_apply_many_equals_applying_one_by_one(data):
    batch_model, serial_model = house_model(), house_model()
    updates = []
    for _ in range(data.draw(st.integers(1, 6), label="size")):
        delta = data.draw(random_deltas(serial_model.graph), label="delta")
        source = data.draw(st.sampled_from(["nl", "perception", "user"]), label="source")
        updates.append(Update(delta, source))
        with contextlib.suppress(DeltaRejected):  # later updates are drawn against the state after this one
            serial_model.apply(delta, source=source)
    outcomes = batch_model.apply_many(updates)
    assert len(outcomes) == len(updates)
    serial = house_model()
    for update, outcome in zip(updates, outcomes, strict=True):
        try:
            record = serial.apply(update.delta, source=update.source)
            assert outcome.accepted and outcome.violations == ()
            assert (record is None and outcome.record is None) or record.delta == outcome.record.delta
        except DeltaRejected as exc:
            assert not outcome.accepted and outcome.record is None
            assert codes(exc.violations) == codes(outcome.violations)
    assert batch_model.graph.to_json() == serial.graph.to_json()
    assert batch_model.last_seq == serial.last_seq
    assert [o.record.seq for o in outcomes if o.record] == list(range(2, batch_model.last_seq + 1))
    event(f"{sum(o.record is not None for o in outcomes)} applied")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_journal_failure_undoes_any_batch(data):
    store = StoreDouble(fail=False)  # test double of the journal
    model = house_model(store=store)
    scratch = house_model()
    updates = []
    for _ in range(data.draw(st.integers(1, 5), label="size")):
        delta = data.draw(random_deltas(scratch.graph), label="delta")
        updates.append(Update(delta, data.draw(st.sampled_from(["nl", "perception", "user"]), label="source")))
        with contextlib.suppress(DeltaRejected):
            scratch.apply(delta, source=updates[-1].source)
    before, seq = model.graph.to_json(), model.last_seq
    store.fail = True
    if scratch.last_seq == 1:  # nothing to journal: nothing fails
        assert not any(o.record for o in model.apply_many(updates))
        event("nothing to journal")
    else:
        with pytest.raises(OSError):
            model.apply_many(updates)
        event("journal failed")
    assert model.graph.to_json() == before and model.last_seq == seq
    store.fail = False
    outcomes = model.apply_many(updates)  # the same batch, journal repaired: as if nothing had happened
    assert model.graph.to_json() == scratch.graph.to_json()
    assert [o.accepted for o in outcomes] == [o.accepted for o in house_model().apply_many(updates)]


@st.composite
def observations(draw, graph) -> Observation:
    """A perception batch of well-typed triplets (true or, for unary facts, false), maybe with a new entity."""
    entities = {}
    if draw(st.booleans()):
        entities["cup9"] = EntitySpec(draw(st.sampled_from(["dish", "book", "light"])))
    extra = {n: s.type for n, s in entities.items()}
    facts = {}  # one truth per fact: contradictory batches are tested on their own
    for fact in draw(st.lists(typed_facts(graph, extra), max_size=4)):
        facts.setdefault(fact, len(fact.args) != 1 or draw(st.booleans()))
    return Observation(tuple(facts.items()), entities, observation_id=draw(st.sampled_from([None, "cam0-1"])))


@SETTINGS
@given(st.data())
def test_accepted_perception_makes_what_was_seen_true(data):
    model = house_model()
    for _ in range(data.draw(st.integers(1, 4), label="steps")):
        obs = data.draw(observations(model.graph), label="observation")
        before, seq = model.graph.to_json(), model.last_seq
        try:
            record = model.perceive(obs)
        except DeltaRejected:
            assert model.graph.to_json() == before and model.last_seq == seq
            event("rejected")
            continue
        event("no-op" if record is None else "applied")
        for fact, truth in obs.facts:
            assert model.graph.has_fact(fact) == truth, (fact, truth)
        if record is not None:
            assert record.source == "perception" and record.ref == obs.observation_id
            # only what the batch said, or what it superseded, changed
            said = {f for f, _ in obs.facts}
            for fact in record.delta.remove:
                assert fact in said or any(a in f.args for f in said for a in fact.args), fact
        assert verifier().check_state(model.graph) == []


# ---- durable store and threads ------------------------------------------------------------------
def test_acknowledged_changes_survive_reopening(tmp_path):
    with WorldModel.open(household(), tmp_path / "world", fsync=False) as model:
        model.apply(house_delta(), source="import")
        model.apply(MOVE_BOOK, source="nl", input="the book is on the shelf")
        perceive(
            model,
            {
                "observation_id": "cam0-2",
                "entities": {"cup9": {"type": "dish", "label": "red cup"}},
                "triplets": [["cup9", "on", "counter1"]],
            },
        )
        expected = model.graph.to_json()
        with pytest.raises(DeltaRejected):
            model.apply(Delta(add=(F("on", "book1", "table1"),)), source="nl")
    with WorldModel.open(household(), tmp_path / "world", fsync=False) as again:
        assert again.last_seq == 3
        assert again.graph.to_json() == expected
        assert again.apply(Delta(add=(F("tv_on", "tv1"),)), source="nl").seq == 4


def test_concurrent_updates_get_unique_consecutive_numbers():
    model = house_model()
    records, errors = [], []

    def worker(lamp: str) -> None:
        for i in range(30):
            fact = F("light_on", lamp)
            delta = Delta(add=(fact,)) if i % 2 == 0 else Delta(remove=(fact,))
            try:
                record = model.apply(delta, source="perception")
            except DeltaRejected as exc:  # another thread switched the same lamp first
                errors.append(exc)
                continue
            if record is not None:
                records.append(record.seq)

    threads = [threading.Thread(target=worker, args=(lamp,)) for lamp in ("lamp1", "lamp2", "lamp1", "lamp2")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(records) == list(range(2, model.last_seq + 1))
    assert all(codes(e.violations) == ["missing_fact"] for e in errors)
    assert verifier().check_state(model.graph) == []
