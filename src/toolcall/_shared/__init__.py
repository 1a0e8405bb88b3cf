"""Leaves every stage and the warm path may import: names, signatures, digests, log records,
the gathering of awaitables, and the class-kind rules (``kinds``). They import nothing from
toolcall but ``ir``."""
