"""``schema``: print the JSON schema of the ``gpu-fabric:cluster`` config value."""

from __future__ import annotations

import argparse
import json
import sys

from gpu_fabric.cli.common import EXIT_INVALID, EXIT_OK
from gpu_fabric.spec import spec_json_schema


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("schema", help="print the JSON schema of gpu-fabric:cluster")
    parser.add_argument("--out", help="write to this file instead of stdout")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    text = json.dumps(spec_json_schema(), indent=2, sort_keys=True) + "\n"
    if args.out:
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:  # /dev/full, a folder, a read-only place: name --out
            print(f"--out: cannot write '{args.out}': {exc.strerror or exc}", file=sys.stderr)
            return EXIT_INVALID
    else:
        print(text, end="")
    return EXIT_OK
