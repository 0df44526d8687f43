"""aws: spec options (SDK-free) and the aws GpuCluster component."""
