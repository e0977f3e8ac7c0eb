"""A generic Datalog: the KB language (syntax, parser, checker), its evaluation (the bottom-up engine
and its passes, or the pyDatalog backend), and derivations as graphs (provenance). Nothing here knows
大六壬: the layers above (:mod:`liuren_logic.domain`, ``explain``, :mod:`liuren_logic.faces`) use it.
"""
