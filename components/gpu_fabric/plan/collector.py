"""Young garbage collections only while a plan runs (issue 36: azure plans at 1.6x floor).

A plan runs in a process that holds the Pulumi SDK and one cloud's provider modules:
hundreds of thousands of long-lived objects (pulumi_azure_native's classes and typing
objects: ~250k after import). Python's full (generation 2) collections walk all of them
each time, and a plan's allocations (Outputs, asyncio tasks) trigger several: about a
third of the CPU an azure-ndv5 plan spent beyond its floor (bench/plan_bench.py). The
plan's own garbage is young, so young collections (generations 0 and 1) keep collecting
it; only the full walk waits until the plan is done, when the thresholds are restored.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Generation-1 collections before a full one: high enough that no plan reaches it.
PLAN_FULL_COLLECTION_THRESHOLD = 1_000_000


@contextmanager
def young_collections_only() -> Iterator[None]:
    """Suspend full collections for the block; restore the previous thresholds after
    (nested uses keep the outermost caller's thresholds)."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], PLAN_FULL_COLLECTION_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)
