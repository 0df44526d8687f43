"""Run the Pulumi program under the mock runtime and collect the plan."""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime.mocks import set_mocks
from pulumi.runtime.settings import SETTINGS, get_root_resource
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from gpu_fabric.catalog import Cloud
from gpu_fabric.existing import OFFLINE_ENV
from gpu_fabric.fabric.layer import reusing_layers
from gpu_fabric.plan.collector import young_collections_only
from gpu_fabric.plan.mocks import PlanMocks
from gpu_fabric.plan.model import PlanResult
from gpu_fabric.plan.monitor import RecordingMonitor
from gpu_fabric.plan.project import ProjectError, find_project_file, load_project
from gpu_fabric.plan.stackfile import CLUSTER_KEY, PROJECT, StackFile
from gpu_fabric.plan.values import SECRET, UNKNOWN
from gpu_fabric.preflight import check_spec
from gpu_fabric.sdks import require_sdk
from gpu_fabric.spec import load_spec


def run_plan(
    stack: StackFile, *, preview: bool = False, program: Callable[[], None] | None = None
) -> PlanResult:
    """Validate the stack's spec, then run ``program`` (default: the real one) under mocks.

    A bad spec raises :class:`~gpu_fabric.errors.SpecError` before anything is registered.
    """
    source = str(stack.path or stack.name)
    # No full garbage collection over the SDK's objects while validating and planning.
    with young_collections_only():
        return _validated_plan(stack, source, preview, program)


def _validated_plan(
    stack: StackFile, source: str, preview: bool, program: Callable[[], None] | None
) -> PlanResult:
    spec = load_spec(stack.cluster, source=source)
    # The checks and the program build the same Kubernetes layer: once (issue 36).
    with reusing_layers():
        check_spec(spec, source=source)
        if spec.existing is None:
            require_sdk(spec.cloud)  # before the program: one clear line, no traceback
        if program is None:
            from gpu_fabric.program import main

            program = main
        # Only the spec's cloud's fakes: the program creates no other cloud's resources.
        return _in_fresh_context(
            stack.name, stack.pulumi_config(), stack.secret_keys, preview, program,
            project=project_of(stack), clouds=(spec.cloud,),
        )


def project_of(stack: StackFile) -> str:
    """The project name in the plan's URNs: that of the nearest ``Pulumi.yaml`` above the
    stack file, as ``pulumi`` names it (a team's ``team-training``); this project's name
    for a stack without a file or outside any project (issue 36)."""
    if stack.path is None:
        return PROJECT
    file = find_project_file(Path(stack.path).resolve().parent)
    if file is None:
        return PROJECT
    try:
        return load_project(file.parent).name or PROJECT
    except ProjectError:
        return PROJECT


def run_spec(
    spec: Mapping[str, Any],
    *,
    stack: str = "test",
    preview: bool = False,
    extra_config: Mapping[str, Any] | None = None,
    secret_keys: list[str] | None = None,
) -> PlanResult:
    """Plan a raw spec mapping (what a stack file holds under ``gpu-fabric:cluster``)."""
    config: dict[str, Any] = {CLUSTER_KEY: dict(spec), **(extra_config or {})}
    return run_plan(StackFile(stack, None, config, list(secret_keys or [])), preview=preview)


def run_program(
    program: Callable[[], None],
    *,
    stack: str = "test",
    preview: bool = False,
    config: Mapping[str, str] | None = None,
    secret_keys: list[str] | None = None,
    project: str = PROJECT,
) -> PlanResult:
    """Run any Pulumi program function (e.g. a team's own) under the recording mocks
    (every cloud's fakes: the program may use any cloud's SDK)."""
    return _in_fresh_context(
        stack, dict(config or {}), list(secret_keys or []), preview, program, project
    )


def _in_fresh_context(
    stack: str,
    config: dict[str, str],
    secret_keys: list[str],
    preview: bool,
    program: Callable[[], None],
    project: str = PROJECT,
    clouds: tuple[Cloud, ...] | None = None,
) -> PlanResult:
    # Pulumi keeps its runtime state in context variables; a fresh context per run
    # keeps plans independent (several stacks can be planned in one process).
    with young_collections_only():
        return contextvars.Context().run(
            _run, stack, config, secret_keys, preview, program, project, clouds
        )


def _run(
    stack: str,
    config: dict[str, str],
    secret_keys: list[str],
    preview: bool,
    program: Callable[[], None],
    project: str,
    clouds: tuple[Cloud, ...] | None,
) -> PlanResult:
    # Each plan gets its own event loop: a program that fails leaves Pulumi tasks
    # pending (outputs, registrations); on a shared loop they would run, and fail,
    # inside the next plan of this process.
    caller_loop = _caller_loop()
    loop = asyncio.new_event_loop()
    loop.set_exception_handler(_ignore_orphaned_failures)
    asyncio.set_event_loop(loop)
    mocks = PlanMocks(preview=preview, clouds=clouds)
    monitor = RecordingMonitor(mocks)
    set_mocks(mocks, project=project, stack=stack, preview=preview, monitor=monitor)
    # MockSettings keeps the process-wide set of pending outputs; give this run its own.
    SETTINGS.outputs = set()
    pulumi.runtime.set_all_config(config, secret_keys)
    previous = os.environ.get(OFFLINE_ENV)
    os.environ[OFFLINE_ENV] = "1"
    try:
        _sync_await(run_pulumi_func(program))
        root = get_root_resource()
        outputs = _sync_await(_resolve_outputs(getattr(root, "outputs", {})))
    finally:
        if previous is None:
            os.environ.pop(OFFLINE_ENV, None)
        else:
            os.environ[OFFLINE_ENV] = previous
        _close_loop(loop)
        # Give the caller its loop back: code that runs after a plan in the same
        # thread (a test, a team program) may still build Outputs on it.
        asyncio.set_event_loop(caller_loop)
    # Registration order follows the event loop (which output resolves first), so it
    # changes from run to run; sorted by URN the plan is the same on every run.
    return PlanResult(stack, sorted(monitor.recorded, key=lambda r: r.urn), outputs, preview)


def _ignore_orphaned_failures(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """After a failed run, its futures fail too and are garbage-collected unread.

    Their error is the one the run already raised; asyncio's default handler would
    log each one (formatting tracebacks from inside the garbage collector, which on
    Python 3.11 can break a ``compile`` that happens to be running).
    """
    if "never retrieved" in str(context.get("message", "")):
        return
    loop.default_exception_handler(context)


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what a run left pending, then close its loop."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.close()


def _caller_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop the calling thread had set before this plan, if any."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            return asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            return None


async def _resolve_outputs(outputs: Mapping[str, Any]) -> dict[str, Any]:
    resolved: dict[str, Any] = {}
    for key, value in outputs.items():
        out = pulumi.Output.from_input(value)
        if await out.is_secret():
            resolved[key] = SECRET
        elif not await out.is_known():
            resolved[key] = UNKNOWN
        else:
            resolved[key] = _jsonable(await out.future())
    return resolved


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str, sort_keys=True))
