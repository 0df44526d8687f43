"""``health:`` in the spec: one switch, off by default; bad values refused with the field,
the value and what is valid, before any resource."""

from __future__ import annotations

import pytest

from gpu_fabric.errors import SpecError
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict


def test_off_by_default_with_the_documented_defaults() -> None:
    health = load_spec(spec_dict("aws")).health
    assert health.model_dump() == {
        "enabled": False, "schedule": "17 * * * *", "interval_hours": 24, "max_pairs": 2,
        "taint_on_failure": True, "remediation": "cordon"}


@pytest.mark.parametrize(("field", "value", "message"), [
    ("schedule", "hourly",
     "health.schedule: 'hourly' is not a five-field cron schedule (minute hour day month "
     "weekday), e.g. '17 * * * *'"),
    ("interval_hours", 0, "health.interval_hours: Input should be greater than or equal to 1"),
    ("remediation", "reboot",
     "health.remediation: Input should be 'cordon', 'drain' or 'off'"),
])
def test_bad_values_are_refused_naming_the_field(field: str, value: object, message: str) -> None:
    with pytest.raises(SpecError) as info:
        load_spec(spec_dict("aws", health={"enabled": True, field: value}))
    assert message in str(info.value)


def test_an_unknown_key_is_refused() -> None:
    with pytest.raises(SpecError, match=r"health\.enable: unknown key 'enable'"):
        load_spec(spec_dict("aws", health={"enable": True}))
