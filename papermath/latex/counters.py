"""LaTeX's counters as TeX keeps them: values, reset lists and `\\the<counter>` formats.

A counter has a value, the counters it resets when it steps (`\\newcounter{b}[a]`, `\\numberwithin`), and a
format: the token list of its `\\the<counter>` (`\\thesection.\\arabic{subsection}`, a paper's own
`\\renewcommand{\\theequation}{E.\\thechapter.\\arabic{equation}}`). The document builder steps, sets and
formats counters by name; nothing here knows what a counter is for. Class defaults are data
(`CLASS_COUNTERS`), written in LaTeX and tokenized once.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .tokens import BGROUP, CS, EGROUP, SPACE, TEXT, Token, tokenize

# name → (parent or None, \the<name> in LaTeX). Order matters only for readability.
ARTICLE_COUNTERS: dict[str, tuple[str | None, str]] = {
    "part": (None, r"\Roman{part}"),
    "section": (None, r"\arabic{section}"),
    "subsection": ("section", r"\thesection.\arabic{subsection}"),
    "subsubsection": ("subsection", r"\thesubsection.\arabic{subsubsection}"),
    "paragraph": ("subsubsection", r"\thesubsubsection.\arabic{paragraph}"),
    "subparagraph": ("paragraph", r"\theparagraph.\arabic{subparagraph}"),
    "equation": (None, r"\arabic{equation}"),
    "figure": (None, r"\arabic{figure}"),
    "table": (None, r"\arabic{table}"),
    "footnote": (None, r"\arabic{footnote}"),
    "algorithm": (None, r"\arabic{algorithm}"),
    "mpfootnote": (None, r"\alph{mpfootnote}"),
    "enumi": (None, r"\arabic{enumi}"),
    "enumii": ("enumi", r"\alph{enumii}"),
    "enumiii": ("enumii", r"\roman{enumiii}"),
    "enumiv": ("enumiii", r"\Alph{enumiv}"),
    "parentequation": (None, r"\arabic{parentequation}"),
    "lstlisting": (None, r"\arabic{lstlisting}"),
    "subfigure": ("figure", r"\alph{subfigure}"),
    "subtable": ("table", r"\alph{subtable}"),
}
# Classes with chapters: what book.cls / report.cls change (the kernel prints "0.3" never; an equation before
# the first chapter prints "3").
CHAPTER_COUNTERS: dict[str, tuple[str | None, str]] = {
    "chapter": (None, r"\arabic{chapter}"),
    "section": ("chapter", r"\thechapter.\arabic{section}"),
    "equation": ("chapter", r"\ifnum\c@chapter>\z@\thechapter.\fi\arabic{equation}"),
    "figure": ("chapter", r"\ifnum\c@chapter>\z@\thechapter.\fi\arabic{figure}"),
    "table": ("chapter", r"\ifnum\c@chapter>\z@\thechapter.\fi\arabic{table}"),
    "footnote": ("chapter", r"\arabic{footnote}"),
}
CHAPTER_CLASSES = frozenset({"book", "report", "memoir", "scrbook", "scrreprt"})
# Classes that number headings their own way (from their .cls): class → (options that turn it off, formats).
CLASS_COUNTERS: dict[str, tuple[frozenset[str], dict[str, tuple[str | None, str]]]] = {
    "IEEEtran": (frozenset({"compsoc"}), {
        "section": (None, r"\Roman{section}"),
        "subsection": ("section", r"\thesection-\Alph{subsection}"),
        "subsubsection": ("subsection", r"\thesubsection\arabic{subsubsection}"),
    }),
    "revtex4": (frozenset(), {"section": (None, r"\Roman{section}"), "subsection": ("section", r"\Alph{subsection}")}),
    "revtex4-1": (frozenset(), {"section": (None, r"\Roman{section}"),
                                "subsection": ("section", r"\Alph{subsection}")}),
    "revtex4-2": (frozenset(), {"section": (None, r"\Roman{section}"),
                                "subsection": ("section", r"\Alph{subsection}")}),
}
# Theorem-like environments a class declares itself (from its .cls), as the preamble LaTeX it amounts to:
# the builder reads it before the document's own preamble. llncs numbers by its options (envcountsame:
# every environment on the theorem counter; envcountsect: within sections; envcountreset: reset by section).
_LLNCS_ENVS = ("case conjecture corollary definition example exercise lemma note problem property proposition "
               "question solution remark").split()
# class → (option that turns them off, the first declarations, environments sharing the theorem counter)
CLASS_THEOREMS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "acmart": ("acmthm=false", "\\newtheorem{theorem}{Theorem}[section]",
               ("conjecture", "proposition", "lemma", "corollary", "example", "definition")),
    "jmlr": ("notheorems", "\\newtheorem{example}{Example}\\newtheorem{theorem}{Theorem}",
             ("lemma", "proposition", "remark", "corollary", "definition", "conjecture", "axiom")),
}


def class_preamble(documentclass: str, options: frozenset[str]) -> str:
    """The numbering declarations a class makes before the paper's preamble ('' for most classes)."""
    if documentclass in CLASS_THEOREMS:
        off, first, shared = CLASS_THEOREMS[documentclass]
        if off in options:
            return ""
        return first + "".join(f"\\newtheorem{{{env}}}[theorem]{{{env.title()}}}" for env in shared)
    if documentclass == "llncs":
        sect, same, reset = ("envcountsect" in options, "envcountsame" in options, "envcountreset" in options)
        out = ["\\newtheorem{theorem}{Theorem}[section]" if sect else "\\newtheorem{theorem}{Theorem}"]
        if reset and not sect:
            out.append("\\makeatletter\\@addtoreset{theorem}{section}\\makeatother")
        for env in _LLNCS_ENVS:
            if same:
                out.append(f"\\newtheorem{{{env}}}[theorem]{{{env.title()}}}")
            elif sect:
                out.append(f"\\newtheorem{{{env}}}{{{env.title()}}}[section]")
            else:
                out.append(f"\\newtheorem{{{env}}}{{{env.title()}}}")
                if reset:
                    out.append(f"\\makeatletter\\@addtoreset{{{env}}}{{section}}\\makeatother")
        return "".join(out)
    return ""


