"""The subscription feature ``Microsoft.ContainerService/AKSInfinibandSupport`` and its wait.

An ND A100/H100/H200/MI300X agent pool lands on one InfiniBand fabric only when
the feature is Registered; ND GB200/GB300 v6 pools need it NOT registered. It is
one setting per subscription, shared by every cluster and pool in it, so it is
not part of a pool block: :func:`infiniband_feature` registers it (manage) or
reads it (check) once, and each GPU pool block waits on the gate it returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pulumi
from pulumi_azure_native import features

from gpu_fabric.clouds.azure.layout import FEATURE_NAME, FEATURE_NAMESPACE


class InfinibandFeatureError(RuntimeError):
    """The subscription's AKSInfinibandSupport state does not fit the GPU pools."""


def check_feature_state(state: str | None, wanted: str) -> str:
    """Raise unless the feature state fits (``wanted``: registered | unregistered)."""
    registered = state == "Registered"
    if wanted == "registered" and not registered:
        raise InfinibandFeatureError(
            f"azure.infiniband_feature: the subscription feature {FEATURE_NAMESPACE}/"
            f"{FEATURE_NAME} is '{state}', but ND A100/H100/H200/MI300X pools need it "
            "'Registered' (so a pool lands on one InfiniBand fabric). Run: az feature register "
            f"--namespace {FEATURE_NAMESPACE} --name {FEATURE_NAME}; wait until `az feature show` "
            f"says Registered; az provider register -n {FEATURE_NAMESPACE}. Or set "
            "azure.infiniband_feature: manage"
        )
    if wanted == "unregistered" and registered:
        raise InfinibandFeatureError(
            f"azure.infiniband_feature: the subscription feature {FEATURE_NAMESPACE}/"
            f"{FEATURE_NAME} is Registered, but ND GB200/GB300 v6 pools need it unregistered. "
            f"Run: az feature unregister --namespace {FEATURE_NAMESPACE} --name {FEATURE_NAME}; "
            f"az provider register -n {FEATURE_NAMESPACE}"
        )
    return str(state)


# Registration is asynchronous: Azure's scripts poll `az feature show` until Registered
# before `az aks nodepool add` (Azure/aks-rdma-infiniband prerequisites). AKS preview
# features usually register within minutes; past this the up fails with what to do.
FEATURE_WAIT_SECONDS = 30 * 60
FEATURE_POLL_SECONDS = 30


async def wait_for_registered(
    state: str | None,
    read_state: Callable[[], Awaitable[str | None]],
    *,
    timeout: float = FEATURE_WAIT_SECONDS,
    interval: float = FEATURE_POLL_SECONDS,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> str:
    """Poll the AKSInfinibandSupport state until ``Registered`` (the GPU pool waits on it).

    Fails with the manual steps after ``timeout`` seconds, before any ND VM exists.
    """
    waited = 0.0
    while state != "Registered":
        if waited >= timeout:
            raise InfinibandFeatureError(
                f"azure.infiniband_feature: {FEATURE_NAMESPACE}/{FEATURE_NAME} was registered "
                f"but is still '{state}' after {int(waited)} s, so the ND pool was not created "
                "(it could land off the InfiniBand fabric). Wait until `az feature show "
                f"--namespace {FEATURE_NAMESPACE} --name {FEATURE_NAME}` says Registered, run "
                f"`az provider register -n {FEATURE_NAMESPACE}`, then `pulumi up` again"
            )
        await sleep(interval)
        waited += interval
        state = await read_state()
    return state


def infiniband_feature(
    name: str,
    mode: str,
    wanted: str,
    parent: pulumi.Resource | None,
) -> tuple[list[pulumi.Resource], pulumi.Output[str] | None]:
    """Resources GPU pools wait for, and an Output the pools' VM size waits on.

    ``mode``: manage | check | ignore (``azure.infiniband_feature``); ``wanted``:
    registered | unregistered | any (what the pools need, from the layout). The
    Output resolves once the feature is Registered (manage) or fails (check,
    timeout); None when nothing is to be waited for. ``<name>-ib-feature`` is the
    registration's Pulumi name (manage + registered only).
    """
    if mode == "manage" and wanted == "registered":
        feature = features.SubscriptionFeatureRegistration(
            f"{name}-ib-feature",
            provider_namespace=FEATURE_NAMESPACE,
            feature_name=FEATURE_NAME,
            properties=features.SubscriptionFeatureRegistrationPropertiesArgs(),
            # Subscription-wide: deleting this stack must not unregister it under
            # other clusters' ND pools.
            opts=pulumi.ResourceOptions(parent=parent, retain_on_delete=True),
        )
        # The registration resource returns at once (state Registering); the pool's
        # VM size waits until the subscription says Registered.

        async def read_state() -> str | None:
            found = features.get_subscription_feature_registration(
                provider_namespace=FEATURE_NAMESPACE, feature_name=FEATURE_NAME,
                opts=pulumi.InvokeOptions(parent=parent),
            )
            return found.properties.state if found.properties else None

        def registered(properties: object) -> str | Awaitable[str]:
            state = getattr(properties, "state", None) if properties else None
            if pulumi.runtime.is_dry_run():
                # A preview registers nothing, so there is nothing to wait for (a real
                # preview leaves the state unknown and never gets here; the offline
                # preview plan does, and slept FEATURE_POLL_SECONDS: issue 36).
                return str(state or "unknown until pulumi up")
            return wait_for_registered(state, read_state)

        gate = feature.properties.apply(registered)
        return [feature], gate
    if mode == "check" and wanted != "any":
        state = features.get_subscription_feature_registration_output(
            provider_namespace=FEATURE_NAMESPACE, feature_name=FEATURE_NAME,
            opts=pulumi.InvokeOutputOptions(parent=parent),
        ).apply(lambda r: check_feature_state(
            r.properties.state if r.properties else None, wanted
        ))
        return [], state
    return [], None
