"""tests/support/shared_cache.py: one computation per run for every xdist worker."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from tests.support import shared_cache


def _count_and_return(marker: str) -> str:
    # Appends a line per call: the number of lines is the number of computations.
    with open(marker, "a") as out:
        out.write("computed\n")
    return "value"


def _ask(marker: str, results: str) -> None:
    value = shared_cache.shared("k", lambda: _count_and_return(marker))
    with open(results, "a") as out:
        out.write(value + "\n")


def test_workers_of_one_run_compute_a_value_once(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared_cache.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setenv(shared_cache.RUN_ID, "run1")
    marker, results = tmp_path / "computed.txt", tmp_path / "results.txt"
    workers = [multiprocessing.get_context("fork").Process(
        target=_ask, args=(str(marker), str(results))) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    assert marker.read_text() == "computed\n"
    assert results.read_text() == "value\nvalue\nvalue\n"
    folder = tmp_path / "gpu-fabric-tests-run1"
    assert folder.is_dir()
    shared_cache.remove("run1")
    assert not folder.exists()


def test_another_run_or_no_run_computes_again(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared_cache.tempfile, "gettempdir", lambda: str(tmp_path))
    calls: list[int] = []
    monkeypatch.setenv(shared_cache.RUN_ID, "run1")
    assert shared_cache.shared("k", lambda: calls.append(1) or 1) == 1
    assert shared_cache.shared("k", lambda: calls.append(2) or 2) == 1  # stored
    monkeypatch.setenv(shared_cache.RUN_ID, "run2")
    assert shared_cache.shared("k", lambda: calls.append(3) or 3) == 3
    monkeypatch.delenv(shared_cache.RUN_ID)
    assert shared_cache.shared("k", lambda: calls.append(4) or 4) == 4
    assert calls == [1, 3, 4]


def test_a_failed_computation_is_not_stored(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared_cache.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setenv(shared_cache.RUN_ID, "run1")

    def fail() -> int:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        shared_cache.shared("k", fail)
    assert shared_cache.shared("k", lambda: 7) == 7
    assert shared_cache.run_folder("../etc") is None  # not a path outside the temp dir
