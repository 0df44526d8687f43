"""What each cloud's GB200 pool needs beyond the channel claim.

* OKE: the host's nvidia-imex.service is disabled and masked before the node joins, as
  oracle-quickstart/oci-hpc-oke 61d210a files/oke-ubuntu-cloud-init.sh lines 91-124 do
  "for Dynamic Resource Allocation (DRA) compatibility" on BM.GPU.GB200*/GB300* shapes.
* GKE: the A4X pool's workload policy (HIGH_THROUGHPUT, 1x72; cluster-toolkit
  1047080375af examples/gke-a4x/gke-a4x.yaml lines 223-235, checked literally in
  tests/clouds/gcp/test_gcp_day2.py) makes the pool one NVLink domain.
"""

from __future__ import annotations

import base64
import json

from tests.support.variants import plan_of

MASK = ("if systemctl list-unit-files | grep -q nvidia-imex.service; then\n"
        "  systemctl disable --now nvidia-imex.service && systemctl mask nvidia-imex.service\n"
        "fi\n")


def _bootstrap(variant: str) -> str:
    (pool,) = [r for r in plan_of(variant).resources
               if r.type == "oci:ContainerEngine/nodePool:NodePool"
               and r.inputs.get("nodeShape", "").startswith("BM.GPU")]
    text = base64.b64decode(pool.inputs["nodeMetadata"]["user_data"]).decode()
    cloud_config = json.loads(text.split("\n", 1)[1])
    (script,) = [f["content"] for f in cloud_config["write_files"]
                 if f["path"] == "/var/run/gpufabric-oke-bootstrap.sh"]
    return str(script)


def test_oke_gb200_nodes_mask_the_host_imex_service_before_joining() -> None:
    script = _bootstrap("oci:gb200")
    assert script.startswith("set -eu\n" + MASK)
    assert script.index(MASK) < script.index("oke bootstrap")


def test_other_oke_gpu_nodes_keep_their_services() -> None:
    assert "nvidia-imex" not in _bootstrap("oci:dra")


def test_aks_runs_the_dra_driver_against_the_gpu_operators_driver_container() -> None:
    """AKS GPU pools have no host driver (gpu_profile.driver None: the GPU Operator's driver
    container owns it), so the DRA driver's root is /run/nvidia/driver
    (nvidia-dra-driver-gpu 25.12.0 values.yaml lines 19-23)."""
    from gpu_fabric.fabric.description import describe_cluster
    from gpu_fabric.fabric.layer import build_layer
    from gpu_fabric.spec import load_spec
    from tests.support.variants import gb200_spec

    spec = load_spec(gb200_spec("azure"))
    layer = build_layer(spec, describe_cluster(spec))
    (driver,) = [c for c in layer.charts() if c.chart.name == "nvidia-dra-driver-gpu"]
    assert driver.values["nvidiaDriverRoot"] == "/run/nvidia/driver"
    # OKE images carry the driver on the host (oci/kubernetes.py: driver.enabled false).
    spec = load_spec(gb200_spec("oci"))
    layer = build_layer(spec, describe_cluster(spec))
    (driver,) = [c for c in layer.charts() if c.chart.name == "nvidia-dra-driver-gpu"]
    assert driver.values["nvidiaDriverRoot"] == "/"
