"""The gpu-fabric CrossGuard policies as pure functions.

Every validator takes ``(resource_type, props)`` (the resource's inputs with their
engine wire names, e.g. ``sourceRanges``) and returns a list of violation messages;
an empty list means compliant. :mod:`gpufabric_policies.pack` wraps them into
``pulumi_policy`` policies; tests call the functions directly.

The package name is deliberately not ``policy``/``policies`` so that putting the
``policy/`` directory on ``sys.path`` cannot shadow another module.
"""
