"""``python -m gpu_fabric``: the offline command line (validate, plan, render, ...)."""

from gpu_fabric.cli import main

raise SystemExit(main())
