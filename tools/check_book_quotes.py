"""Check the KB's quotations from books beyond the seeds against a transcription of them.

    python tools/check_book_quotes.py CORPUS  # CORPUS: lrdq-ts-lib's docs/corpus (ctext's text)

A source ``指南卷三: …`` must occur, white space aside, in 《六壬指南》 卷三 as transcribed there;
likewise 指南卷二, 心鏡卷五–七 and 大全卷二–三, 九, 十, 十二. Prints each quote that does not, and exits 1 if any.
The seeds are checked by tests/test_sources.py; these books are not in the repository.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

FILES = {"指南卷一": "lrzn/text/01-juan01.txt", "指南卷二": "lrzn/text/02-juan02.txt", "指南卷三": "lrzn/text/03-juan03.txt",
         "心鏡卷五": "lrxj/text/05-juan05.txt", "心鏡卷六": "lrxj/text/06-juan06.txt",
         "心鏡卷七": "lrxj/text/07-juan07.txt", "大全卷二": "lrdq/text/02-juan02.txt",
         "大全卷三": "lrdq/text/03-juan03.txt", "大全卷九": "lrdq/text/09-juan09.txt",
         "大全卷十": "lrdq/text/10-juan10.txt", "大全卷十二": "lrdq/text/12-juan12.txt"}


def main(corpus: Path) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from liuren_logic import Session

    program = Session().program
    texts = {key: re.sub(r"\s+", "", (corpus / name).read_text("utf-8")) for key, name in FILES.items()}
    checked, missing = 0, []
    for rule in program.rules + program.facts:
        key, _, quote = (rule.source or "").partition(": ")
        if key in texts:
            checked += 1
            if re.sub(r"\s+", "", quote) not in texts[key]:
                missing.append(f"{rule.id}: {rule.source}")
    print(f"{checked} quotations checked, {len(missing)} not found")
    print("\n".join(missing))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
