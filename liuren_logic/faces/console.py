"""The ``liuren`` program's entry point: Ctrl-C ends it in one line and status 130 from its first moment.

Importing this module installs the handler (it is imported only as the entry point, and
imports nothing heavy first). Until the command's own handling takes over (:func:`.cli.run`,
which catches KeyboardInterrupt so that a half-written file is removed), an interrupt exits at once.
"""
from __future__ import annotations

import os
from _signal import SIGINT, signal  # the C core of the signal module, which loads enum first (30–40 ms)

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
    from .cli import run as command

    return command()


signal(SIGINT, interrupted)
