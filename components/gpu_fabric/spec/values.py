"""Constrained values: what Kubernetes (and the clouds) accept as a name, label, taint or tag.

One rule per function, each returning ``None`` when the value is accepted or the reason
it is not (the spec turns that into an error naming the field and the value). Every
rule is checked before the first resource, so a value the API server or the cloud
would refuse at ``pulumi up`` (half-applied) is refused by ``validate`` and ``plan``.

Sources (read at the commits named):

* Label keys and values, DNS-1123 labels and subdomains: kubernetes/apimachinery
  ``pkg/api/validate/content/kube.go`` (``IsLabelKey``: optional prefix, a DNS-1123
  subdomain, then ``/`` and a name of at most 63 characters matching
  ``([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]``; ``IsLabelValue``: the same, at most 63,
  or empty) and ``pkg/util/validation/validation.go`` (``IsDNS1123Label`` <= 63
  ``[a-z0-9]([-a-z0-9]*[a-z0-9])?``, ``IsDNS1123Subdomain`` <= 253, dot-separated
  labels; ``IsDNS1035Label`` starts with a letter), commit
  eed236ceee2c19c2753a3d93ac0631dc20750454.
* Taints: kubernetes/kubernetes ``pkg/apis/core/validation/validation.go``
  ``validateNodeTaints``: the key is a label key, the value a label value, the effect
  one of NoSchedule/PreferNoSchedule/NoExecute, and "taints must be unique by key and
  effect pair".
* Node labels a kubelet may set on itself (``--node-labels``, which every cloud's
  pool labels become): kubernetes/kubernetes
  ``staging/src/k8s.io/kubelet/pkg/apis/well_known_labels.go`` at
  e319c541f144e9bee6160f1dd8671638a9029f4c (``IsKubeletLabel``): in the
  ``kubernetes.io`` / ``k8s.io`` namespaces only ``[*.]kubelet.kubernetes.io/*``,
  ``[*.]node.kubernetes.io/*`` and the well-known topology/OS labels; the kubelet
  refuses to start with any other (so ``node-role.kubernetes.io/*`` never reaches a
  node).

Pure and SDK-free; the per-cloud tag rules live in each cloud's folder and use the
helpers here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

# apimachinery content/kube.go labelKeyFmt (also the label value body), validation.go
# dns1123LabelFmt / dns1035LabelFmt. re.ASCII: only ASCII letters and digits.
_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", re.ASCII)
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", re.ASCII)
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?", re.ASCII)
LABEL_NAME_MAX = 63
LABEL_VALUE_MAX = 63
DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")

# well_known_labels.go: kubeletLabelNamespaces and kubeletLabels (the GA and beta
# topology/OS/arch/instance-type keys a kubelet may set itself).
KUBELET_NAMESPACES = ("kubelet.kubernetes.io", "node.kubernetes.io")
KUBELET_LABELS = frozenset({
    "kubernetes.io/hostname",
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
    "beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type",
    "kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
})
KUBERNETES_DOMAINS = ("kubernetes.io", "k8s.io")
# This project's own label namespace: its keys select the fabric's nodes
# (gpufabric.dev/pool, /fabric, /role, /system, /team); a user label with one of them
# would move the selectors off the nodes.
RESERVED_PREFIX = "gpufabric.dev"


def _cut(value: str) -> str:
    return value if len(value) <= 80 else value[:77] + "..."


def dns1123_label(value: str, max_len: int = DNS1123_LABEL_MAX) -> str | None:
    """A lowercase RFC 1123 label (namespaces, most object names)."""
    if len(value) > max_len:
        return f"is {len(value)} characters; a DNS-1123 label has at most {max_len}"
    if not _DNS1123_LABEL.fullmatch(value):
        return ("must be a lowercase RFC 1123 label: a-z, 0-9 and '-', starting and ending "
                "with a letter or digit")
    return None


def dns1035_label(value: str, max_len: int = DNS1123_LABEL_MAX) -> str | None:
    """A lowercase RFC 1035 label: a DNS-1123 label that starts with a letter."""
    if len(value) > max_len:
        return f"is {len(value)} characters; a DNS-1035 label has at most {max_len}"
    if not _DNS1035_LABEL.fullmatch(value):
        return ("must be a lowercase RFC 1035 label: a-z, 0-9 and '-', starting with a "
                "letter and ending with a letter or digit")
    return None


def dns1123_subdomain(value: str) -> str | None:
    """A lowercase RFC 1123 subdomain (DeviceClass names, label-key prefixes)."""
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        return (f"is {len(value)} characters; a DNS-1123 subdomain has at most "
                f"{DNS1123_SUBDOMAIN_MAX}")
    if not value or not all(_DNS1123_LABEL.fullmatch(p) for p in value.split(".")):
        return ("must be a lowercase RFC 1123 subdomain: dot-separated labels of a-z, 0-9 "
                "and '-', each starting and ending with a letter or digit")
    return None


def label_key(value: str) -> str | None:
    """A Kubernetes label key (also a taint key): ``[prefix/]name``."""
    parts = value.split("/")
    if len(parts) > 2:
        return "has more than one '/'; a label key is [DNS-subdomain prefix/]name"
    if len(parts) == 2:
        if not parts[0]:
            return "has an empty prefix before '/'"
        problem = dns1123_subdomain(parts[0])
        if problem:
            return f"prefix '{_cut(parts[0])}' {problem}"
    name = parts[-1]
    if not name:
        return "has an empty name"
    if len(name) > LABEL_NAME_MAX:
        return f"name part is {len(name)} characters; at most {LABEL_NAME_MAX}"
    if not _NAME.fullmatch(name):
        return ("name part must be letters, digits, '-', '_' or '.', starting and ending "
                "with a letter or digit")
    return None


def label_value(value: str) -> str | None:
    """A Kubernetes label value (also a taint value): empty, or a name of <= 63."""
    if len(value) > LABEL_VALUE_MAX:
        return f"is {len(value)} characters; a label value has at most {LABEL_VALUE_MAX}"
    if value and not _NAME.fullmatch(value):
        return ("must be empty or letters, digits, '-', '_' or '.', starting and ending "
                "with a letter or digit")
    return None


def _prefix(key: str) -> str:
    return key.split("/", 1)[0] if "/" in key else ""


def _in_domain(prefix: str, domain: str) -> bool:
    return prefix == domain or prefix.endswith("." + domain)


def node_label_key(key: str) -> str | None:
    """A label key a pool may put on its nodes: valid, settable by the kubelet, not ours."""
    problem = label_key(key)
    if problem:
        return problem
    prefix = _prefix(key)
    if _in_domain(prefix, RESERVED_PREFIX):
        return (f"is in the '{RESERVED_PREFIX}/' namespace this project sets itself "
                "(its node selectors read it); use another prefix")
    if key in KUBELET_LABELS:
        return "is set by the kubelet or the cloud itself; remove it"
    kubernetes = any(_in_domain(prefix, d) for d in KUBERNETES_DOMAINS)
    if kubernetes and not any(_in_domain(prefix, n) for n in KUBELET_NAMESPACES):
        return ("is in a kubernetes.io / k8s.io namespace the kubelet refuses to set on "
                "its node (only [*.]node.kubernetes.io/ and [*.]kubelet.kubernetes.io/ "
                "are allowed); e.g. node-role.kubernetes.io/* must be set by an admin "
                "after the node joins")
    return None


def duplicate_taints(taints: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(key, effect) pairs given more than once: the API server refuses the node."""
    seen: set[tuple[str, str]] = set()
    dupes: list[tuple[str, str]] = []
    for pair in taints:
        if pair in seen and pair not in dupes:
            dupes.append(pair)
        seen.add(pair)
    return dupes


