"""blake2b, toolcall's content hash, from hashlib's own C module.

``import hashlib`` loads the OpenSSL bindings first: milliseconds a cold start does not need.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b

__all__ = ["blake2b"]
