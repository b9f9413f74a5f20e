"""Check the tree-gold files against the format in the coordination notes (standard library only).

What it checks, for every record of ``verdicts.jsonl`` (and ``corpus.jsonl`` / ``own.jsonl`` when present):

- each line is a JSON object; keys are unique; required fields are there; ``classes`` are known names;
- for verdict records: the key exists in ``../shared/gold/parser/verdicts.jsonl`` and ``set``, ``paper``,
  ``eq_id``, ``number`` equal the verdict's;
- every assertion has exactly one known kind and only the fields that kind allows;
- every fragment occurs in the formula's LaTeX after the format's normalisation (whitespace and
  sizing/spacing commands ignored), at a token boundary, and the ``nth`` occurrence is the same whether one
  counts token sequences or plain substrings of the whitespace-free text (so a string matcher and a token
  matcher agree on where it points);
- the secondary fragments of an assertion sit where they must: an application's function and arguments
  inside its ``at``; arguments after the function; a reduction's body after its operator; a relation's
  left side before its right side; a product's factors in order.

Conventions the records follow (beyond the format): ``nth`` belongs to an assertion's anchor (an application's
``at`` when given, else its function; a product's first factor; a relation's left side or a chain's first part;
a reduction's operator); the other fragments of the assertion are what follows the anchor. Script assertions
(power, sup_label, sub_label, index, transpose, inverse) name the whole scripted atom, e.g. ``\sigma_t^2`` for both
"t is an index" and "2 is a power"; ``index`` also covers bracket indexing ``x[n]``. A reduction's ``body`` excludes
the reduction's own brackets (``\mathbb{E}[ ... ]``); an integral's domain (``\int_{\mathbb{R}^D}``) is given
as its ``condition``.

It never imports papermath: the expectations are written blind and checked only for being well formed.
Run: ``python benchmarks/tree_gold/validate.py [FILE ...]``; exit status 1 on any problem.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1].parent / "shared"
VERDICTS = SHARED / "gold" / "parser" / "verdicts.jsonl"

# Sizing and spacing commands the format says matching ignores.
IGNORED = {
    r"\left", r"\right", r"\bigl", r"\bigr", r"\Bigl", r"\Bigr", r"\biggl", r"\biggr", r"\Biggl",
    r"\Biggr", r"\big", r"\Big", r"\bigg", r"\Bigg", r"\middle", r"\displaystyle", r"\textstyle",
    r"\,", r"\;", r"\:", r"\!", r"\quad", r"\qquad", "~",
}
# Wrappers that change nothing in the structure; benchmarks/tree_accuracy.py drops them like the sizing commands
# (it takes them from papermath's parser tables; listed here so that this checker never imports papermath).
# Every fragment must point at the same place whether they are dropped or kept.
TRANSPARENT = {
    r"\boxed", r"\ensuremath", r"\mathclap", r"\mathllap", r"\mathrlap", r"\clap", r"\llap", r"\rlap",
    r"\smash", r"\cancel", r"\bcancel", r"\xcancel", r"\highlight", r"\hl", r"\mathmakebox", r"\makebox",
    r"\vcenter", r"\lefteqn", r"\mathpalette", r"\vbox", r"\vtop",
}
TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\S", re.DOTALL)

CLASSES = {
    "APPLY_AS_PRODUCT", "LABEL_AS_POWER", "ROWS_SPLIT", "MULTILINE", "REDUCTION_SCOPE",
    "BRACKET_INDEX_AS_PRODUCT", "PRODUCT_AS_APPLY", "CONTENT_DROPPED", "BRACKET_ARGS_AS_INTERVAL",
    "GRADIENT_SCOPE", "FUNCTION_ARG_SCOPE", "REDUCTION_INDEX", "PROSE_MERGED", "TEXT_AS_PRODUCT",
    "QUANTIFIER_SPLIT", "DIFFERENTIAL_MISSED", "DERIVATIVE_ORDER", "GROUPING_AS_SET", "INDEX_AS_PRODUCT",
    "MULTI_LETTER_NAME", "INDICATOR_MISSED", "SET_BUILDER_AS_LITERAL", "INTEGRAL_DOMAIN_AS_LIMIT", "OTHER",
}
NODE_KINDS = {
    "norm", "abs", "set", "set_builder", "interval", "tuple", "group", "concat", "indicator", "fraction",
    "root", "matrix", "cases", "derivative", "differential", "gradient", "divergence", "text", "condition",
    "ellipsis", "number", "symbol", "power", "apply", "product", "sum", "difference", "negation", "relation",
}
# kind -> (fields holding one fragment, fields holding a list of fragments, other allowed fields)
KINDS: dict[str, tuple[set[str], set[str], set[str]]] = {
    "apply": ({"apply", "at"}, {"args", "given", "params"}, {"nth"}),
    "product": (set(), {"product"}, {"nth"}),
    "power": ({"power"}, set(), {"nth"}),
    "sup_label": ({"sup_label"}, set(), {"nth"}),
    "sub_label": ({"sub_label"}, set(), {"nth"}),
    "index": ({"index"}, set(), {"indices", "nth"}),
    "transpose": ({"transpose"}, set(), {"nth"}),
    "inverse": ({"inverse"}, set(), {"nth"}),
    "reduction": ({"reduction", "body", "distribution", "condition"}, {"body_covers"}, {"over", "nth"}),
    "relation": ({"lhs", "rhs"}, set(), {"relation", "chain", "nth"}),
    "statements": (set(), set(), {"statements"}),
    "node": ({"node"}, set(), {"is", "base_is", "arg_is", "nth"}),
    "one_name": ({"one_name"}, set(), {"nth"}),
    "prose": ({"prose"}, set(), {"nth"}),
    "not_dropped": ({"not_dropped"}, set(), {"nth"}),
    "gradient": ({"gradient", "wrt", "body"}, set(), {"nth"}),
}
PRIMARY = {"apply": "apply", "power": "power", "sup_label": "sup_label", "sub_label": "sub_label",
           "index": "index", "transpose": "transpose", "inverse": "inverse", "reduction": "reduction",
           "node": "node", "one_name": "one_name", "prose": "prose", "not_dropped": "not_dropped",
           "gradient": "gradient"}
# tokens allowed between a product's factors / a relation's parts (explicit signs, alignment points)
PRODUCT_GAP = {r"\cdot", r"\times", "*", "&"}
ARG_OPEN = {"(", "[", "{", r"\{", r"\langle", "&", "\\\\"}         # between a function and its first argument
ARG_SEP = {",", ";", "|", r"\mid", r"\|", "&", "\\\\", r"\Vert"}  # between arguments (incl. a divergence's double bar)
RELATION_GAP = {"&", "\\ ", "\\\\"}  # alignment points, control space, row breaks
REQUIRED = ("key", "set", "paper", "eq_id", "number", "classes", "expect", "note")


def tokens(latex: str, drop: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The formula as the format compares it: TeX tokens without whitespace or sizing/spacing commands."""
    return [t for t in TOKEN.findall(latex) if t not in IGNORED and t not in drop]


