"""What every `l3mp` subcommand shares: the parsed command line with the domain, rules and store it names, the
usage error, and reading states and JSON from files."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from l3mp.domain import Domain, RuleSet
from l3mp.domain.paths import DEFAULT_DOMAIN, domain_path
from l3mp.errors import L3mpError
from l3mp.world.graph import WorldGraph
from l3mp.world.model import WorldModel
from l3mp.world.store import default_store_path


class UsageError(L3mpError):
    """The command line or an input file is malformed (exit status 2)."""


@dataclass
class Context:
    """The parsed command line, with the domain, rules and store it names."""

    args: argparse.Namespace

    def option(self, name: str) -> object:
        return getattr(self.args, name, None)

    @cached_property
    def domain(self) -> Domain:
        return Domain.from_file(domain_path(self.option("domain") or os.environ.get("L3MP_DOMAIN") or DEFAULT_DOMAIN))

    @cached_property
    def rules(self) -> RuleSet:
        path = self.option("rules")
        return RuleSet.from_file(path, self.domain) if path else RuleSet.for_domain(self.domain)

    @cached_property
    def store_path(self) -> Path:
        return default_store_path(self.option("store"))

    @property
    def fsync(self) -> bool:
        return not self.option("no_fsync")

    def open(self, *, read_only: bool = False) -> WorldModel:
        """The world model of the store (read-only: no lock, and the store must exist)."""
        if read_only and not self.store_path.is_dir():
            raise L3mpError(f"no store at {self.store_path}; create one with 'l3mp init --house SEED' "
                            "(or choose another with --store DIR or $L3MP_STORE)")
        return WorldModel.open(self.domain, self.store_path, rules=self.rules, fsync=self.fsync, read_only=read_only)


def read_state(domain: Domain, path: str) -> WorldGraph:
    """A state from a PDDL problem (.pddl) or graph JSON (.json) file."""
    from l3mp.world.pddl_io import graph_from_problem

    suffix = Path(path).suffix.lower()
    if suffix == ".pddl":
        return graph_from_problem(domain, path)
    if suffix == ".json":
        return WorldGraph.from_json(read_json(path))
    raise UsageError(f"cannot tell what {path} holds: name a PDDL problem *.pddl or a graph JSON *.json")


def read_json(path: str) -> object:
    """The JSON document in file `path` (``-``: stdin); malformed input raises UsageError."""
    name = "stdin" if path == "-" else path
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {name}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
