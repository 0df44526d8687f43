"""Offline plan: run the real Pulumi program under Pulumi's mock runtime.

No pulumi CLI, provider plugin, cloud account or API server is needed: the
program registers its resources with a recording mock monitor, and the plan is
the resource graph it registered (type, name, parent, dependencies, inputs).
"""

from gpu_fabric.plan.model import PlannedResource, PlanResult
from gpu_fabric.plan.runner import run_plan, run_spec
from gpu_fabric.plan.stackfile import StackFile, load_stack_file

__all__ = ["PlanResult", "PlannedResource", "StackFile", "load_stack_file", "run_plan", "run_spec"]
