"""liuren-logic: 大六壬 as a Datalog knowledge base whose every conclusion explains itself.

    >>> from liuren_logic import Session
    >>> chart = Session().cast("辛巳", jiang="寅", hour="午")
    >>> chart.sanchuan
    '午寅戌'

The names below are imported when first asked for, so that importing the package costs
nothing: the ``liuren`` command's entry point (:mod:`.faces.console`) installs its Ctrl-C handler
before the engine, or even :mod:`dataclasses`, is loaded.

The layers, each importing only those below it (docs/architecture.md): :mod:`.datalog` (the
language and its engines), :mod:`.domain` (大六壬: inputs, schools, charts, audits), ``explain``
(what people read), :mod:`.faces` (the command and the app). This root wires them: a chart asked
for here draws itself in a notebook with ``explain``'s page, which the domain cannot import.
"""
__all__ = ["Session", "Chart", "LiurenError", "InputError", "CalendarError", "KBError"]
_LAZY = {"Session": "domain.session", "Chart": "domain.chart", "LiurenError": "domain.errors",
         "InputError": "domain.errors", "CalendarError": "domain.errors", "KBError": "domain.errors"}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        if name in ("Session", "Chart"):
            import_module(".domain.chart", __name__).Chart._repr_html_ = _chart_html
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _chart_html(chart) -> str:
    """In a notebook: the chart drawn, each conclusion clickable to its derivation."""
    from .explain.page import fragment

    return fragment(chart)
