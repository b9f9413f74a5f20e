"""Score papermath's roles (and kinds) against a blind role instrument (`benchmarks/roles_blind/*.jsonl`).

    .venv/bin/python benchmarks/roles_blind.py                                   # s4: role right, confusion, misses
    .venv/bin/python benchmarks/roles_blind.py --set benchmarks/roles_blind/s5.jsonl   # s5: roles and kinds

Each record names a corpus paper, papermath's equation id, a symbol as the author writes it and the role a careful
reader gives it (README there: written before papermath read these equations). The symbol is matched to the
reading's rows exactly as `reading_accuracy.py` matches a gold symbol (the paper's macros expanded, one
normalisation); a symbol with no row counts as wrong. A record with `kind` and no `symbol` names the kind of
statement a careful reader gives the equation (`alt_kinds`: other kinds accepted); it is scored against the
reading's `kind`.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import reading_accuracy as ra  # noqa: E402

DEFAULT = HERE / "roles_blind" / "s4.jsonl"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default=str(DEFAULT), help="the instrument (JSON lines)")
    parser.add_argument("--quiet", action="store_true", help="figures only, no list of misses")
    args = parser.parse_args(argv)
    if not ra.CORPUS.is_dir():
        print(f"{ra.CORPUS} not found: the corpus lives in ../shared (CI and developer sessions only)")
        return 0
    records = [json.loads(line) for line in Path(args.set).read_text().splitlines() if line.strip()]
    readings: dict[str, dict] = {}
    right, confusion, misses = 0, Counter(), []
    kinds_right, kind_records, kind_misses = 0, 0, []
    for rec in records:
        paper = rec["paper"]
        if paper not in readings:
            readings[paper] = ra.read_paper(paper)
        eq = next((e for e in readings[paper]["equations"] if e.get("id") == rec["eq_id"]), None)
        if "symbol" not in rec:
            kind_records += 1
            ours = eq.get("kind") if eq else "(no equation)"
            if ours in {rec["kind"], *rec.get("alt_kinds", [])}:
                kinds_right += 1
            else:
                kind_misses.append(f"{rec['key']} {paper} ({rec['eq_id']}): {ours} for {rec['kind']} — "
                                   f"{(eq.get('kind_cue') if eq else '')!s:.100}")
            continue
        macros = ra.PaperMacros(ra.CORPUS / paper)
        rows = ra._rows_for(rec["symbol"], {}, eq.get("symbols", []), macros) if eq else []
        ours = rows[0].get("role") if rows else "(no row)"
        if ours in {rec["role"], *rec.get("alt_roles", [])}:
            right += 1
        else:
            confusion[(rec["role"], ours)] += 1
            misses.append(f"{rec['key']} {paper} ({rec['eq_id']}) {rec['symbol']}: {ours} for {rec['role']} — "
                          f"{(rows[0].get('role_cue') if rows else '')!s:.100}")
    symbols = len(records) - kind_records
    print(f"role right {right}/{symbols} = {100 * right / max(symbols, 1):.1f}%")
    if kind_records:
        print(f"kind right {kinds_right}/{kind_records} = {100 * kinds_right / kind_records:.1f}%")
    print("confusion (gold → ours):")
    for (gold, ours), n in confusion.most_common():
        print(f"  {n:3d}  {gold} → {ours}")
    if not args.quiet:
        print("\n".join(misses + kind_misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
