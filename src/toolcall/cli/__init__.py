"""Command-line entry points: ``toolcall`` (export, watch) and ``toolcall-cache``."""
