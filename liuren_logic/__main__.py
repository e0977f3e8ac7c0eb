"""``python -m liuren_logic``: the ``liuren`` command."""
import sys

from .faces.console import run

sys.exit(run())
