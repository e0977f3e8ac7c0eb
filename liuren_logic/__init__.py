"""liuren-logic: 大六壬 as a Datalog knowledge base whose every conclusion explains itself.

    >>> from liuren_logic import Session
    >>> chart = Session().cast("辛巳", jiang="寅", hour="午")
    >>> chart.sanchuan
    '午寅戌'

The names below are imported when first asked for, so that importing the package costs
nothing: the ``liuren`` command's entry point (:mod:`.faces.console`) installs its Ctrl-C handler
before the engine, or even :mod:`dataclasses`, is loaded.
"""
__all__ = ["Session", "Chart", "LiurenError", "InputError", "CalendarError", "KBError"]
_LAZY = {"Session": "domain.session", "Chart": "domain.chart", "LiurenError": "domain.errors",
         "InputError": "domain.errors", "CalendarError": "domain.errors", "KBError": "domain.errors"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