def token_hits(hay: list[str], needle: list[str]) -> list[int]:
    n = len(needle)
    return [i for i in range(len(hay) - n + 1) if hay[i:i + n] == needle] if n else []


class Formula:
    def __init__(self, latex: str) -> None:
        self.latex = latex
        self.toks = tokens(latex)
        self.text = "".join(self.toks)
        self.offsets = []
        pos = 0
        for t in self.toks:
            self.offsets.append(pos)
            pos += len(t)
        # raw character offset of every kept token, with and without the transparent wrappers
        kept = [m for m in TOKEN.finditer(latex) if m.group() not in IGNORED]
        self.raw = [m.start() for m in kept]
        light = [m for m in kept if m.group() not in TRANSPARENT]
        self.light_toks = [m.group() for m in light]
        self.light_raw = [m.start() for m in light]

    def same_without_wrappers(self, frag: str, nth: int, span: tuple[int, int]) -> bool:
        """Does the nth occurrence, with the transparent wrappers dropped, start at the same character?"""
        needle = tokens(frag, TRANSPARENT)
        hits = token_hits(self.light_toks, needle)
        if len(hits) < nth:
            return False
        start = span[0]
        while start < span[1] and self.toks[start] in TRANSPARENT:
            start += 1
        return self.light_raw[hits[nth - 1]] == self.raw[start]

    def locate(self, frag: str, nth: int = 1, start: int = 0, end: int | None = None) -> tuple[int, int] | str:
        """Token span [i, j) of the nth token-aligned occurrence in toks[start:end], or a problem."""
        needle = tokens(frag)
        if not needle:
            return "empty fragment"
        hay = self.toks[start:end]
        hits = token_hits(hay, needle)
        if len(hits) < nth:
            return f"fragment {frag!r} occurs {len(hits)} time(s), nth={nth}"
        i = hits[nth - 1] + start
        return i, i + len(needle)

    def string_agrees(self, frag: str, nth: int, span: tuple[int, int]) -> bool:
        """Does the nth plain-substring occurrence of the whitespace-free fragment start at this token span?"""
        needle = "".join(tokens(frag))
        starts, k = [], self.text.find(needle)
        while k >= 0 and len(starts) < nth:
            starts.append(k)
            k = self.text.find(needle, k + 1)
        return len(starts) == nth and starts[-1] == self.offsets[span[0]]


