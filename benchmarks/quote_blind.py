"""Score papermath's quotes on the blind symbols of `benchmarks/quote_blind/defs_s4.jsonl` (see its README).

    .venv/bin/python benchmarks/quote_blind.py            # figures, then one line per record

A defined record is right when the row's quote contains one of its locators (both sides reduced to lower-case
letters and digits); an undefined one when no quote is claimed. Rows are matched as reading_accuracy matches gold
keys (the same normal form)."""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reading_accuracy as ra  # noqa: E402

BLIND = Path(__file__).resolve().parent / "quote_blind" / "defs_s4.jsonl"


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", (text or "").lower())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blind", default=str(BLIND))
    args = parser.parse_args(argv)
    records = [json.loads(line) for line in Path(args.blind).read_text().splitlines() if line.strip()]
    readings: dict[str, tuple[dict, ra.PaperMacros]] = {}
    right = defined = undefined_listed = 0
    lines = []
    for rec in records:
        paper = rec["paper"]
        if paper not in readings:
            readings[paper] = (ra.read_paper(paper), ra.PaperMacros(ra.CORPUS / paper))
        reading, macros = readings[paper]
        eq = next((e for e in reading.get("equations", []) if e.get("id") == rec["eq"]), None)
        rows = ra._rows_for(rec["symbol"], {}, eq.get("symbols", []), macros) if eq else []
        row = rows[0] if rows else None
        quote = ((row or {}).get("definition") or {}).get("quote")
        listed = bool(eq) and any(ra.canon(r.get("latex", "")) in {ra.canon(u) for u in eq.get("undefined", [])}
                                  for r in rows)
        if rec["defined"]:
            defined += 1
            ok = bool(quote) and any(_key(loc) in _key(quote) for loc in rec["locators"])
            undefined_listed += int(listed)
        else:
            ok = row is not None and not quote
        right += int(ok)
        what = "no row" if row is None else ("listed undefined" if listed else repr((quote or "")[:110]))
        lines.append(f"{rec['id']} {'ok ' if ok else 'MISS'} {paper} {rec['eq']} {rec['symbol']}: {what}")
    print(f"blind quote right {right}/{len(records)} = {100 * right / len(records):.1f}%; "
          f"defined listed undefined {undefined_listed}/{defined}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
