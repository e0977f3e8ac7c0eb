"""argparse's usage errors said in Chinese: one line naming the option and what it accepts.

argparse words its errors in English (``argument --lang: invalid choice: 'fr' (choose from 'zh',
'en')``); :func:`chinese` reads each of its forms back and says the same in Chinese, with the option
and the values echoed as the user typed them. A form it does not know is said generically, never
in English.
"""
from __future__ import annotations

import re

# The arguments named by their dest (a positional) as a Chinese reader knows them.
_POSITIONAL = {"command": "命令", "kb_command": "子命令（check 或 show）", "question": "所問之事",
               "value": "所問之值", "paths": "KB 檔案"}
_TYPE = {"int": "整數", "float": "數"}


def _name(argument: str) -> str:
    """An argument as the Chinese line names it: an option as typed, a positional by its meaning."""
    return _POSITIONAL.get(argument, argument)


def _listed(text: str) -> str:
    """argparse's list of names or quoted choices (``'zh', 'en'``) as a Chinese list (zh、en)."""
    return "、".join(_name(item.strip().strip("'")) for item in text.split(","))


def _choice(m: re.Match) -> str:
    space = " " if m["argument"].startswith("-") else ""  # a space after an option, none after a word
    return f"{_name(m['argument'])}{space}不可取「{m['value']}」；可取：{_listed(m['choices'])}"


def _typed(m: re.Match) -> str:
    return f"{m['argument']} 須為{_TYPE.get(m['type'], m['type'])}，「{m['value']}」不是"


_FORMS = [
    (r"argument (?P<argument>\S+): invalid choice: '(?P<value>.*)' \(choose from (?P<choices>.*)\)", _choice),
    (r"argument (?P<argument>\S+): invalid (?P<type>\w+) value: '(?P<value>.*)'", _typed),
    (r"argument (?P<argument>\S+): expected one argument", lambda m: f"{m['argument']} 之後須給一值"),
    (r"argument (?P<argument>\S+): expected at least one argument", lambda m: f"{m['argument']} 之後須給至少一值"),
    (r"argument (?P<argument>\S+): expected at most one argument", lambda m: f"{m['argument']} 之後至多給一值"),
    (r"argument (?P<argument>\S+): expected (?P<n>\d+) arguments?", lambda m: f"{m['argument']} 之後須給 {m['n']} 值"),
    (r"argument (?P<argument>\S+): not allowed with argument (?P<other>\S+)",
     lambda m: f"{m['argument']} 不可與 {m['other']} 並用"),
    (r"argument (?P<argument>\S+): ignored explicit argument '(?P<value>.*)'",
     lambda m: f"{m['argument']} 不取值，「{m['value']}」無所用"),
    (r"argument (?P<argument>\S+): '(?P<value>.*)' holds a NUL character, which no file name can",
     lambda m: f"{m['argument']} 之檔名含 NUL 字元，檔名不得有之"),
    (r"the following arguments are required: (?P<names>.*)", lambda m: f"缺{_listed(m['names'])}"),
    (r"one of the arguments (?P<names>.*) is required", lambda m: f"須給其一：{_listed(m['names'].replace(' ', ','))}"),
    (r"unrecognized arguments: (?P<given>.*)", lambda m: f"不識之選項或值：{m['given']}"),
    (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)",
     lambda m: f"選項 {m['option']} 有歧義，可指 {_listed(m['matches'])}，請寫全"),
    (r"argument (?P<argument>\S+): .*", lambda m: f"{m['argument']} 之值不合"),
]
_COMPILED = [(re.compile(pattern, re.S), say) for pattern, say in _FORMS]


def chinese(message: str, prog: str) -> tuple[str, str]:
    """argparse's ``message`` in Chinese, with a pointer to ``prog``'s help, and the option it is
    about (without its dashes, ``""`` when none), e.g. ``("--lang不可取「fr」；可取：zh、en（見 liuren
    cast --help）", "lang")``."""
    for pattern, say in _COMPILED:
        m = pattern.fullmatch(message)
        if m:
            argument = m.groupdict().get("argument") or ""
            return f"{say(m)}（見 {prog} --help）", argument[2:] if argument.startswith("--") else ""
    return f"命令列有誤（見 {prog} --help）", ""
