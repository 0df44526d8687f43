"""Reading a file a user names, without letting the file decide what the read costs.

Every path a command reads (stack and project files, kubeconfigs, plan JSON, nccl-tests
logs, render records) goes through :func:`read_bytes_bounded`: the file must be a
regular file (a FIFO blocked the read forever, ``/dev/zero`` read until the memory
cap) and no larger than the caller's limit, checked before the read and again while
reading. A refusal is an :class:`OSError` carrying the path, which the command line
turns into one line naming the option (``gpu_fabric.cli.common.guarded``); callers
with their own error type wrap it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_regular(path: str | Path, limit: int) -> int:
    """The size of ``path``; OSError when it is not a regular file or is over ``limit``."""
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", str(path))
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, f"is {_kind(st.st_mode)}; give a regular file", str(path))
    if st.st_size > limit:
        raise OSError(errno.EFBIG, f"is {st.st_size} bytes; the limit is {limit} bytes",
                      str(path))
    return st.st_size


def read_bytes_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (else OSError)."""
    check_regular(path, limit)
    # O_NONBLOCK: a FIFO swapped in after the check does not block the open.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise OSError(errno.EINVAL, "is not a regular file; give a regular file", str(path))
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"is over {limit} bytes", str(path))
    return data
