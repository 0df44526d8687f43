"""Reading the kubeconfig file of an existing cluster (``existing.kubeconfig.path``).

The file is the user's input like the stack file: it is checked before any
resource (by ``gpu_fabric.preflight`` for ``validate``/``plan``, and by
``gpu_fabric.existing`` when the program runs) and a bad one is a
:class:`~gpu_fabric.errors.SpecError` naming the field, not a traceback: a
binary file, a directory, a file too big to be a kubeconfig, or YAML that is
not a kubeconfig.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NoReturn

from gpu_fabric.errors import Problem, SpecError

FIELD = "existing.kubeconfig.path"
MAX_BYTES = 1024 * 1024


def resolve(path: str) -> Path:
    return Path(os.path.expanduser(path))


def read_kubeconfig_file(path: str) -> str:
    """The text of the kubeconfig at ``path`` (SpecError when it cannot be one)."""
    from gpu_fabric.files import read_bytes_bounded
    from gpu_fabric.plan.safe_yaml import decode_utf8, load_bounded

    file = resolve(path)
    try:
        if file.is_dir():
            _refuse(path, "is a directory; point it at the kubeconfig file")
        size = file.stat().st_size
        if size > MAX_BYTES:
            _refuse(path, f"is {size} bytes; a kubeconfig is a few KB (limit {MAX_BYTES})")
        # A regular file only: a FIFO blocked the read, /dev/zero read to the memory cap.
        data = read_bytes_bounded(file, MAX_BYTES)
    except OSError as exc:
        _refuse(path, f"cannot be read: {exc.strerror or exc}")
    try:
        text = decode_utf8(data, path)
        doc = load_bounded(text, path)
    except SpecError as exc:
        _refuse(path, "is not a kubeconfig: " + "; ".join(p.message for p in exc.problems))
    if not isinstance(doc, dict):
        _refuse(path, "is not a kubeconfig (a YAML mapping with apiVersion: v1, kind: Config, "
                "clusters, contexts and users); write one with your cloud's CLI, e.g. "
                "gcloud container clusters get-credentials")
    return text


def _refuse(path: str, message: str) -> NoReturn:
    raise SpecError([Problem(FIELD, f"'{path}' {message}")])
