"""The draw behind corpus_s3.jsonl (session 3): every non-trivial display skim lists for the corpus papers that is
in none of the gold sets (by id or by the first 30 characters of its formula), shuffled with Random(20261203), at most 6
per paper, 60 in all. Prints the drawn equations as JSON (standard library + skim, never the parser)."""
import json, random, re, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tree_gold"))
import validate_corpus as vc
import draw_corpus as dc
W = Path(__file__).resolve().parent.parent.parent
def canon(s): return re.sub(r"\s+", "", s)
heads = set(); pairs = set()
for f in [W/"benchmarks/tree_gold/corpus.jsonl", W/"benchmarks/tree_gold/verdicts.jsonl", W/"benchmarks/tree_fresh/corpus.jsonl", W.parent/"shared"/"gold"/"parser"/"verdicts.jsonl"]:
    for line in f.read_text().splitlines():
        if not line.strip(): continue
        r = json.loads(line)
        if r.get("paper"):
            pairs.add((r["paper"], r.get("eq_id")))
            for e in r.get("eq_ids") or []: pairs.add((r["paper"], e))
        h = r.get("latex_head") or (r.get("latex") or "")[:40]
        if h: heads.add((r.get("paper"), canon(h)[:30]))
cache = {}
pool = []
for folder in sorted(p.name for p in vc.PAPERS.iterdir() if p.is_dir()):
    eqs = list(vc.skim_equations(folder, cache).values())
    for i, eq in enumerate(eqs):
        lines = (vc.PAPERS/folder/eq["file"]).read_text(encoding="utf-8", errors="replace").split("\n")
        span = dc.source_span(lines, eq, eqs[i+1] if i+1 < len(eqs) else None)
        c = canon(eq["latex"])[:30]
        if (folder, eq["id"]) in pairs or (folder, c) in heads: continue
        if dc.trivial(eq["latex"]): continue
        pool.append({"paper": folder, "eq_id": eq["id"], "number": eq.get("number"), "file": eq["file"], "line": eq["line"], "latex": eq["latex"], "ml": dc.multi_line(span)})
print(len(pool), "in pool", file=sys.stderr)
rnd = random.Random(20261203); rnd.shuffle(pool)
# per paper at most 4, 60 total
out = []; per = {}
for p in pool:
    if per.get(p["paper"], 0) >= 6: continue
    if len(p["latex"]) > 1500: continue
    per[p["paper"]] = per.get(p["paper"], 0) + 1; out.append(p)
    if len(out) >= 60: break
json.dump(out, sys.stdout, indent=1)
print(len(out), sum(p["ml"] for p in out), per, file=sys.stderr)
