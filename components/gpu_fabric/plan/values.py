"""Turning the monitor's wire values into plain JSON-able data, secrets masked."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi.runtime import rpc

SECRET = "[secret]"
UNKNOWN = "[unknown]"


def plain(struct: struct_pb2.Struct) -> dict[str, Any]:
    data = json_format.MessageToDict(struct)
    out = unwrap(data)
    return out if isinstance(out, dict) else {}


def unwrap(value: Any) -> Any:
    """Replace Pulumi's special wire values: secrets -> "[secret]", references -> URN."""
    if isinstance(value, dict):
        sig = value.get(rpc._special_sig_key)
        if sig == rpc._special_secret_sig:
            return SECRET
        if sig == rpc._special_resource_sig:
            return value.get("urn")
        if sig == rpc._special_output_value_sig:
            if value.get("secret"):
                return SECRET
            return unwrap(value["value"]) if "value" in value else UNKNOWN
        if sig in (rpc._special_asset_sig, rpc._special_archive_sig):
            return {k: v for k, v in value.items() if k != rpc._special_sig_key}
        # Sorted keys: the wire map's order is not stable, committed plans must be.
        return {k: unwrap(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    if value == rpc.UNKNOWN:
        return UNKNOWN
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
