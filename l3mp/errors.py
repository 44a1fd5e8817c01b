"""Typed errors of l3mp; every message says what was wrong and how to fix it."""

from __future__ import annotations


class L3mpError(Exception):
    """Base class of every error l3mp raises on purpose."""


class DomainError(L3mpError):
    """A PDDL domain or its rules file cannot be loaded or used."""


class ProblemError(L3mpError):
    """A PDDL problem cannot be read into the world-state graph, or a graph cannot be written as one."""


class FormatError(L3mpError):
    """A JSON document (graph, delta, perception batch) is malformed."""


class DeltaRejected(L3mpError):
    """A delta failed verification; nothing was applied.

    `violations` lists every problem found, each with an actionable message.
    """

    def __init__(self, violations: list) -> None:
        self.violations = list(violations)
        lines = "\n".join(f"- {v.message}" for v in self.violations)
        super().__init__(f"delta rejected ({len(self.violations)} problem(s)):\n{lines}")


class StoreError(L3mpError):
    """The durable store cannot be opened, locked or written."""


class LLMError(L3mpError):
    """The language model could not give a usable answer."""


class LLMUnavailable(LLMError):
    """The LLM endpoint cannot be reached or started (after the bounded retries)."""


class LLMTimeout(LLMError):
    """The LLM did not answer within its time limit."""


class LLMOutputError(LLMError):
    """The LLM answered, but not with JSON of the requested shape."""
