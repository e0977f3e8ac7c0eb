"""The ``liuren`` program's entry point: Ctrl-C ends it in one line and status 130 from its first moment.

Importing this module installs the handler (it is imported only as the entry point, and
imports nothing heavy first). Until the command's own handling takes over (:func:`.cli.run`,
which catches KeyboardInterrupt so that a half-written file is removed), an interrupt exits at once.
"""
from __future__ import annotations

from _signal import SIGINT, signal  # the C core of the signal module, which loads enum first (30–40 ms)

from .interruption import interrupted


def run() -> int:
    """The ``liuren`` command line."""
    from .cli import run as command

    return command()


signal(SIGINT, interrupted)
