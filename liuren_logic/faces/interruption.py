"""What Ctrl-C does to the ``liuren`` command: one line on standard error and status 130, at once.

The entry point (:mod:`.console`) installs :func:`interrupted` before anything heavy is imported;
the command (:mod:`.cli`) installs it again around what it cannot undo. Nothing but :mod:`os` here.
"""
from __future__ import annotations

import os

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it


def interrupted(signum=None, frame=None) -> None:
    """Say so on standard error and exit with status 130 (no traceback, no clean-up of Python's)."""
    try:
        os.write(2, b"liuren: interrupted\n")
    except OSError:
        pass
    os._exit(INTERRUPTED)
