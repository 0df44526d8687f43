"""oci: spec options (SDK-free) and the oci GpuCluster component."""
