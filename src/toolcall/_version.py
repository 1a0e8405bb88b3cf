"""The version, written once: ``pyproject.toml`` reads it (setuptools ``attr``, parsed
without importing), ``toolcall.__version__`` and both scripts' ``--version`` show it.

A string in the source, not ``importlib.metadata``: it is right in a source checkout or a
stale editable install too, and reading it costs no metadata scan.
"""

__version__ = "0.1.0"
