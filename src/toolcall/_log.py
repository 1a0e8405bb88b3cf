"""DEBUG records on the ``toolcall`` logger, without importing ``logging`` for them.

A process that never imported ``logging`` has no handler a DEBUG record could reach (the
last-resort handler takes warnings and worse), so the record is dropped there instead of
paying for the import: milliseconds of every cold start, where a cache miss is logged.
"""

from __future__ import annotations

import sys

__all__ = ["debug"]


def debug(message: str, *args: object, exc_info: bool = False) -> None:
    """Log ``message % args`` at DEBUG on ``toolcall``, if logging is in use at all."""
    logging = sys.modules.get("logging")
    if logging is not None:
        logging.getLogger("toolcall").debug(message, *args, exc_info=exc_info)
