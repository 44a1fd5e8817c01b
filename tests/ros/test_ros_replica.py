"""The replica that planner and executor nodes keep of the world model: order, gaps, resync, verification, writes."""

from __future__ import annotations

import pytest

from l3mp.errors import DeltaRejected, StoreError
from l3mp.ros.replica import Replica, state_message
from l3mp.world.delta import Delta
from l3mp.world.model import Update, WorldModel
from l3mp.world.record import ChangeRecord
from tests.helpers import F, house_model, household, household_rules

MOVES = [{"remove": [["book1", "on", "table1"]], "add": [["book1", "on", "shelf1"]]},
         {"add": [["tv1", "tv_on", True]]},
         {"remove": [["lamp1", "light_on", True]]}]


def changed(origin: WorldModel) -> list[ChangeRecord]:
    return [origin.apply(Delta.from_json(d), source="user") for d in MOVES]


def fresh() -> Replica:
    return Replica(household(), household_rules())


def test_records_apply_in_the_origins_order_whatever_order_they_arrive_in():
    origin, replica = house_model(), fresh()
    replica.offer_state(state_message(origin, origin="test"))
    for record in reversed(changed(origin)):
        replica.offer_change(record.to_json())
    assert replica.graph == origin.graph and replica.synced and replica.origin_seq == origin.last_seq


def test_a_missing_record_is_a_gap_until_a_newer_state_arrives():
    origin, replica = house_model(), fresh()
    replica.offer_state(state_message(origin, origin="test"))
    first, _, third = changed(origin)
    replica.offer_change(first)
    replica.offer_change(third)
    replica.sync()
    assert not replica.synced and replica.origin_seq == first.seq
    assert f"records {first.seq + 1}..{first.seq + 1}" in replica.problem
    assert replica.graph.has_fact(F("on", "book1", "shelf1")) and replica.graph.has_fact(F("light_on", "lamp1"))
    replica.offer_state(state_message(origin, origin="test"))
    assert replica.graph == origin.graph and replica.synced and replica.problem == ""


def test_records_before_the_first_state_wait_and_old_ones_are_dropped():
    origin, replica = house_model(), fresh()
    records = changed(origin)
    replica.offer_change(records[0])
    replica.sync()
    assert not replica.synced and replica.problem == "no state received yet"
    replica.offer_state(state_message(origin, origin="test"))
    replica.offer_change(records[2])
    assert replica.graph == origin.graph and replica.synced


def test_a_record_that_does_not_verify_here_stops_the_replica():
    origin, replica = house_model(), fresh()
    replica.offer_state(state_message(origin, origin="test"))
    bogus = ChangeRecord(origin.last_seq + 1, 1.0, "user", Delta.from_json({"remove": [["tv1", "tv_on", True]]}))
    replica.offer_change(bogus.to_json())
    replica.sync()
    assert not replica.synced and "does not verify here" in replica.problem


def test_a_state_of_another_domain_is_refused():
    origin, replica = house_model(), fresh()
    state = state_message(origin, origin="test") | {"domain_sha256": "0" * 64}
    replica.offer_state(state)
    replica.sync()
    assert not replica.synced and "give both nodes the same 'domain' parameter" in replica.problem
    replica.offer_state({"seq": "one"})
    replica.sync()
    assert not replica.synced and "'seq'" in replica.problem


def test_without_a_writer_the_replica_is_read_only():
    origin, replica = house_model(), fresh()
    replica.offer_state(state_message(origin, origin="test"))
    with pytest.raises(StoreError, match="read-only"):
        replica.apply(Delta.from_json(MOVES[1]), source="user")
    assert not replica.graph.has_fact(F("tv_on", "tv1"))


def test_writes_go_to_the_origin_and_its_records_come_back():
    origin = house_model()
    replica = Replica(household(), household_rules(), writer=lambda updates: origin.apply_many(list(updates)))
    replica.offer_state(state_message(origin, origin="test"))
    record = replica.apply(Delta.from_json(MOVES[1]), source="plan", input="(turn_on_tv the_robot tv1 x)")
    assert record.seq == origin.last_seq and replica.origin_seq == origin.last_seq
    assert replica.graph == origin.graph and origin.store is None
    with pytest.raises(DeltaRejected):
        replica.apply(Delta.from_json({"add": [["nobody", "tv_on", True]]}), source="plan")
    with pytest.raises(StoreError, match="perception"):
        from l3mp.world.model import Observation

        replica.apply_many([Observation(facts=())])
    assert replica.apply_many([Update(Delta(), "user")])[0].record is None
