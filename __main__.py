"""Pulumi entry point: the whole program lives in components.program."""

from components.program import main

main()
