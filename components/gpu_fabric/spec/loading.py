"""Loading: raw data -> ``ClusterSpec`` with every problem named; the JSON schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import (
    BaseModel,
    ValidationError,
)

from gpu_fabric.errors import Problem, SpecError, format_path
from gpu_fabric.security import loading_for
from gpu_fabric.spec.cluster import ClusterSpec


# -- loading -----------------------------------------------------------------------
def load_spec(
    data: Any, source: str | None = None, *, creates_api_server: bool = True
) -> ClusterSpec:
    """Validate raw data (a stack's ``gpu-fabric:cluster`` value) into a :class:`ClusterSpec`.

    Raises :class:`~gpu_fabric.errors.SpecError` listing every problem.
    ``creates_api_server=False``: the program only adds building blocks (a network,
    GPU pools) to a cluster it does not create, so ``api_access`` (who may reach an
    API server) is not required; ``build_cluster`` and every ``GpuCluster`` still
    refuse such a spec without ``api_access`` before their first resource.
    """
    if not isinstance(data, Mapping):
        raise SpecError(
            [Problem("", "the cluster spec must be a mapping of keys to values", data, True)],
            source,
        )
    try:
        with loading_for(creates_api_server):
            return ClusterSpec(**data)
    except ValidationError as exc:
        raise SpecError(problems_from_validation(exc), source) from None


def problems_from_validation(exc: ValidationError) -> list[Problem]:
    problems: list[Problem] = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        kind = err["type"]
        if kind == "cross_field":
            for item in (err.get("ctx") or {}).get("problems", []):
                problems.append(
                    Problem(item["path"], item["message"], item.get("value"), "value" in item)
                )
            continue
        path = format_path(loc)
        if kind == "extra_forbidden":
            valid = _valid_keys(loc[:-1])
            hint = f"; valid keys here: {', '.join(valid)}" if valid else ""
            problems.append(Problem(path, f"unknown key '{loc[-1]}'{hint}"))
        elif kind == "missing":
            problems.append(Problem(path, "required key is missing"))
        else:
            message = err["msg"]
            if message.startswith("Value error, "):
                message = message[len("Value error, ") :]
            ctx = err.get("ctx") or {}
            if "at" in ctx:
                path = f"{path}.{ctx['at']}" if path else str(ctx["at"])
                problems.append(Problem(path, message, ctx.get("got"), "got" in ctx))
            else:
                problems.append(Problem(path, message, err.get("input"), "input" in err))
    return problems


def _valid_keys(loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model found at ``loc`` inside ClusterSpec (for typo hints)."""
    model: Any = ClusterSpec
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part) if _is_model(model) else None
        if field is None:
            return []
        model = _model_of(field.annotation)
        if model is None:
            return []
    return list(model.model_fields) if _is_model(model) else []


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _model_of(annotation: Any) -> Any:
    if _is_model(annotation):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def spec_json_schema() -> dict[str, Any]:
    """JSON schema of the ``gpu-fabric:cluster`` config value."""
    schema = ClusterSpec.model_json_schema()
    schema["$id"] = "https://gpu-fabric.dev/schemas/cluster.schema.json"
    schema["title"] = "gpu-fabric:cluster"
    return schema
