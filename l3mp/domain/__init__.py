"""PDDL domains, the triplet schema derived from them, and world-state rules."""

from l3mp.domain.pddl_domain import Domain, Predicate
from l3mp.domain.rules import CardinalityRule, RuleSet
from l3mp.domain.triplets import WORLD, Fact, fact_from_triplet, fact_to_triplet

__all__ = [
    "WORLD",
    "CardinalityRule",
    "Domain",
    "Fact",
    "Predicate",
    "RuleSet",
    "fact_from_triplet",
    "fact_to_triplet",
]
