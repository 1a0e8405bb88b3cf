"""Tool search over the IR: which tools of a large catalog a request needs.

``tokens`` turns names and texts into the terms both sides are compared by; ``index`` holds a
box's documents and the BM25F ranking, built on the first search and kept by the Toolbox;
``stored`` keeps each module's term counts (and its own index) on its registry entry and in
the cache, and turns an unknown tool name into suggestions. Everything reads the IR (never
docstrings or live functions), so search gives the same answer under ``python -OO`` and from a
sourceless deployment's cache.
"""
