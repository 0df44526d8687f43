"""Issue 21: team namespaces enforce Pod Security Baseline; fabric pods get exactly what
they need.

Before: team namespaces carried no ``pod-security.kubernetes.io`` label, so a team
member's Job could run privileged with ``hostPath: /``.

What each fabric's pod fragment needs beyond Baseline (Pod Security Standards,
kubernetes/website content/en/docs/concepts/security/pod-security-standards.md:
Baseline allows only AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD,
NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT and no hostPath):

* EKS EFA, AKS InfiniBand, DOKS: IPC_LOCK (seed: gke-nvidia-dra-dranet.md
  ``add: ["IPC_LOCK"]``; reference/azure.md: "else ulimit -l is 64");
* OKE SR-IOV: IPC_LOCK + hostPath /dev/infiniband (reference/oci.md);
* GKE A4 / A3 Ultra (RDMA): IPC_LOCK + hostPath /home/kubernetes/bin/nvidia and
  /home/kubernetes/bin/gib (reference/gcp.md: the NCCL installer's host paths).

The Kyverno exclusion syntax (``controlName``, ``images``, ``restrictedField``,
``values``) is the ClusterPolicy CRD's (kyverno/kyverno chart 3.6.1,
tests/data/crds/kyverno.io/ClusterPolicy.json).
"""

from __future__ import annotations

import pytest

from gpu_fabric.render import layer_for
from gpu_fabric.spec import load_spec
from tests.specs import spec_dict
from tests.support.manifests import validate

PSA = "pod-security.kubernetes.io"


def _team_spec(cloud: str, **extra):
    data = spec_dict(cloud, tenancy={"teams": [{"name": "team-a", "group": "g", "gpus": 8}]},
                     **extra)
    return load_spec(data)


def _objects(spec) -> dict[str, dict]:
    out = {}
    for part in layer_for(spec).parts:
        for m in part.manifests:
            out[f"{part.name}/{m['kind']}/{m['metadata']['name']}"] = m
    return out


@pytest.mark.parametrize(("cloud", "caps", "paths"), [
    ("aws", ["IPC_LOCK"], None),
    ("azure", ["IPC_LOCK"], None),
    ("digitalocean", ["IPC_LOCK"], None),
    # OKE SR-IOV pods mount /dev/infiniband from the host (reference/oci.md: "still
    # IPC_LOCK, /dev/infiniband, /dev/shm"; components/gpu_fabric/clouds/oci/fabric.py host_paths).
    ("oci", ["IPC_LOCK"], ["/dev/infiniband"]),
    ("gcp", ["IPC_LOCK"], ["/home/kubernetes/bin/gib", "/home/kubernetes/bin/nvidia"]),
])
def test_team_namespace_enforces_baseline_minus_exactly_the_fabric(
    cloud: str, caps: list[str], paths: list[str] | None
) -> None:
    spec = _team_spec(cloud)
    objects = _objects(spec)
    ns = objects["teams/Namespace/team-a"]["metadata"]["labels"]
    assert ns[f"{PSA}/audit"] == "baseline" and ns[f"{PSA}/warn"] == "baseline"
    assert ns["gpufabric.dev/pod-security-enforced-by"] == "gpufabric-team-pod-security"
    policy = objects["team-pod-security/ClusterPolicy/gpufabric-team-pod-security"]
    assert validate(policy, spec.kubernetes.version) == []
    assert policy["spec"]["validationFailureAction"] == "Enforce"
    rule = policy["spec"]["rules"][0]
    assert rule["match"]["any"][0]["resources"]["namespaces"] == ["team-a"]
    pss = rule["validate"]["podSecurity"]
    assert pss["level"] == "baseline"
    excluded = {(e["controlName"], e["restrictedField"]): e["values"] for e in pss["exclude"]}
    expected = {("Capabilities", "spec.containers[*].securityContext.capabilities.add"): caps}
    if paths:
        expected[("HostPath Volumes", "spec.volumes[*].hostPath")] = paths
    assert excluded == expected


def test_tcpxo_sidecar_gets_net_admin_on_init_containers_only() -> None:
    data = spec_dict("gcp", tenancy={"teams": [{"name": "team-a", "group": "g", "gpus": 8}]})
    data["node_pools"][0]["machine_type"] = "a3-megagpu-8g"
    policy = _objects(load_spec(data))["team-pod-security/ClusterPolicy/"
                                       "gpufabric-team-pod-security"]
    excluded = {e["restrictedField"]: e["values"]
                for e in policy["spec"]["rules"][0]["validate"]["podSecurity"]["exclude"]}
    assert excluded["spec.initContainers[*].securityContext.capabilities.add"] == ["NET_ADMIN"]
    assert "spec.containers[*].securityContext.capabilities.add" not in excluded
    assert "/proc/sys" in excluded["spec.volumes[*].hostPath"]


def test_without_kyverno_the_psa_label_enforces_baseline() -> None:
    spec = _team_spec("aws", addons={"kyverno": {"enabled": False}})
    objects = _objects(spec)
    labels = objects["teams/Namespace/team-a"]["metadata"]["labels"]
    assert labels[f"{PSA}/enforce"] == "baseline"
    assert labels[f"{PSA}/warn"] == "restricted"
    assert not any(k.startswith("team-pod-security/") for k in objects)


def test_node_agent_namespaces_are_privileged_on_purpose() -> None:
    objects = _objects(load_spec(spec_dict("aws", addons={"gpu_operator": {"enabled": True}})))
    gpu_ns = next(m for k, m in objects.items() if k.endswith("Namespace/gpu-operator"))
    assert gpu_ns["metadata"]["labels"][f"{PSA}/enforce"] == "privileged"
