"""Tests of the graph pictures (l3mp/render.py): valid PNG/SVG files, families, layout, refusals."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest
from l3mp_sim.house import house_graph as generated_house

from l3mp.domain import Domain, Fact
from l3mp.render import (
    OTHER,
    RING,
    RenderError,
    build_scene,
    caption,
    family,
    layout,
    render_graph,
)
from l3mp.world.graph import WorldGraph
from tests.helpers import house_graph, household

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

TINY_DOMAIN = """
(define (domain tiny)
  (:requirements :strips :typing)
  (:types block)
  (:predicates (on ?a - block ?b - block) (clear ?a - block) (raining) (between ?a - block ?b - block ?c - block))
  (:action wait :parameters (?a - block) :precondition (clear ?a) :effect (clear ?a)))
"""


def tiny_graph() -> WorldGraph:
    """Blocks without rooms: a 0-ary fact, a 3-ary fact, and two separate towers."""
    graph = WorldGraph()
    for name in ("a", "b", "c", "d", "e"):
        graph.add_entity(name, "block")
    for fact in (Fact("on", ("a", "b")), Fact("clear", ("a",)), Fact("raining", ()),
                 Fact("between", ("c", "a", "b")), Fact("on", ("d", "e"))):
        graph.add_fact(fact)
    return graph


def test_png_is_a_valid_png_file(tmp_path):
    out = render_graph(house_graph(), household(), tmp_path / "house.png")
    assert out.read_bytes().startswith(PNG_MAGIC)


def test_svg_is_an_svg_document(tmp_path):
    out = render_graph(house_graph(), household(), tmp_path / "house.svg", entities={"kitchen", "sink1", "faucet1"})
    root = ET.parse(out).getroot()
    assert root.tag.endswith("svg")
    texts = {t.text for t in root.iter() if t.tag.endswith("text")}
    assert {"kitchen", "sink1", "faucet1", "faucet_of"} <= texts


def test_a_graph_larger_than_the_limit_is_refused_with_a_way_out(tmp_path):
    with pytest.raises(RenderError, match=r"--entity NAME --depth N.*--max-nodes"):
        render_graph(house_graph(), household(), tmp_path / "x.png", max_nodes=5)
    assert not (tmp_path / "x.png").exists()


def test_other_formats_and_empty_selections_are_refused(tmp_path):
    with pytest.raises(RenderError, match=r"\.png or \.svg"):
        render_graph(house_graph(), household(), tmp_path / "x.jpg")
    with pytest.raises(RenderError, match="nothing to draw"):
        render_graph(house_graph(), household(), tmp_path / "x.png", entities=[])


@pytest.mark.parametrize(("type_", "plural"), [("kitchen", None), ("room", "rooms"), ("robot", "agents"),
                                               ("person", "agents"), ("sink", "fixtures"), ("light", "fixtures"),
                                               ("dish", "items"), (None, "other")])
def test_entities_are_coloured_by_type_family(type_, plural):
    if type_ == "kitchen":  # not a type of the domain
        assert family(household(), type_) == OTHER
    else:
        assert family(household(), type_)[1] == plural


@pytest.mark.parametrize("seed", [None, 1, 2, 3])
def test_rooms_are_hubs_that_what_is_in_them_surrounds(seed):
    graph = house_graph() if seed is None else generated_house(seed)
    pos = layout(build_scene(graph, household()))
    assert set(pos) == set(graph.entities())
    assert len({(round(x, 6), round(y, 6)) for x, y in pos.values()}) == len(pos)
    rooms = [n for n in graph.entities() if graph.entity_type(n) == "room"]
    for fact in graph.facts(predicate="in_room"):
        thing, room = fact.args
        distance = {r: math.dist(pos[thing], pos[r]) for r in rooms}
        assert min(distance, key=distance.get) == room
        assert distance[room] >= RING - 1e-9


def test_domains_without_rooms_render_with_0_ary_and_3_ary_facts(tmp_path):
    domain = Domain.from_string(TINY_DOMAIN)
    scene = build_scene(tiny_graph(), domain)
    assert caption(scene) == "0-ary facts: (raining)"
    assert {family(domain, "block")} == {OTHER}
    assert len(layout(scene)) == 5
    assert render_graph(tiny_graph(), domain, tmp_path / "tiny.png").read_bytes().startswith(PNG_MAGIC)


def test_the_caption_says_when_there_is_no_0_ary_fact():
    assert caption(build_scene(house_graph(), household())) == "0-ary facts: none"
