"""What Ctrl-C does to the ``liuren`` command: one line on standard error and status 130, at once,
in the language the command line asks for.

The entry point (:mod:`.console`) installs :func:`interrupted` before anything heavy is imported;
the command (:mod:`.cli`) installs it again around what it cannot undo. Nothing but :mod:`os` and
:mod:`sys` here.
"""
from __future__ import annotations

import os
import sys
from typing import Sequence

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it
SAID = {"zh": "已中斷", "zh_simplified": "已中断", "en": "interrupted"}


def language(words: Sequence[str]) -> tuple[str, bool]:
    """The language (``--lang zh|en``, ``--lang=en``; zh by default) and script (``--simplified``) a
    command line asks for, read from its words before argparse reads them (so that its own errors,
    and an interruption, are said in them); the last ``--lang`` given counts, as for argparse."""
    lang = "zh"
    for word, after in zip(words, [*words[1:], ""]):
        if word == "--lang" and after in ("zh", "en"):
            lang = after
        elif word in ("--lang=zh", "--lang=en"):
            lang = word[7:]
    return lang, "--simplified" in words


def interruption_line(lang: str, simplify: bool) -> str:
    """``liuren: 已中斷`` (已中断 simplified) or ``liuren: interrupted``."""
    return "liuren: " + SAID["zh_simplified" if lang == "zh" and simplify else lang]


def interrupted(signum=None, frame=None) -> None:
    """Say so on standard error, in the language of the process's command line, and exit with status
    130 (no traceback, no clean-up of Python's)."""
    try:
        os.write(2, (interruption_line(*language(sys.argv[1:])) + "\n").encode("utf-8"))
    except OSError:
        pass
    os._exit(INTERRUPTED)