# \appendix: counters set to zero and formats changed, per kind of class.
APPENDIX_ARTICLE = {"section": r"\Alph{section}"}
APPENDIX_CHAPTERS = {"chapter": r"\Alph{chapter}"}
# Classes whose \appendix does more (from their .cls): counters zeroed, resets added (parent, child), formats.
CLASS_APPENDIX: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...], dict[str, str]]] = {
    # revtex: \theequation is \theequation@prefix\arabic{equation}, the prefix \thesection in an appendix (A1);
    # under prl, headings are unnumbered (secnumdepth -∞): the section counter never steps, so no prefix.
    **{cls: (("section", "subsection", "subsubsection"), (("section", "equation"),),
             {"section": r"\Alph{section}", "subsection": r"\arabic{subsection}",
              "subsubsection": r"\alph{subsubsection}", "equation": r"\Alph{section}\arabic{equation}"})
       for cls in ("revtex4-1", "revtex4-2")},
    "elsarticle": (("section", "subsection", "equation"), (("section", "equation"),),
                   {"section": r"Appendix~\Alph{section}", "equation": r"\Alph{section}.\arabic{equation}",
                    "figure": r"\Alph{section}.\arabic{figure}", "table": r"\Alph{section}.\arabic{table}"}),
}
# Class options that change \secnumdepth (revtex's prl: every heading unnumbered).
CLASS_SECNUMDEPTH: dict[tuple[str, str], int] = {("revtex4-1", "prl"): -1000, ("revtex4-2", "prl"): -1000}
# Classes whose unnumbered headings (\section*, \addsec) still reset the counters numbered within them
# (KOMA-Script since 3.31: \@ssect runs \cl@<level>).
STARRED_HEADINGS_RESET = frozenset({"scrartcl", "scrreprt", "scrbook"})
FORMAT_COMMANDS = frozenset({"arabic", "alph", "Alph", "roman", "Roman", "fnsymbol", "value"})
_FNSYMBOLS = ("*", "†", "‡", "§", "¶", "‖", "**", "††", "‡‡")


def alph(n: int) -> str:
    """\\alph: 1 → a, 26 → z; beyond that LaTeX stops with an error, we go on aa, ab, …"""
    s = ""
    while n > 0:
        n, r = divmod(n - 1, 26)
        s = chr(ord("a") + r) + s
    return s


