"""NCCL acceptance: parse nccl-tests output, judge it against the catalog, deploy the test.

``parser`` and ``verdict`` are pure Python (used by ``python -m gpu_fabric
nccl-report``); ``manifests`` builds the test's Kubernetes objects as data and
``component`` wraps them into the ``NcclAcceptance`` Pulumi component.
"""