Rule = Callable[[str], "str | None"]


def first_problem(
    values: Mapping[str, str], key_rule: Rule, value_rule: Rule
) -> tuple[str, str] | None:
    """The first (key, reason) whose key or value a rule refuses, or None."""
    for key, val in values.items():
        problem = key_rule(key)
        if problem:
            return key, f"key '{_cut(key)}' {problem}"
        problem = value_rule(val)
        if problem:
            return key, f"value '{_cut(val)}' of '{_cut(key)}' {problem}"
    return None


# -- memory quantities ------------------------------------------------------------------
# kubernetes/apimachinery pkg/api/resource/quantity.go at
# 357557a670d84c30ef3b5355f02c11d8aba5a941: "<binarySI> ::= Ki | Mi | Gi | Ti | Pi | Ei"
# after a number. A whole number of Ki..Ti is what a memory size is written as here
# (Pi and Ei exceed every machine; decimal suffixes and fractions read as bytes the
# reader has to convert).
_BINARY_QUANTITY = re.compile(r"([0-9]+)(Ki|Mi|Gi|Ti)\Z", re.ASCII)
BINARY_UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def binary_quantity(value: str) -> str | None:
    """Why ``value`` is not a memory size above zero written as a whole number of Ki, Mi,
    Gi or Ti, or None."""
    m = _BINARY_QUANTITY.fullmatch(value)
    if m is None:
        return ("is not a Kubernetes binary quantity: a whole number followed by Ki, Mi, "
                "Gi or Ti, e.g. 250Gi")
    if int(m.group(1)) == 0:
        return "must be above zero, e.g. 64Gi"
    return None


