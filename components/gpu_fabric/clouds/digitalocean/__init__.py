"""digitalocean: spec options (SDK-free) and the digitalocean GpuCluster component."""
