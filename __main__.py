"""Pulumi entry point: the whole program lives in gpu_fabric.program."""

from gpu_fabric.program import main

main()
