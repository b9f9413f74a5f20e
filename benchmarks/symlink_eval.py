"""SemEval-2022 Task 12 (Symlink): papermath's definition linker against gold symbol→description links.

    .venv/bin/python benchmarks/symlink_eval.py [--split dev|train] [--show-errors N]

Reads ../shared/benchmarks/symlink (exists in CI and developer sessions, never bundled). For each paragraph,
papermath.analysis.definitions.link_spans(text) predicts (symbol span, description span) links; a predicted
link is correct when both of its spans overlap the spans of one not-yet-matched gold *Direct* relation
(SYMBOL → PRIMARY description). Micro precision / recall / F1 over all links. The dev figure leaves out the
dev documents that also appear in train (3 of 6). Rules are tuned on train only.

How this differs from the task's official metric: the shared task scores entity extraction and all four
relation types (Direct, Count, Corefer-Symbol, Corefer-Description) with exact span matching; here only
Direct links are scored, end to end, with overlap matching — closer to "did we quote the right words for
this symbol" than to exact span extraction.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from papermath.analysis.definitions import link_spans  # noqa: E402

SYMLINK = ROOT.parent / "shared" / "benchmarks" / "symlink"


def load(split: str) -> dict:
    data = {}
    for path in sorted((SYMLINK / split).glob("*.json")):
        data.update(json.loads(path.read_text(encoding="utf-8")))
    return data


def gold_links(paragraph: dict) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    entities = paragraph.get("entity", {})
    links = []
    for rel in paragraph.get("relation", {}).values():
        if rel.get("label") != "Direct":
            continue
        desc, sym = entities.get(rel["arg0"]), entities.get(rel["arg1"])
        if not desc or not sym or sym["label"] != "SYMBOL":
            continue
        links.append(((sym["start"], sym["end"]), (desc["start"], desc["end"])))
    return links


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def score(data: dict, show_errors: int = 0, min_strength: int = 1):
    tp = n_pred = n_gold = 0
    by_pattern: Counter = Counter()
    by_pattern_tp: Counter = Counter()
    misses, false_alarms = [], []
    for key, paragraph in data.items():
        text = paragraph["text"]
        gold = gold_links(paragraph)
        predicted = link_spans(text, min_strength)
        n_gold += len(gold)
        n_pred += len(predicted)
        used = set()
        for sym, desc, pattern in predicted:
            by_pattern[pattern] += 1
            match = next((i for i, (gs, gd) in enumerate(gold)
                          if i not in used and overlaps(sym, gs) and overlaps(desc, gd)), None)
            if match is None:
                false_alarms.append((key, text[sym[0]:sym[1]], text[desc[0]:desc[1]], pattern))
                continue
            used.add(match)
            tp += 1
            by_pattern_tp[pattern] += 1
        for i, (gs, gd) in enumerate(gold):
            if i not in used:
                misses.append((key, text[gs[0]:gs[1]], text[gd[0]:gd[1]]))
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"tp": tp, "predicted": n_pred, "gold": n_gold, "precision": p, "recall": r, "f1": f,
            "by_pattern": {k: (by_pattern_tp[k], v) for k, v in by_pattern.most_common()},
            "misses": misses[:show_errors], "false_alarms": false_alarms[:show_errors]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "train", "both"), default="both")
    parser.add_argument("--show-errors", type=int, default=0)
    args = parser.parse_args(argv)
    if not SYMLINK.is_dir():
        print(f"{SYMLINK} not found: the Symlink data lives in ../shared (CI and developer sessions only)")
        return 0
    train = load("train")
    train_docs = {p["document"] for p in train.values()}
    dev_all = load("dev")
    dev = {k: p for k, p in dev_all.items() if p["document"] not in train_docs}
    left_out = sorted({p["document"] for p in dev_all.values()} & train_docs)
    splits = {"train": train, "dev": dev} if args.split == "both" else {args.split: train if args.split == "train" else dev}
    print(f"dev: {len({p['document'] for p in dev.values()})} documents, {len(dev)} paragraphs "
          f"(left out, shared with train: {len(left_out)} documents)")
    print(f"{'split':6} {'gold':>6} {'pred':>6} {'tp':>6} {'P':>7} {'R':>7} {'F1':>7} {'s':>6}")
    headline = {}
    for name, data in splits.items():
        start = time.perf_counter()
        result = headline[name] = score(data, args.show_errors)
        seconds = time.perf_counter() - start
        print(f"{name:6} {result['gold']:6d} {result['predicted']:6d} {result['tp']:6d} "
              f"{result['precision']:7.3f} {result['recall']:7.3f} {result['f1']:7.3f} {seconds:6.2f}")
        print("       by pattern (correct/predicted): " +
              ", ".join(f"{k} {a}/{b}" for k, (a, b) in result["by_pattern"].items()))
        for key, sym, desc, pattern in result["false_alarms"]:
            print(f"   FALSE [{pattern}] {sym!r} -> {desc!r}   ({key})")
        for key, sym, desc in result["misses"]:
            print(f"   MISS  {sym!r} -> {desc!r}   ({key})")
    print("operating points (link_spans min_strength: 1 every pattern, the default; 2 without bare nouns "
          "like 'time $t$'; 3 explicit forms only):")
    for name, data in splits.items():
        for strength in (1, 2, 3):
            result = headline[name] if strength == 1 else score(data, min_strength=strength)
            print(f"  {name:6} min_strength {strength}: P {result['precision']:.3f}  R {result['recall']:.3f}  "
                  f"F1 {result['f1']:.3f}  ({result['tp']}/{result['predicted']})")
    # Not the protocol, printed beside it: a paragraph with formulas but not one SYMBOL annotation was
    # left unannotated (train: 715 of 2955 such paragraphs), so every link predicted there counts as false.
    print("annotated paragraphs only (at least one SYMBOL entity; a secondary view, not the headline figure):")
    for name, data in splits.items():
        annotated = {k: p for k, p in data.items()
                     if any(e["label"] == "SYMBOL" for e in p.get("entity", {}).values())}
        for strength in (1, 2):
            result = score(annotated, min_strength=strength)
            print(f"  {name:6} {len(annotated):5d} paragraphs, min_strength {strength}: P {result['precision']:.3f}  "
                  f"R {result['recall']:.3f}  F1 {result['f1']:.3f}")
    print("reference: best published system (JBNU-CCLab) relation F1 37.19 on the test split, all four relation "
          "types, exact spans (a different, stricter metric; see the docstring)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
