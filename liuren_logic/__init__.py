"""liuren-logic: 大六壬 as a Datalog knowledge base whose every conclusion explains itself.

    >>> from liuren_logic import Session
    >>> chart = Session().cast("辛巳", jiang="寅", hour="午")
    >>> chart.sanchuan
    '午寅戌'
"""
from .chart import Chart
from .errors import CalendarError, InputError, KBError, LiurenError
from .session import Session

__all__ = ["Session", "Chart", "LiurenError", "InputError", "CalendarError", "KBError"]
