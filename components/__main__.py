"""``python -m components``: the offline command line (validate, plan, render, ...)."""

from components.cli import main

raise SystemExit(main())
