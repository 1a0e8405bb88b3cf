"""blake2b, toolcall's content hash, from hashlib's own C module; CRC-32, its checksum.

``import hashlib`` loads the OpenSSL bindings first: milliseconds a cold start does not need.
The content hash keys what must never be mistaken for something else (a source, a file
dependency). The checksum only catches damage (a torn file, a flipped bit), never forgery,
which an unkeyed hash cannot stop (the trust check does): a cache entry's file and the IR
digest of its summary, where a quarter of blake2b's cost is what every warm load pays.
"""

from __future__ import annotations

import zlib
from typing import Any, Final

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b

__all__ = ["CHECKSUM_SIZE", "blake2b", "checksum"]

CHECKSUM_SIZE: Final = 4


def checksum(data: Any) -> bytes:
    """The CRC-32 of ``data`` (bytes-like), big-endian."""
    return zlib.crc32(data).to_bytes(CHECKSUM_SIZE, "big")
