"""Pure manifest builders: plain data in, Kubernetes objects (dicts) out. No Pulumi, no I/O."""
