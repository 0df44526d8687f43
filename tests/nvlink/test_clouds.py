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