def binary_quantity_bytes(value: str) -> int:
    """Bytes of a quantity :func:`binary_quantity` accepts ('250Gi' -> 250 x 2**30)."""
    m = _BINARY_QUANTITY.fullmatch(value)
    if m is None:
        raise ValueError(f"not a binary quantity: {value!r}")
    return int(m.group(1)) * BINARY_UNITS[m.group(2)]


# -- shell ------------------------------------------------------------------------------
def shell_quote(value: str) -> str:
    """``value`` as one single-quoted shell word, whatever it holds.

    Unlike :func:`shlex.quote` it always quotes, so a script's bytes do not depend on
    whether a value happens to need quoting (and the committed user data stays as it
    was). A ``'`` inside closes the quote, adds an escaped quote and reopens it.
    """
    return "'" + value.replace("'", "'\\''") + "'"


# -- cloud tags and labels (``tags:``) --------------------------------------------------
@dataclass(frozen=True)
class TagRules:
    """What one cloud accepts as the tags (labels) of a resource; each cloud's
    ``provider.py`` states its own with the source (one line per fact)."""

    max_tags: int
    """Per resource, the user's tags plus the ones this project adds (``added``)."""
    key_max: int
    value_max: int
    key_ok: Callable[[str], bool] = field(default=lambda k: True)
    """Characters (and shape) of a key."""
    value_ok: Callable[[str], bool] = field(default=lambda v: True)
    added: int = 0
    """Tags this project puts on some resource besides the user's (``Name``...)."""
    reserved_prefixes: tuple[str, ...] = ()
    """Case-insensitive key prefixes the cloud keeps for itself."""
    reserved_values: bool = False
    """Whether the reserved prefixes are refused at the start of a value too."""
    shape: str = ""
    """What a valid key/value looks like, for the message."""


def tag_problems(tags: Mapping[str, str], rules: TagRules) -> list[tuple[str, str]]:
    """(key, reason) for every tag ``rules`` refuses, and ('', reason) for the count."""
    out: list[tuple[str, str]] = []
    if len(tags) + rules.added > rules.max_tags:
        out.append(("", f"{len(tags)} tags plus the {rules.added} this project adds exceed "
                        f"the cloud's {rules.max_tags} per resource"))
    for key, val in tags.items():
        lowered = key.lower()
        if not key or len(key) > rules.key_max:
            out.append((key, f"key is {len(key)} characters; 1 to {rules.key_max} allowed"))
        elif len(val) > rules.value_max:
            out.append((key, f"value is {len(val)} characters; at most {rules.value_max}"))
        elif any(lowered.startswith(p) for p in rules.reserved_prefixes) or (
            rules.reserved_values
            and any(val.lower().startswith(p) for p in rules.reserved_prefixes)
        ):
            out.append((key, f"the prefix {'/'.join(rules.reserved_prefixes)} is reserved "
                             "by the cloud"))
        elif not rules.key_ok(key):
            out.append((key, f"key has characters the cloud refuses; {rules.shape}"))
        elif not rules.value_ok(val):
            out.append((key, f"value has characters the cloud refuses; {rules.shape}"))
    return out


def printable(text: str) -> bool:
    return all(c.isprintable() for c in text)


# -- machine type names (``system_pool.machine_type``) ------------------------------------
@dataclass(frozen=True)
class MachineNaming:
    """How one cloud names its CPU machine types, and which of its names are GPU machines;
    each cloud's ``provider.py`` states its own with the source."""

    pattern: re.Pattern[str]
    """A CPU machine type name (full match)."""
    shape: str
    """What a name looks like, with examples, for the message."""
    gpu: re.Pattern[str]
    """Names of GPU (accelerator) machines, which the system pool refuses."""
    source: str
    """The cloud's page on its machine type names."""
    refused: re.Pattern[str] | None = None
    """Names of the cloud the system pool cannot run for another reason (``refused_why``)."""
    refused_why: str = ""
