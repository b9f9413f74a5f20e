"""Cross-references as the PDF prints them: `\\ref` → "3.1", `\\eqref` → "(2)", `\\cref` → "eq. (2)",
`\\Cref` → "Equation (2)", `\\autoref` → "Section 3.1", `\\nameref` → the heading's title.

The names are cleveref's and hyperref's defaults (with cleveref's `capitalise`/`noabbrev` options), overridden by
the paper's own `\\crefname`/`\\Crefname` and `\\<kind>autorefname` definitions. A label TeX would not resolve
prints "??", as TeX does.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

# cleveref's defaults: kind → (\cref name, \Cref name); plural forms add "s" unless given.
CREF_NAMES: dict[str, tuple[str, str]] = {
    "equation": ("eq.", "Equation"), "figure": ("fig.", "Figure"), "table": ("table", "Table"),
    "page": ("page", "Page"), "part": ("part", "Part"), "chapter": ("chapter", "Chapter"),
    "section": ("section", "Section"), "appendix": ("appendix", "Appendix"), "enumi": ("item", "Item"),
    "footnote": ("footnote", "Footnote"), "theorem": ("theorem", "Theorem"), "lemma": ("lemma", "Lemma"),
    "corollary": ("corollary", "Corollary"), "proposition": ("proposition", "Proposition"),
    "definition": ("definition", "Definition"), "result": ("result", "Result"), "example": ("example", "Example"),
    "remark": ("remark", "Remark"), "note": ("note", "Note"), "algorithm": ("algorithm", "Algorithm"),
    "listing": ("listing", "Listing"), "line": ("line", "Line"),
}
CREF_PLURALS = {"eq.": "eqs.", "fig.": "figs.", "Eq.": "Eqs.", "Fig.": "Figs.", "Equation": "Equations", "Figure": "Figures",
                "appendix": "appendices", "Appendix": "Appendices", "corollary": "corollaries",
                "Corollary": "Corollaries", "lemma": "lemmas", "Lemma": "Lemmas"}
CREF_CAPITALISE = {"equation": "Eq.", "figure": "Fig."}
CREF_NOABBREV = {"equation": ("equation", "Equation"), "figure": ("figure", "Figure")}
# cleveref formats these kinds' numbers in parentheses.
PARENTHESISED = frozenset({"equation"})
# hyperref's \autoref names (\<counter>autorefname); a counter without one prints its number alone.
AUTOREF_NAMES: dict[str, str] = {
    "equation": "Equation", "figure": "Figure", "table": "Table", "part": "Part", "chapter": "chapter",
    "section": "section", "subsection": "subsection", "subsubsection": "subsubsection", "paragraph": "paragraph",
    "subparagraph": "subparagraph", "appendix": "Appendix", "footnote": "footnote", "enumi": "item",
    "theorem": "Theorem", "page": "page", "FancyVerbLine": "line",
}
# Sub-kinds that cleveref names after their parent.
CREF_PARENT = {"subsection": "section", "subsubsection": "section", "paragraph": "section", "subfigure": "figure",
               "subtable": "table", "subappendix": "appendix", "subsubappendix": "appendix", "lstlisting": "listing",
               "parentequation": "equation", "subequation": "equation"}
NUMBER_COMMANDS = frozenset({"ref", "subref", "figref", "secref", "tabref", "Eqref"})
REFERENCE_RE = re.compile(r"\\(?P<cmd>ref|eqref|autoref|Autoref|cref|Cref|crefrange|Crefrange|pageref|nameref"
                          r"|subref|labelcref|Eqref|figref|secref|tabref)(?P<star>\*?)\s*(?:\[[^\]]*\]\s*)?"
                          r"\{(?P<labels>[^{}]*)\}(?:\s*\{(?P<second>[^{}]*)\})?")


@dataclass
class RefStyle:
    """What a document's references print: its labels' numbers and kinds, and the names for each kind."""

    numbers: dict[str, str | None] = field(default_factory=dict)
    """label → printed number."""
    kinds: dict[str, str] = field(default_factory=dict)
    """label → the counter it names (`equation`, `section`, `appendix`, `lemma`, …)."""
    titles: dict[str, str] = field(default_factory=dict)
    """label → heading or caption text (for \\nameref)."""
    cref: dict[str, tuple[str, str]] = field(default_factory=dict)
    """kind → (singular, plural) for \\cref: the paper's \\crefname, else cleveref's defaults."""
    Cref: dict[str, tuple[str, str]] = field(default_factory=dict)
    autoref: dict[str, str] = field(default_factory=dict)
    """kind → \\autoref name: the paper's \\<kind>autorefname, else hyperref's."""
    counters: dict[str, str] = field(default_factory=dict)
    """Theorem-like environment → the counter it steps (\\autoref names the counter, \\cref the environment)."""
    capitalise: bool = False
    noabbrev: bool = False

    def render(self, command: str, labels: str, second: str | None = None) -> str:
        """What `\\command{labels}` prints."""
        names = [x.strip() for x in labels.split(",") if x.strip()]
        if command in ("crefrange", "Crefrange") and second:
            names = [labels.strip(), second.strip()]
        if not names:
            return "??"
        if command in NUMBER_COMMANDS or command == "labelcref":
            return ", ".join(self._number(n) for n in names)
        if command == "eqref":
            return ", ".join(f"({self._number(n)})" for n in names)
        if command == "pageref":
            return "?"
        if command == "nameref":
            return ", ".join(self.titles.get(n) or "??" for n in names)
        if command in ("autoref", "Autoref"):
            return ", ".join(self._autoref(n, command == "Autoref") for n in names)
        return self._cref(names, capital=command in ("Cref", "Crefrange"), is_range=command.endswith("range"))

    def _number(self, label: str) -> str:
        return self.numbers.get(label) or "??"

    def _kind(self, label: str) -> str:
        kind = self.kinds.get(label, "")
        return CREF_PARENT.get(kind, kind)

    def _autoref(self, label: str, capital: bool) -> str:
        number = self.numbers.get(label)
        if not number:
            return "??"
        kind = self.kinds.get(label, "")
        kind = self.counters.get(kind, kind)
        if kind == "subappendix":  # hyperref calls a top-level appendix heading "Appendix", the rest by level
            kind = "subsection"
        name = self.autoref.get(kind) or AUTOREF_NAMES.get(kind, "")
        if capital and name:
            name = name[:1].upper() + name[1:]
        return f"{name} {number}" if name else number

    def _cref_name(self, kind: str, capital: bool, plural: bool) -> str:
        table = self.Cref if capital else self.cref
        if kind in table:
            singular, many = table[kind]
        else:
            lower, upper = CREF_NAMES.get(kind, (kind, kind[:1].upper() + kind[1:]))
            if capital:
                singular = upper
            elif self.noabbrev and kind in CREF_NOABBREV:
                singular = CREF_NOABBREV[kind][0]
            elif self.capitalise:
                singular = CREF_CAPITALISE.get(kind, upper)
            else:
                singular = lower
            if self.noabbrev and capital and kind in CREF_NOABBREV:
                singular = CREF_NOABBREV[kind][1]
            many = CREF_PLURALS.get(singular, singular + "s")
        return many if plural else singular

    def _cref(self, labels: list[str], capital: bool, is_range: bool) -> str:
        groups: list[tuple[str, list[str]]] = []
        for label in labels:
            if not self.numbers.get(label):
                groups.append(("", [label]))
                continue
            kind = self._kind(label)
            if groups and groups[-1][0] == kind:
                groups[-1][1].append(label)
            else:
                groups.append((kind, [label]))
        parts = []
        for k, (kind, members) in enumerate(groups):
            if not kind:
                parts.append("??")
                continue
            numbers = [self._format(kind, self.numbers[m] or "??") for m in members]
            name = self._cref_name(kind, capital and k == 0, plural=len(members) > 1)
            if is_range and len(numbers) == 2:
                listed = f"{numbers[0]} to {numbers[1]}"
            else:
                listed = _join(_compress(numbers, [self.numbers[m] or "" for m in members]))
            parts.append(f"{name} {listed}")
        return _join(parts)

    @staticmethod
    def _format(kind: str, number: str) -> str:
        return f"({number})" if kind in PARENTHESISED else number

    def render_text(self, text: str) -> str:
        """`text` (LaTeX) with every reference command replaced by what it prints."""
        return REFERENCE_RE.sub(lambda m: self.render(m.group("cmd"), m.group("labels"), m.group("second")), text)


def _compress(formatted: list[str], raw: list[str]) -> list[str]:
    """cleveref's range compression: three or more consecutive numbers print as "(1) to (3)"."""
    out: list[str] = []
    k = 0
    while k < len(raw):
        j = k
        while j + 1 < len(raw) and _consecutive(raw[j], raw[j + 1]):
            j += 1
        if j - k >= 2:
            out.append(f"{formatted[k]} to {formatted[j]}")
        else:
            out.extend(formatted[k:j + 1])
        k = j + 1
    return out


def _consecutive(a: str, b: str) -> bool:
    ma, mb = re.fullmatch(r"(.*?)(\d+)", a), re.fullmatch(r"(.*?)(\d+)", b)
    return bool(ma and mb and ma.group(1) == mb.group(1) and int(mb.group(2)) == int(ma.group(2)) + 1)


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