def after_scripts(toks: list[str], j: int) -> int:
    """The token index after any sub/superscripts (and \\limits) starting at j."""
    while j < len(toks) and toks[j] in ("_", "^", r"\limits"):
        if toks[j] == r"\limits":
            j += 1
            continue
        j += 1
        if j < len(toks) and toks[j] == "{":
            depth = 0
            while j < len(toks):
                depth += toks[j] == "{"
                depth -= toks[j] == "}"
                j += 1
                if depth == 0:
                    break
        else:
            j += 1
    return j


def check_assertion(a: dict, f: Formula) -> list[str]:
    kinds = [k for k in KINDS if k in a]
    if "chain" in a and "relation" not in kinds:
        kinds.append("relation")
    kinds = sorted(set(kinds))
    if len(kinds) != 1:
        return [f"assertion {a} has kinds {kinds}"]
    kind = kinds[0]
    singles, lists, others = KINDS[kind]
    problems = [f"{kind}: unknown field {k!r}" for k in a if k not in singles | lists | others | {kind}]
    nth = a.get("nth", 1)
    if not isinstance(nth, int) or nth < 1:
        problems.append(f"{kind}: bad nth {nth!r}")
        nth = 1

    def next_to(frag, after, gap, what):
        """The fragment must start right after token `after`, with only `gap` tokens in between."""
        i = after
        while i < len(f.toks) and f.toks[i] in gap:
            i += 1
        needle = tokens(frag)
        if f.toks[i:i + len(needle)] != needle:
            problems.append(f"{kind}: {what} {frag!r} does not follow directly (at {''.join(f.toks[i:i + 6])!r})")
            return None
        return i, i + len(needle)

    def find(frag, n=1, start=0, end=None, what="", exact=True):
        if not isinstance(frag, str):
            problems.append(f"{kind}: {what} is not a string: {frag!r}")
            return None
        got = f.locate(frag, n, start, end)
        if isinstance(got, str):
            problems.append(f"{kind}: {what} {got}" + (" (within its anchor)" if start or end else ""))
            return None
        if exact and not start and end is None and not f.string_agrees(frag, n, got):
            problems.append(f"{kind}: {what} {frag!r}: substring and token matching disagree on occurrence {n}")
        if exact and not start and end is None and not f.same_without_wrappers(frag, n, got):
            problems.append(f"{kind}: {what} {frag!r}: occurrence {n} moves when wrappers like \\ensuremath are dropped")
        return got

    if kind == "statements":
        if not isinstance(a["statements"], int) or a["statements"] < 1:
            problems.append(f"statements: bad count {a['statements']!r}")
        return problems
    if kind == "node":
        for k in ("is", "base_is", "arg_is"):
            if k in a and a[k] not in NODE_KINDS:
                problems.append(f"node: unknown {k} {a[k]!r}")
        if "is" not in a:
            problems.append("node: no 'is'")
    if kind == "index" and "indices" in a and not (
            isinstance(a["indices"], list) and all(isinstance(x, str) and x for x in a["indices"])):
        problems.append("index: indices must be a list of strings")
    if kind == "product":
        factors = a["product"]
        if not isinstance(factors, list) or len(factors) < 2:
            return problems + [f"product: needs >= 2 factors: {factors!r}"]
        span = find(factors[0], nth, what="first factor")
        for fac in factors[1:]:
            if span is None:
                break
            span = next_to(fac, span[1], PRODUCT_GAP, "next factor")
        return problems
    if kind == "relation":
        if "chain" in a:
            chain = a["chain"]
            if not isinstance(chain, list) or len(chain) < 3 or len(chain) % 2 == 0:
                return problems + [f"relation: bad chain {chain!r}"]
            span = find(chain[0], nth, what="chain start")
            for part in chain[1:]:
                if span is None:
                    break
                span = next_to(part, span[1], RELATION_GAP, "chain part")
            return problems
        for k in ("relation", "lhs", "rhs"):
            if k not in a:
                problems.append(f"relation: no {k!r}")
        if problems:
            return problems
        lhs = find(a["lhs"], nth, what="lhs")
        if lhs is not None:
            sign = next_to(a["relation"], lhs[1], RELATION_GAP, "sign")
            if sign is not None:
                next_to(a["rhs"], sign[1], RELATION_GAP, "rhs")
        return problems
    if kind == "apply" and "at" in a:
        # nth points at the whole application; the function must lie inside it
        at = find(a["at"], nth, what="at")
        anchor = at if at is not None else (0, None)
        prim = find(a["apply"], 1, anchor[0], anchor[1], what="function") if at is not None else None
    else:
        anchor = (0, None)
        prim = find(a[PRIMARY[kind]], nth, what=PRIMARY[kind])
    if kind == "apply":
        for k in ("args", "params", "given"):
            if k in a and not isinstance(a[k], list):
                problems.append(f"apply: {k} must be a list")
        if "args" not in a:
            problems.append("apply: no args")
        if prim is not None and not problems:
            # the arguments follow the function directly: its bracket, then one after another with separators
            orders = [a["args"] + a.get("given", []) + a.get("params", []),
                      a["args"] + a.get("params", []) + a.get("given", [])]
            failures = []
            for parts in orders:
                trial: list[str] = []
                cursor, gap = prim[1], ARG_OPEN
                for part in parts:
                    i = cursor
                    needle = tokens(part)
                    while f.toks[i:i + len(needle)] != needle and i < len(f.toks) and f.toks[i] in gap:
                        i += 1
                    if f.toks[i:i + len(needle)] != needle:
                        trial.append(f"apply: argument {part!r} does not follow its function/previous argument "
                                     f"(at {''.join(f.toks[i:i + 6])!r})")
                        break
                    cursor, gap = i + len(needle), ARG_SEP
                if not trial:
                    failures = []
                    break
                failures = failures or trial
            problems += failures
    if kind == "reduction":
        if "over" in a and not (isinstance(a["over"], list) and all(isinstance(v, str) for v in a["over"])):
            problems.append("reduction: over must be a list of strings")
        if prim is not None:
            j = after_scripts(f.toks, prim[1])
            scripts = f.toks[prim[0]:j]
            for v in a.get("over", []):
                # a bound variable is named in the operator's scripts (an integral names it in its differential)
                if token_hits(scripts, tokens(v)) or (r"\int" in scripts and token_hits(f.toks[j:], tokens(v))):
                    continue
                problems.append(f"reduction: bound variable {v!r} is not in the scripts of the operator at "
                                f"{''.join(scripts)[:40]!r}")
            if "body" in a:
                # the body starts right after the operator, its scripts and its own opening bracket
                if tokens(a["body"])[:1] != f.toks[j:j + 1] and j < len(f.toks) and f.toks[j] in ("[", "(", r"\{"):
                    j += 1
                next_to(a["body"], j, RELATION_GAP, "body")
            for piece in a.get("body_covers", []):
                find(piece, 1, prim[1], what="body piece")
            if "distribution" in a and not token_hits(scripts, tokens(a["distribution"])):
                problems.append(f"reduction: distribution {a['distribution']!r} is not in the operator's scripts")
            if "condition" in a:
                find(a["condition"], 1, prim[0], what="condition")
    if kind == "gradient" and prim is not None:
        if "wrt" in a:
            find(a["wrt"], 1, prim[0], what="wrt")
        if "body" in a:
            next_to(a["body"], after_scripts(f.toks, prim[1]), RELATION_GAP, "body")
    return problems


