"""GKE maintenance exclusions: real dates, end after start, NO_UPGRADES within 30 days
(https://cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions:
"No upgrades" exclusions last up to 30 days; the other scopes may last until the minor
version's end of support) (issue 34)."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict


def _spec(**exclusion: Any) -> dict[str, Any]:
    return spec_dict("gcp", gcp={"project": "test-project", "maintenance_exclusions": [
        {"name": "freeze", "start_time": "2026-12-01T00:00:00Z", **exclusion}]})


@pytest.mark.parametrize(("exclusion", "says"), [
    ({"start_time": "2026-02-30T00:00:00Z"},
     "gcp.maintenance_exclusions[0].start_time: '2026-02-30T00:00:00Z' is not a real date"),
    ({"end_time": "2026-13-01T00:00:00Z"}, "gcp.maintenance_exclusions[0].end_time"),
    ({"end_time": "2026-11-30T00:00:00Z"},
     "gcp.maintenance_exclusions[0].end_time: end_time is not after start_time "
     "2026-12-01T00:00:00Z"),
    ({"end_time": "2026-12-01T00:00:00Z"}, "end_time is not after start_time"),
    ({"scope": "NO_UPGRADES", "end_time": "2027-01-01T00:00:01Z"},
     "gcp.maintenance_exclusions[0].end_time: a NO_UPGRADES exclusion lasts at most 30 days"),
    ({"scope": "NO_UPGRADES"}, "a NO_UPGRADES exclusion lasts at most 30 days"),
])
def test_bad_windows_are_refused(exclusion: dict[str, Any], says: str) -> None:
    with pytest.raises(SpecError) as err:
        load_spec(_spec(**exclusion))
    assert says in str(err.value), str(err.value)


@pytest.mark.parametrize("exclusion", [
    {"scope": "NO_UPGRADES", "end_time": "2026-12-31T00:00:00Z"},  # exactly 30 days
    {"end_time": "2027-06-01T00:00:00+02:00"},  # NO_MINOR_OR_NODE_UPGRADES: months
    {},  # until end of support
])
def test_good_windows_load(exclusion: dict[str, Any]) -> None:
    spec = load_spec(_spec(**exclusion))
    assert spec.options.maintenance_exclusions[0].name == "freeze"
