"""A cluster that already runs (any cloud, or on-prem): only the fabric layer is installed.

The kubeconfig comes from a Pulumi secret config value or a file, never from the
ambient ``~/.kube/config``. The spec's ``cloud`` and node pools still describe
the nodes (machine types from the catalog), so the fabric layer gets the same
defaults it would get on a cluster this library created.
"""

from __future__ import annotations

import os
from pathlib import Path

import pulumi

from gpu_fabric.cluster import ClusterInfra, GpuCluster, NodePoolInfo
from gpu_fabric.kubeconfig_file import read_kubeconfig_file
from gpu_fabric.spec import KubeconfigSource

OFFLINE_ENV = "GPU_FABRIC_OFFLINE"
PLACEHOLDER_KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: offline, cluster: {server: "https://kubernetes.invalid"}}]
contexts: [{name: offline, context: {cluster: offline, user: offline}}]
current-context: offline
users: [{name: offline, user: {}}]
"""


class KubeconfigNotFoundError(FileNotFoundError):
    pass


def read_kubeconfig(source: KubeconfigSource) -> pulumi.Output[str]:
    """The kubeconfig named by ``source``, as a secret Output.

    In an offline plan (``GPU_FABRIC_OFFLINE=1``) a missing file or config value
    is replaced by a placeholder, so a reviewer without access can still plan.
    """
    offline = os.environ.get(OFFLINE_ENV) == "1"
    if source.config_key is not None:
        namespace, _, key = source.config_key.rpartition(":")
        config = pulumi.Config(namespace or None)
        value = config.get_secret(key)
        if value is None:
            if offline:
                return pulumi.Output.secret(PLACEHOLDER_KUBECONFIG)
            raise KubeconfigNotFoundError(
                f"existing.kubeconfig.config_key: config value '{source.config_key}' is not set; "
                f"run: pulumi config set --secret {source.config_key} \"$(cat kubeconfig)\""
            )
        _warn_if_plain(f"{namespace or pulumi.get_project()}:{key}")
        return pulumi.Output.secret(value)
    assert source.path is not None
    path = Path(os.path.expanduser(source.path))
    if not path.is_file():
        if offline:
            return pulumi.Output.secret(PLACEHOLDER_KUBECONFIG)
        raise KubeconfigNotFoundError(
            f"existing.kubeconfig.path: no kubeconfig file at '{source.path}'"
        )
    return pulumi.Output.secret(read_kubeconfig_file(source.path))


def _warn_if_plain(full_key: str) -> None:
    """A kubeconfig config value set without --secret sits in plain text in the stack file."""
    from pulumi.runtime.config import is_config_secret

    if not is_config_secret(full_key):
        pulumi.log.warn(
            f"config value '{full_key}' (the kubeconfig) is not a secret, so it is stored in "
            f"plain text; run: pulumi config set --secret {full_key} \"$(cat kubeconfig)\""
        )


class ExistingGpuCluster(GpuCluster):
    """Type ``gpufabric:existing:GpuCluster``: no cloud resources, only the fabric layer."""

    module = "existing"
    cloud = None

    def _create_infrastructure(self) -> ClusterInfra:
        assert self.spec.existing is not None
        return ClusterInfra(
            kubeconfig=read_kubeconfig(self.spec.existing.kubeconfig),
            cluster_name=self.spec.name,
            node_pools=[
                NodePoolInfo(p.name, p.machine, p.node_count, p.name) for p in self.spec.node_pools
            ],
        )
