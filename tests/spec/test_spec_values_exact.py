"""The Kubernetes name and label rules of ``gpu_fabric.spec.values``, at their edges, with
every returned reason written out.

Written against the survivors of the stop-40 mutation run of ``spec`` (docs/mutation.md,
"spec at stop 40"): ``label_key``, ``node_label_key``, ``dns1123_label``, ``dns1035_label``
and the helpers they use were reached only through specs whose messages were checked
loosely, so a changed limit or word passed.

Sources, as the module's docstring cites them:
- label keys, DNS-1123 / DNS-1035 labels and subdomains: kubernetes/apimachinery
  ``pkg/api/validate/content/kube.go`` (``IsLabelKey``: optional DNS-1123 subdomain prefix,
  ``/``, a name of at most 63 characters matching ``([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]``)
  and ``pkg/util/validation/validation.go`` (``IsDNS1123Label`` <= 63
  ``[a-z0-9]([-a-z0-9]*[a-z0-9])?``, ``IsDNS1123Subdomain`` <= 253, ``IsDNS1035Label``
  starts with a letter), commit eed236ceee2c19c2753a3d93ac0631dc20750454;
- the labels a kubelet may set on its own node: kubernetes/kubernetes
  ``staging/src/k8s.io/kubelet/pkg/apis/well_known_labels.go`` at
  e319c541f144e9bee6160f1dd8671638a9029f4c (``IsKubeletLabel``: ``kubeletLabelNamespaces``
  ``kubelet.kubernetes.io`` and ``node.kubernetes.io``, plus the listed ``kubeletLabels``).
"""

from __future__ import annotations

import pytest

from gpu_fabric.spec import values

DNS1123 = (
    "must be a lowercase RFC 1123 label: a-z, 0-9 and '-', starting and ending with a "
    "letter or digit"
)
DNS1035 = (
    "must be a lowercase RFC 1035 label: a-z, 0-9 and '-', starting with a letter and "
    "ending with a letter or digit"
)
NAME_PART = (
    "name part must be letters, digits, '-', '_' or '.', starting and ending with a letter "
    "or digit"
)
SUBDOMAIN = (
    "must be a lowercase RFC 1123 subdomain: dot-separated labels of a-z, 0-9 and '-', "
    "each starting and ending with a letter or digit"
)
KUBELET_REFUSES = (
    "is in a kubernetes.io / k8s.io namespace the kubelet refuses to set on its node "
    "(only [*.]node.kubernetes.io/ and [*.]kubelet.kubernetes.io/ are allowed); e.g. "
    "node-role.kubernetes.io/* must be set by an admin after the node joins"
)
OURS = (
    "is in the 'gpufabric.dev/' namespace this project sets itself (its node selectors "
    "read it); use another prefix"
)
KUBELET_SETS = "is set by the kubelet or the cloud itself; remove it"


# -- DNS labels ----------------------------------------------------------------------

def test_dns1123_label_length_edge_at_63_and_a_given_limit() -> None:
    assert values.dns1123_label("a" * 63) is None
    assert values.dns1123_label("a" * 64) == "is 64 characters; a DNS-1123 label has at most 63"
    assert values.dns1123_label("a" * 10, 10) is None
    assert values.dns1123_label("a" * 11, 10) == (
        "is 11 characters; a DNS-1123 label has at most 10"
    )


@pytest.mark.parametrize("bad", ["A", "-a", "a-", "a_b", "a.b", ""])
def test_dns1123_label_refuses(bad: str) -> None:
    assert values.dns1123_label(bad) == DNS1123


@pytest.mark.parametrize("good", ["a", "0", "9a", "a-0", "a--b"])
def test_dns1123_label_accepts(good: str) -> None:
    assert values.dns1123_label(good) is None


def test_dns1035_label_length_edge_at_63_and_a_given_limit() -> None:
    assert values.dns1035_label("a" * 63) is None
    assert values.dns1035_label("a" * 64) == "is 64 characters; a DNS-1035 label has at most 63"
    assert values.dns1035_label("a" * 12, 12) is None
    assert values.dns1035_label("a" * 13, 12) == (
        "is 13 characters; a DNS-1035 label has at most 12"
    )


