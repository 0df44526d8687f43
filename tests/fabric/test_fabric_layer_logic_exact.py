"""The fabric layer's logic written out: add-on defaults, tolerations, plugins, ordering.

Added for mutation testing (docs/mutation.md, ``scripts/mutation.py fabric-layer``):
``generic_defaults``, ``resolve_addons``, ``ResolvedAddon.chart/.image``,
``describe_cluster``, ``Taint``/``Toleration``, ``build_layer``/``_check``/``_ordered``,
``Layer.part`` and the plugin registry (``install``, ``installed``,
``LayerPlugins.cloud``, ``MergedValues``). Every expected value is written out and
says where it comes from:

- chart repos/names/versions and image tags: the pins of ``components/gpu_fabric/versions.py``
  (one source of truth; each pin cites its upstream release there);
- add-on namespaces: the Namespace children of ``tests/data/urns/*.txt`` (a
  compatibility surface) and the upstream install manifests named beside them;
- tolerations: Kubernetes core/v1 Toleration, as embedded in the Kueue ResourceFlavor
  CRD ``tests/data/upstream/crds/kueue.x-k8s.io/kueue.x-k8s.io_resourceflavors.yaml``
  (kubernetes-sigs/kueue v0.14.4, commit 28700e89; ``sources.json``);
- part names: the part segment of the child names in ``tests/data/urns/*.txt``;
- error texts, orders and precedence: the contract in the function's docstring.

The cloud and the layers above the fabric are small fakes handed in as a
:class:`LayerPlugins` value, so nothing here plans a cluster (the file runs in well
under a second).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from gpu_fabric import versions
from gpu_fabric.catalog import Cloud, get_machine
from gpu_fabric.fabric import plugins as plugins_module
from gpu_fabric.fabric.addons import ResolvedAddon, generic_defaults, resolve_addons
from gpu_fabric.fabric.description import (
    Attach,
    DevicePlugin,
    DraClasses,
    FabricDescription,
    PodInterface,
    Taint,
    Toleration,
    describe_cluster,
)
from gpu_fabric.fabric.layer import Layer, _check, _ordered, build_layer
from gpu_fabric.fabric.model import Part
from gpu_fabric.fabric.plugins import LayerPlugins, MergedValues, install, installed
from gpu_fabric.spec import ClusterSpec, load_spec
from gpu_fabric.versions import Chart, Image
from tests.specs import spec_dict

# Catalog machines (components/gpu_fabric/catalog/gcp.py): a4-highgpu-8g has 8 RoCE NICs
# (has_fabric), g2-standard-48 has no fabric NIC.
A4 = get_machine("a4-highgpu-8g", Cloud.GCP)
G2 = get_machine("g2-standard-48", Cloud.GCP)


def _fabric(pool: str = "gpu", machine: Any = A4, **fields: Any) -> FabricDescription:
    """A minimal description; only the fields a test names differ from 'no fabric'."""
    base: dict[str, Any] = {
        "cloud": Cloud.GCP,
        "pool": pool,
        "machine": machine,
        "attach": Attach.NONE,
        "device_plugin": DevicePlugin.NONE,
        "rails": (),
        "gpu_resource": "nvidia.com/gpu",
    }
    base.update(fields)
    return FabricDescription(**base)


def _dra(managed_nics: bool) -> DraClasses:
    return DraClasses("resource.k8s.io/v1", "gpu.nvidia.com", "dranet", "dra.net", managed_nics)


# -- generic_defaults ----------------------------------------------------------------
# The generic rules (components/gpu_fabric/fabric/addons/resolve.py docstring: "from the fabric
# descriptions", clouds refine them): Multus where NADs are host-device (DO seed,
# ../shared/seeds/digitalocean-doks-multinode-gpu.md), the EFA device plugin where the
# fabric's plugin is EFA, the NVIDIA DRA driver where GPUs come from DRA claims, DraNet
# where NICs are DRA devices the cloud does not manage (GKE managed DRANet installs its
# own, ../shared/seeds/gke-nvidia-dra-dranet.md), the cloud's NCCL installer where the
# describer asks for it, Kyverno injection where a machine has a fabric. Everything else
# is off until a cloud, the platform or the spec turns it on.

ALL_OFF = {
    "multus": False,
    "rdma_shared_device_plugin": False,
    "sriov_device_plugin": False,
    "network_operator": False,
    "gpu_operator": False,
    "nvidia_device_plugin": False,
    "efa_device_plugin": False,
    "nvidia_dra_driver": False,
    "dranet": False,
    "nccl_installer": False,
    "kyverno": False,
    "kueue": False,
    "jobset": False,
    "mpi_operator": False,
    "prometheus": False,
    "cert_manager": False,
    "nvsentinel": False,
}


def test_generic_defaults_of_no_pool_turn_everything_off() -> None:
    assert generic_defaults({}) == ALL_OFF


def test_generic_defaults_of_a_pool_without_fabric_turn_everything_off() -> None:
    # sriov NADs need no Multus default (the cloud adds it), an SR-IOV plugin is no EFA.
    plain = _fabric(machine=G2, nad_type="sriov", device_plugin=DevicePlugin.SRIOV)
    assert generic_defaults({"gpu": plain}) == ALL_OFF


def test_generic_defaults_of_a_pool_that_needs_every_generic_addon() -> None:
    rich = _fabric(
        nad_type="host-device",
        device_plugin=DevicePlugin.EFA,
        attach=Attach.DRA,
        dra=_dra(managed_nics=False),
        needs_nccl_installer=True,
    )
    assert generic_defaults({"gpu": rich}) == {
        "multus": True,
        "rdma_shared_device_plugin": False,
        "sriov_device_plugin": False,
        "network_operator": False,
        "gpu_operator": False,
        "nvidia_device_plugin": False,
        "efa_device_plugin": True,
        "nvidia_dra_driver": True,
        "dranet": True,
        "nccl_installer": True,
        "kyverno": True,
        "kueue": False,
        "jobset": False,
        "mpi_operator": False,
        "prometheus": False,
        "cert_manager": False,
        "nvsentinel": False,
    }


@pytest.mark.parametrize(
    ("fields", "dra_driver", "dranet"),
    [
        # GKE managed DRANet: the cloud installs the NIC driver, only the GPU driver is ours.
        ({"attach": Attach.DRA, "dra": _dra(managed_nics=True)}, True, False),
        # DRA attach without DRA classes: no NIC driver to install.
        ({"attach": Attach.DRA, "dra": None}, True, False),
        # DOKS: DRA GPUs, NICs from a device plugin (gpu_dra), so no DraNet.
        ({"attach": Attach.DEVICE_PLUGIN, "gpu_dra": True, "dra": _dra(False)}, True, False),
        ({"attach": Attach.DEVICE_PLUGIN, "dra": _dra(False)}, False, False),
    ],
)
def test_generic_defaults_dra_drivers(
    fields: dict[str, Any], dra_driver: bool, dranet: bool
) -> None:
    got = generic_defaults({"gpu": _fabric(**fields)})
    assert (got["nvidia_dra_driver"], got["dranet"]) == (dra_driver, dranet)


def test_generic_defaults_any_pool_is_enough() -> None:
    # Two pools: the second alone asks for Multus, EFA and Kyverno; the first has none.
    fabrics = {
        "cpu": _fabric("cpu", machine=G2),
        "gpu": _fabric(nad_type="host-device", device_plugin=DevicePlugin.EFA),
    }
    got = generic_defaults(fabrics)
    assert (got["multus"], got["efa_device_plugin"], got["kyverno"]) == (True, True, True)


# -- fake plugins: a cloud and a layer above it ----------------------------------------


@dataclass
class FakeCloud:
    """A CloudProvider (components/gpu_fabric/clouds/contract.py) with canned answers."""

    cloud: Cloud = Cloud.GCP
    critical_pods_need_quota: bool = False
    defaults: Mapping[str, bool] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)
    dra_pools: frozenset[str] = frozenset()
    own_parts: tuple[Part, ...] = ()
    seen_values: list[Any] = field(default_factory=list)

    def check(self, spec: ClusterSpec) -> None:
        return None

    def describe(self, spec: ClusterSpec, pool: Any) -> FabricDescription:
        if pool.name in self.dra_pools:
            return _fabric(pool.name, attach=Attach.DRA, dra=_dra(False),
                           node_labels={"cloud/label": "c"})
        return _fabric(pool.name, node_labels={"cloud/label": "c"})

    def node_labels(self, spec: ClusterSpec, pool: Any) -> Mapping[str, str]:
        return {}

    def addon_defaults(self, spec: ClusterSpec, fabrics: Any) -> Mapping[str, bool]:
        return self.defaults

    def chart_values(self, addon: str, spec: ClusterSpec, fabrics: Any) -> Mapping[str, Any]:
        return self.values.get(addon, {})

    def parts(self, spec: ClusterSpec, fabrics: Any, addons: Any, values: Any) -> list[Part]:
        self.seen_values.append(values)
        merged = values.chart_values("gpu_operator", spec, fabrics)
        return [Part(p.name, ({"merged": merged},), after=p.after) for p in self.own_parts]


@dataclass
class FakeAbove:
    """A LayerContributor above the fabric (the platform layer's shape)."""

    defaults: Mapping[str, bool] = field(default_factory=dict)
    values: Mapping[str, Any] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    own_parts: tuple[Part, ...] = ()

    def node_labels(self, spec: ClusterSpec, pool: Any) -> Mapping[str, str]:
        # Uses the spec, so a contributor handed no spec is told apart.
        return {**self.labels, "above/cluster": spec.name}

    def addon_defaults(self, spec: ClusterSpec, fabrics: Any) -> Mapping[str, bool]:
        return self.defaults

    def chart_values(self, addon: str, spec: ClusterSpec, fabrics: Any) -> Mapping[str, Any]:
        return self.values.get(addon, {})

    def parts(self, spec: ClusterSpec, fabrics: Any, addons: Any, values: Any) -> list[Part]:
        return list(self.own_parts)


def _spec(**overrides: Any) -> ClusterSpec:
    return load_spec(spec_dict("gcp", **overrides))


# -- resolve_addons: generic < cloud < layers above < spec -------------------------------


def test_resolve_addons_precedence_versions_values_and_namespaces() -> None:
    spec = _spec(addons={
        "kueue": {"enabled": False},
        "prometheus": {"enabled": True, "version": "80.0.0",
                       "values": {"grafana": {"enabled": False}}},
        "multus": {"version": "v4.2.0-thick"},
    })
    # a pool without fabric: every generic default is off (test above).
    fabrics = {"gpu": _fabric(machine=G2)}
    cloud = FakeCloud(defaults={"gpu_operator": True, "jobset": True, "multus": True})
    above = FakeAbove(defaults={"kueue": True, "jobset": False})
    got = resolve_addons(spec, fabrics, LayerPlugins({Cloud.GCP: cloud}, (above,)))
    # Namespaces: tests/data/urns Namespace children (gpu-operator, kueue-system, kyverno,
    # network-operator, nvidia-device-plugin, nvidia-dra-driver-gpu, monitoring,
    # mpi-operator); kube-system as the upstream manifests install them (multus-cni
    # v4.3.0 deployments/multus-daemonset-thick.yml, the rdma/sriov plugins' and
    # dranet's charts per ../shared/reference/kubernetes-layer.md); jobset-system:
    # kubernetes-sigs/jobset config/default/kustomization.yaml ("namespace:
    # jobset-system", at 0bcb0fc4).
    assert dict(got) == {
        "multus": ResolvedAddon("multus", True, "v4.2.0-thick", {}, "kube-system"),
        "rdma_shared_device_plugin": ResolvedAddon(
            "rdma_shared_device_plugin", False, None, {}, "kube-system"),
        "sriov_device_plugin": ResolvedAddon(
            "sriov_device_plugin", False, None, {}, "kube-system"),
        "network_operator": ResolvedAddon(
            "network_operator", False, None, {}, "network-operator"),
        "gpu_operator": ResolvedAddon("gpu_operator", True, None, {}, "gpu-operator"),
        "nvidia_device_plugin": ResolvedAddon(
            "nvidia_device_plugin", False, None, {}, "nvidia-device-plugin"),
        "efa_device_plugin": ResolvedAddon("efa_device_plugin", False, None, {}, "kube-system"),
        "nvidia_dra_driver": ResolvedAddon(
            "nvidia_dra_driver", False, None, {}, "nvidia-dra-driver-gpu"),
        "dranet": ResolvedAddon("dranet", False, None, {}, "kube-system"),
        "nccl_installer": ResolvedAddon("nccl_installer", False, None, {}, "kube-system"),
        "kyverno": ResolvedAddon("kyverno", False, None, {}, "kyverno"),
        # the layer above says on, the spec's explicit enabled: false wins
        "kueue": ResolvedAddon("kueue", False, None, {}, "kueue-system"),
        # the cloud says on, the layer above (later contributor) says off
        "jobset": ResolvedAddon("jobset", False, None, {}, "jobset-system"),
        "mpi_operator": ResolvedAddon("mpi_operator", False, None, {}, "mpi-operator"),
        "prometheus": ResolvedAddon(
            "prometheus", True, "80.0.0", {"grafana": {"enabled": False}}, "monitoring"),
        # NVIDIA/NVSentinel README at e002c5dc: "helm upgrade --install cert-manager ...
        # --namespace cert-manager" and "helm upgrade --install nvsentinel ... --namespace
        # nvsentinel".
        "cert_manager": ResolvedAddon("cert_manager", False, None, {}, "cert-manager"),
        "nvsentinel": ResolvedAddon("nvsentinel", False, None, {}, "nvsentinel"),
    }
    assert got.on("gpu_operator") is True
    assert got.on("kueue") is False


# -- ResolvedAddon.chart / .image ------------------------------------------------------


def test_chart_is_the_pin_or_the_spec_version() -> None:
    # No spec version: the pinned chart itself (gpu_fabric/versions.py GPU_OPERATOR).
    pinned = ResolvedAddon("gpu_operator", True, None)
    assert pinned.chart() == versions.GPU_OPERATOR
    # KUEUE = Chart("oci://registry.k8s.io/kueue/charts", "kueue", "0.14.4")
    overridden = ResolvedAddon("kueue", True, "0.15.0")
    assert overridden.chart() == Chart("oci://registry.k8s.io/kueue/charts", "kueue", "0.15.0")


def test_chart_of_an_image_addon_is_refused() -> None:
    with pytest.raises(TypeError) as err:
        ResolvedAddon("multus", True, None).chart()
    assert str(err.value) == "add-on multus is not a Helm chart"


def test_image_is_the_pin_or_the_spec_tag() -> None:
    # No spec tag: the pinned image itself (gpu_fabric/versions.py MULTUS_THICK).
    assert ResolvedAddon("multus", True, None).image() == versions.MULTUS_THICK
    assert ResolvedAddon("multus", True, "v4.2.0-thick").image() == Image(
        "ghcr.io/k8snetworkplumbingwg/multus-cni", "v4.2.0-thick")
    # An add-on without an artefact of its own (nccl_installer) takes the caller's image:
    # GKE_TCPX_INSTALLER = Image(".../nccl-plugin-gpudirecttcpx-dev", "v3.1.9").
    tcpx = Image("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev",
                 "v3.1.9")
    assert ResolvedAddon("nccl_installer", True, None).image(tcpx) == tcpx
    assert ResolvedAddon("nccl_installer", True, "v3.1.10").image(tcpx) == Image(
        "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev",
        "v3.1.10")


@pytest.mark.parametrize("key", ["kueue", "nccl_installer"])
def test_image_of_a_chart_or_artefactless_addon_is_refused(key: str) -> None:
    with pytest.raises(TypeError) as err:
        ResolvedAddon(key, True, None).image()
    assert str(err.value) == f"add-on {key} is not an image"


# -- Taint / Toleration (Kubernetes core/v1 Toleration) ---------------------------------
# The Toleration schema (kueue v0.14.4 ResourceFlavor CRD, lines 122-155): fields key,
# operator, value, effect; "Valid operators are Exists and Equal. Defaults to Equal.
# Exists is equivalent to wildcard for value"; "If the operator is Exists, the value
# should be empty"; "Empty [effect] means match all taint effects".


def test_node_agents_tolerate_any_value() -> None:
    # Taint.toleration docstring: node agents tolerate any value of the key.
    assert Taint("nvidia.com/gpu", "present").toleration() == Toleration(
        "nvidia.com/gpu", "Exists", None, "NoSchedule")
    assert Taint("sku", "gpu", "NoExecute").toleration().to_dict() == {
        "key": "sku", "operator": "Exists", "effect": "NoExecute"}


def test_workloads_tolerate_exactly_the_taint() -> None:
    assert Taint("nvidia.com/gpu", "present").exact_toleration() == Toleration(
        "nvidia.com/gpu", "Equal", "present", "NoSchedule")
    assert Taint("sku", "gpu", "NoExecute").exact_toleration().to_dict() == {
        "key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoExecute"}


def test_a_taint_without_value_is_tolerated_by_key() -> None:
    assert Taint("dedicated", "", "PreferNoSchedule").exact_toleration() == Toleration(
        "dedicated", "Exists", None, "PreferNoSchedule")
    assert Taint("dedicated", "").exact_toleration().to_dict() == {
        "key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}


@pytest.mark.parametrize(
    ("toleration", "expected"),
    [
        (Toleration("k"), {"key": "k", "operator": "Exists"}),
        # Exists: the value is a wildcard, so it is left out even when given.
        (Toleration("k", "Exists", "v", "NoSchedule"),
         {"key": "k", "operator": "Exists", "effect": "NoSchedule"}),
        (Toleration("k", "Equal", "v", "NoSchedule"),
         {"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}),
        # Equal without value: no value key (never "value": None); empty effect: all.
        (Toleration("k", "Equal", None, ""), {"key": "k", "operator": "Equal"}),
        (Toleration("k", "Equal", "", None), {"key": "k", "operator": "Equal", "value": ""}),
    ],
)
def test_toleration_dict(toleration: Toleration, expected: dict[str, str]) -> None:
    assert toleration.to_dict() == expected


def test_fabric_tolerations_are_the_node_agent_ones() -> None:
    fabric = _fabric(taints=(Taint("nvidia.com/gpu", "present"), Taint("sku", "gpu")))
    assert fabric.tolerations == (
        Toleration("nvidia.com/gpu", "Exists", None, "NoSchedule"),
        Toleration("sku", "Exists", None, "NoSchedule"),
    )


# -- describe_cluster ---------------------------------------------------------------------

_POOLS = [
    {"name": "gpu", "machine_type": "a4-highgpu-8g", "node_count": 2,
     "labels": {"above/team": "spec-wins"}},
    {"name": "gpu2", "machine_type": "a4-highgpu-8g", "node_count": 1},
    {"name": "plain", "machine_type": "a4-highgpu-8g", "node_count": 1},
]


def _described(dra_pools: frozenset[str], existing: bool = False) -> dict[str, Any]:
    extra: dict[str, Any] = {"node_pools": _POOLS}
    if existing:
        extra["existing"] = {"kubeconfig": {"path": "/nonexistent"}}
    spec = _spec(**extra)
    above = FakeAbove(labels={"above/team": "platform", "above/mig": "all-1g"})
    plugins = LayerPlugins({Cloud.GCP: FakeCloud(dra_pools=dra_pools)}, (above,))
    return describe_cluster(spec, plugins)


def test_describe_cluster_labels_selectors_and_claim_prefixes() -> None:
    got = _described(frozenset({"gpu", "gpu2"}))
    # Labels: the cloud's, then the layer above's, except keys the pool's own labels set
    # (describe_cluster docstring). Selector: our pool label (POOL_LABEL
    # "gpufabric.dev/pool"). Claim prefix "<pool>-" on every DRA pool but the first in
    # spec order (FabricDescription.claim_prefix comment; issue 32: adding a pool
    # renames no existing claim template), and only on DRA pools.
    above_labels = {"cloud/label": "c", "above/mig": "all-1g", "above/cluster": "test-gcp"}
    assert got == {
        "gpu": _fabric("gpu", attach=Attach.DRA, dra=_dra(False), node_labels=above_labels,
                       node_selector={"gpufabric.dev/pool": "gpu"}, claim_prefix=""),
        "gpu2": _fabric("gpu2", attach=Attach.DRA, dra=_dra(False),
                        node_labels={**above_labels, "above/team": "platform"},
                        node_selector={"gpufabric.dev/pool": "gpu2"}, claim_prefix="gpu2-"),
        "plain": _fabric("plain", node_labels={**above_labels, "above/team": "platform"},
                         node_selector={"gpufabric.dev/pool": "plain"}, claim_prefix=""),
    }
    assert list(got) == ["gpu", "gpu2", "plain"]  # spec order


def test_describe_cluster_one_dra_pool_gets_no_prefix() -> None:
    got = _described(frozenset({"gpu"}))
    assert [got[p].claim_prefix for p in ("gpu", "gpu2", "plain")] == ["", "", ""]


def test_describe_cluster_existing_selects_by_the_pools_own_labels() -> None:
    got = _described(frozenset(), existing=True)
    assert [got[p].node_selector for p in ("gpu", "gpu2", "plain")] == [
        {"above/team": "spec-wins"}, {}, {}]


# -- the plugin registry --------------------------------------------------------------------


@pytest.fixture
def registry() -> Iterator[None]:
    """Restore the installed default (gpu_fabric.clouds.registry.PLUGINS) afterwards."""
    saved = list(plugins_module._installed)
    yield
    plugins_module._installed[:] = saved


def test_install_makes_the_default(registry: None) -> None:
    mine = LayerPlugins({Cloud.GCP: FakeCloud()})
    install(mine)
    assert installed() is mine
    other = LayerPlugins({})
    assert installed(other) is other


def test_installed_makes_a_lazy_default_once(registry: None) -> None:
    # `import gpu_fabric` installs a function (no cloud module loaded until a layer is asked).
    made: list[LayerPlugins] = []

    def make() -> LayerPlugins:
        made.append(LayerPlugins({Cloud.GCP: FakeCloud()}))
        return made[-1]

    install(make)
    first = installed()
    assert installed() is first
    assert made == [first]
    assert plugins_module._installed == [first]


def test_installed_without_any_says_how_to_install(
    registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plugins_module, "_installed", [])
    with pytest.raises(LookupError) as err:
        installed()
    assert str(err.value) == (
        "no cloud layers installed: `import gpu_fabric` installs the cloud registry; "
        "or pass a LayerPlugins value"
    )


def test_cloud_without_a_layer_lists_the_registered_ones() -> None:
    two = LayerPlugins({Cloud.OCI: FakeCloud(Cloud.OCI), Cloud.AWS: FakeCloud(Cloud.AWS)})
    with pytest.raises(LookupError) as err:
        two.cloud(Cloud.GCP)
    assert str(err.value) == "no cloud layer registered for 'gcp'; registered: aws, oci"
    with pytest.raises(LookupError) as err:
        LayerPlugins({}).cloud(Cloud.AZURE)
    assert str(err.value) == "no cloud layer registered for 'azure'; registered: none"


def test_merged_values_later_sources_win_and_no_source_is_empty() -> None:
    spec = _spec()
    first = FakeAbove(values={"a": {"x": 1, "keep": {"n": 1}}})
    last = FakeAbove(values={"a": {"x": 2, "keep": {"m": 2}}})
    assert MergedValues((first, last)).chart_values("a", spec, {}) == {
        "x": 2, "keep": {"n": 1, "m": 2}}
    assert MergedValues(()).chart_values("a", spec, {}) == {}


# -- build_layer, _check, _ordered, Layer.part ---------------------------------------------


def test_build_layer_order_addons_and_values() -> None:
    # fabric.namespaces ["training"] -> the generic "namespaces" part first; the cloud
    # turns on the NVIDIA device plugin (generic part), its own part waits for a part of
    # the layer above, which is contributed later.
    spec = _spec(fabric={"namespaces": ["training"]})
    fabrics = {"gpu": _fabric(machine=G2)}
    cloud = FakeCloud(
        defaults={"nvidia_device_plugin": True},
        values={"gpu_operator": {"from": "cloud", "both": "cloud"}},
        own_parts=(Part("cloud-part", after=("above-part",)),),
    )
    above = FakeAbove(
        defaults={"prometheus": False},
        values={"gpu_operator": {"from_above": True, "both": "above"}},
        own_parts=(Part("above-part"),),
    )
    layer = build_layer(spec, fabrics, LayerPlugins({Cloud.GCP: cloud}, (above,)))
    # Part names: tests/data/urns (azure-ndv5.txt "fabric-namespaces-namespace-training",
    # aws-p5.txt "fabric-nvidia-device-plugin-..."); the order: generic, cloud,
    # injection, above, then each part after the ones it waits for (_ordered docstring).
    assert layer.names == ["namespaces", "nvidia-device-plugin", "above-part", "cloud-part"]
    assert layer.addons.on("nvidia_device_plugin") is True
    # The pinned NVIDIA_DEVICE_PLUGIN chart, in namespace nvidia-device-plugin (urns).
    release = layer.part("nvidia-device-plugin").charts[0]
    assert (release.release, release.chart, release.namespace) == (
        "nvidia-device-plugin",
        versions.NVIDIA_DEVICE_PLUGIN,
        "nvidia-device-plugin",
    )
    # The cloud got the merged chart values: layers above first, the cloud last (wins).
    assert layer.part("cloud-part").manifests == (
        {"merged": {"from_above": True, "both": "cloud", "from": "cloud"}},)
    assert isinstance(cloud.seen_values[0], MergedValues)


def test_layer_part_names_the_parts_it_has() -> None:
    layer = Layer((Part("a"), Part("b")), resolve_addons(_spec(), {}, LayerPlugins(
        {Cloud.GCP: FakeCloud()})))
    assert layer.part("b") == Part("b")
    with pytest.raises(KeyError) as err:
        layer.part("c")
    assert err.value.args == ("no part 'c'; parts: a, b",)


def test_check_refuses_a_duplicate_part() -> None:
    with pytest.raises(ValueError) as err:
        _check([Part("a"), Part("b"), Part("a"), Part("c")])
    assert str(err.value) == "duplicate layer parts: ['a']"


def test_check_refuses_waiting_for_an_unknown_part() -> None:
    with pytest.raises(ValueError) as err:
        _check([Part("a"), Part("b", after=("a", "nope", "gone"))])
    assert str(err.value) == "part 'b' waits for unknown parts ['nope', 'gone']"
    _check([Part("a"), Part("b", after=("a",))])  # known waits pass


def test_build_layer_checks_the_contributed_parts() -> None:
    cloud = FakeCloud(own_parts=(Part("x", after=("missing",)),))
    with pytest.raises(ValueError) as err:
        build_layer(_spec(), {"gpu": _fabric(machine=G2)}, LayerPlugins({Cloud.GCP: cloud}))
    assert str(err.value) == "part 'x' waits for unknown parts ['missing']"


def test_ordered_keeps_a_valid_order_and_moves_early_waiters() -> None:
    a, b, c, d = Part("a"), Part("b", after=("d",)), Part("c", after=("a",)), Part("d")
    assert _ordered([a, c, d, b]) == [a, c, d, b]
    assert _ordered([b, a, c, d]) == [a, c, d, b]


def test_ordered_refuses_a_cycle() -> None:
    parts = [Part("a"), Part("b", after=("c",)), Part("c", after=("b", "a"))]
    with pytest.raises(ValueError) as err:
        _ordered(parts)
    assert str(err.value) == (
        "layer parts wait for each other in a cycle: b -> ['c'], c -> ['b', 'a']")



# -- small records ---------------------------------------------------------------------


def test_pod_interface_is_a_gke_multinetwork_annotation_entry() -> None:
    # GKE multi-network pods: networking.gke.io/interfaces is a JSON list of
    # {"interfaceName": ..., "network": ...}
    # (https://cloud.google.com/kubernetes-engine/docs/how-to/setup-multinetwork-support-for-pods).
    assert PodInterface("eth1", "rdma-0").to_dict() == {
        "interfaceName": "eth1", "network": "rdma-0"}


def test_dranet_hint_is_the_clouds_or_none() -> None:
    from gpu_fabric.fabric.parts import _dranet_hint

    # DraNet's cloudProviderHint: "NONE" without a cloud (fabric/manifests/dranet.py); GKE: "GCE".
    assert _dranet_hint({}) == "NONE"
    assert _dranet_hint({"gpu": _fabric(dranet_provider_hint="GCE")}) == "GCE"
