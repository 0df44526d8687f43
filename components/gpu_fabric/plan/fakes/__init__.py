"""Offline answers of every cloud's SDK, for the planner (:mod:`gpu_fabric.plan.mocks`).

One module per cloud, ``components/gpu_fabric/plan/fakes/<cloud>.py``, with two tables:
``RESOURCE_OUTPUTS`` (type token -> fn(name, inputs) -> computed outputs) and
``CALLS`` (invoke token -> fn(args) -> result). They live with the planner, not
in the production cloud packages, and are imported by name: a fake that fails
to import, or a cloud without one, fails the plan loudly instead of being
skipped (``tests/test_architecture.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gpu_fabric.catalog import Cloud
from gpu_fabric.clouds.contract import CallFake, CloudFakes, ResourceFake
from gpu_fabric.plan.fakes import aws, azure, digitalocean, gcp, oci


@dataclass(frozen=True)
class TableFakes:
    """A :class:`~gpu_fabric.clouds.contract.CloudFakes` from a fakes module's two tables."""

    resource_outputs: Mapping[str, ResourceFake]
    calls: Mapping[str, CallFake]


FAKES: Mapping[Cloud, CloudFakes] = {
    Cloud.GCP: TableFakes(gcp.RESOURCE_OUTPUTS, gcp.CALLS),
    Cloud.AWS: TableFakes(aws.RESOURCE_OUTPUTS, aws.CALLS),
    Cloud.AZURE: TableFakes(azure.RESOURCE_OUTPUTS, azure.CALLS),
    Cloud.DIGITALOCEAN: TableFakes(digitalocean.RESOURCE_OUTPUTS, digitalocean.CALLS),
    Cloud.OCI: TableFakes(oci.RESOURCE_OUTPUTS, oci.CALLS),
}
