"""One package per cloud. A cloud's SDK is imported only inside its package, and
only by the modules that create resources, so a stack pays for one cloud SDK."""
