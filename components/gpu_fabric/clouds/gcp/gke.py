"""GKE's own names that several GCP modules share: node host paths and node labels.

A leaf module (it imports nothing of ours), so the describer (``fabric``), the
RxDM sidecar (``rxdm``) and the installers (``kubernetes``) can all use these
facts without importing one another in a circle.
"""

from __future__ import annotations

# Where GKE's COS image keeps the NVIDIA driver and tools on the node.
GKE_NVIDIA_DIR = "/home/kubernetes/bin/nvidia"
ACCELERATOR_LABEL = "cloud.google.com/gke-accelerator"
