"""One folder per cloud, each behind one provider (``<cloud>/provider.py``), named by
one line of :mod:`gpu_fabric.clouds.registry`. A cloud's SDK is imported only inside
its folder, and only by the modules that create resources, so a stack pays for one
cloud SDK; importing this package imports no cloud."""
