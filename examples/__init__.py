"""Example tool modules used by the demo, the tests and the benchmarks."""
