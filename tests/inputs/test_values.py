"""The constrained values (gpu_fabric.spec.values) against upstream's own test cases.

Cases copied from kubernetes/apimachinery ``pkg/api/validate/content/kube_test.go``
(``TestIsLabelKey``-style success and error lists for label keys and
``TestIsLabelValue``) at commit eed236ceee2c19c2753a3d93ac0631dc20750454; kubelet
label namespaces from kubernetes/kubernetes
``staging/src/k8s.io/kubelet/pkg/apis/well_known_labels.go`` (e319c541).
"""

from __future__ import annotations

import pytest

from gpu_fabric.spec import values

KEY_OK = [
    "simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple",
    "now-with-dashes/simple", "now-with-dashes/now-with-dashes", "now.with.dots/simple",
    "now-with.dashes-and.dots/simple", "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678",
    "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo",
    "a" * 63, "a" * 253 + "/" + "b" * 63,
]
KEY_BAD = [
    "nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash",
    "Example.com/abc", "example_com/abc", "example.com/", "/simple", "a" * 64,
    "a" * 254 + "/abc",
]
VALUE_OK = ["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234",
            "a" * 63, ""]
VALUE_BAD = ["nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", "\\backslashes\\are\\bad",
             "-starts-with-dash", "ends-with-dash-", ".starts.with.dot", "ends.with.dot.",
             "a" * 64]


@pytest.mark.parametrize("key", KEY_OK)
def test_label_keys_upstream_accepts(key: str) -> None:
    assert values.label_key(key) is None


@pytest.mark.parametrize("key", KEY_BAD)
def test_label_keys_upstream_refuses(key: str) -> None:
    assert values.label_key(key)


@pytest.mark.parametrize("value", VALUE_OK)
def test_label_values_upstream_accepts(value: str) -> None:
    assert values.label_value(value) is None


@pytest.mark.parametrize("value", [*VALUE_BAD, "\u0661\u0662\u0663", "a\n"])
def test_label_values_upstream_refuses(value: str) -> None:
    assert values.label_value(value)


def test_dns_labels_and_subdomains() -> None:
    """validation.go: IsDNS1123Label <= 63, IsDNS1123Subdomain <= 253, IsDNS1035Label."""
    assert values.dns1123_label("a" * 63) is None
    assert values.dns1123_label("a" * 64) == "is 64 characters; a DNS-1123 label has at most 63"
    assert values.dns1123_label("1abc") is None and values.dns1035_label("1abc")
    assert values.dns1123_label("Abc") and values.dns1123_label("a.b")
    assert values.dns1123_subdomain("gpu.nvidia.com") is None
    assert values.dns1123_subdomain("GPU.nvidia.com")
    assert values.dns1123_subdomain("a..b") and values.dns1123_subdomain("")
    assert values.dns1123_subdomain(("a" * 63 + ".") * 4 + "b") is not None  # 257 characters


@pytest.mark.parametrize("key", [
    "node-role.kubernetes.io/gpu", "node-role.kubernetes.io/worker", "kubernetes.io/role",
    "example.k8s.io/x", "node-restriction.kubernetes.io/x", "gpufabric.dev/pool",
    "gpufabric.dev/fabric", "x.gpufabric.dev/y", "kubernetes.io/hostname",
])
def test_node_labels_the_kubelet_or_the_project_would_refuse(key: str) -> None:
    assert values.node_label_key(key)


@pytest.mark.parametrize("key", [
    "node.kubernetes.io/gpu-pool", "kubelet.kubernetes.io/x", "a.node.kubernetes.io/x",
    "example.com/team", "team", "nvidia.com/gpu.present",
])
def test_node_labels_the_kubelet_sets(key: str) -> None:
    assert values.node_label_key(key) is None


def test_duplicate_taints_by_key_and_effect() -> None:
    """validateNodeTaints: unique by <key, effect>; the same key with two effects is fine."""
    assert values.duplicate_taints([("a", "NoSchedule"), ("a", "NoExecute")]) == []
    assert values.duplicate_taints(
        [("a", "NoSchedule"), ("b", "NoSchedule"), ("a", "NoSchedule"), ("a", "NoSchedule")]
    ) == [("a", "NoSchedule")]


@pytest.mark.parametrize("name", ["a..b", "gpu." + "x" * 250, "-gpu.nvidia.com", "GPU.nvidia.com"])
def test_device_class_names_are_dns_subdomains(name: str) -> None:
    """A DeviceClass name is a DNS-1123 subdomain (validation.go IsDNS1123Subdomain)."""
    from gpu_fabric.errors import SpecError
    from gpu_fabric.spec import load_spec
    from tests.specs import spec_dict

    with pytest.raises(SpecError) as err:
        load_spec(spec_dict("gcp", fabric={"gpu_device_class": name}))
    assert "fabric.gpu_device_class" in str(err.value)
