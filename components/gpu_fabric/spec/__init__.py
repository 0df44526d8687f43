"""The cluster spec: one pydantic model tree for everything a stack declares.

A stack file keeps the whole description under one config key,
``gpu-fabric:cluster``, so ``Pulumi.<stack>.yaml`` maps 1:1 onto
:class:`ClusterSpec`. Every model forbids unknown keys (a typo is an error).

Checks that need to know the cloud or the Kubernetes version (machine types,
capacity options, DRA API levels...) read them from the validation context,
which :class:`ClusterSpec` fills in from the raw input before validating, so
they run in the same pass as the structural checks and every problem of a
file is reported at once (see :func:`load_spec`).

The spec is a package split by concern (``base``, ``cluster``, ``pools``, ``fabric``,
``addons``, ``tenancy``, ``loading``); every name stays importable from
``gpu_fabric.spec``.

The pydantic validators are one-line wrappers: each rule lives in a plain module
function (``_check_pool``, ``_check_fabric``...). mutmut 3 does not mutate decorated
functions, so a rule inside a ``@model_validator`` would be invisible to mutation
testing (``docs/mutation.md``).
"""

from __future__ import annotations

from gpu_fabric.spec.addons import AddonSpec, AddonsSpec
from gpu_fabric.spec.base import (
    DNS_LABEL,
    LABEL_KEY,
    LABEL_VALUE,
    VERSION_PIN,
    Cidr,
    ClusterName,
    SpecModel,
)
from gpu_fabric.spec.cluster import (
    ClusterSpec,
    ExistingClusterSpec,
    KubeconfigSource,
    KubernetesSpec,
    LocationSpec,
    NetworkSpec,
    example_location,
)
from gpu_fabric.spec.fabric import AttachMode, FabricSpec
from gpu_fabric.spec.health import HealthSpec
from gpu_fabric.spec.loading import load_spec, problems_from_validation, spec_json_schema
from gpu_fabric.spec.pools import (
    CapacitySpec,
    CapacityType,
    GpuNodePoolSpec,
    MigSpec,
    SystemPoolSpec,
    TaintSpec,
)
from gpu_fabric.spec.tenancy import AcceptanceSpec, Collective, TeamSpec, TenancySpec, parse_size

__all__ = [
    "DNS_LABEL",
    "LABEL_KEY",
    "LABEL_VALUE",
    "VERSION_PIN",
    "AcceptanceSpec",
    "AddonSpec",
    "AddonsSpec",
    "AttachMode",
    "CapacitySpec",
    "CapacityType",
    "Cidr",
    "ClusterName",
    "ClusterSpec",
    "Collective",
    "ExistingClusterSpec",
    "FabricSpec",
    "GpuNodePoolSpec",
    "HealthSpec",
    "KubeconfigSource",
    "KubernetesSpec",
    "LocationSpec",
    "MigSpec",
    "NetworkSpec",
    "SpecModel",
    "SystemPoolSpec",
    "TaintSpec",
    "TeamSpec",
    "TenancySpec",
    "example_location",
    "load_spec",
    "parse_size",
    "problems_from_validation",
    "spec_json_schema",
]
