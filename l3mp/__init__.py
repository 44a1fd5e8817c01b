"""l3mp: lifelong world-state memory and planning for service robots (L3M+P)."""

__version__ = "0.1.0"
