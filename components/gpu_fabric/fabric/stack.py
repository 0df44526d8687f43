"""FabricStack: the cloud-agnostic Kubernetes layer a multi-node NCCL job needs.

Type ``gpufabric:kubernetes:FabricStack``. It takes an explicit Kubernetes
provider (through ``opts.providers``) and the fabric descriptions of a
:class:`~gpu_fabric.cluster.GpuCluster`, and installs the parts
:func:`~gpu_fabric.fabric.layer.build_layer` returns: Multus, device plugins or
the Network Operator, NetworkAttachmentDefinitions, the GPU Operator, the DRA
drivers, DeviceClasses and claim templates, the cloud's NCCL installer and the
Kyverno injection policies.

A part with ``installed_by`` is a cloud resource ordered between layer parts (the OKE
Network Operator add-on after the GPU toolkit wait); the cloud's component creates it
through ``FabricStackArgs.installers``, given the resources of the parts it waits for.

A part waits for the parts in its ``after``, object by object: each object waits for
what it needs from them (its own namespace's objects and the cluster-wide ones), not for
another namespace's objects (:class:`_MadeBy`), so edges grow linearly with teams.

Children are named ``<name>-<part>-<kind>-[<namespace>-]<object>`` (manifests)
and ``<name>-<part>-<release>`` (Helm releases). These names are a
compatibility surface: renaming one replaces the object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pulumi

from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.fabric.layer import Layer, Manifest, Part, build_layer
from gpu_fabric.fabric.plugins import LayerPlugins
from gpu_fabric.fabric.resources import manifest_resource, release_resource
from gpu_fabric.spec import ClusterSpec

Installer = Callable[[Sequence[pulumi.Resource]], Sequence[pulumi.Resource]]


@dataclass(frozen=True)
class FabricStackArgs:
    """Inputs: the validated spec and one fabric description per GPU pool.

    ``plugins``: the cloud layers and the layers above the fabric
    (:func:`gpu_fabric.layers.plugins`; the installed default when None).
    ``installers``: for each part with ``installed_by`` (a cloud resource ordered
    between layer parts, e.g. the OKE Network Operator add-on), the function that
    creates it, given the resources it must wait for.
    """

    spec: ClusterSpec
    fabrics: Mapping[str, FabricDescription]
    plugins: LayerPlugins | None = None
    installers: Mapping[str, Installer] = field(default_factory=dict)


class FabricStack(pulumi.ComponentResource):
    layer: Layer
    part_resources: dict[str, list[pulumi.Resource]]

    def __init__(
        self, name: str, args: FabricStackArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        layer = build_layer(args.spec, args.fabrics, args.plugins)  # pure: fails before registering
        super().__init__("gpufabric:kubernetes:FabricStack", name, None, opts)
        self.layer = layer
        self.part_resources = {}
        made_by = _MadeBy()
        for part in layer.parts:
            if part.installed_by:
                installed = _install(part, args.installers, made_by.waits(part.after, None))
                self.part_resources[part.name] = installed
                made_by.add(part, [(r, None) for r in installed])
                continue
            prefix = f"{name}-{part.name}"
            # Within a part, CRDs and namespaces go first; then the quotas that admit the
            # part's pods (GKE admits system-*-critical pods outside kube-system only
            # under one); then the part's charts, which wait for all of those (Helm
            # creates no namespace: create_namespace is off); then the rest, which waits
            # for its namespace's objects (by the same rule as for earlier parts) and
            # for the charts.
            firsts = [m for m in part.manifests if m["kind"] in _FIRST_KINDS]
            admits = [m for m in part.manifests if m["kind"] in _ADMISSION_KINDS]
            rest = [m for m in part.manifests
                    if m["kind"] not in _FIRST_KINDS | _ADMISSION_KINDS]
            made: list[tuple[pulumi.Resource, Manifest | None]] = [
                (manifest_resource(prefix, m, self._opts(made_by.waits(part.after, m))), m)
                for m in firsts
            ]
            first_made = _MadeBy()
            first_made.add(part, made)
            for m in admits:
                waits = made_by.waits(part.after, m) + first_made.waits((part.name,), m)
                made.append((manifest_resource(prefix, m, self._opts(waits)), m))
            own = [r for r, _ in made] if part.charts else []
            charts = [release_resource(prefix, release,
                                       self._opts(made_by.waits(part.after, None) + own))
                      for release in part.charts]
            made += [(r, None) for r in charts]
            for m in rest:
                waits = made_by.waits(part.after, m) + first_made.waits((part.name,), m)
                made.append((manifest_resource(prefix, m, self._opts(waits + charts)), m))
            self.part_resources[part.name] = [r for r, _ in made]
            made_by.add(part, made)
        self.register_outputs({
            "parts": layer.names,
            "addons": {k: a.enabled for k, a in layer.addons.items()},
        })

    def _opts(self, depends_on: list[pulumi.Resource]) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self, depends_on=list(depends_on))


_FIRST_KINDS = frozenset({"Namespace", "CustomResourceDefinition"})
# Objects that decide whether the part's pods are admitted: created before its charts.
_ADMISSION_KINDS = frozenset({"ResourceQuota"})


class _MadeBy:
    """The resources each part made, indexed by what may wait for them (issue 36).

    An object waits for what it needs from the parts it comes after, so that edges grow
    linearly with teams (Pulumi checks every edge; with every team object waiting for
    every earlier object, 64 teams made 540k edges):

    * a namespaced object: the parts' cluster-wide resources (Helm releases, installer
      resources, cluster-scoped objects such as CRDs and DeviceClasses) and what lives in
      its own namespace (the Namespace and its objects), never another namespace's;
    * anything else (a Helm release, a cluster-scoped object, an installer): everything,
      except what lives in a namespace the waited-for part itself creates (a team's
      namespace and its quota, roles and limits stay with that team).
    """

    def __init__(self) -> None:
        self._cluster_wide: dict[str, list[pulumi.Resource]] = {}
        self._in_namespace: dict[str, dict[str, list[pulumi.Resource]]] = {}
        self._for_cluster_scoped: dict[str, list[pulumi.Resource]] = {}

    def add(self, part: Part, made: Sequence[tuple[pulumi.Resource, Manifest | None]]) -> None:
        own = {m["metadata"]["name"] for m in part.manifests if m["kind"] == "Namespace"}
        wide = self._cluster_wide.setdefault(part.name, [])
        by_namespace = self._in_namespace.setdefault(part.name, {})
        for_scoped = self._for_cluster_scoped.setdefault(part.name, [])
        for resource, manifest in made:
            namespace = _namespace_of(manifest)
            if namespace is None:
                wide.append(resource)
            else:
                by_namespace.setdefault(namespace, []).append(resource)
            if namespace not in own:
                for_scoped.append(resource)

    def waits(self, parts: Sequence[str], manifest: Manifest | None) -> list[pulumi.Resource]:
        """What ``manifest`` (None: a Helm release or an installer) waits for in ``parts``."""
        namespace = _namespace_of(manifest)
        if namespace is None or (manifest is not None and manifest["kind"] == "Namespace"):
            return [r for p in parts for r in self._for_cluster_scoped[p]]
        return [r for p in parts
                for r in self._cluster_wide[p] + self._in_namespace[p].get(namespace, [])]


def _namespace_of(manifest: Manifest | None) -> str | None:
    """The namespace an object lives in (a Namespace: itself); None when cluster-scoped
    or not a manifest."""
    if manifest is None:
        return None
    meta = manifest.get("metadata", {})
    if manifest["kind"] == "Namespace":
        return str(meta["name"])
    namespace = meta.get("namespace")
    return str(namespace) if namespace else None


def _install(part: Part, installers: Mapping[str, Installer],
             waits: Sequence[pulumi.Resource]) -> list[pulumi.Resource]:
    installer = installers.get(part.name)
    if installer is None:
        raise ValueError(
            f"layer part '{part.name}' is {part.installed_by}: FabricStackArgs.installers "
            f"needs a '{part.name}' entry that creates it (the cloud's GpuCluster passes one)"
        )
    return list(installer(list(waits)))
