"""Check a planned resource's inputs against the pinned provider SDK's own input types.

The mocks accept any input, so a misspelled or misplaced property only fails at
``pulumi up``. Each provider SDK (pulumi_gcp, pulumi_aws, pulumi_azure_native,
pulumi_digitalocean, pulumi_oci, pulumi_kubernetes at the versions pyproject.toml
pins) registers, per module, which class serves a type token (``_utilities.register``
-> ``pulumi.runtime.rpc._RESOURCE_MODULES``). The class's ``<Name>Args`` is a
``@pulumi.input_type`` whose getters carry the wire (camelCase) names and resolved
type hints (``pulumi._types._raw_return_hints``): the same metadata the SDK uses to
serialize. From them this module checks, at every depth:

* every key is a property of the input type;
* every property the type requires (its hint does not admit None) is present;
* the value's type: str/int/float/bool, lists, maps, nested input types (or their
  TypedDict twins), and closed enums (an Enum hint without ``str`` beside it).

``[secret]``/``[unknown]`` placeholders and resource references (URNs) stand for
values the engine fills in; they match any type.
"""

from __future__ import annotations

import collections.abc as cabc
import enum
import importlib
import sys
import types
import typing
from functools import cache
from typing import Any

import pulumi
from pulumi import _types as pulumi_types
from pulumi.runtime import rpc

from gpu_fabric.plan.values import SECRET, UNKNOWN

PLACEHOLDERS = (SECRET, UNKNOWN)
_ANY = object()
_SDKS = {"gcp": "pulumi_gcp", "aws": "pulumi_aws", "azure-native": "pulumi_azure_native",
         "digitalocean": "pulumi_digitalocean", "oci": "pulumi_oci",
         "kubernetes": "pulumi_kubernetes"}


@cache
def args_class(token: str) -> type | None:
    """The SDK's ``<Name>Args`` input type for a resource type token (None: not found)."""
    if token.startswith("pulumi:providers:"):
        pkg = token.removeprefix("pulumi:providers:")
        module = importlib.import_module(_SDKS[pkg])
        return typing.cast(type, module.ProviderArgs)
    pkg, mod, _name = token.split(":")
    importlib.import_module(_SDKS[pkg])
    for module in rpc._RESOURCE_MODULES.get(rpc._module_key(pkg, mod), []):
        info = getattr(module, "mod_info", None)
        if info and token in info["classes"]:
            name = info["classes"][token]
            resource = getattr(importlib.import_module(info["fqn"]), name)
            # The resource's own module: azure-native names it <Name>InitArgs when a
            # nested input type already has the name <Name>Args.
            home = sys.modules[resource.__module__]
            found = getattr(home, f"{name}InitArgs", None) or getattr(home, f"{name}Args")
            return typing.cast(type, found)
    return None


def is_custom_resource(token: str) -> bool:
    """A Kubernetes custom resource (``kubernetes:<group>/<v>:<Kind>`` of a CRD)."""
    if not token.startswith("kubernetes:") or token.count(":") != 2:
        return False
    group_version = token.split(":")[1]
    return "/" in group_version and args_class(token) is None


