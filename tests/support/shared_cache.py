"""Values computed once per test run and shared by the pytest-xdist workers (issue 36).

`make test` runs the suite on every core (pytest-xdist); a ``functools.cache`` lives in
one worker, so without this each worker planned each committed stack and each feature
variant again (~1 s of CPU each). :func:`shared` keeps the value, pickled, in a folder of
this run only (named after xdist's run id; removed at the end of the run by
tests/conftest.py), so no value outlives the sources it was computed from. The first
worker to ask computes it under a file lock; the other waits and reads it. Without
xdist it just computes.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
RUN_ID = "PYTEST_XDIST_TESTRUNUID"  # set by pytest-xdist in every worker


def run_folder(run_id: str | None = None) -> Path | None:
    """This run's folder (``run_id``: xdist's run id; default: this worker's)."""
    run_id = run_id or os.environ.get(RUN_ID)
    if not run_id or not run_id.isalnum():
        return None
    return Path(tempfile.gettempdir()) / f"gpu-fabric-tests-{run_id}"


def shared(key: str, compute: Callable[[], T]) -> T:
    """``compute()``, once for every worker of this run (by ``key``)."""
    folder = run_folder()
    if folder is None:
        return compute()
    folder.mkdir(exist_ok=True)
    name = hashlib.sha256(key.encode()).hexdigest()[:32]
    path = folder / f"{name}.pickle"
    with open(folder / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if path.exists():
            value: T = pickle.loads(path.read_bytes())
            return value
        value = compute()  # an exception is not stored: the next asker computes again
        partial = path.with_suffix(".partial")
        partial.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        partial.replace(path)
        return value


def remove(run_id: str | None) -> None:
    """Delete the run's folder (the controller, at the end of the run)."""
    folder = run_folder(run_id)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