@pytest.mark.parametrize("bad", ["0a", "A", "a-", "a_b", ""])
def test_dns1035_label_refuses(bad: str) -> None:
    assert values.dns1035_label(bad) == DNS1035


@pytest.mark.parametrize("good", ["a", "a0", "a-b9"])
def test_dns1035_label_accepts(good: str) -> None:
    assert values.dns1035_label(good) is None


# -- label keys ----------------------------------------------------------------------

def test_label_key_name_part_length_edge_at_63() -> None:
    assert values.label_key("a" * 63) is None
    assert values.label_key("example.com/" + "a" * 63) is None
    assert values.label_key("a" * 64) == "name part is 64 characters; at most 63"
    assert values.label_key("example.com/" + "a" * 64) == "name part is 64 characters; at most 63"


def test_label_key_shapes() -> None:
    assert values.label_key("a/b/c") == (
        "has more than one '/'; a label key is [DNS-subdomain prefix/]name"
    )
    assert values.label_key("/name") == "has an empty prefix before '/'"
    assert values.label_key("example.com/") == "has an empty name"
    assert values.label_key("") == "has an empty name"
    assert values.label_key("-a") == NAME_PART
    assert values.label_key("a-") == NAME_PART
    assert values.label_key("A_b.C-1") is None
    assert values.label_key("example.com/A_b.C-1") is None


def test_label_key_prefix_must_be_a_subdomain_and_is_quoted_cut_at_80() -> None:
    assert values.label_key("Example.com/a") == f"prefix 'Example.com' {SUBDOMAIN}"
    prefix = ".".join(["a" * 50] * 2)  # 101 characters, valid labels
    assert values.label_key(prefix + "/a") is None
    bad = "B" * 81
    assert values.label_key(bad + "/a") == f"prefix '{'B' * 77}...' {SUBDOMAIN}"
    eighty = "B" * 80
    assert values.label_key(eighty + "/a") == f"prefix '{eighty}' {SUBDOMAIN}"


def test_label_key_prefix_length_edge_at_253() -> None:
    prefix = ".".join(["a" * 63] * 4)[:253]  # 253 characters: 63.63.63.61
    assert len(prefix) == 253
    assert values.label_key(prefix + "/a") is None
    long = prefix + "a"
    assert values.label_key(long + "/a") == (
        f"prefix '{long[:77]}...' is 254 characters; a DNS-1123 subdomain has at most 253"
    )


# -- node labels ---------------------------------------------------------------------

def test_node_label_key_passes_the_label_key_reason_through() -> None:
    assert values.node_label_key("a/b/c") == (
        "has more than one '/'; a label key is [DNS-subdomain prefix/]name"
    )


@pytest.mark.parametrize("key", ["gpufabric.dev/pool", "x.gpufabric.dev/team"])
def test_node_label_key_refuses_this_projects_namespace(key: str) -> None:
    assert values.node_label_key(key) == OURS


@pytest.mark.parametrize("key", ["xgpufabric.dev/pool", "gpufabric.devx/pool", "gpufabric.dev"])
def test_node_label_key_only_the_exact_domain_is_ours(key: str) -> None:
    assert values.node_label_key(key) is None


@pytest.mark.parametrize("key", [
    "kubernetes.io/hostname", "topology.kubernetes.io/zone", "kubernetes.io/arch",
    "beta.kubernetes.io/instance-type", "node.kubernetes.io/instance-type",
])
def test_node_label_key_refuses_what_the_kubelet_sets(key: str) -> None:
    assert values.node_label_key(key) == KUBELET_SETS


@pytest.mark.parametrize("key", [
    "kubernetes.io/x", "node-role.kubernetes.io/worker", "k8s.io/x", "a.k8s.io/x",
])
def test_node_label_key_refuses_other_kubernetes_namespaces(key: str) -> None:
    assert values.node_label_key(key) == KUBELET_REFUSES


@pytest.mark.parametrize("key", [
    "node.kubernetes.io/x", "a.node.kubernetes.io/x", "kubelet.kubernetes.io/x",
    "b.kubelet.kubernetes.io/x", "xkubernetes.io/x", "example.com/x", "team",
])
def test_node_label_key_accepts(key: str) -> None:
    assert values.node_label_key(key) is None
