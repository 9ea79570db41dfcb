#!/usr/bin/env python3
"""Writes docs/nki-support.md from the NKI call registry (issue 26 item 3).

Every `nki.isa` / `nki.language` name is defined once, in python/tpb/nki/isa.py and
language.py; `tpb.nki._api.support_markdown()` renders the support table and every call's
current and legacy signatures from those definitions.

    python tools/gen_nki_support.py            rewrite docs/nki-support.md
    python tools/gen_nki_support.py --check    exit 1 if it is stale

Run by tools/bless.sh (when a Python with `tpb` built is found) and checked by
python/tests/test_nki_api.py.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "nki-support.md"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the document is stale")
    parser.add_argument("--doc", type=pathlib.Path, default=DOC)
    args = parser.parse_args(argv)
    from tpb.nki import _api

    new = _api.support_markdown()
    old = args.doc.read_text(encoding="utf-8") if args.doc.exists() else ""
    if args.check:
        if new != old:
            print(f"{args.doc}: stale: run tools/gen_nki_support.py (or tools/bless.sh)",
                  file=sys.stderr)
            return 1
        return 0
    if new != old:
        tmp = args.doc.with_suffix(".md.tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(args.doc)  # atomic
        print(f"updated {args.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