def _members(hint: Any) -> list[Any]:
    """The concrete alternatives of a hint: Input/Optional/Awaitable/Output removed."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        out: list[Any] = []
        for arg in typing.get_args(hint):
            out += _members(arg)
        return out
    if hint is type(None) or origin is cabc.Awaitable:
        return []
    if origin is pulumi.Output or hint is pulumi.Output:
        return []
    if isinstance(hint, typing.ForwardRef):
        return [_ANY]
    return [hint]


def _is_typed_dict(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, dict) and hasattr(hint, "__total__")


@cache
def _properties(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    hints = pulumi_types._raw_return_hints(cls)
    return hints, frozenset(pulumi_types._required_property_names(cls))


def check_inputs(token: str, inputs: dict[str, Any]) -> list[str]:
    if is_custom_resource(token):
        # apiextensions.CustomResource: apiVersion, kind, metadata (ObjectMeta), the rest
        # is the CRD's business (tests/support/crds.py checks it against upstream).
        from pulumi_kubernetes.meta.v1 import ObjectMetaArgs

        meta = inputs.get("metadata")
        return _check_object(ObjectMetaArgs, meta, f"{token}.metadata") if meta else [
            f"{token}: no metadata"]
    cls = args_class(token)
    if cls is None:
        return [f"{token}: no resource class for this type token in the pinned SDK"]
    return _check_object(cls, inputs, token)


# Kubernetes field names the SDK cannot spell (a dash is not a Python name): the SDK
# names them x_kubernetes_*; raw manifests (and yaml.ConfigFile) send Kubernetes'
# own dashed names. Key: (input type, name as sent) -> SDK property.
WIRE_ALIASES: dict[tuple[str, str], str] = {
    ("JSONSchemaPropsArgs", f"x-kubernetes-{n}"): f"x_kubernetes_{n.replace('-', '_')}"
    for n in ("preserve-unknown-fields", "int-or-string", "embedded-resource",
              "list-map-keys", "list-type", "map-type", "validations")
}


def _check_object(cls: type, value: dict[str, Any], path: str) -> list[str]:
    hints, required = _properties(cls)
    value = {WIRE_ALIASES.get((cls.__name__, k), k): v for k, v in value.items()}
    problems = [f"{path}: missing required property '{name}' of {cls.__name__}"
                for name in sorted(required - set(value))]
    for key, item in value.items():
        if key not in hints:
            near = sorted(hints)
            problems.append(f"{path}.{key}: not a property of {cls.__name__} "
                            f"(properties: {', '.join(near)})")
            continue
        problems += _check_value(hints[key], item, f"{path}.{key}")
    return problems


def _check_value(hint: Any, value: Any, path: str) -> list[str]:
    if value is None or value in PLACEHOLDERS or (isinstance(value, str)
                                                  and value.startswith("urn:pulumi:")):
        return []
    members = _members(hint)
    if not members or _ANY in members or Any in members:
        return []
    attempts: list[list[str]] = []
    for member in members:
        problems = _check_member(member, value, path)
        if not problems:
            return []
        attempts.append(problems)
    # Report the closest alternative (fewest problems), or a type mismatch.
    return min(attempts, key=len)


def _check_member(member: Any, value: Any, path: str) -> list[str]:
    origin = typing.get_origin(member)
    if member is typing.Any:
        return []
    if pulumi_types.is_input_type(member):
        if not isinstance(value, dict):
            return [f"{path}: expected an object ({member.__name__}), got {value!r}"]
        return _check_object(member, value, path)
    if _is_typed_dict(member):
        return [f"{path}: typed-dict alternative"]  # its *Args twin is checked instead
    if isinstance(member, type) and issubclass(member, enum.Enum):
        allowed = [e.value for e in member]
        return [] if value in allowed else [f"{path}: {value!r} is not one of {allowed}"]
    if origin in (list, cabc.Sequence, typing.Sequence):
        if not isinstance(value, list):
            return [f"{path}: expected a list, got {type(value).__name__}"]
        (item,) = typing.get_args(member) or (typing.Any,)
        return [p for i, v in enumerate(value) for p in _check_value(item, v, f"{path}[{i}]")]
    if origin in (dict, cabc.Mapping, typing.Mapping):
        if not isinstance(value, dict):
            return [f"{path}: expected a map, got {type(value).__name__}"]
        args = typing.get_args(member)
        item = args[1] if len(args) == 2 else typing.Any
        return [p for k, v in value.items() for p in _check_value(item, v, f"{path}.{k}")]
    if member is bool:
        return [] if isinstance(value, bool) else [f"{path}: expected bool, got {value!r}"]
    if member is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected int, got {value!r}"]
    if member is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected number, got {value!r}"]
    if member is str:
        return [] if isinstance(value, str) else [f"{path}: expected str, got {value!r}"]
    if isinstance(member, type) and issubclass(member, pulumi.Resource):
        return []  # a resource reference: serialized as its URN or id
    if isinstance(member, type) and issubclass(member, (pulumi.Asset, pulumi.Archive)):
        return []
    return []  # a hint this checker does not model (e.g. Literal): not judged
