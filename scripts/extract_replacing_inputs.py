"""Extract the replacing inputs of the Terraform-bridged resources this project creates
from the providers' own Go sources, into ``components/gpu_fabric/plan/data/
replacing_inputs.json`` (issue 32: the table is derived, not kept by hand).

Why from the Terraform sources: pulumi-gcp, pulumi-digitalocean and pulumi-oci bridge a
Terraform provider, and the bridge replaces a resource exactly when Terraform's plan
says ``RequiresNew``, i.e. where the attribute's schema says ``ForceNew: true``
(terraform-plugin-sdk v2 helper/schema).

Which Terraform commit. The pinned SDKs (pulumi-gcp 10.2.0, pulumi-digitalocean 4.84.1,
pulumi-oci 5.5.0) are newer than any pulumi-<provider> release the mirrors hold, so the
chain "release -> its ``upstream`` submodule" (``git ls-tree <tag> upstream``) stops
before the pin. Instead each provider names ``evidence``: Terraform commits whose change
(an argument added, a type changed, a resource removed) the installed SDK carries and the
chain release's SDK does not, each checked here in git and in both SDKs on every run. The
pin therefore bridges the newest evidence commit or a later one; the extraction reads
``tf_ref``, the mirror's newest commit, after checking that it descends from that commit,
and records which of the files read changed between the two (none, today) and whether
``tf_ref`` is still the mirror's head. The chain's commit is extracted too, as a
comparison: each resource's ``vs_chain`` lists the replacing inputs added and removed
since. What stays open (``pin_gap``): a pin bridging a commit newer than the mirror's.

Rules of terraform-plugin-sdk v2 ``schemaMap.diff`` the extraction follows:

* a ForceNew attribute of a primitive type, or a list/set/map of primitives (the
  element inherits ForceNew), replaces on any change under it: a *prefix* entry;
* a ForceNew list/set of blocks (``Elem: &schema.Resource``) replaces when its count
  changes (the ``#`` count attribute carries ForceNew), not when a nested attribute
  without ForceNew changes: an *exact* entry (the block added or removed, or a list of
  a different length: the plan diff reports the block's own path then);
* nested attributes are followed into ``Elem: &schema.Resource{Schema: ...}`` and into
  schema helpers (``"node_config": schemaNodeConfig()``, ``Schema: nodePoolSchema(..)``,
  ``MergeSchemas(schemaNodePool, ...)``, every argument of a one-line ``MergeSchemas``)
  defined in the listed files;
* a schema built by a shared function from its caller's argument is followed through
  the call: a call spanning lines (``tpgiamresource.ResourceIamMember(`` then one argument
  a line) binds the callee's parameters, in order, to the bare identifiers passed, so
  ``MergeSchemas(IamMemberBaseSchema, parentSpecificSchema)`` in the callee reads the
  caller's ``IamProjectSchema`` (google_project_iam_member); an argument that is not a
  bare identifier, or spans lines, binds nothing.

``CustomizeDiff`` functions may force a replacement on a condition (``d.ForceNew("x")``);
those are listed under ``conditional`` with their line, not in the table (the condition is
the provider's, e.g. a value moving between two ranges).

Pulumi names: each Terraform name is camelCased; a list or set of blocks not marked
MaxItemsOne is pluralized by the bridge (``guest_accelerator`` -> ``guestAccelerators``):
the name is looked up in the installed (pinned) Python SDK's properties and pluralized
when only the plural exists there. A name the pinned SDK lacks is reported and dropped.

aws is the exception: pulumi-aws and terraform-provider-aws are too large for the
``fetch`` tool, so no mirror holds them and the release -> Terraform commit chain could
not be read. Their ForceNew marks (and Plugin Framework ``RequiresReplace()`` plan
modifiers) were read file by file through the code index at the commits it stores, and
are kept here as ``AWS_FILES`` (commit, path, line per mark, the same prefix/exact rules
as above): a hand-extracted table with per-line provenance, from which the aws block is
regenerated offline (Pulumi names from the pinned SDK). Where hashicorp's copy in the
index is far older than the pin, a file was read in a fork (``forks`` says which and why;
each such entry carries a ``note``). Its ``pin_gap`` says what could not be established
and the lower bound the pinned SDK gives. Its ``bridge_overrides`` (pulumi-aws's own
``provider/*.go``, also read through the index) found no ForceNew override, and one
``DeleteBeforeReplace`` for a type we create: that resource's entry carries
``provider_delete_before_replace`` (the provider deletes it before creating its
replacement; which inputs replace it is unchanged).

Run (offline, from mirrors brought by the ``fetch`` tool):
    python scripts/extract_replacing_inputs.py [--check]
``--check`` exits 1 when the committed file differs from a fresh extraction.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "components" / "gpu_fabric" / "plan" / "data" / "replacing_inputs.json"
MIRRORS = Path("/work/.mirror")


@dataclass(frozen=True)
class Resource:
    type_token: str
    path: str  # Go file of the resource's schema
    root: str  # the function (or var) holding it
    sdk_module: str  # installed SDK module (its properties give the Pulumi names)


@dataclass(frozen=True)
class Evidence:
    """One change to the Terraform provider that the pinned SDK carries and the chain's SDK
    does not: proof that the pin bridges ``commit`` or a later Terraform commit.

    ``added``: at ``commit`` the file holds ``text`` within a few lines after ``anchor``
    (the attribute's key), at its parent it does not; the installed SDK file holds
    ``sdk_text``, the chain release's SDK file does not. ``removed``: the other way round
    (the anchor is gone at ``commit``; ``sdk_text`` is gone from the installed SDK).
    The script checks all four facts on every run and records the lines."""

    commit: str
    path: str
    anchor: str
    change: str  # what the change is, in words
    sdk_path: str  # the SDK file, relative to site-packages
    sdk_text: str
    text: str = ""  # the line that shows the change (default: the anchor itself)
    removed: bool = False
    ours: bool = False  # on a resource type gpu_fabric creates


@dataclass(frozen=True)
class Provider:
    cloud: str
    pulumi_repo: str
    pulumi_ref: str  # the newest release commit of the pulumi mirror: the chain's start
    pulumi_package: str  # the installed SDK distribution
    tf_repo: str
    resources: tuple[Resource, ...]
    # The Terraform ref extracted at: the newest commit of the mirror (its default branch's
    # head), which ``evidence`` shows the pin is at or beyond (see ``extract``).
    tf_ref: str = ""
    tf_ref_note: str = ""
    evidence: tuple[Evidence, ...] = ()
    helpers: tuple[str, ...] = ()  # other Go files with schema helpers
    # (type token, Terraform path) -> why a found ForceNew does not apply to that type
    exclude: tuple[tuple[str, str, str], ...] = ()


PROVIDERS = (
    Provider(
        cloud="digitalocean",
        pulumi_repo="pulumi/pulumi-digitalocean", pulumi_ref="v4.76.0",
        pulumi_package="pulumi_digitalocean",
        tf_repo="digitalocean/terraform-provider-digitalocean",
        resources=(
            Resource("digitalocean:index/kubernetesCluster:KubernetesCluster",
                     "digitalocean/kubernetes/resource_kubernetes_cluster.go",
                     "ResourceDigitalOceanKubernetesCluster",
                     "pulumi_digitalocean.kubernetes_cluster"),
            Resource("digitalocean:index/kubernetesNodePool:KubernetesNodePool",
                     "digitalocean/kubernetes/resource_kubernetes_node_pool.go",
                     "ResourceDigitalOceanKubernetesNodePool",
                     "pulumi_digitalocean.kubernetes_node_pool"),
            Resource("digitalocean:index/vpc:Vpc", "digitalocean/vpc/resource_vpc.go",
                     "ResourceDigitalOceanVPC", "pulumi_digitalocean.vpc"),
        ),
        helpers=("digitalocean/kubernetes/kubernetes.go",),
        exclude=(("digitalocean:index/kubernetesCluster:KubernetesCluster",
                  "node_pool.cluster_id",
                  "nodePoolSchema adds cluster_id only `if isResource` (kubernetes.go); the "
                  "cluster calls nodePoolSchema(false)"),),
        tf_ref="v2.99.1",
        tf_ref_note="the mirror's newest tag, its main branch's head",
        evidence=(
            Evidence("eb2d70f30eb259869595914d15bde8ff019b002b",
                     "digitalocean/kubernetes/resource_kubernetes_cluster.go",
                     '"isolated_workers": {',
                     "doks: add support for isolated workers (#1585): isolated_workers added",
                     "pulumi_digitalocean/kubernetes_cluster.py",
                     "def isolated_workers(self)", ours=True),
            Evidence("67d47d1af6fecb55400c5d4bf5f4997be5b648a3",
                     "digitalocean/loadbalancer/resource_loadbalancer.go",
                     '"subnet_uuid": {',
                     "Support subnet_uuid in loadbalancers (#1572): subnet_uuid added",
                     "pulumi_digitalocean/load_balancer.py", "def subnet_uuid(self)"),
        ),
    ),
    Provider(
        cloud="gcp",
        pulumi_repo="pulumi/pulumi-gcp", pulumi_ref="v9.35.0",
        pulumi_package="pulumi_gcp",
        tf_repo="hashicorp/terraform-provider-google-beta",
        resources=(
            Resource("gcp:container/cluster:Cluster",
                     "google-beta/services/container/resource_container_cluster.go",
                     "ResourceContainerCluster", "pulumi_gcp.container.cluster"),
            Resource("gcp:container/nodePool:NodePool",
                     "google-beta/services/container/resource_container_node_pool.go",
                     "ResourceContainerNodePool", "pulumi_gcp.container.node_pool"),
            Resource("gcp:compute/network:Network",
                     "google-beta/services/compute/resource_compute_network.go",
                     "ResourceComputeNetwork", "pulumi_gcp.compute.network"),
            Resource("gcp:compute/subnetwork:Subnetwork",
                     "google-beta/services/compute/resource_compute_subnetwork.go",
                     "ResourceComputeSubnetwork", "pulumi_gcp.compute.subnetwork"),
            Resource("gcp:compute/firewall:Firewall",
                     "google-beta/services/compute/resource_compute_firewall.go",
                     "ResourceComputeFirewall", "pulumi_gcp.compute.firewall"),
            Resource("gcp:compute/router:Router",
                     "google-beta/services/compute/resource_compute_router.go",
                     "ResourceComputeRouter", "pulumi_gcp.compute.router"),
            Resource("gcp:compute/routerNat:RouterNat",
                     "google-beta/services/compute/resource_compute_router_nat.go",
                     "ResourceComputeRouterNat", "pulumi_gcp.compute.router_nat"),
            # google_project_iam_member: ResourceIamMember(IamProjectSchema, ...) merges
            # the IAM framework's member schema with the project's (a bound argument).
            Resource("gcp:projects/iAMMember:IAMMember",
                     "google-beta/services/resourcemanager/iam_project.go",
                     "ProjectIamMemberResource", "pulumi_gcp.projects.iam_member"),
            Resource("gcp:serviceaccount/account:Account",
                     "google-beta/services/resourcemanager/resource_google_service_account.go",
                     "ResourceGoogleServiceAccount", "pulumi_gcp.serviceaccount.account"),
        ),
        helpers=("google-beta/services/container/node_config.go",
                 "google-beta/services/container/resource_container_node_pool.go",
                 "google-beta/tpgiamresource/resource_iam_member.go"),
        tf_ref="93c65b2d60fea598528f2769b5b09de856f8cb8c",
        tf_ref_note=("the head of main and of release-8.0.0 (one commit): 34 commits after "
                     "v7.45.0, after the major release 8.0.0 was merged (c48a71b06b); the "
                     "mirror has no v8 tag, so no release commit newer than v7.45.0"),
        evidence=(
            Evidence("210d5750403e49bdc3b66e37f765be2c4386ff65",
                     "google-beta/services/container/node_config.go",
                     '"opportunistic_maintenance_strategy": {',
                     "Add opportunistic_maintenance_strategy to GKE node_config "
                     "host_maintenance_policy (#18492)",
                     "pulumi_gcp/container/_inputs.py",
                     "class NodePoolNodeConfigHostMaintenancePolicyOpportunisticMaintenance"
                     "StrategyArgs:", ours=True),
            Evidence("c48a71b06bf6b73b11404b0340e93b1637d2ec87",
                     "google-beta/services/secretmanager/"
                     "resource_secret_manager_secret_version.go",
                     '"secret_data_wo_version": {',
                     "major release 8.0.0 (#18733): secret_data_wo_version type Integer -> "
                     "String (website/docs/guides/version_8_upgrade.html.markdown)",
                     "pulumi_gcp/secretmanager/secret_version.py",
                     "secret_data_wo_version: pulumi.Input[Optional[_builtins.str]]",
                     text="schema.TypeString"),
            Evidence("c48a71b06bf6b73b11404b0340e93b1637d2ec87",
                     "google-beta/services/iap/resource_iap_client.go",
                     "func ResourceIapClient() *schema.Resource {",
                     "major release 8.0.0 (#18733): google_iap_client removed "
                     "(website/docs/guides/version_8_upgrade.html.markdown)",
                     "pulumi_gcp/iap/client.py", "class ClientArgs:", removed=True),
        ),
    ),
    Provider(
        cloud="oci",
        pulumi_repo="pulumi/pulumi-oci", pulumi_ref="dbe80d275b",
        pulumi_package="pulumi_oci",
        tf_repo="oracle/terraform-provider-oci",
        resources=(
            Resource("oci:ContainerEngine/cluster:Cluster",
                     "internal/service/containerengine/containerengine_cluster_resource.go",
                     "ContainerengineClusterResource", "pulumi_oci.containerengine.cluster"),
            Resource("oci:ContainerEngine/nodePool:NodePool",
                     "internal/service/containerengine/"
                     "containerengine_node_pool_resource.go",
                     "ContainerengineNodePoolResource",
                     "pulumi_oci.containerengine.node_pool"),
            Resource("oci:Core/vcn:Vcn", "internal/service/core/core_vcn_resource.go",
                     "CoreVcnResource", "pulumi_oci.core.vcn"),
            Resource("oci:Core/subnet:Subnet", "internal/service/core/core_subnet_resource.go",
                     "CoreSubnetResource", "pulumi_oci.core.subnet"),
            Resource("oci:Core/computeCluster:ComputeCluster",
                     "internal/service/core/core_compute_cluster_resource.go",
                     "CoreComputeClusterResource", "pulumi_oci.core.compute_cluster"),
            Resource("oci:Core/natGateway:NatGateway",
                     "internal/service/core/core_nat_gateway_resource.go",
                     "CoreNatGatewayResource", "pulumi_oci.core.nat_gateway"),
            Resource("oci:Core/routeTable:RouteTable",
                     "internal/service/core/core_route_table_resource.go",
                     "CoreRouteTableResource", "pulumi_oci.core.route_table"),
            Resource("oci:Core/securityList:SecurityList",
                     "internal/service/core/core_security_list_resource.go",
                     "CoreSecurityListResource", "pulumi_oci.core.security_list"),
            Resource("oci:Core/serviceGateway:ServiceGateway",
                     "internal/service/core/core_service_gateway_resource.go",
                     "CoreServiceGatewayResource", "pulumi_oci.core.service_gateway"),
            Resource("oci:Identity/policy:Policy",
                     "internal/service/identity/identity_policy_resource.go",
                     "IdentityPolicyResource", "pulumi_oci.identity.policy"),
        ),
        tf_ref="v8.28.0",
        tf_ref_note="the mirror's newest tag, its master branch's head",
        evidence=(
            Evidence("fcbcfd3328db032d623a1340188b404a8e898e18",
                     "internal/service/generative_ai/"
                     "generative_ai_hosted_application_iam_resource.go",
                     "func GenerativeAiHostedApplicationIamResource() *schema.Resource {",
                     "Bug Fix - TERSI-5298 support Hosted Deployment IAM application: "
                     "resource oci_generative_ai_hosted_application_iam added (in v8.28.0, "
                     "not in v8.27.0)",
                     "pulumi_oci/generativeai/hosted_application_iam.py",
                     "class HostedApplicationIamArgs:"),
        ),
    ),
)


NOT_EXTRACTED = {
    "azure": ("not extracted by this script: pulumi-azure-native is not a bridged provider "
              "(its replaceOnChanges come from the Azure REST specs' x-ms-mutability, the "
              "resources' id parameters and its own forceNewMap into a schema.json too large "
              "to fetch here). clouds/azure/plan_facts.py cites, per entry, the generator's "
              "rules (provider/pkg/provider/diff.go @1b99ef0b: id path parameters; "
              "provider/pkg/gen/properties.go @000c5318: x-ms-mutability), forceNewMap "
              "(provider/pkg/gen/replacement.go @1b7112af33c6) and the REST specs at the API "
              "versions the pinned SDK uses (AKS managedClusters.json 2025-09-01 @1041da1a: "
              "no x-ms-mutability on the agent pool's properties), read through the code "
              "index; what AKS refuses to update is its refused_inputs"),
}


# ---- reading Go schema definitions ----------------------------------------------------

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_KEY_OPEN = re.compile(
    r'^\s*(?:"([a-z0-9_]+)":\s*(?:&schema\.Schema)?|\w+\["([a-z0-9_]+)"\]\s*=\s*&schema\.Schema)'
    r'\{\s*$')
_MERGE_ARG = re.compile(r'^\s*([A-Za-z_]\w*),\s*$')
_KEY_LINE = re.compile(r'^\s*"([a-z0-9_]+)":\s*(?:&schema\.Schema)?\{(.*)\},?\s*$')
_KEY_REF = re.compile(r'^\s*"([a-z0-9_]+)":\s*([A-Za-z_][\w.]*)(\(.*\))?,\s*$')
_SCHEMA_REF = re.compile(r'\bSchema:\s*([A-Za-z_][\w.]*)(\(|,|\s*$)')
_MERGE_REF = re.compile(r'MergeSchemas\(\s*([A-Za-z_]\w*)')
_MERGE_ALL = re.compile(r'MergeSchemas\(([\w\s.,]*)\)')
_CALL_OPEN = re.compile(r'(?:^|[\s=(])([A-Za-z_][\w.]*)\(\s*$')
_CALL_ARG = re.compile(r'^\s*(.+?),\s*$')
_IDENT = re.compile(r'[A-Za-z_]\w*')
_DEF = re.compile(r'^(?:func(?:\s*\([^)]*\))?\s+([A-Za-z_]\w*)\s*\(|var\s+([A-Za-z_]\w*)\s*=)')
_CUSTOM_FORCE = re.compile(r'(?:\.ForceNew|ForceNewIfChange|ForceNewIf)\(\s*"([a-z0-9_.]+)"')


@dataclass
class _Attr:
    path: tuple[str, ...]
    depth: int  # brace depth inside its braces
    line: int
    force_new: int = 0  # line of ForceNew: true (0: none)
    block: bool = False


@dataclass
class Definition:
    name: str
    path: str
    attrs: list[_Attr] = field(default_factory=list)
    refs: list[tuple[tuple[str, ...], str, int]] = field(default_factory=list)
    conditional: list[tuple[str, int]] = field(default_factory=list)
    params: tuple[str, ...] = ()  # a func's parameter names, in order
    # calls spanning lines, ``F(\n a,\n b,\n)``: (path, callee, args, line); an argument
    # that is not a bare identifier is "" (it binds nothing)
    calls: list[tuple[tuple[str, ...], str, tuple[str, ...], int]] = field(
        default_factory=list)


def _params(line: str) -> tuple[str, ...]:
    """Parameter names of a one-line ``func Name(a T, b, c U) ...`` signature."""
    found = re.match(r'^func(?:\s*\([^)]*\))?\s+\w+\s*\(([^)]*)\)', line)
    if not found or not found.group(1).strip():
        return ()
    return tuple(part.split()[0] for part in found.group(1).split(",") if part.split())


def parse_go(text: str, path: str) -> dict[str, Definition]:
    """Top-level funcs/vars of a Go file with the schema attributes inside them."""
    defs: dict[str, Definition] = {}
    current: Definition | None = None
    depth = 0
    stack: list[_Attr] = []
    in_raw = False
    merging = False
    call: tuple[tuple[str, ...], str, list[str], int] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if in_raw:
            if "`" not in line:
                continue
            line = line.split("`", 1)[1]
            in_raw = False
        code = _STRING.sub('""', line)
        # raw strings: drop `...` on one line; an unclosed one runs to its closing line
        code = re.sub(r"`[^`]*`", '""', code)
        if "`" in code:
            code = code.split("`", 1)[0]
            in_raw = True
        if depth == 0:
            found = _DEF.match(line)
            if found:
                name = found.group(1) or found.group(2)
                current = defs.setdefault(name, Definition(name, path))
                current.params = current.params or _params(line)
                stack = [_Attr((), 1, number)]
                call = None
        if current is not None:
            for match in _CUSTOM_FORCE.finditer(line):
                current.conditional.append((match.group(1), number))
            top = stack[-1] if stack else None
            key_open = _KEY_OPEN.match(line)
            key_ref = None if key_open else _KEY_REF.match(line)
            if key_ref and top is not None and key_ref.group(2) not in ("true", "false"):
                current.refs.append(((*top.path, key_ref.group(1)), key_ref.group(2), number))
            key_line = None if key_open or key_ref else _KEY_LINE.match(line)
            if key_line and top is not None:
                attr = _Attr((*top.path, key_line.group(1)), depth + 1, number)
                if re.search(r"\bForceNew:\s*true\b", key_line.group(2)):
                    attr.force_new = number
                attr.block = bool(re.search(r"\bElem:\s*&schema\.Resource\b", line))
                current.attrs.append(attr)
            elif top is not None and (depth == top.depth
                                      or (not top.path and depth == top.depth + 1)):
                if re.search(r"\bForceNew:\s*true\b", code):
                    top.force_new = number
                if re.search(r"\bElem:\s*&schema\.Resource\b", code):
                    top.block = True
            if "MergeSchemas(" in line:
                merging = True
            elif "map[" in line:
                merging = False
            merge_arg = _MERGE_ARG.match(line) if merging else None
            if merge_arg and top is not None:
                current.refs.append((top.path, merge_arg.group(1), number))
            if top is not None and not key_open:
                merge_all = _MERGE_ALL.search(line)
                merged = [m.strip() for m in merge_all.group(1).split(",")
                          if _IDENT.fullmatch(m.strip())] if merge_all else []
                for ref in (*_SCHEMA_REF.finditer(line), *_MERGE_REF.finditer(line)):
                    name = ref.group(1)
                    if name not in ("map", "schema") and not name.startswith("schema."):
                        current.refs.append((top.path, name, number))
                # every argument of a one-line MergeSchemas(a, b), not only the first
                current.refs += [(top.path, name, number) for name in merged[1:]]
            # A call spanning lines: its arguments bind the callee's parameters (a schema
            # built by a shared function, e.g. ResourceIamMember(IamProjectSchema, ...)).
            if call is not None:
                if code.strip().startswith(")"):
                    current.calls.append((call[0], call[1], tuple(call[2]), call[3]))
                    call = None
                elif (arg := _CALL_ARG.match(code)) and code.count("(") == code.count(")"):
                    call[2].append(arg.group(1) if _IDENT.fullmatch(arg.group(1)) else "")
                else:  # an argument over several lines: positions unknown, bind nothing
                    call = None
            elif top is not None and not merging and (opened_call := _CALL_OPEN.search(code)):
                call = (top.path, opened_call.group(1), [], number)
        opened = code.count("{")
        closed = code.count("}")
        if current is not None and key_open is not None and stack:
            key = key_open.group(1) or key_open.group(2)
            attr = _Attr((*stack[-1].path, key), depth + 1, number)
            current.attrs.append(attr)
            stack.append(attr)
            depth += opened
            depth -= closed
        else:
            depth += opened - closed
        while len(stack) > 1 and depth < stack[-1].depth:
            stack.pop()
        if depth == 0:
            if current is not None and stack:
                current.attrs.append(stack[0])
            current = None
            stack = []
    return defs


@dataclass(frozen=True)
class Found:
    tf_path: tuple[str, ...]
    kind: str  # "prefix" or "exact"
    path: str
    line: int


def resolve(defs: dict[str, Definition], name: str, prefix: tuple[str, ...] = (),
            seen: frozenset[str] = frozenset(),
            binds: dict[str, str] | None = None) -> tuple[list[Found], list[Found]]:
    """ForceNew attributes under definition ``name`` (paths prefixed), and the
    conditional (CustomizeDiff) ones. ``binds``: the caller's arguments for ``name``'s
    parameters (a parameter used as a schema resolves to the argument's definition)."""
    binds = binds or {}
    if name not in defs or name in seen:
        return [], []
    d = defs[name]
    found: list[Found] = []
    conditional = [Found((*prefix, *c.split(".")), "conditional", d.path, line)
                   for c, line in d.conditional]
    blocks = {a.path for a in d.attrs if a.block}
    for attr in d.attrs:
        if attr.force_new and (attr.path or prefix):
            kind = "exact" if attr.path in blocks else "prefix"
            found.append(Found((*prefix, *attr.path), kind, d.path, attr.force_new))
    for path, ref, _line in d.refs:
        ref = ref.split(".")[-1]
        sub, cond = resolve(defs, binds.get(ref, ref), (*prefix, *path), seen | {name})
        found += sub
        conditional += cond
    for path, callee, args, _line in d.calls:
        callee = callee.split(".")[-1]
        if callee not in defs:
            continue
        bound = {p: binds.get(a, a) for p, a in zip(defs[callee].params, args,
                                                         strict=False) if a}
        sub, cond = resolve(defs, callee, (*prefix, *path), seen | {name}, bound)
        found += sub
        conditional += cond
    return found, conditional


# ---- naming: Terraform -> Pulumi --------------------------------------------------------

def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def sdk_properties(module: str, package: str) -> set[str]:
    """Python property names of a resource module and its package's input types."""
    names: set[str] = set()
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, module
    files = [Path(spec.origin), Path(spec.origin).parent / "_inputs.py"]
    for file in files:
        if file.exists():
            names |= set(re.findall(r"def (\w+)\(self\)", file.read_text()))
    return names


def pulumi_path(tf_path: tuple[str, ...], props: set[str]) -> str | None:
    out = []
    for part in tf_path:
        for candidate in (part, part + "s", part[:-1] + "ies" if part.endswith("y") else ""):
            if candidate and candidate in props:
                out.append(_camel(candidate))
                break
        else:
            return None
    return ".".join(out)


# ---- pulumi-kubernetes: its own forceNew table ------------------------------------------

K8S_REPO = "pulumi/pulumi-kubernetes"
K8S_REF = "v4.32.0"
K8S_GAP = ("pinned pulumi-kubernetes 4.34.2 is newer than the mirror's newest release "
           "(v4.32.0, 2026-06-08); provider/pkg/provider/diff.go is unchanged from that tag "
           "to the mirror's newest commit (94977969d, 2026-07-01)")
_K8S_DIFF = "provider/pkg/provider/diff.go"
_HELPER = re.compile(r'(labelSelectorForceNewProperties|containerForceNewProperties)\(([^)]*)\)')


def _helper_suffixes(text: str, func: str) -> list[str]:
    body = text.split(f"func {func}(", 1)[1].split("\n}\n", 1)[0]
    return re.findall(r'prefix \+ "(\.[^"]+)"', body)


def parse_k8s_force_new(text: str) -> tuple[dict[tuple[str, str, str], tuple[list[str], int]],
                                             dict[str, int]]:
    """(group, version, kind) -> (forceNew paths, line) from diff.go's ``forceNew`` and
    ``core`` maps and the ``var`` lists they name; and the lines of the rules that hold
    for every kind (identity) and for ConfigMaps and Secrets (provider defaults)."""
    helpers = {f: _helper_suffixes(text, f) for f in
               ("labelSelectorForceNewProperties", "containerForceNewProperties")}

    def items(chunk: str) -> list[str]:
        out: list[str] = []
        for line in chunk.splitlines():
            call = _HELPER.search(line)
            if call:
                for prefix in re.findall(r'"([^"]+)"', call.group(2)):
                    out += [prefix + s for s in helpers[call.group(1)]]
            elif "prefix +" not in line:
                out += re.findall(r'"(\.[^"]+)"', line)
        return out

    lines = text.splitlines()
    variables: dict[str, list[str]] = {}
    for number, line in enumerate(lines):
        found = re.match(r"^var (\w+) = (append\(|properties\{)", line)
        if found and found.group(1) not in ("forceNew", "core"):
            end = next(i for i in range(number, len(lines)) if lines[i] in (")", "}"))
            variables[found.group(1)] = items("\n".join(lines[number:end + 1]))
    table: dict[tuple[str, str, str], tuple[list[str], int]] = {}
    group = version = ""
    groups = {"core": "core", "": "core"}
    kind_entry = re.compile(r'"(\w+)":\s*(properties\{|append\(|\w+)')
    for number, line in enumerate(lines, 1):
        g = re.match(r'^\t"([\w.]*)":\s*(_versions\{|core,)', line)
        if g:
            group = groups.get(g.group(1), g.group(1))
            if g.group(2) == "core,":
                group = ""
            continue
        if line.startswith("var core = _versions{"):
            group = "core"
            continue
        v = re.match(r'^\t+"(v\w+)":\s*_kinds\{(.*)$', line)
        if v and group:
            version = v.group(1)
            rest = v.group(2)
            for kind, ref in re.findall(r'"(\w+)":\s*(\w+)', rest):
                table[(group, version, kind)] = (variables[ref], number)
            continue
        k = re.match(r'^\t+' + kind_entry.pattern, line)
        if k and group and version:
            kind, ref = k.group(1), k.group(2)
            if ref in variables:
                table[(group, version, kind)] = (variables[ref], number)
            elif ref in ("properties{", "append("):
                depth, end = 0, number - 1
                for end in range(number - 1, len(lines)):
                    depth += lines[end].count("{") + lines[end].count("(")
                    depth -= lines[end].count("}") + lines[end].count(")")
                    if depth <= 0:
                        break
                table[(group, version, kind)] = (items("\n".join(lines[number - 1:end + 1])),
                                                 number)
    rules = {}
    for number, line in enumerate(lines, 1):
        if "metadataForceNewProperties(\".metadata\")" in line:
            rules["identity"] = number
        if "clients.IsSecret(obj)" in line:
            rules["secret"] = number
        if "clients.IsConfigMap(obj)" in line:
            rules["configmap"] = number
    return table, rules


def extract_kubernetes() -> dict[str, object]:
    """Every Kubernetes type pulumi-kubernetes' table names, with its replacing inputs
    (all of them, not only the kinds the committed stacks create today, so a new kind
    in a stack needs no new extraction)."""
    commit = _git(K8S_REPO, "rev-parse", f"{K8S_REF}^{{commit}}").strip()
    text = _git(K8S_REPO, "show", f"{commit}:{_K8S_DIFF}")
    table, rules = parse_k8s_force_new(text)
    src = f"{K8S_REPO}@{commit[:10]}:{_K8S_DIFF}"
    resources: dict[str, object] = {}
    for (group, version, kind), (paths, line) in sorted(table.items()):
        resources[f"kubernetes:{group}/{version}:{kind}"] = [
            {"input": p.lstrip(".").replace("[*]", ""), "match": "prefix",
             "source": f"{src}#L{line}"} for p in dict.fromkeys(paths)]
    # Provider defaults the project keeps (no enableConfigMapMutable/enableSecretMutable
    # on its kubernetes providers): data of ConfigMaps and Secrets replaces.
    for token, paths, rule in (
        ("kubernetes:core/v1:ConfigMap", ("binaryData", "data"), "configmap"),
        ("kubernetes:core/v1:Secret", ("type", "stringData", "data"), "secret"),
    ):
        resources[token] = [{"input": p, "match": "prefix", "source": f"{src}#L{rules[rule]}"}
                            for p in paths]
    # helm.sh/v3 Release: its own Diff (helm_release.go) replaces on name and namespace.
    helm_go = "provider/pkg/provider/helm_release.go"
    helm_text = _git(K8S_REPO, "show", f"{commit}:{helm_go}").splitlines()
    line = next(i for i, text in enumerate(helm_text, 1)
                if 'forceNewFields := []string{".name", ".namespace"}' in text)
    resources["kubernetes:helm.sh/v3:Release"] = [
        {"input": p, "match": "prefix", "source": f"{K8S_REPO}@{commit[:10]}:{helm_go}#L{line}"}
        for p in ("name", "namespace")]
    return {
        "repo": K8S_REPO, "ref": K8S_REF, "commit": commit,
        "pin_gap": K8S_GAP,
        "every_kind": [{"input": p, "match": "prefix", "source": f"{src}#L{rules['identity']}"}
                       for p in ("metadata.name", "metadata.namespace")],
        "resources": resources,
    }



# ---- aws: read through the code index, not a mirror -------------------------------------

# pulumi-aws and terraform-provider-aws are larger than what the fetch tool brings, so no
# mirror holds them. Their ForceNew marks were read file by file through the code index
# (its read_file look-up at a stored commit of hashicorp/terraform-provider-aws) and are
# written here with the commit, path and line of each mark: this table is the committed
# input the aws block is regenerated from, offline (names mapped with the pinned SDK, as
# for the other providers). The index stores each file at the commits where it changed,
# so the files come from different commits (no single commit holds them all there).
TF_AWS = "hashicorp/terraform-provider-aws"
AWS_PIN_GAP = (
    "not established: the Terraform release pinned pulumi-aws 7.51.1 bridges (its `upstream` "
    "submodule) could not be read: neither pulumi-aws (731 MB) nor terraform-provider-aws "
    "could be fetched, the code index holds no pulumi-aws submodule pointer (provider/go.mod "
    "@002381a8b6 replaces terraform-provider-aws with ../upstream), and the pulumi-aws "
    "upgrade PRs found stop at v6.46.0 (pulumi/pulumi-aws #6392, 2026-05-22), none naming "
    "7.51. Lower bound from the pinned SDK (`pin_evidence`, its half checked in the installed"
    " package): its NodeGroupArgs has warm_pool_config (hashicorp/terraform-provider-aws PR "
    "#48977, opened 2026-07-16), which a third party dates to v6.56.0 "
    "(terraform-aws-modules/terraform-aws-eks PR #3750), and its LaunchTemplateArgs has "
    "secondary_interfaces (PR #46540) and cpu_options.nested_virtualization, dated to v6.33.0"
    " (terraform-aws-eks PR #3719, issue #3685); the provider's own CHANGELOG for those "
    "releases was not in the index. So the pin bridges v6.56.0 or later (on a third party's "
    "dating). Each file was read at the stored commit the index answered with (listed per "
    "entry); those commits are not all from one release: addon.go @00a35305dc is from the "
    "6.36.0 cycle (version/VERSION at that commit), ec2_launch_template.go @0f1a8c1727 and "
    "eks/node_group.go @b157f5a91d (forks, see `forks`) have the 6.33 fields but not the 6.56"
    " one, several others predate v6 (vpc_route.go, vpc_route_table.go, iam/role.go use "
    "aws-sdk-go v1). Read via the code index's read_file, not a git mirror; lines counted "
    "from its text (for ec2_launch_template.go, eks/node_group.go @b157f5a91d and "
    "vpc_security_group_ingress_rule.go @d2b7f56a7c: the pages holding the marks decoded and "
    "checked against their 16,000-character length)."
)


@dataclass(frozen=True)
class ReadFile:
    """One Terraform resource file as read at one commit: its ForceNew marks
    (dotted Terraform path, "prefix"/"exact", line) and CustomizeDiff ForceNew lines."""

    type_token: str
    path: str
    commit: str
    sdk_module: str
    marks: tuple[tuple[str, str, int], ...]
    conditional: tuple[tuple[str, int], ...] = ()
    repo: str = TF_AWS  # a fork only where hashicorp's own copy in the index is far older
    note: str = ""  # why this file, when it is not the type's own


_P, _E = "prefix", "exact"
AWS_FILES = (
    ReadFile("aws:eks/cluster:Cluster", "internal/service/eks/cluster.go",
             "00555dc5b38f92abbfa230badea0ed0754cea81e", "pulumi_aws.eks.cluster", (
                 ("access_config.bootstrap_cluster_creator_admin_permissions", _P, 110),
                 ("bootstrap_self_managed_addons", _P, 123),
                 ("kubernetes_network_config.ip_family", _P, 261),
                 ("kubernetes_network_config.service_ipv4_cidr", _P, 268),
                 ("name", _P, 284),
                 ("outpost_config.control_plane_instance_type", _P, 297),
                 ("outpost_config.control_plane_placement.group_name", _P, 308),
                 ("remote_network_config", _E, 331),
                 ("remote_network_config.remote_node_networks.cidrs", _P, 346),
                 ("remote_network_config.remote_pod_networks.cidrs", _P, 369),
                 ("role_arn", _P, 388),
             ), (("encryption_config", 57), ("compute_config.node_role_arn", 79)),
             note=("older than the pin: the pinned SDK's ClusterArgs also has "
                   "control_plane_scaling_config, default_addons_to_removes, "
                   "deletion_protection, force_update_version, kube_api_server_config, "
                   "kube_controller_manager_config and kube_scheduler_config, which this "
                   "copy lacks and no newer copy in the index was found for (not read); "
                   "gpu_fabric sets none of them")),
    # Read in a fork: hashicorp's copy in the index (@012e0a32f0) predates inputs the pin
    # has (update_config.update_strategy, node_repair_config's counts and overrides) and
    # marks the same 14 attributes; this copy has them, none ForceNew (update_strategy
    # L363-367). The pin's warm_pool_config is newer than this copy too (not read here;
    # hashicorp/terraform-provider-aws PR #48977 says it updates in place).
    ReadFile("aws:eks/nodeGroup:NodeGroup", "internal/service/eks/node_group.go",
             "b157f5a91d913c2d761542bcceb4b2ff45498850", "pulumi_aws.eks.node_group", (
                 ("ami_type", _P, 60), ("capacity_type", _P, 71), ("cluster_name", _P, 77),
                 ("disk_size", _P, 84), ("instance_types", _P, 94),
                 ("launch_template.id", _P, 112), ("launch_template.name", _P, 120),
                 ("node_group_name", _P, 136), ("node_group_name_prefix", _P, 144),
                 ("node_role_arn", _P, 224), ("remote_access", _E, 235),
                 ("remote_access.ec2_ssh_key", _P, 242),
                 ("remote_access.source_security_group_ids", _P, 247),
                 ("subnet_ids", _P, 308),
             ), repo="ascopes/terraform-provider-aws",
             note=("fork of hashicorp/terraform-provider-aws; this copy has the inputs "
                   "hashicorp's copy in the index (@012e0a32f0) lacks and the pin has "
                   "(update_config.update_strategy, node_repair_config counts and "
                   "overrides), and marks the same 14 attributes; the pin's "
                   "warm_pool_config is newer than it (not read)")),
    ReadFile("aws:eks/addon:Addon", "internal/service/eks/addon.go",
             "00a35305dc1b297a6fcdecdfbba33f1e63c3da39", "pulumi_aws.eks.addon",
             (("addon_name", _P, 58), ("cluster_name", _P, 77))),
    ReadFile("aws:ec2/vpc:Vpc", "internal/service/ec2/vpc_.go",
             "00081ce41cc691433ac19bf42227cdabffd0454d", "pulumi_aws.ec2.vpc",
             (("cidr_block", _P, 79), ("ipv4_ipam_pool_id", _P, 123),
              ("ipv4_netmask_length", _P, 128))),
    ReadFile("aws:ec2/subnet:Subnet", "internal/service/ec2/vpc_subnet.go",
             "00cda125a19d31754cb0d073cf551264c57955cb", "pulumi_aws.ec2.subnet", (
                 ("availability_zone", _P, 75), ("availability_zone_id", _P, 82),
                 ("cidr_block", _P, 89), ("ipv4_ipam_pool_id", _P, 120),
                 ("ipv4_netmask_length", _P, 126), ("ipv6_ipam_pool_id", _P, 144),
                 ("ipv6_native", _P, 149), ("ipv6_netmask_length", _P, 155),
                 ("outpost_arn", _P, 173), ("vpc_id", _P, 191),
             ), (("ipv6_cidr_block", 195),)),
    ReadFile("aws:ec2/internetGateway:InternetGateway",
             "internal/service/ec2/vpc_internet_gateway.go",
             "08923b68b5ad6fcfdd38362fb5247e39a9b07add", "pulumi_aws.ec2.internet_gateway",
             ()),
    ReadFile("aws:ec2/natGateway:NatGateway", "internal/service/ec2/vpc_nat_gateway.go",
             "04088eaa54948421bf1ef7494ae2b2c01d9243e3", "pulumi_aws.ec2.nat_gateway", (
                 ("allocation_id", _P, 56), ("connectivity_type", _P, 65),
                 ("private_ip", _P, 77), ("secondary_private_ip_address_count", _P, 93),
                 ("subnet_id", _P, 106),
             )),
    ReadFile("aws:ec2/eip:Eip", "internal/service/ec2/ec2_eip.go",
             "01606926a0c0ab9174aec440f976a48b0baee722", "pulumi_aws.ec2.eip", (
                 ("address", _P, 54), ("domain", _P, 86), ("ipam_pool_id", _P, 99),
                 ("network_border_group", _P, 106), ("public_ipv4_pool", _P, 136),
             )),
    ReadFile("aws:ec2/route:Route", "internal/service/ec2/vpc_route.go",
             "0128541e0711766f28540143a9d73738aced60aa", "pulumi_aws.ec2.route", (
                 ("route_table_id", _P, 68), ("destination_cidr_block", _P, 77),
                 ("destination_ipv6_cidr_block", _P, 84),
                 ("destination_prefix_list_id", _P, 92),
             )),
    ReadFile("aws:ec2/routeTable:RouteTable", "internal/service/ec2/vpc_route_table.go",
             "022092419b7cda11527df3c6b51cbfe1876c1722", "pulumi_aws.ec2.route_table",
             (("vpc_id", _P, 154),)),
    ReadFile("aws:ec2/routeTableAssociation:RouteTableAssociation",
             "internal/service/ec2/vpc_route_table_association.go",
             "0be71beb458ad8875e0acc5c91519c0ceeb214aa",
             "pulumi_aws.ec2.route_table_association",
             (("gateway_id", _P, 33), ("subnet_id", _P, 43))),
    ReadFile("aws:ec2/securityGroup:SecurityGroup", "internal/service/ec2/vpc_security_group.go",
             "01606926a0c0ab9174aec440f976a48b0baee722", "pulumi_aws.ec2.security_group", (
                 ("description", _P, 69), ("name", _P, 79), ("name_prefix", _P, 90),
                 ("vpc_id", _P, 111),
             )),
    ReadFile("aws:ec2/placementGroup:PlacementGroup", "internal/service/ec2/ec2_placement_group.go",
             "05e34de7342261989674cfe1f047c25bb4c80db8", "pulumi_aws.ec2.placement_group", (
                 ("name", _P, 50), ("partition_count", _P, 56), ("spread_level", _P, 68),
                 ("strategy", _P, 74),
             )),
    ReadFile("aws:ec2/vpcEndpoint:VpcEndpoint", "internal/service/ec2/vpc_endpoint.go",
             "008db85aad5e56627b1eecab8830464a282552ed", "pulumi_aws.ec2.vpc_endpoint", (
                 ("dns_options.private_dns_preference", _P, 110),
                 ("dns_options.private_dns_specified_domains", _P, 117),
                 ("resource_configuration_arn", _P, 160), ("service_name", _P, 179),
                 ("service_network_arn", _P, 185), ("service_region", _P, 193),
                 ("vpc_endpoint_type", _P, 232), ("vpc_id", _P, 239),
             ), (("private_dns_enabled", 247),)),
    ReadFile("aws:iam/role:Role", "internal/service/iam/role.go",
             "0040ea6911af00bea2cca6dbb14e86829826ad8e", "pulumi_aws.iam.role",
             (("name", _P, 132), ("name_prefix", _P, 140), ("path", _P, 148))),
    ReadFile("aws:iam/rolePolicyAttachment:RolePolicyAttachment",
             "internal/service/iam/role_policy_attachment.go",
             "04c79849dbe7fbe76c3054b364357bcdaade9ac5",
             "pulumi_aws.iam.role_policy_attachment",
             (("role", _P, 30), ("policy_arn", _P, 35))),
    ReadFile("aws:iam/openIdConnectProvider:OpenIdConnectProvider",
             "internal/service/iam/openid_connect_provider.go",
             "01606926a0c0ab9174aec440f976a48b0baee722",
             "pulumi_aws.iam.open_id_connect_provider", (("url", _P, 65),)),
    # Plugin Framework: PlanModifiers stringplanmodifier.RequiresReplace() (the bridge
    # replaces on it as on ForceNew). The ingress and egress rules share one schema,
    # securityGroupRuleResource in vpc_security_group_ingress_rule.go (the egress file
    # embeds it: vpc_security_group_egress_rule.go @0810b274e3 `type
    # securityGroupEgressRuleResource struct { securityGroupRuleResource }`). Its
    # ModifyPlan (L404) also sets RequiresReplace when the rule's source type changes
    # (one of cidr_ipv4 / cidr_ipv6 / prefix_list_id / referenced_security_group_id set
    # instead of another): conditional, not in the table.
    *(ReadFile(token, "internal/service/ec2/vpc_security_group_ingress_rule.go",
               "d2b7f56a7c451244abd1e467109ba703bd9eedd3", module,
               (("security_group_id", _P, 220),),
               tuple((source, 404) for source in ("cidr_ipv4", "cidr_ipv6", "prefix_list_id",
                                                  "referenced_security_group_id")),
               note=note)
      for token, module, note in (
          ("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
           "pulumi_aws.vpc.security_group_ingress_rule", ""),
          ("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
           "pulumi_aws.vpc.security_group_egress_rule",
           "schema of securityGroupRuleResource, which the egress rule embeds "
           "(vpc_security_group_egress_rule.go @0810b274e3)"))),
    # SDK v2: only name and name_prefix are ForceNew (L720, L728); every other input is
    # in the Update's updateKeys (L1183-1214), whose change creates a new launch template
    # version (CreateLaunchTemplateVersion, L1234) and, with update_default_version,
    # makes it the default (ModifyLaunchTemplate, L1253). Read in a fork because
    # hashicorp's own copy in the index (@c49358f89b, aws-sdk-go v1) predates the pin's
    # inputs (no secondary_interfaces, no cpu_options.nested_virtualization); that copy
    # marks the same two attributes ForceNew and nothing else.
    ReadFile("aws:ec2/launchTemplate:LaunchTemplate",
             "internal/service/ec2/ec2_launch_template.go",
             "0f1a8c1727bed5e5a288263b300fa17a1831ccbc", "pulumi_aws.ec2.launch_template",
             (("name", _P, 720), ("name_prefix", _P, 728)),
             repo="zongruxie4/terraform-provider-aws",
             note=("fork of hashicorp/terraform-provider-aws; this copy has the fields the "
                   "pinned SDK has (secondary_interfaces, cpu_options.nested_virtualization), "
                   "hashicorp's copy in the index (@c49358f89b) predates them and marks the "
                   "same two attributes (name, name_prefix) ForceNew")),
)
# Types the project creates whose marks were not read (no entry in the table for them).
AWS_NOT_READ: dict[str, str] = {}
# Forks a file was read in, and why (its commit is the fork's; that hashicorp holds the
# same commit was not verified offline).
AWS_FORKS = {
    "ascopes/terraform-provider-aws": (
        "a fork of hashicorp/terraform-provider-aws whose copy of eks/node_group.go "
        "(@b157f5a91d, 'Copyright IBM Corp. 2014, 2026') is newer than hashicorp's own copy "
        "in the code index (@012e0a32f0) and has the pinned SDK's update_strategy and "
        "node repair inputs"),
    "zongruxie4/terraform-provider-aws": (
        "a fork of hashicorp/terraform-provider-aws whose copy of ec2_launch_template.go "
        "(@0f1a8c1727) is newer than hashicorp's own copy in the code index (@c49358f89b, "
        "aws-sdk-go v1) and has the inputs of the pinned SDK; its version/VERSION reads "
        "6.40.1 at another commit (@ecef7193f3)"),
}

# What pulumi-aws itself overrides on Terraform's replacement behaviour for the types we
# create (pulumi-terraform-bridge ResourceInfo: ``SchemaInfo.ForceNew`` per field,
# ``DeleteBeforeReplace`` per resource), as for the mirrored providers' `bridge_overrides`
# but read through the code index (pulumi-aws is too large for the fetch tool). The v7
# layout builds the ResourceInfo map in resource_overrides.go (resources.go's
# providerFromMeta: `Resources: resourceOverrides(p)`). The index stores one version per
# path and does not list the others: each file is at the commit it answered with, not
# proven the pin's (7.51.1). Lines counted in the pages decoded from read_file.
_PULUMI_AWS_OVERRIDES = "pulumi/pulumi-aws@015d343812:provider/resource_overrides.go"
AWS_BRIDGE_OVERRIDES = {
    "searched": (
        "code index read_file, no mirror: pulumi/pulumi-aws@0c5f6583eb:provider/resources.go "
        "(v7 layout, read whole: providerFromMeta sets Resources: resourceOverrides(p), "
        "then applyCompatibilityOverrides, setAutonaming, setupComputedIDs); "
        "@015d343812:provider/resource_overrides.go (resourceOverrides, 71,596 characters; "
        "pages 0, 16000 and 32000 decoded, each checked against its 16,000-character "
        "length, lines counted there; pages 48000 and 64000 read); @0c5f6583eb: "
        "provider/compatibility.go, provider/autonaming.go, provider/computed_ids.go; "
        "@caf7ae5173:provider/upstream_provider.go and @9757f21feb:provider/pkg/iam/iam.go "
        "(v6-era copies: Terraform schema edits for rds and aws_iam_role Deprecated only). "
        "Looked for ForceNew and DeleteBeforeReplace on aws_eip, aws_internet_gateway, "
        "aws_launch_template, aws_nat_gateway, aws_placement_group, aws_route, "
        "aws_route_table, aws_route_table_association, aws_security_group, aws_subnet, "
        "aws_vpc, aws_vpc_endpoint, aws_eks_addon, aws_eks_cluster, aws_eks_node_group, "
        "aws_iam_openid_connect_provider, aws_iam_role, aws_iam_role_policy_attachment, "
        "aws_vpc_security_group_ingress_rule, aws_vpc_security_group_egress_rule: no "
        "ForceNew in any file read. Not read: patches/ (pulumi-aws's patches to "
        "terraform-provider-aws); the index's other versions of these files"),
    "found": [
        "provider/resource_overrides.go:1242: DeleteBeforeReplace: true, (in "
        "\"aws_iam_role_policy_attachment\", L1230)",
    ],
}
# Type token -> the pulumi-aws line that makes the provider delete it before creating its
# replacement: the bridge's Diff answers DeleteBeforeReplace = len(replaces) > 0 &&
# res.Schema.DeleteBeforeReplace (pulumi/pulumi-terraform-bridge pkg/tfbridge/provider.go,
# e.g. its stored copy @c92e7c8246). The inputs that replace it are unchanged.
AWS_PROVIDER_DELETES_FIRST = {
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": f"{_PULUMI_AWS_OVERRIDES}#L1242",
}

# The pin's lower bound (pin_gap): inputs of the pinned SDK that Terraform added late.
# The SDK half is checked against the installed package at every extraction (a pinned
# SDK without them fails it); the Terraform release that added them is a third party's
# statement, not read in the provider's own CHANGELOG.
_LT_FORK = ("zongruxie4/terraform-provider-aws@0f1a8c1727:"
            "internal/service/ec2/ec2_launch_template.go")
AWS_PIN_EVIDENCE = (
    ("pulumi_aws/ec2/launch_template.py", "class LaunchTemplateArgs:", "secondary_interfaces:",
     f"{_LT_FORK}#L987",
     "aws_launch_template secondary_interfaces (hashicorp/terraform-provider-aws PR #46540, "
     "opened 2026-02-18)",
     "v6.33.0 per terraform-aws-modules/terraform-aws-eks PR #3719 (third party)"),
    ("pulumi_aws/ec2/_inputs.py", "class LaunchTemplateCpuOptionsArgs:",
     "nested_virtualization:", f"{_LT_FORK}#L186",
     "aws_launch_template cpu_options.nested_virtualization",
     "v6.33.0 per terraform-aws-modules/terraform-aws-eks issue #3685 (third party)"),
    ("pulumi_aws/eks/node_group.py", "class NodeGroupArgs:", "warm_pool_config:",
     "hashicorp/terraform-provider-aws PR #48977 (merged, opened 2026-07-16; not read in "
     "a file)",
     "aws_eks_node_group warm pool block",
     "v6.56.0 per terraform-aws-modules/terraform-aws-eks PR #3750 (third party)"),
)


def aws_pin_evidence(installed: str) -> list[dict[str, str]]:
    """Each :data:`AWS_PIN_EVIDENCE` item with the line the installed SDK has it at."""
    spec = importlib.util.find_spec("pulumi_aws")
    assert spec is not None and spec.origin, "pulumi_aws"
    root = Path(spec.origin).parent.parent
    out = []
    for rel, cls, text, terraform, change, dated in AWS_PIN_EVIDENCE:
        lines = (root / rel).read_text().splitlines()
        start = lines.index(cls)
        line = next((n for n, t in enumerate(lines[start:], start + 1) if text in t), None)
        if line is None:
            raise EvidenceError(f"aws: pulumi_aws {installed} {rel} {cls} has no {text!r}")
        out.append({"pinned_sdk": f"pulumi_aws {installed}: {rel}#L{line} "
                                  f"{lines[line - 1].strip()!r}",
                    "terraform": terraform, "change": change, "dated_by": dated})
    return out


def extract_aws() -> tuple[dict[str, object], dict[str, object]]:
    """The aws provider block and resource entries, from :data:`AWS_FILES` (offline)."""
    installed = subprocess.run(
        [sys.executable, "-c", "import importlib.metadata as m; print(m.version('pulumi_aws'))"],
        check=True, capture_output=True, text=True).stdout.strip()
    provider = {
        "pulumi_repo": "pulumi/pulumi-aws", "pulumi_ref": None, "pulumi_commit": None,
        "terraform_repo": TF_AWS, "terraform_commit": None,
        "mapping": ("none read: each file at the commit the code index stores it at "
                    "(per entry); the pinned release's `upstream` submodule could not "
                    "be read"),
        "pinned_sdk": f"pulumi_aws {installed}",
        "pin_gap": AWS_PIN_GAP,
        "read_via": "code index read_file (not a git mirror)",
        "not_read": AWS_NOT_READ,
        "forks": AWS_FORKS,
        "pin_evidence": aws_pin_evidence(installed),
        "bridge_overrides": AWS_BRIDGE_OVERRIDES,
    }
    resources: dict[str, object] = {}
    for f in AWS_FILES:
        props = sdk_properties(f.sdk_module, "pulumi_aws")
        src = f"{f.repo}@{f.commit[:10]}:{f.path}"
        entries, missing = [], []
        for tf, kind, line in sorted(f.marks):
            row = {"terraform": tf, "match": kind, "source": f"{src}#L{line}"}
            name = pulumi_path(tuple(tf.split(".")), props)
            if name is None:
                missing.append(row)
            else:
                entries.append({"input": name, **row})
        resources[f.type_token] = {
            "cloud": "aws", "inputs": entries, "not_in_pinned_sdk": missing, "excluded": [],
            "conditional": [{"terraform": tf, "source": f"{src}#L{line}"}
                            for tf, line in f.conditional],
            **({"note": f.note} if f.note else {}),
            **({"provider_delete_before_replace": AWS_PROVIDER_DELETES_FIRST[f.type_token]}
               if f.type_token in AWS_PROVIDER_DELETES_FIRST else {}),
        }
    unknown = set(AWS_PROVIDER_DELETES_FIRST) - set(resources)
    if unknown:
        raise EvidenceError(f"aws: AWS_PROVIDER_DELETES_FIRST names types not read: {unknown}")
    return provider, resources


# ---- the mirrors ----------------------------------------------------------------------

def _git(repo: str, *args: str) -> str:
    gitdir = MIRRORS / repo.replace("/", "+") / "repo"
    return subprocess.run(["git", "-C", str(gitdir), *args], check=True,
                          capture_output=True, text=True).stdout


def _is_ancestor(repo: str, older: str, newer: str) -> bool:
    gitdir = MIRRORS / repo.replace("/", "+") / "repo"
    return subprocess.run(["git", "-C", str(gitdir), "merge-base", "--is-ancestor", older,
                           newer], check=False, capture_output=True).returncode == 0


def _file_lines(repo: str, commit: str, path: str) -> list[str] | None:
    """The lines of ``path`` at ``commit``; None when the file is not there."""
    try:
        return _git(repo, "show", f"{commit}:{path}").splitlines()
    except subprocess.CalledProcessError:
        return None


def _find(lines: list[str] | None, anchor: str, text: str, within: int = 4) -> int | None:
    """Line (1-based) of ``text`` in the ``within`` lines from the first one holding
    ``anchor``; None when the anchor or the text there is absent."""
    for number, line in enumerate(lines or (), 1):
        if anchor in line:
            block = (lines or [])[number - 1:number - 1 + within]
            return next((number + i for i, held in enumerate(block) if text in held), None)
    return None


def _sdk_line(path: Path | None, lines: list[str] | None, text: str) -> int | None:
    if lines is None and path is not None and path.exists():
        lines = path.read_text().splitlines()
    return next((n for n, line in enumerate(lines or (), 1) if text in line), None)


class EvidenceError(SystemExit):
    """An evidence fact does not hold: the claimed lower bound is not proven."""


def check_evidence(prov: Provider, pulumi_commit: str, installed: str) -> list[dict[str, object]]:
    """Verify each :class:`Evidence` of ``prov`` in the Terraform mirror, the installed
    SDK and the chain release's SDK; the rows to record (lines found, not assumed)."""
    site = Path(importlib.util.find_spec(prov.pulumi_package).origin or "").parent.parent
    rows: list[dict[str, object]] = []
    for ev in prov.evidence:
        text = ev.text or ev.anchor
        parent = _git(prov.tf_repo, "rev-parse", f"{ev.commit}^").strip()
        at = _find(_file_lines(prov.tf_repo, ev.commit, ev.path), ev.anchor, text)
        before = _find(_file_lines(prov.tf_repo, parent, ev.path), ev.anchor, text)
        chain_lines = _file_lines(prov.pulumi_repo, pulumi_commit, f"sdk/python/{ev.sdk_path}")
        pinned = _sdk_line(site / ev.sdk_path, None, ev.sdk_text)
        chain = _sdk_line(None, chain_lines, ev.sdk_text)
        holds = (before is not None and at is None and pinned is None and chain is not None
                 if ev.removed else
                 at is not None and before is None and pinned is not None and chain is None)
        if not holds:
            raise EvidenceError(
                f"{prov.cloud}: evidence {ev.commit[:10]} {ev.path} does not hold "
                f"(terraform: at commit L{at}, at parent L{before}; pinned sdk L{pinned}, "
                f"chain sdk L{chain})")
        date = _git(prov.tf_repo, "show", "-s", "--format=%cs", ev.commit).strip()
        tf_src = (f"{prov.tf_repo}@{parent[:10]}:{ev.path}#L{before} (gone at {ev.commit[:10]})"
                  if ev.removed else f"{prov.tf_repo}@{ev.commit[:10]}:{ev.path}#L{at}")
        chain_src = f"{prov.pulumi_repo}@{prov.pulumi_ref}:sdk/python/{ev.sdk_path}"
        rows.append({
            "change": ev.change,
            "kind": "removed" if ev.removed else "added",
            "on_a_type_we_create": ev.ours,
            "terraform_commit": ev.commit, "terraform_date": date,
            "terraform": tf_src, "text": text,
            "pinned_sdk": (f"{prov.pulumi_package} {installed}: {ev.sdk_path} has no "
                           f"{ev.sdk_text!r}" if ev.removed else
                           f"{prov.pulumi_package} {installed}: {ev.sdk_path}#L{pinned} "
                           f"{ev.sdk_text!r}"),
            "chain_sdk": (f"{chain_src}#L{chain} {ev.sdk_text!r}" if ev.removed else
                          f"{chain_src} has no {ev.sdk_text!r}"),
        })
    return rows


def extract_resources(prov: Provider, tf_commit: str) -> dict[str, dict[str, object]]:
    """The resource entries of ``prov`` read at ``tf_commit``."""
    out: dict[str, dict[str, object]] = {}
    helpers: dict[str, Definition] = {}
    for path in prov.helpers:
        helpers.update(parse_go(_git(prov.tf_repo, "show", f"{tf_commit}:{path}"), path))
    for res in prov.resources:
        defs = dict(helpers)
        text = _git(prov.tf_repo, "show", f"{tf_commit}:{res.path}")
        defs.update(parse_go(text, res.path))
        found, _ = resolve(defs, res.root)
        # CustomizeDiff replacements anywhere in the resource's file (conditional).
        conditional = [
            Found(tuple(m.group(1).split(".")), "conditional", res.path, number)
            for number, line in enumerate(text.splitlines(), 1)
            for m in _CUSTOM_FORCE.finditer(line)
        ]
        excluded = {path: why for token, path, why in prov.exclude
                    if token == res.type_token}
        found = [f for f in found if ".".join(f.tf_path) not in excluded]
        props = sdk_properties(res.sdk_module, prov.pulumi_package)
        entries, missing = [], []
        for f in sorted(found, key=lambda f: f.tf_path):
            name = pulumi_path(f.tf_path, props)
            row = {"terraform": ".".join(f.tf_path), "match": f.kind,
                   "source": f"{prov.tf_repo}@{tf_commit[:10]}:{f.path}#L{f.line}"}
            if name is None:
                missing.append(row)
            else:
                entries.append({"input": name, **row})
        # A prefix entry covers the entries under it.
        prefixes = [e["input"] for e in entries if e["match"] == "prefix"]
        entries = [e for e in entries
                   if not any(e["input"].startswith(p + ".") for p in prefixes)]
        out[res.type_token] = {
            "cloud": prov.cloud,
            "inputs": entries,
            "not_in_pinned_sdk": missing,
            "excluded": [{"terraform": k, "why": v} for k, v in sorted(excluded.items())],
            "conditional": [
                {"terraform": ".".join(c.tf_path),
                 "source": f"{prov.tf_repo}@{tf_commit[:10]}:{c.path}#L{c.line}"}
                for c in conditional
            ],
        }
    return out


def _vs_chain(new: dict[str, object], old: dict[str, object]) -> dict[str, object]:
    """What the extraction at the newest commit adds or drops against the chain's."""
    def keys(res: dict[str, object], part: str, name: str) -> set[tuple[str, str]]:
        return {(e[name], e.get("match", "conditional"))  # type: ignore[index,union-attr]
                for e in res[part]}  # type: ignore[attr-defined]

    def rows(pairs: set[tuple[str, str]], name: str) -> list[dict[str, str]]:
        return [{name: p, "match": m} for p, m in sorted(pairs)]

    out: dict[str, object] = {}
    for part, name in (("inputs", "input"), ("not_in_pinned_sdk", "terraform"),
                       ("conditional", "terraform")):
        now, then = keys(new, part, name), keys(old, part, name)
        label = "" if part == "inputs" else f"{part}_"
        out[f"{label}added"] = rows(now - then, name)
        out[f"{label}removed"] = rows(then - now, name)
    return out


_RESOURCE_KEY = re.compile(r'^(\s*)"([a-z0-9_]+)":\s*\{')


def _grep_provider(gitdir: Path, commit: str, word: str) -> list[tuple[str, int, str]]:
    """(path, line, text) of each line of the provider's own Go code (``provider/``,
    tests aside) at ``commit`` that holds ``word``."""
    found = subprocess.run(
        ["git", "-C", str(gitdir), "grep", "-n", word, commit, "--",
         "provider/*.go", ":!provider/*_test.go"],
        capture_output=True, text=True, check=False)
    if found.returncode not in (0, 1):  # 1: no match
        raise RuntimeError(f"git grep in {gitdir}: {found.stderr.strip()}")
    hits = []
    for line in found.stdout.splitlines():
        _, path, number, text = line.split(":", 3)
        hits.append((path, int(number), text))
    return hits


def _enclosing_resource(text: str, number: int) -> str | None:
    """The Terraform resource key (``"google_project_iam_member": {``) whose block holds
    line ``number`` of ``text``: the nearest key above it, indented less."""
    lines = text.splitlines()
    indent = len(lines[number - 1]) - len(lines[number - 1].lstrip())
    for line in reversed(lines[:number - 1]):
        m = _RESOURCE_KEY.match(line)
        if m and len(m.group(1)) < indent:
            return m.group(2)
    return None


def _bridge_overrides(prov: Provider, pulumi_commit: str
                      ) -> tuple[dict[str, object], dict[str, str]]:
    """What the Pulumi provider itself overrides on Terraform's replacement behaviour
    (pulumi-terraform-bridge ResourceInfo): a field's ``SchemaInfo.ForceNew`` ("ForceNew
    overrides the underlying schema's ForceNew") and a resource's ``DeleteBeforeReplace``.
    Every ``ForceNew`` and ``DeleteBeforeReplace`` in the provider's own Go code at the
    mirrored release is listed; a ``DeleteBeforeReplace`` is traced to its Terraform
    resource's block and, through the provider's bridge-metadata.json (Terraform name
    -> Pulumi token), to the type tokens we create: the second value maps those to
    their source line."""
    gitdir = MIRRORS / prov.pulumi_repo.replace("/", "+") / "repo"
    force_new = _grep_provider(gitdir, pulumi_commit, "ForceNew")
    deletes = _grep_provider(gitdir, pulumi_commit, "DeleteBeforeReplace")
    meta_file = next(m for m in _git(prov.pulumi_repo, "ls-tree", "-r", "--name-only",
                                     pulumi_commit, "provider/cmd/").split()
                     if m.endswith("/bridge-metadata.json"))
    tokens: dict[str, str] = {}
    if deletes:  # (pulumi-oci's metadata blob is absent from its mirror; it has none)
        aliases = json.loads(_git(prov.pulumi_repo, "show", f"{pulumi_commit}:{meta_file}"))
        tokens = {tf: str(info["current"])
                  for tf, info in aliases["auto-aliasing"]["resources"].items()}
    ours = {r.type_token for r in prov.resources}
    deletes_first: dict[str, str] = {}
    found = [f"{path}:{number}: {text.strip()}" for path, number, text in force_new]
    for path, number, text in deletes:
        source = _git(prov.pulumi_repo, "show", f"{pulumi_commit}:{path}")
        tf_name = _enclosing_resource(source, number)
        token = tokens.get(tf_name or "")
        where = (f'in "{tf_name}", {token}' if tf_name else
                 "in a ResourceInfo built by a function, under no resource key")
        found.append(f"{path}:{number}: {text.strip()} ({where})")
        if token in ours:
            deletes_first[token] = f"{prov.pulumi_repo}@{pulumi_commit[:10]}:{path}#L{number}"
    searched = (f"git grep -n ForceNew and DeleteBeforeReplace {pulumi_commit[:10]} -- "
                f"provider/*.go (tests excluded); Terraform names to tokens from {meta_file}")
    return {"searched": searched, "found": found}, deletes_first


def extract_provider(prov: Provider) -> tuple[dict[str, object], dict[str, object]]:
    """The provider block and its resources: extracted at ``tf_ref`` (verified to be the
    mirror's newest commit and at or after every evidence commit), compared with the
    chain's commit (the newest mirrored pulumi release's ``upstream`` submodule)."""
    pulumi_commit = _git(prov.pulumi_repo, "rev-parse", f"{prov.pulumi_ref}^{{commit}}").strip()
    chain_commit = _git(prov.pulumi_repo, "ls-tree", pulumi_commit, "upstream").split()[2]
    tf_commit = _git(prov.tf_repo, "rev-parse", f"{prov.tf_ref}^{{commit}}").strip()
    head = _git(prov.tf_repo, "rev-parse", "HEAD").strip()
    installed = subprocess.run(
        [sys.executable, "-c",
         f"import importlib.metadata as m; print(m.version('{prov.pulumi_package}'))"],
        check=True, capture_output=True, text=True).stdout.strip()
    evidence = check_evidence(prov, pulumi_commit, installed)
    commits = list(dict.fromkeys(ev.commit for ev in prov.evidence))
    last = [c for c in commits if all(_is_ancestor(prov.tf_repo, o, c) for o in commits)]
    if not last:
        raise EvidenceError(f"{prov.cloud}: no evidence commit descends from all the others")
    newest = last[0]
    # The chain's commit lacks the evidence (it may sit on a release branch, as google-beta's
    # v7.45.0 release-notes commit does, so "older" is "does not contain", not "ancestor").
    if _is_ancestor(prov.tf_repo, newest, chain_commit):
        raise EvidenceError(f"{prov.cloud}: the chain's {chain_commit[:10]} already holds the "
                            f"evidence {newest[:10]}")
    if not _is_ancestor(prov.tf_repo, newest, tf_commit):
        raise EvidenceError(f"{prov.cloud}: {prov.tf_ref} is not at or after the evidence "
                            f"{newest[:10]}")
    read = [r.path for r in prov.resources] + list(prov.helpers)
    changed = sorted(set(_git(prov.tf_repo, "diff", "--name-only", newest, tf_commit,
                              "--", *read).split()))
    date = _git(prov.tf_repo, "show", "-s", "--format=%cs", tf_commit).strip()
    newest_date = _git(prov.tf_repo, "show", "-s", "--format=%cs", newest).strip()
    ref = (f"{prov.tf_ref} ({tf_commit[:10]}, {date})" if prov.tf_ref != tf_commit
           else f"{tf_commit[:10]} ({date})")
    where = ("the mirror's newest commit (its default branch's head)" if tf_commit == head
             else f"NOT the mirror's head ({head[:10]})")
    same = ("the files read are the same there as at " + newest[:10] if not changed else
            "the files read changed after " + newest[:10] + ": " + ", ".join(changed)
            + " (their marks there are not proven to be the pin's)")
    provider = {
        "pulumi_repo": prov.pulumi_repo, "pulumi_ref": prov.pulumi_ref,
        "pulumi_commit": pulumi_commit,
        "terraform_repo": prov.tf_repo, "terraform_ref": prov.tf_ref,
        "terraform_commit": tf_commit, "terraform_date": date,
        "terraform_ref_note": prov.tf_ref_note,
        "mapping": (f"pin_evidence: the pinned SDK carries Terraform changes up to "
                    f"{newest[:10]}, which the chain's SDK ({prov.pulumi_ref}) lacks; "
                    f"extracted at {ref}, {where}; {same}"),
        "chain": {
            "terraform_commit": chain_commit,
            "mapping": (f"git ls-tree {prov.pulumi_ref} upstream in {prov.pulumi_repo} (the "
                        "submodule the newest mirrored release was built from): older than "
                        "the pin, kept as a comparison (each resource's vs_chain)"),
        },
        "pinned_sdk": f"{prov.pulumi_package} {installed}",
        "pin_evidence": evidence,
        "files_changed_after_evidence": changed,
        "pin_gap": (f"pinned {prov.pulumi_package} {installed} bridges "
                    f"{prov.tf_repo} at or after {newest[:10]} ({newest_date}) per "
                    f"pin_evidence; {ref} is the newest the mirror holds and was "
                    f"extracted. Not established: whether the pin bridges a newer commit "
                    f"than the mirror holds, whose ForceNew marks were not read"),
    }
    provider["bridge_overrides"], deletes_first = _bridge_overrides(prov, pulumi_commit)
    resources = extract_resources(prov, tf_commit)
    for token, source in deletes_first.items():
        resources[token]["provider_delete_before_replace"] = source
    chain = extract_resources(prov, chain_commit)
    for token, res in resources.items():
        res["vs_chain"] = _vs_chain(res, chain[token])
    return provider, resources


def extract() -> dict[str, object]:
    out: dict[str, object] = {
        "about": ("Replacing inputs of the Terraform-bridged resources gpu_fabric creates, "
                  "extracted by scripts/extract_replacing_inputs.py (read its docstring for "
                  "the rules). 'prefix': a change at or under the path replaces; 'exact': "
                  "only the block's own path (added, removed, count changed)."),
        "providers": {},
        "resources": {},
        # Clouds whose table is still written by hand (clouds/<cloud>/plan_facts.py).
        "not_extracted": NOT_EXTRACTED,
        # pulumi-kubernetes' own table (provider/pkg/provider/diff.go forceNew).
        "kubernetes": extract_kubernetes(),
    }
    aws_provider, aws_resources = extract_aws()
    out["providers"]["aws"] = aws_provider  # type: ignore[index]
    out["resources"].update(aws_resources)  # type: ignore[attr-defined]
    for prov in PROVIDERS:
        provider, resources = extract_provider(prov)
        out["providers"][prov.cloud] = provider  # type: ignore[index]
        out["resources"].update(resources)  # type: ignore[attr-defined]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = json.dumps(extract(), indent=1, sort_keys=True) + "\n"
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print("up to date" if same else f"{OUT} differs from a fresh extraction")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
