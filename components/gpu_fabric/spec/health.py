"""Day-2 health: one switch (``health.enabled``) for NVSentinel and the active fabric check.

See ``docs/health.md``. The rest of the section tunes the check: how often a node is
re-tested, how many node pairs one run tests, whether a failed node is tainted and what
NVSentinel does on a fatal fault (cordon only by default).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from gpu_fabric.spec.base import SpecModel, _fail

# Five fields of a standard cron expression (the CronJob's ``schedule``): minute hour
# day-of-month month day-of-week, each digits, '*', ranges, lists and steps.
_CRON_FIELD = r"[0-9*][0-9*,/-]*"
_CRON = re.compile(rf"^{_CRON_FIELD}( {_CRON_FIELD}){{4}}$")


class HealthSpec(SpecModel):
    """GPU and fabric health checking (NVSentinel + active nccl-tests on idle nodes)."""

    enabled: bool = Field(
        default=False,
        description="NVSentinel and the active fabric check on idle GPU nodes (docs/health.md)",
    )
    schedule: str = Field(
        default="17 * * * *", description="Cron schedule of the active check (every hour)"
    )
    interval_hours: int = Field(
        default=24, ge=1, le=720,
        description="A node is tested again once its last check is this old (hours)",
    )
    max_pairs: int = Field(
        default=2, ge=1, le=16, description="Node pairs one run tests per pool, at most"
    )
    taint_on_failure: bool = Field(
        default=True,
        description="Taint a node that fails the check (gpufabric.dev/fabric-health=failed"
        ":NoSchedule) so no new work lands there; a later pass removes it",
    )
    remediation: Literal["cordon", "drain", "off"] = Field(
        default="cordon",
        description="NVSentinel on a fatal fault: cordon (default), drain (cordon, then "
        "evict), off (report node conditions only)",
    )

    @field_validator("schedule")
    @classmethod
    def _schedule(cls, value: str) -> str:
        return check_schedule(value)


def check_schedule(value: str) -> str:
    """A five-field cron expression (what a CronJob's ``schedule`` takes)."""
    if not _CRON.match(value):
        raise _fail(
            "cron",
            "'{v}' is not a five-field cron schedule (minute hour day month weekday), "
            "e.g. '17 * * * *'",
            v=value,
        )
    return value
