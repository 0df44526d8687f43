"""gcp: spec options (SDK-free) and the gcp GpuCluster component."""
