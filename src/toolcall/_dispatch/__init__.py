"""Dispatch: ``ir`` plus the live functions -> validated calls and results (SPEC section 5)."""
