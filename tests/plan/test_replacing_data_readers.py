"""The readers of plan/data/replacing_inputs.json, called directly (plan/replacing_data.py).

The bridged clouds' PLAN_FACTS call ``replacing_prefixes`` / ``replacing_blocks`` when
their module is imported, so the other tests only see the tables built then; these
call the readers themselves. Expected entries are the providers' ForceNew marks, as
tests/day2/test_replacing_inputs.py cites them:

* digitalocean/terraform-provider-digitalocean @ 5ef5c0805c,
  digitalocean/kubernetes/resource_kubernetes_cluster.go L113-117 ``worker_subnet_uuid``
  ForceNew; L61-65 ``name`` not ForceNew;
* hashicorp/terraform-provider-google-beta @ 3dc173a397,
  google-beta/services/container/node_config.go L626 reservation_affinity ``values``
  ForceNew; resource_container_node_pool.go L605 ``additional_node_network_configs``
  ForceNew on a list of blocks;
* oracle/terraform-provider-oci @ 8016f415a5,
  internal/service/containerengine/containerengine_node_pool_resource.go L45-48
  ``cluster_id`` ForceNew;
* pulumi/pulumi-kubernetes provider/pkg/provider/diff.go (``forceNew``,
  ``metadataForceNewProperties``: ``.metadata.name``, ``.metadata.namespace`` for every
  kind; ConfigMap ``.binaryData``, ``.data``; ClusterRoleBinding ``.roleRef``), read at
  00302beb58 (the table's own pin is a03ff6ba58, v4.32.0: the same entries there per
  replacing_inputs.json's ``source`` lines); helm_release.go L907 (v4.32.0): a Release
  replaces on ``name`` and ``namespace`` only.
"""

from __future__ import annotations

import pytest

from gpu_fabric.plan.replacing_data import (
    kubernetes_replacing,
    replacing_blocks,
    replacing_prefixes,
)

DOKS = "digitalocean:index/kubernetesCluster:KubernetesCluster"
GKE_POOL = "gcp:container/nodePool:NodePool"
OKE_POOL = "oci:ContainerEngine/nodePool:NodePool"


def test_prefixes_are_the_cloud_s_prefix_entries_only() -> None:
    gcp = replacing_prefixes("gcp")
    assert "nodeConfig.reservationAffinity.values" in gcp[GKE_POOL]
    assert "networkConfig.additionalNodeNetworkConfigs" not in gcp[GKE_POOL]  # a block
    assert "nodeConfig.machineType" not in gcp[GKE_POOL]
    assert OKE_POOL not in gcp and DOKS not in gcp
    oci = replacing_prefixes("oci")
    assert oci[OKE_POOL][0] == "clusterId"
    assert GKE_POOL not in oci
    doks = replacing_prefixes("digitalocean")[DOKS]
    assert "workerSubnetUuid" in doks and "name" not in doks


def test_blocks_are_the_cloud_s_block_entries_and_none_is_empty() -> None:
    gcp = replacing_blocks("gcp")
    assert "networkConfig.additionalNodeNetworkConfigs" in gcp[GKE_POOL]
    assert "nodeConfig.reservationAffinity.values" not in gcp[GKE_POOL]  # a prefix
    assert all(gcp.values())
    assert OKE_POOL not in gcp and DOKS not in gcp


@pytest.mark.parametrize("reader", [replacing_prefixes, replacing_blocks])
def test_a_cloud_without_extracted_entries_is_a_lookup_error(reader) -> None:
    with pytest.raises(LookupError) as info:
        reader("azure")  # azure-native is not bridged from Terraform
    assert str(info.value) == "replacing_inputs.json has no resources of cloud 'azure'"


def test_kubernetes_kinds_replace_on_their_name_namespace_and_own_fields() -> None:
    assert kubernetes_replacing("kubernetes:core/v1:ConfigMap") == (
        "metadata.name", "metadata.namespace", "binaryData", "data")
    assert kubernetes_replacing(
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding") == (
        "metadata.name", "metadata.namespace", "roleRef")
    assert kubernetes_replacing("kubernetes:core/v1:Namespace") == (
        "metadata.name", "metadata.namespace")
    assert kubernetes_replacing("kubernetes:helm.sh/v3:Release") == ("name", "namespace")
    assert kubernetes_replacing("gcp:container/nodePool:NodePool") == ()


def test_a_block_without_force_new_inputs_inside_replaces_only_as_a_whole() -> None:
    """``nodeConfig.sandboxConfig`` is a ForceNew block with no ForceNew attribute inside
    (replacing_inputs.json's source line: hashicorp/terraform-provider-google-beta
    @93c65b2d60 google-beta/services/container/node_config.go#L764; not re-read here), so
    only the block's own path replaces: no prefix entry below it would."""
    from gpu_fabric.plan.diff import replacing

    assert replacing(GKE_POOL, ["nodeConfig.sandboxConfig"]) == ("nodeConfig.sandboxConfig",)
    assert replacing(GKE_POOL, ["nodeConfig.sandboxConfig.sandboxType"]) == ()
