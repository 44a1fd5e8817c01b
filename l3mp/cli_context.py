"""What every `l3mp` subcommand shares: the parsed command line with the domain, rules and store it names, the
usage error, and reading states and JSON from files."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from l3mp.domain import Domain, RuleSet
from l3mp.domain.paths import DEFAULT_DOMAIN, domain_path
from l3mp.errors import FormatError, L3mpError
from l3mp.world.graph import WorldGraph
from l3mp.world.jsondoc import max_input_bytes, parse_json
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
    """The JSON document in file `path` (``-``: stdin), bounded like every JSON input (l3mp.world.jsondoc: size,
    UTF-8, nesting, duplicate keys); malformed input raises UsageError (exit status 2) with one short line."""
    name = "stdin" if path == "-" else path
    try:
        limit = max_input_bytes()
        data = read_bounded(path, limit)
        return parse_json(data, what=name, max_bytes=limit)
    except FormatError as exc:
        raise UsageError(str(exc)) from None


def read_bounded(path: str, limit: int) -> bytes:
    """At most `limit` + 1 bytes of file `path` (``-``: stdin): enough to tell that it is too large, without
    reading all of a huge input. UsageError if it cannot be read."""
    name = "stdin" if path == "-" else path
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            return stream.read(limit + 1) if stream is not None else sys.stdin.read(limit + 1).encode("utf-8")
        with open(path, "rb") as f:
            return f.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
