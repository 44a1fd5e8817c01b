"""Typed errors of the AI2-THOR adapter."""

from __future__ import annotations

from l3mp.errors import L3mpError


class ThorError(L3mpError):
    """AI2-THOR data, a scene, an action or the controller cannot be used; the message says what to change."""
