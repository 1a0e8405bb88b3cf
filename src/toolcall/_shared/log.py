"""Records on the ``toolcall`` logger, without importing ``logging`` until one is due.

A process that never imported ``logging`` has no handler a DEBUG record could reach (the
last-resort handler takes warnings and worse), so the record is dropped there instead of
paying for the import: milliseconds of every cold start, where a cache miss is logged. An
ERROR record imports ``logging`` when it happens, never before: on Python 3.15 ``logging``
brings ``traceback`` and ``tokenize`` with it, which a first ``run`` must not pay for.
"""

from __future__ import annotations

import sys

__all__ = ["debug", "error"]


def debug(message: str, *args: object, exc_info: bool = False) -> None:
    """Log ``message % args`` at DEBUG on ``toolcall``, if logging is in use at all."""
    logging = sys.modules.get("logging")
    if logging is not None:
        logging.getLogger("toolcall").debug(message, *args, exc_info=exc_info)


def error(message: str, *args: object, exc_info: BaseException) -> None:
    """Log ``message % args`` at ERROR on ``toolcall`` with ``exc_info``'s traceback."""
    import logging  # the rare failure path pays for the import, not every run

    logging.getLogger("toolcall").error(message, *args, exc_info=exc_info)
