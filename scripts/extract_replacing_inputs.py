"""Extract the replacing inputs of the Terraform-bridged resources this project creates
from the providers' own Go sources, into ``components/gpu_fabric/plan/data/
replacing_inputs.json`` (issue 32: the table is derived, not kept by hand).

Why from the Terraform sources: pulumi-gcp, pulumi-digitalocean and pulumi-oci bridge a
Terraform provider, and the bridge replaces a resource exactly when Terraform's plan
says ``RequiresNew``, i.e. where the attribute's schema says ``ForceNew: true``
(terraform-plugin-sdk v2 helper/schema). Which Terraform commit: the ``upstream``
submodule of the pulumi-<provider> release commit (``git ls-tree <tag> upstream``), so
the chain pulumi release -> Terraform commit is read from git, not guessed.

Rules of terraform-plugin-sdk v2 ``schemaMap.diff`` the extraction follows:

* a ForceNew attribute of a primitive type, or a list/set/map of primitives (the
  element inherits ForceNew), replaces on any change under it: a *prefix* entry;
* a ForceNew list/set of blocks (``Elem: &schema.Resource``) replaces when its count
  changes (the ``#`` count attribute carries ForceNew), not when a nested attribute
  without ForceNew changes: an *exact* entry (the block added or removed, or a list of
  a different length: the plan diff reports the block's own path then);
* nested attributes are followed into ``Elem: &schema.Resource{Schema: ...}`` and into
  schema helpers (``"node_config": schemaNodeConfig()``, ``Schema: nodePoolSchema(..)``,
  ``MergeSchemas(schemaNodePool, ...)``) defined in the listed files.

``CustomizeDiff`` functions may force a replacement on a condition (``d.ForceNew("x")``);
those are listed under ``conditional`` with their line, not in the table (the condition is
the provider's, e.g. a value moving between two ranges).

Pulumi names: each Terraform name is camelCased; a list or set of blocks not marked
MaxItemsOne is pluralized by the bridge (``guest_accelerator`` -> ``guestAccelerators``):
the name is looked up in the installed (pinned) Python SDK's properties and pluralized
when only the plural exists there. A name the pinned SDK lacks is reported and dropped.

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
class Provider:
    cloud: str
    pulumi_repo: str
    pulumi_ref: str  # the newest release commit of the mirror (see ``pin_gap``)
    pulumi_package: str  # the installed SDK distribution
    tf_repo: str
    resources: tuple[Resource, ...]
    helpers: tuple[str, ...] = ()  # other Go files with schema helpers
    # (type token, Terraform path) -> why a found ForceNew does not apply to that type
    exclude: tuple[tuple[str, str, str], ...] = ()
    pin_gap: str = ""


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
        pin_gap=("pinned pulumi-digitalocean 4.84.1 is newer than the mirror's newest "
                 "release (v4.76.0, 2026-07-24); its Terraform commit could not be read "
                 "offline"),
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
        ),
        helpers=("google-beta/services/container/node_config.go",
                 "google-beta/services/container/resource_container_node_pool.go"),
        pin_gap=("pinned pulumi-gcp 10.2.0 is newer than the mirror's newest release "
                 "(v9.35.0, 2026-08-21); its Terraform commit could not be read offline"),
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
        ),
        pin_gap=("pinned pulumi-oci 5.5.0 is newer than the mirror's newest commit "
                 "(dbe80d275b, 2026-07-24, after 'Upgrade terraform-provider-oci to "
                 "v8.23.0'); its Terraform commit could not be read offline"),
    ),
)


NOT_EXTRACTED = {
    "aws": ("hand-written: the pulumi/pulumi-aws snapshot (731 MB) exceeds what the fetch "
            "tool brings (524 MB), so neither the release's upstream commit nor "
            "hashicorp/terraform-provider-aws at it could be read offline"),
    "azure": ("hand-written: pulumi-azure-native is not a bridged provider (its "
              "replaceOnChanges come from the Azure REST specs into its schema.json, too "
              "large to fetch here); not read offline"),
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


def parse_go(text: str, path: str) -> dict[str, Definition]:
    """Top-level funcs/vars of a Go file with the schema attributes inside them."""
    defs: dict[str, Definition] = {}
    current: Definition | None = None
    depth = 0
    stack: list[_Attr] = []
    in_raw = False
    merging = False
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
                stack = [_Attr((), 1, number)]
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
                for ref in (*_SCHEMA_REF.finditer(line), *_MERGE_REF.finditer(line)):
                    name = ref.group(1)
                    if name not in ("map", "schema") and not name.startswith("schema."):
                        current.refs.append((top.path, name, number))
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
            seen: frozenset[str] = frozenset()) -> tuple[list[Found], list[Found]]:
    """ForceNew attributes under definition ``name`` (paths prefixed), and the
    conditional (CustomizeDiff) ones."""
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
        sub, cond = resolve(defs, ref.split(".")[-1], (*prefix, *path), seen | {name})
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



# ---- the mirrors ----------------------------------------------------------------------

def _git(repo: str, *args: str) -> str:
    gitdir = MIRRORS / repo.replace("/", "+") / "repo"
    return subprocess.run(["git", "-C", str(gitdir), *args], check=True,
                          capture_output=True, text=True).stdout


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
    for prov in PROVIDERS:
        pulumi_commit = _git(prov.pulumi_repo, "rev-parse", f"{prov.pulumi_ref}^{{commit}}").strip()
        tf_commit = _git(prov.pulumi_repo, "ls-tree", pulumi_commit, "upstream").split()[2]
        installed = subprocess.run(
            [sys.executable, "-c",
             f"import importlib.metadata as m; print(m.version('{prov.pulumi_package}'))"],
            check=True, capture_output=True, text=True).stdout.strip()
        out["providers"][prov.cloud] = {  # type: ignore[index]
            "pulumi_repo": prov.pulumi_repo, "pulumi_ref": prov.pulumi_ref,
            "pulumi_commit": pulumi_commit.strip(),
            "terraform_repo": prov.tf_repo, "terraform_commit": tf_commit,
            "mapping": (f"git ls-tree {prov.pulumi_ref} upstream in {prov.pulumi_repo} "
                        "(the submodule the release was built from)"),
            "pinned_sdk": f"{prov.pulumi_package} {installed}",
            "pin_gap": prov.pin_gap,
        }
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
            out["resources"][res.type_token] = {  # type: ignore[index]
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