def roman(n: int) -> str:
    if n <= 0:
        return ""
    out = []
    for value, numeral in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                           (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= value:
            out.append(numeral)
            n -= value
    return "".join(out)


STYLES = {
    "arabic": str,
    "value": str,
    "alph": alph,
    "Alph": lambda n: alph(n).upper(),
    "roman": roman,
    "Roman": lambda n: roman(n).upper(),
    "fnsymbol": lambda n: _FNSYMBOLS[n - 1] if 0 < n <= len(_FNSYMBOLS) else str(n),
}


@dataclass
class Counter:
    value: int = 0
    resets: list[str] = field(default_factory=list)
    """Counters set to zero when this one steps (`\\@addtoreset`)."""
    format: tuple[Token, ...] = ()
    """The body of `\\the<name>`."""


@dataclass
class CounterTable:
    """Every counter of one document, with LaTeX's \\stepcounter/\\setcounter/\\the semantics."""

    counters: dict[str, Counter] = field(default_factory=dict)
    secnumdepth: int = 3
    has_chapters: bool = False
    appendix_rules: tuple | None = None
    """The class's own \\appendix (CLASS_APPENDIX), or None for LaTeX's."""
    starred_headings_reset: bool = False
    """Unnumbered headings reset the counters within them (KOMA-Script)."""

    @classmethod
    def for_class(cls, documentclass: str, options: frozenset[str] = frozenset()) -> CounterTable:
        table = cls()
        specs = dict(ARTICLE_COUNTERS)
        if documentclass in CHAPTER_CLASSES:
            specs.update(CHAPTER_COUNTERS)
            table.has_chapters = True
            table.secnumdepth = 2
        if documentclass in CLASS_COUNTERS:
            off, formats = CLASS_COUNTERS[documentclass]
            if not off & options:
                specs.update(formats)
        for name, (parent, fmt) in specs.items():
            table.define(name, parent, fmt)
        table.appendix_rules = CLASS_APPENDIX.get(documentclass)
        for option in options:
            table.secnumdepth = CLASS_SECNUMDEPTH.get((documentclass, option), table.secnumdepth)
        table.starred_headings_reset = documentclass in STARRED_HEADINGS_RESET
        return table

    def define(self, name: str, parent: str | None = None, fmt: str | tuple[Token, ...] | None = None) -> None:
        """`\\newcounter{name}[parent]` (a redefinition keeps the value)."""
        counter = self.counters.get(name)
        if counter is None:
            counter = self.counters[name] = Counter()
        counter.format = _tokens(fmt) if fmt is not None else _tokens(rf"\arabic{{{name}}}")
        if parent:
            self.add_reset(parent, name)

    def has(self, name: str) -> bool:
        return name in self.counters

    def add_reset(self, parent: str, child: str) -> None:
        resets = self._ensure(parent).resets
        if child not in resets:
            resets.append(child)

    def remove_reset(self, parent: str, child: str) -> None:
        counter = self.counters.get(parent)
        if counter is not None and child in counter.resets:
            counter.resets.remove(child)

    def number_within(self, child: str, parent: str) -> None:
        """`\\numberwithin{child}{parent}` / `\\counterwithin`: reset by parent, printed `\\theparent.\\arabic{child}`."""
        self._ensure(child)
        self.add_reset(parent, child)
        self.counters[child].format = _tokens(rf"\the{parent}.\arabic{{{child}}}")

    def number_without(self, child: str, parent: str) -> None:
        """`\\counterwithout{child}{parent}`."""
        self._ensure(child)
        self.remove_reset(parent, child)
        self.counters[child].format = _tokens(rf"\arabic{{{child}}}")

    def _ensure(self, name: str) -> Counter:
        counter = self.counters.get(name)
        if counter is None:
            counter = self.counters[name] = Counter(format=_tokens(rf"\arabic{{{name}}}"))
        return counter

    def appendix(self) -> None:
        """`\\appendix`: the top sectioning counter restarts and prints as a letter (A, B, …)."""
        if self.appendix_rules is not None:
            zeroed, resets, formats = self.appendix_rules
            for name in zeroed:
                self.set(name, 0)
            for parent, child in resets:
                self.add_reset(parent, child)
            for name, fmt in formats.items():
                self.set_format(name, fmt)
            return
        top = "chapter" if self.has_chapters else "section"
        self.set(top, 0)
        self.set("section", 0)
        self.set("subsection", 0)
        self.set_format(top, (APPENDIX_CHAPTERS if self.has_chapters else APPENDIX_ARTICLE)[top])

    def reset_within(self, name: str) -> None:
        """The counters reset by `name` go to zero, `name` itself untouched (an unnumbered KOMA heading)."""
        counter = self.counters.get(name)
        if counter is not None:
            self._reset_children(counter)

    def value(self, name: str) -> int:
        counter = self.counters.get(name)
        return counter.value if counter else 0

    def step(self, name: str) -> None:
        """`\\stepcounter`: add one and reset the counters within it (recursively, as LaTeX's \\@stpelt does)."""
        counter = self._ensure(name)
        counter.value += 1
        self._reset_children(counter)

    def _reset_children(self, counter: Counter, depth: int = 0) -> None:
        if depth > 20:
            return
        for child in counter.resets:
            inner = self.counters.get(child)
            if inner is not None:
                inner.value = 0
                self._reset_children(inner, depth + 1)

    def format_next(self, name: str) -> str:
        """What `\\the<name>` will print after the next step (a subfigure's parent figure, captioned later)."""
        counter = self._ensure(name)
        counter.value += 1
        try:
            return self.format(name)
        finally:
            counter.value -= 1

    def set(self, name: str, value: int) -> None:
        """`\\setcounter` (no resets, as in LaTeX)."""
        self._ensure(name).value = value

    def add(self, name: str, amount: int) -> None:
        """`\\addtocounter`."""
        self._ensure(name).value += amount

    def set_format(self, name: str, fmt: str | tuple[Token, ...] | list[Token]) -> None:
        """`\\renewcommand{\\the<name>}{…}`."""
        self._ensure(name).format = _tokens(fmt)

    def format(self, name: str, depth: int = 0) -> str:
        """What `\\the<name>` prints now."""
        counter = self.counters.get(name)
        if counter is None or depth > 20:
            return ""
        return self.render(list(counter.format), depth)

    def render(self, toks: list[Token], depth: int = 0) -> str:
        """Print a format token list: `\\the<c>`, `\\arabic{c}` and friends, `\\ifnum\\c@c>\\z@ … \\fi`, text."""
        out: list[str] = []
        i, n = 0, len(toks)
        while i < n:
            tok = toks[i]
            if tok.kind == CS:
                name = tok.text
                if name in FORMAT_COMMANDS:
                    counter, i = _group_name(toks, i + 1)
                    out.append(STYLES[name](self.value(counter)))
                    continue
                if name.startswith("@") and name[1:] in STYLES and i + 1 < n and toks[i + 1].kind == CS \
                        and toks[i + 1].text.startswith("c@"):  # \@arabic\c@equation
                    out.append(STYLES[name[1:]](self.value(toks[i + 1].text[2:])))
                    i += 2
                    continue
                if name == "ifnum":
                    i = self._ifnum(toks, i + 1, out, depth)
                    continue
                if name == "the" and i + 1 < n and toks[i + 1].kind == CS and toks[i + 1].text.startswith("c@"):
                    out.append(str(self.value(toks[i + 1].text[2:])))
                    i += 2
                    continue
                if name.startswith("the") and name[3:] in self.counters:
                    out.append(self.format(name[3:], depth + 1))
                elif name in ("relax", "protect", "textup", "textrm", "mathrm", "rm", "normalfont"):
                    pass
                elif name in ("space", " ", "nobreakspace"):
                    out.append(" ")
                i += 1
                continue
            if tok.kind == TEXT:
                out.append(tok.text)
            elif tok.kind == SPACE or tok.kind == "~":
                out.append(" ")
            i += 1
        return "".join(out).strip()

    def _ifnum(self, toks: list[Token], i: int, out: list[str], depth: int) -> int:
        """`\\ifnum\\c@chapter>\\z@ yes\\else no\\fi` (the only test the kernel's formats use)."""
        n = len(toks)
        cond = False
        if i < n and toks[i].kind == CS and toks[i].text.startswith("c@"):
            left = self.value(toks[i].text[2:])
            i += 1
            rel = toks[i].text[:1] if i < n and toks[i].kind == TEXT else ">"
            rest = toks[i].text[1:] if i < n and toks[i].kind == TEXT else ""
            i += 1
            right = 0
            if rest.strip().isdigit():
                right = int(rest)
            elif i < n and toks[i].kind == CS and toks[i].text in ("z@", "@ne"):
                right = 0 if toks[i].text == "z@" else 1
                i += 1
            elif i < n and toks[i].kind == TEXT and toks[i].text.strip().isdigit():
                right = int(toks[i].text)
                i += 1
            cond = {">": left > right, "<": left < right, "=": left == right}.get(rel, False)
        yes: list[Token] = []
        no: list[Token] = []
        branch = yes
        nest = 0
        while i < n:
            tok = toks[i]
            i += 1
            if tok.kind == CS and tok.text.startswith("if"):
                nest += 1
            elif tok.kind == CS and tok.text == "fi":
                if nest == 0:
                    break
                nest -= 1
            elif tok.kind == CS and tok.text == "else" and nest == 0:
                branch = no
                continue
            branch.append(tok)
        out.append(self.render(yes if cond else no, depth + 1))
        return i


def _group_name(toks: list[Token], i: int) -> tuple[str, int]:
    """The counter name in `{name}` at toks[i] (spaces skipped)."""
    n = len(toks)
    while i < n and toks[i].kind == SPACE:
        i += 1
    if i < n and toks[i].kind == BGROUP:
        j = i + 1
        parts = []
        while j < n and toks[j].kind != EGROUP:
            parts.append(toks[j].text)
            j += 1
        return "".join(parts).strip(), j + 1
    if i < n and toks[i].kind == CS and toks[i].text.startswith("c@"):
        return toks[i].text[2:], i + 1
    return "", i


def _tokens(fmt) -> tuple[Token, ...]:
    if isinstance(fmt, str):
        return tuple(tokenize(fmt))
    return tuple(fmt)
