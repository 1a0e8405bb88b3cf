"""Derivation: a marked module or function and its source -> ``ir`` (SPEC sections 1-3b)."""
