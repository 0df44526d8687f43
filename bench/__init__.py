"""Benchmarks (scripts, not timed tests): ``python -m bench.plan_bench``."""