def load_verdicts() -> dict[str, dict]:
    with VERDICTS.open(encoding="utf-8") as fh:
        return {r["key"]: r for r in map(json.loads, fh)}


def check_file(path: Path, verdicts: dict[str, dict]) -> tuple[list[str], list[dict]]:
    problems: list[str] = []
    records: list[dict] = []
    seen: set[str] = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path.name}:{lineno}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where}: not JSON: {exc}")
            continue
        if not isinstance(rec, dict):
            problems.append(f"{where}: not an object")
            continue
        key = rec.get("key")
        where = f"{where} {key}"
        missing = [k for k in REQUIRED if k not in rec]
        if missing:
            problems.append(f"{where}: missing {missing}")
            continue
        if key in seen:
            problems.append(f"{where}: duplicate key")
        seen.add(key)
        bad = [c for c in rec["classes"] if c not in CLASSES]
        if bad:
            problems.append(f"{where}: unknown classes {bad}")
        latex = None
        if rec["set"] in ("A", "A-multiline-whole", "B"):
            v = verdicts.get(key)
            if v is None:
                problems.append(f"{where}: no such verdict")
                continue
            for k in ("set", "paper", "eq_id", "number"):
                if rec[k] != v.get(k):
                    problems.append(f"{where}: {k} {rec[k]!r} != verdict's {v.get(k)!r}")
            missing_cls = {e["cls"] for e in v["errors"]} - set(rec["classes"])
            if missing_cls:
                problems.append(f"{where}: the verdict's classes {sorted(missing_cls)} are not in classes")
            latex = v["latex"]
        elif "latex" in rec:
            latex = rec["latex"]
        if latex is None:
            continue
        if not rec["expect"]:
            problems.append(f"{where}: no assertions")
        f = Formula(latex)
        for a in rec["expect"]:
            problems += [f"{where}: {p}" for p in check_assertion(a, f)]
        records.append(rec)
    return problems, records


def main(argv: list[str]) -> int:
    if not VERDICTS.exists():
        print(f"skipped: {VERDICTS} is absent (the gold LaTeX lives in ../shared)")
        return 0
    verdicts = load_verdicts()
    paths = [Path(p) for p in argv] or [p for p in (HERE / "verdicts.jsonl",) if p.exists()]
    status = 0
    for path in paths:
        problems, records = check_file(path, verdicts)
        counts = sorted(len(r["expect"]) for r in records)
        for p in problems:
            print(p)
        if counts:
            median = counts[len(counts) // 2]
            print(f"{path.name}: {len(records)} records, {sum(counts)} assertions "
                  f"(per record min {counts[0]}, median {median}, max {counts[-1]}), {len(problems)} problem(s)")
        status |= bool(problems)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
