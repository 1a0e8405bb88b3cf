"""Rendering: ``ir`` -> JSON Schemas and provider tool definitions (SPEC section 4)."""
