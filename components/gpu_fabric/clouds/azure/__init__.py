"""azure: spec options (SDK-free) and the azure GpuCluster component."""
