"""``python -m liuren_logic``: the ``liuren`` command."""
import sys

from .console import run

sys.exit(run())
