"""The ``liuren`` program's entry point: Ctrl-C ends it in one line and status 130 from its first moment.

Until the command's own handling takes over (:func:`.cli.run`, which catches KeyboardInterrupt
and lets a half-written file be removed), an interrupt while the modules load exits at once;
this module imports nothing heavy so that the handler is installed before they do.
"""
from __future__ import annotations

import os
import signal

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it


def interrupted(signum=None, frame=None) -> None:
    """Say so on standard error and exit with status 130 (no traceback, no clean-up of Python's)."""
    try:
        os.write(2, b"liuren: interrupted\n")
    except OSError:
        pass
    os._exit(INTERRUPTED)


def run() -> int:
    """The ``liuren`` command line."""
    signal.signal(signal.SIGINT, interrupted)
    from .cli import run as command

    return command()
