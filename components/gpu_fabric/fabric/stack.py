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

Children are named ``<name>-<part>-<kind>-[<namespace>-]<object>`` (manifests)
and ``<name>-<part>-<release>`` (Helm releases). These names are a
compatibility surface: renaming one replaces the object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pulumi

from gpu_fabric.fabric.description import FabricDescription
from gpu_fabric.fabric.layer import Layer, Part, build_layer
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
        for part in layer.parts:
            waits = [r for dep in part.after for r in self.part_resources[dep]]
            if part.installed_by:
                self.part_resources[part.name] = _install(part, args.installers, waits)
                continue
            prefix = f"{name}-{part.name}"
            made: list[pulumi.Resource] = []
            for release in part.charts:
                made.append(release_resource(prefix, release, self._opts(waits)))
            # Within a part, CRDs and namespaces go first; the rest waits for them.
            firsts = [m for m in part.manifests if m["kind"] in _FIRST_KINDS]
            rest = [m for m in part.manifests if m["kind"] not in _FIRST_KINDS]
            first_made = [manifest_resource(prefix, m, self._opts(waits)) for m in firsts]
            made += first_made
            after_firsts = waits + first_made + (made[: len(part.charts)] if rest else [])
            made += [manifest_resource(prefix, m, self._opts(after_firsts)) for m in rest]
            self.part_resources[part.name] = made
        self.register_outputs({
            "parts": layer.names,
            "addons": {k: a.enabled for k, a in layer.addons.items()},
        })

    def _opts(self, depends_on: list[pulumi.Resource]) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self, depends_on=list(depends_on))


_FIRST_KINDS = frozenset({"Namespace", "CustomResourceDefinition"})


def _install(part: Part, installers: Mapping[str, Installer],
             waits: Sequence[pulumi.Resource]) -> list[pulumi.Resource]:
    installer = installers.get(part.name)
    if installer is None:
        raise ValueError(
            f"layer part '{part.name}' is {part.installed_by}: FabricStackArgs.installers "
            f"needs a '{part.name}' entry that creates it (the cloud's GpuCluster passes one)"
        )
    return list(installer(list(waits)))
