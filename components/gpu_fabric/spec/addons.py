"""Add-ons: per add-on on/off, pinned version override and Helm values.

The section's fields are the add-on registry's keys
(:data:`gpu_fabric.fabric.addons.ADDONS`): an add-on is defined once, in its own
module, and the spec follows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from pydantic import (
    Field,
    create_model,
    field_validator,
)

from gpu_fabric.spec.base import VERSION_PIN, SpecModel, _fail

if TYPE_CHECKING:
    from gpu_fabric.fabric.addons import Addon


# -- add-ons -------------------------------------------------------------------
class AddonSpec(SpecModel):
    """One optional component. ``enabled: null`` means the cloud's default."""

    enabled: bool | None = None
    version: str | None = Field(
        default=None, description="Pinned chart/image version; default from gpu_fabric.versions"
    )
    values: dict[str, Any] = Field(
        default_factory=dict, description="Extra Helm values, merged over the computed ones"
    )

    @field_validator("version")
    @classmethod
    def _pinned(cls, value: str | None) -> str | None:
        return _pinned_version(value)


def _pinned_version(value: str | None) -> str | None:
    """An exact release, or None (the default of gpu_fabric.versions)."""
    if value is not None and not VERSION_PIN.match(value):
        raise _fail(
            "unpinned",
            "'{v}' is not a pinned version; give an exact release such as v1.2.3 "
            "(not latest/stable/ranges)",
            v=value,
        )
    return value


class _AddonChoices(SpecModel):
    # No docstring: pydantic would put it in the JSON schema, which stays as it was.

    def choice(self, addon: Addon) -> AddonSpec:
        """What the spec says about ``addon`` (its ``addons.<key>`` entry)."""
        return cast(AddonSpec, getattr(self, addon.key))


def _derived() -> type[_AddonChoices]:
    """``AddonsSpec``: one ``AddonSpec`` field, default ``AddonSpec()``, per registered
    add-on, in the registry's order."""
    from gpu_fabric.fabric.addons.registry import ADDONS

    fields: dict[str, Any] = {key: (AddonSpec, AddonSpec()) for key in ADDONS}
    return create_model("AddonsSpec", __base__=_AddonChoices, __module__=__name__, **fields)


# The fields are made at import from the registry; type checkers see the class that
# declares ``choice`` (code reads the section through it, never by attribute name).
if TYPE_CHECKING:
    AddonsSpec = _AddonChoices
else:
    AddonsSpec = _derived()
