"""User macros: collect `\\newcommand`-style definitions and expand their uses.

Only macros the paper (or a package file shipped beside it) defines are expanded; LaTeX's own
commands stay as tokens for the later stages. Expansion is bounded (count and size), so a runaway
definition such as `\\def\\a{\\a\\a}` becomes a diagnostic at the place of use, never a hang.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import Diagnostic
from .markup import is_markup
from .tokens import BGROUP, CS, EGROUP, NOEXPAND, PAR, PARAM, SPACE, TEXT, Token

MAX_EXPANSIONS_PER_USE = 20_000
"""Nested expansions allowed for one macro use in the source before it is declared runaway."""
MAX_GROWTH_PER_USE = 50_000
"""Tokens one macro use in the source may add before it is declared runaway."""
MAX_EXPANSIONS_PER_DOCUMENT = 100_000
"""Macro expansions one pass over a paper may make (the corpus's most is 1,331): a bomb redefined at every use
stays inside each use's budget yet, used a hundred times, costs minutes; past this the rest stays as written."""


@dataclass(frozen=True)
class Macro:
    """One user-defined command."""

    name: str
    """Command name without the backslash."""
    n_args: int
    """Number of parameters (#1…#9)."""
    optional_default: tuple[Token, ...] | None
    """Default of the first, optional argument (`\\newcommand{\\x}[2][d]{…}`), or None."""
    body: tuple[Token, ...]
    """Replacement text."""
    delimiters: tuple[tuple[Token, ...], ...] = ()
    """For `\\def` with parameter text: the tokens after each #k up to the next #, or `()`."""
    prefix: tuple[Token, ...] = ()
    """For `\\def`: tokens required before #1."""
    start: int = -1
    """Flat offset of the definition (for diagnostics)."""


def _default_counters() -> frozenset[str]:
    from .counters import ARTICLE_COUNTERS, CHAPTER_COUNTERS
    return frozenset(ARTICLE_COUNTERS) | frozenset(CHAPTER_COUNTERS)


_KNOWN_COUNTERS = _default_counters()
# Definition commands → how to read them. A grammar is data.
NEWCOMMAND_LIKE = {"newcommand": "define", "renewcommand": "redefine", "providecommand": "provide",
                   "DeclareRobustCommand": "define", "newrobustcmd": "define", "renewrobustcmd": "redefine"}
DEF_LIKE = {"def", "gdef", "edef", "xdef"}
ENVIRONMENT_LIKE = {"newenvironment": "define", "renewenvironment": "redefine", "provideenvironment": "provide"}
DOCUMENT_COMMAND_LIKE = {"NewDocumentCommand": "define", "RenewDocumentCommand": "redefine",
                         "ProvideDocumentCommand": "provide", "DeclareDocumentCommand": "define",
                         "NewDocumentEnvironment": "define-env", "RenewDocumentEnvironment": "redefine-env",
                         "DeclareDocumentEnvironment": "define-env"}
# Environments the document builder gives a meaning (numbering, floats, front matter): a paper's
# \renewenvironment of one of these (for layout) is not followed.
PROTECTED_ENVIRONMENTS = frozenset({
    "document", "abstract", "equation", "equation*", "align", "align*", "gather", "gather*", "multline",
    "multline*", "eqnarray", "eqnarray*", "flalign", "flalign*", "alignat", "alignat*", "displaymath", "math",
    "subequations", "figure", "figure*", "table", "table*", "wrapfigure", "wraptable", "subfigure", "subtable",
    "algorithm", "algorithm*", "algorithmic", "tabular", "tabular*", "tabularx", "itemize", "enumerate",
    "description", "verbatim", "lstlisting", "minted", "thebibliography", "restatable", "appendices", "split",
})
BEGIN_PREFIX, END_PREFIX = "begin ", "end "
"""A user environment is two macros: `begin NAME` (with the arguments) and `end NAME`."""
OPERATOR_DECL = {"DeclareMathOperator"}
# Commands the later stages rely on: a paper's redefinition of these (for spacing or styling) is ignored.
PROTECTED = frozenset({
    "begin", "end", "part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph",
    "appendix", "label", "ref", "eqref", "autoref", "cref", "Cref", "cite", "citep", "citet", "footnote",
    "footnotetext", "footnotemark", "caption", "item", "title", "author", "input", "include", "left", "right",
    "documentclass", "usepackage", "newcommand", "renewcommand", "def", "let", "tag", "nonumber", "notag",
    "normalsize", "small", "footnotesize", "scriptsize", "tiny", "large", "Large", "LARGE", "huge", "Huge",
    "maketitle", "abstract", "url", "href", "bibliography", "thebibliography", "bibitem",
    # TeX primitives a package may appear to define when its definitions are read without running it.
    "csname", "endcsname", "expandafter", "noexpand", "relax", "begingroup", "endgroup", "gdef", "edef", "xdef",
    "global", "long", "protected", "the", "number", "ifx", "ifcsname", "fi", "else",
})


# Numbering commands a shipped package or class may give, with their argument shapes (* star, g group,
# o optional): the document builder applies them as if they stood at the start of the preamble.
PACKAGE_DIRECTIVES = {"numberwithin": "*gg", "counterwithin": "*gg", "counterwithout": "*gg", "@addtoreset": "gg",
                      "newcounter": "go", "newtheorem": "*gogo", "declaretheorem": "og", "setcounter": "gg",
                      "crefname": "ggg", "Crefname": "ggg"}
# Directives that only declare (a theorem environment, a counter): taken even under a condition or inside a
# group (\\@ifundefined{theorem}{\\newtheorem{theorem}{Theorem}}{}); the others change numbering and are taken
# only where they stand unconditionally.
DECLARING_DIRECTIVES = frozenset({"newtheorem", "declaretheorem", "newcounter"})
COUNTER_DECLARATIONS = frozenset({"newcounter", "newtheorem", "declaretheorem", "newaliascnt"})
"""Commands whose first argument names a new counter (so `\\the<name>` becomes a counter format)."""


def is_counter_format(name: str, counters: set[str]) -> bool:
    """`\\theequation`, `\\thesection`, `\\thelemma`: the printed form of a counter (never `\\theta`)."""
    return name.startswith("the") and name[3:] in counters


@dataclass
class MacroTable:
    """Definitions seen so far. Mutable while one expansion pass runs; frozen into `MacroSummary` after."""

    macros: dict[str, Macro] = field(default_factory=dict)
    operators: dict[str, str] = field(default_factory=dict)
    """`\\DeclareMathOperator` names: command → printed operator text."""
    counters: set[str] = field(default_factory=lambda: set(_KNOWN_COUNTERS))
    """Counter names seen so far (LaTeX's own and every `\\newcounter`/`\\newtheorem`)."""


_NOT_CONDITIONALS = frozenset({"ifthenelse", "ifbool", "iftoggle", "ifdef", "ifundef", "ifcsdef", "ifcsundef",
                               "ifdefstring", "ifstrequal", "ifstrempty", "ifblank", "ifnumcomp", "ifdimcomp",
                               "ifdefempty", "ifpackageloaded", "ifclassloaded", "ifcsmacro", "ifdefmacro"})


def _is_conditional(name: str) -> bool:
    """`\\ifx`, `\\if@twocolumn`, `\\ifCLASSOPTIONcompsoc`: a TeX conditional (until its `\\fi`)."""
    return name.startswith("if") and name not in _NOT_CONDITIONALS


def _past_arguments(tokens: list[Token], i: int, spec: str) -> int:
    """Index after a command's arguments read by `spec` (`*` optional star, `g` group, `o` optional)."""
    j = i
    for kind in spec:
        if kind == "*":
            j = _skip_star(tokens, j)
        elif kind == "g":
            _, j = read_group(tokens, j)
        else:
            _, j = read_optional(tokens, j)
    return j


def _environment_name(tokens: list[Token], i: int) -> tuple[str | None, int]:
    group, j = read_group(tokens, i)
    if not group or any(t.kind not in (TEXT, SPACE) for t in group):
        return None, i
    name = "".join(t.text for t in group).strip()
    return (name or None), j


def _argument_spec(spec: list[Token]) -> tuple[int, tuple[Token, ...] | None] | None:
    """xparse argument spec → (argument count, default of a leading optional argument); None if unsupported."""
    items: list[tuple[str, tuple[Token, ...] | None]] = []
    k = 0
    while k < len(spec):
        tok = spec[k]
        if tok.kind == SPACE:
            k += 1
            continue
        if tok.kind != TEXT:
            return None
        for pos, ch in enumerate(tok.text):
            if ch in "mo":
                items.append((ch, None))
            elif ch == "O" and pos == len(tok.text) - 1:
                written, k2 = read_group(spec, k + 1)
                if written is None:
                    return None
                items.append(("O", tuple(written)))
                k = k2 - 1
            else:
                return None
        k += 1
    optional = [n for n, (kind, _) in enumerate(items) if kind in "oO"]
    if optional and optional != [0]:
        return None
    default = None
    if optional:
        kind, value = items[0]
        default = value if kind == "O" else ()
    return len(items), default


def _csname(tokens: list[Token], j: int) -> tuple[str | None, int]:
    """`\\csname name\\endcsname` at tokens[j]: the name when it is spelled out in characters, else None;
    and the index after \\endcsname."""
    k = j + 1
    parts: list[str] = []
    literal = True
    while k < len(tokens) and not (tokens[k].kind == CS and tokens[k].text == "endcsname"):
        if tokens[k].kind == TEXT:
            parts.append(tokens[k].text)
        elif tokens[k].kind != SPACE:
            literal = False
        k += 1
    name = "".join(parts).strip()
    return (name if literal and name else None), min(k + 1, len(tokens))


def _skip_star(tokens: list[Token], i: int) -> int:
    """Past a `*` standing right at tokens[i] (after spaces), if there is one."""
    j = _skip_space(tokens, i)
    if j < len(tokens) and tokens[j].kind == TEXT and tokens[j].text == "*":
        return j + 1
    return i


def _skip_space(tokens: list[Token], i: int) -> int:
    n = len(tokens)
    while i < n and tokens[i].kind in (SPACE, PAR):
        i += 1
    return i


def read_group(tokens: list[Token], i: int) -> tuple[list[Token] | None, int]:
    """Read `{…}` starting at tokens[i] (after optional spaces). Returns (inner tokens, index after) or (None, i)."""
    j = _skip_space(tokens, i)
    if j >= len(tokens) or tokens[j].kind != BGROUP:
        return None, i
    depth = 0
    n = len(tokens)
    k = j
    while k < n:
        kind = tokens[k].kind
        if kind == BGROUP:
            depth += 1
        elif kind == EGROUP:
            depth -= 1
            if depth == 0:
                return tokens[j + 1:k], k + 1
        k += 1
    return None, i


def _split_text(tokens: list[Token], k: int, cut: int) -> None:
    """Split the TEXT token at k into two after `cut` characters (in place)."""
    tok = tokens[k]
    tokens[k:k + 1] = [Token(TEXT, tok.text[:cut], tok.start, tok.start + cut, tok.expanded),
                       Token(TEXT, tok.text[cut:], tok.start + cut, tok.end, tok.expanded)]


def read_optional(tokens: list[Token], i: int) -> tuple[list[Token] | None, int]:
    """Read `[…]` (brace-balanced) starting at tokens[i] after optional spaces; (None, i) if absent.

    May split TEXT tokens in place so that `[` and `]` stand alone.
    """
    j = _skip_space(tokens, i)
    if j >= len(tokens) or tokens[j].kind != TEXT or not tokens[j].text.startswith("["):
        return None, i
    if len(tokens[j].text) > 1:
        _split_text(tokens, j, 1)
    depth = 0
    k = j + 1
    n = len(tokens)
    while k < n:
        tok = tokens[k]
        if tok.kind == BGROUP:
            depth += 1
        elif tok.kind == EGROUP:
            if depth == 0:
                return None, i
            depth -= 1
        elif tok.kind == TEXT and depth == 0 and "]" in tok.text:
            cut = tok.text.index("]")
            if cut:
                _split_text(tokens, k, cut)
                k += 1
                n += 1
            if len(tokens[k].text) > 1:
                _split_text(tokens, k, 1)
            return tokens[j + 1:k], k + 1
        k += 1
    return None, i


def read_argument(tokens: list[Token], i: int) -> tuple[list[Token] | None, int]:
    """One undelimited TeX argument: a group, a control sequence, or one character."""
    j = _skip_space(tokens, i)
    if j >= len(tokens):
        return None, i
    tok = tokens[j]
    if tok.kind == BGROUP:
        return read_group(tokens, j)
    if tok.kind == EGROUP:
        return None, i
    if tok.kind == TEXT and len(tok.text) > 1:
        head = Token(TEXT, tok.text[0], tok.start, tok.start + 1, tok.expanded)
        tokens[j] = Token(TEXT, tok.text[1:], tok.start + 1, tok.end, tok.expanded)
        return [head], j
    return [tok], j + 1


def group_text(tokens: list[Token] | None) -> str:
    """Plain concatenation of a small group's characters (names, numbers, labels)."""
    if not tokens:
        return ""
    return "".join(("\\" + t.text) if t.kind == CS else t.text for t in tokens).strip()


def _past_prefix(prefix: tuple[Token, ...], tokens: list[Token], i: int) -> int | None:
    """Index after a delimited macro's prefix (the parameter text before its first parameter) at `i`, or None when
    the tokens there do not match it. A TEXT token that only starts with the prefix's text keeps the rest."""
    j = i
    for want in prefix:
        j = _skip_space(tokens, j) if want.kind != SPACE else j
        if j >= len(tokens) or tokens[j].kind != want.kind or not tokens[j].text.startswith(want.text):
            return None
        if tokens[j].kind == TEXT and tokens[j].text != want.text:
            tokens[j] = Token(TEXT, tokens[j].text[len(want.text):], tokens[j].start + len(want.text), tokens[j].end)
        else:
            j += 1
    return j


def _find_delimiter(tokens: list[Token], j: int, first: Token) -> int:
    """Index of the delimiter's first token at brace depth 0 from `j` (within 5000 tokens, before the group closes),
    or -1. A TEXT token holding the delimiter's text after other text is split there."""
    depth = 0
    k = j
    n = len(tokens)
    while k < n and k - j < 5000:
        tok = tokens[k]
        if tok.kind == BGROUP:
            depth += 1
        elif tok.kind == EGROUP:
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and tok.kind == first.kind:
            if tok.kind == TEXT and first.text in tok.text:
                cut = tok.text.index(first.text)
                if cut:
                    tokens[k:k + 1] = [Token(TEXT, tok.text[:cut], tok.start, tok.start + cut, tok.expanded),
                                       Token(TEXT, tok.text[cut:], tok.start + cut, tok.end, tok.expanded)]
                    k += 1
                return k
            if tok.kind != TEXT and tok.text == first.text:
                return k
        k += 1
    return -1


def _without_outer_braces(arg: list[Token]) -> list[Token]:
    """A delimited argument written as one group (`{a.b}.`) is the group's content, as in TeX."""
    if len(arg) >= 2 and arg[0].kind == BGROUP and arg[-1].kind == EGROUP:
        inner, end = read_group(arg, 0)
        if inner is not None and end == len(arg):
            return list(inner)
    return list(arg)


def _past_delimiter(tokens: list[Token], found: int, delim: tuple[Token, ...], scanned: int) -> int:
    """Index after the delimiter whose first token is at `found`: a TEXT token longer than it keeps the rest; its
    further tokens are skipped where they match (looked for below `scanned`)."""
    first = delim[0]
    end_tok = tokens[found]
    if end_tok.kind == TEXT and len(end_tok.text) > len(first.text):
        tokens[found] = Token(TEXT, end_tok.text[len(first.text):], end_tok.start + len(first.text), end_tok.end,
                              end_tok.expanded)
        j = found
    else:
        j = found + 1
    for extra in delim[1:]:
        j2 = _skip_space(tokens, j)
        if j2 < scanned and tokens[j2].kind == extra.kind and tokens[j2].text == extra.text:
            j = j2 + 1
    return j


class Expander:
    """One pass over a token list: records definitions, expands uses, collects diagnostics."""

    def __init__(self, table: MacroTable | None = None, locate=None, package: bool = False) -> None:
        self.table = table if table is not None else MacroTable()
        self.diagnostics: list[Diagnostic] = []
        self._locate = locate
        self._disabled: set[str] = set()
        self._expansions = 0
        self.package = package
        """Package mode: record new public definitions only, expand nothing (a .sty shipped with the paper)."""
        self.directives: list[Token] = []
        """Package mode: the package's numbering commands (\\numberwithin, \\newtheorem, \\renewcommand of
        \\theequation, …), for the document builder to apply before the document's own preamble."""

    def _record(self, macro: Macro, mode: str = "define") -> None:
        name = macro.name
        if name in PROTECTED:
            return
        if self.package and ("@" in name or mode == "redefine" or is_markup(name)):
            # A package's internals, and its presentation commands (\\eqnmarkbox, \\textcolor), stay commands:
            # the document builder keeps their mathematics and drops the markup (latex/markup.py).
            return
        body = macro.body
        if any(t.kind == CS and t.text == name for t in body):
            # A definition in terms of itself: TeX would only stop if another command consumed the inner use.
            first = next((t for t in body if t.kind not in (SPACE, PAR)), None)
            if first is not None and first.kind == CS and first.text == name and not self.package:
                self._diag("error", f"macro \\{name} is defined in terms of itself and would expand without end; "
                                    "its inner uses are left unexpanded", macro.start)
            body = tuple(t._replace(kind=NOEXPAND) if t.kind == CS and t.text == name else t for t in body)
            macro = Macro(name, macro.n_args, macro.optional_default, body, macro.delimiters, macro.prefix,
                          macro.start)
        self.table.macros[name] = macro

    def _diag(self, severity: str, message: str, start: int) -> None:
        position = self._locate(start) if self._locate and start >= 0 else None
        self.diagnostics.append(Diagnostic(severity, message, position))

    # -- definitions -------------------------------------------------------------------------
    def _read_defined_name(self, tokens: list[Token], i: int) -> tuple[str | None, int]:
        j = _skip_space(tokens, i)
        if j < len(tokens) and tokens[j].kind == CS:
            if tokens[j].text == "csname":
                return _csname(tokens, j)
            return tokens[j].text, j + 1
        group, k = read_group(tokens, j)
        if group:
            inner = [t for t in group if t.kind not in (SPACE,)]
            if len(inner) == 1 and inner[0].kind == CS:
                return inner[0].text, k
        return None, i

    def _define_newcommand(self, tokens, i, mode, start):
        j = _skip_space(tokens, i)
        if j < len(tokens) and tokens[j].kind == TEXT and tokens[j].text.startswith("*"):
            tokens[j] = Token(TEXT, tokens[j].text[1:], tokens[j].start + 1, tokens[j].end)
            if not tokens[j].text:
                j += 1
        name, j = self._read_defined_name(tokens, j)
        if name is None:
            self._diag("warning", "\\newcommand without a command name: definition ignored", start)
            return i
        n_args = 0
        opt, k = read_optional(tokens, j)
        if opt is not None:
            try:
                n_args = int(group_text(opt))
            except ValueError:
                self._diag("warning", f"\\{name}: bad argument count {group_text(opt)!r}", start)
            j = k
        default, k = read_optional(tokens, j)
        if default is not None:
            j = k
        body, k = read_group(tokens, j)
        if body is None:
            arg, k = read_argument(tokens, j)
            if arg is None:
                self._diag("error", f"\\{name}: definition has no body", start)
                return j
            body = arg
        if mode == "provide" and name in self.table.macros:
            return k
        if not 0 <= n_args <= 9:
            self._diag("warning", f"\\{name}: {n_args} arguments is out of range", start)
            n_args = max(0, min(n_args, 9))
        self._record(Macro(name, n_args, tuple(default) if default is not None else None, tuple(body),
                           start=start), mode)
        return k

    def _define_environment(self, tokens, i, mode, start):
        """`\\newenvironment{name}[n][default]{begin code}{end code}`."""
        j = _skip_star(tokens, i)
        env, j = _environment_name(tokens, j)
        if env is None:
            self._diag("warning", "\\newenvironment without a name: definition ignored", start)
            return i
        n_args = 0
        opt, k = read_optional(tokens, j)
        if opt is not None:
            try:
                n_args = max(0, min(int(group_text(opt)), 9))
            except ValueError:
                self._diag("warning", f"environment {env}: bad argument count {group_text(opt)!r}", start)
            j = k
        default, k = read_optional(tokens, j)
        if default is not None:
            j = k
        begin, j2 = read_group(tokens, j)
        end, j3 = read_group(tokens, j2)
        if begin is None or end is None:
            self._diag("warning", f"environment {env}: definition needs a begin and an end part", start)
            return j
        self._record_environment(env, n_args, default, begin, end, mode, start)
        return j3

    def _record_environment(self, env, n_args, default, begin, end, mode, start) -> None:
        if env in PROTECTED_ENVIRONMENTS or (self.package and ("@" in env or mode.startswith("redefine"))):
            return
        if mode == "provide" and (BEGIN_PREFIX + env) in self.table.macros:
            return
        self._record(Macro(BEGIN_PREFIX + env, n_args, tuple(default) if default is not None else None,
                           tuple(begin), start=start), "define")
        self._record(Macro(END_PREFIX + env, 0, None, tuple(end), start=start), "define")

    def _define_document_command(self, tokens, i, mode, start):
        """xparse's `\\NewDocumentCommand{\\cmd}{O{d} m m}{body}` (and …Environment): argument specs of
        mandatory arguments with at most one leading optional one; other specs are left undefined."""
        environment = mode.endswith("-env")
        if environment:
            name, j = _environment_name(tokens, i)
        else:
            name, j = self._read_defined_name(tokens, i)
        spec, j = read_group(tokens, j)
        body, j = read_group(tokens, j)
        end = None
        if environment and body is not None:
            end, j = read_group(tokens, j)
        if name is None or spec is None or body is None or (environment and end is None):
            return max(j, i)
        parsed = _argument_spec(spec)
        if parsed is None:
            return j  # a spec we cannot read (s, t, delimited …): the command stays as written
        n_args, default = parsed
        if environment:
            self._record_environment(name, n_args, default, body, end, mode.replace("-env", ""), start)
        else:
            self._record(Macro(name, n_args, default, tuple(body), start=start), mode)
        return j

    def _define_def(self, tokens, i, start):
        j = _skip_space(tokens, i)
        if j >= len(tokens) or tokens[j].kind != CS:
            self._diag("warning", "\\def without a command name: definition ignored", start)
            return i
        name, j = self._read_defined_name(tokens, j)
        if not name:
            # \\expandafter\\gdef\\csname data@\\macro\\endcsname{…}: a name computed at run time; TeX
            # defines a macro the paper never calls by name. Skip the definition, never define \\csname.
            while j < len(tokens) and tokens[j].kind != BGROUP:
                j += 1
            _, k = read_group(tokens, j)
            return max(k, j)
        # Parameter text runs to the first '{'.
        param_text: list[Token] = []
        n = len(tokens)
        while j < n and tokens[j].kind != BGROUP:
            param_text.append(tokens[j])
            j += 1
        body, k = read_group(tokens, j)
        if body is None:
            self._diag("error", f"\\{name}: \\def has no body", start)
            return j
        prefix: list[Token] = []
        delimiters: list[list[Token]] = []
        n_args = 0
        p = 0
        while p < len(param_text):
            tok = param_text[p]
            if tok.kind == PARAM and p + 1 < len(param_text) and param_text[p + 1].kind == TEXT:
                n_args += 1
                digit_tok = param_text[p + 1]
                delimiters.append([])
                if len(digit_tok.text) > 1:
                    rest = digit_tok.text[1:]
                    delimiters[-1].append(Token(TEXT, rest, digit_tok.start + 1, digit_tok.end))
                p += 2
                continue
            if n_args == 0:
                if tok.kind != SPACE:
                    prefix.append(tok)
            else:
                delimiters[-1].append(tok)
            p += 1
        delims = tuple(tuple(t for t in d if t.kind != SPACE) for d in delimiters)
        self._record(Macro(name, n_args, None, tuple(body), delims, tuple(prefix), start))
        return k

    def _define_let(self, tokens, i, start):
        j = _skip_space(tokens, i)
        if j >= len(tokens) or tokens[j].kind != CS:
            return i
        name = tokens[j].text
        j = _skip_space(tokens, j + 1)
        if j < len(tokens) and tokens[j].kind == TEXT and tokens[j].text.startswith("="):
            if tokens[j].text == "=":
                j = _skip_space(tokens, j + 1)
            else:
                tokens[j] = Token(TEXT, tokens[j].text[1:], tokens[j].start + 1, tokens[j].end)
        if j >= len(tokens):
            return j
        target = tokens[j]
        if name in PROTECTED or (self.package and "@" in name):
            return j + 1
        if target.kind == CS and target.text in self.table.macros:
            self.table.macros[name] = self.table.macros[target.text]
        elif target.kind == CS:
            # \let\x\left copies the meaning *now*: the copy must not follow a later \renewcommand{\left}.
            self.table.macros[name] = Macro(name, 0, None, (target._replace(kind=NOEXPAND),), start=start)
        return j + 1

    def _declare_operator(self, tokens, i, start):
        j = _skip_space(tokens, i)
        star = False
        if j < len(tokens) and tokens[j].kind == TEXT and tokens[j].text.startswith("*"):
            star = True
            j += 1
        name, j = self._read_defined_name(tokens, j)
        text, k = read_group(tokens, j)
        if name is None or text is None:
            self._diag("warning", "\\DeclareMathOperator needs a command and a name", start)
            return i
        self.table.operators[name] = group_text(text)
        opname = "operatorname*" if star else "operatorname"
        body = (Token(CS, opname, start, start, True), Token(BGROUP, "{", start, start, True),
                *text, Token(EGROUP, "}", start, start, True))
        self._record(Macro(name, 0, None, body, start=start))
        return k

    def _note_counter(self, tokens: list[Token], i: int) -> None:
        group, _ = read_group(tokens, _skip_star(tokens, i))
        if group:
            self.table.counters.add(group_text(group))

    def _skip_definition(self, tokens: list[Token], i: int, command: str) -> int:
        """Index after the whole definition starting at tokens[i] (the command), without recording it."""
        j = _skip_star(tokens, i + 1)
        _, j = self._read_defined_name(tokens, j)
        if command in DEF_LIKE:
            while j < len(tokens) and tokens[j].kind != BGROUP:
                j += 1
        else:
            for _ in range(2):
                _, j = read_optional(tokens, j)
        _, k = read_group(tokens, j)
        return max(k, i + 1)

    # -- expansion ---------------------------------------------------------------------------
    def _collect_args(self, macro: Macro, tokens: list[Token], i: int) -> tuple[list[list[Token]] | None, int]:
        args: list[list[Token]] = []
        j = i
        if macro.delimiters or macro.prefix:
            return self._collect_delimited(macro, tokens, i)
        count = macro.n_args
        if macro.optional_default is not None:
            opt, k = read_optional(tokens, j)
            if opt is None:
                args.append(list(macro.optional_default))
            else:
                args.append(opt)
                j = k
            count -= 1
        for _ in range(count):
            arg, k = read_argument(tokens, j)
            if arg is None:
                return None, i
            args.append(arg)
            j = k
        return args, j

    def _collect_delimited(self, macro: Macro, tokens: list[Token], i: int) -> tuple[list[list[Token]] | None, int]:
        """The arguments of a macro with a parameter text (`\\def\\foo#1.#2\\end{…}`), read past its prefix and
        delimiters; (None, i) when they are not there."""
        j = _past_prefix(macro.prefix, tokens, i)
        if j is None:
            return None, i
        args = []
        for delim in macro.delimiters:
            if not delim:
                arg, j = read_argument(tokens, j)
                if arg is None:
                    return None, i
                args.append(arg)
                continue
            scanned = len(tokens)  # the extra delimiter tokens are looked for within the tokens before the scan
            found = _find_delimiter(tokens, j, delim[0])
            if found < 0:
                return None, i
            args.append(_without_outer_braces(tokens[j:found]))
            j = _past_delimiter(tokens, found, delim, scanned)
        return args, j

    @staticmethod
    def _substitute(macro: Macro, args: list[list[Token]], at: Token) -> list[Token]:
        out: list[Token] = []
        body = macro.body
        n = len(body)
        p = 0
        start, end = at.start, at.end
        while p < n:
            tok = body[p]
            if tok.kind == PARAM and p + 1 < n:
                nxt = body[p + 1]
                if nxt.kind == PARAM:
                    out.append(Token(PARAM, "#", start, end, True))
                    p += 2
                    continue
                if nxt.kind == TEXT and nxt.text[:1].isdigit():
                    k = int(nxt.text[0]) - 1
                    if 0 <= k < len(args):
                        out.extend(args[k])
                    if len(nxt.text) > 1:
                        out.append(Token(TEXT, nxt.text[1:], start, end, True))
                    p += 2
                    continue
            out.append(tok._replace(start=start, end=end, expanded=True) if not tok.expanded or tok.start != start
                       else tok)
            p += 1
        return out

    def _spent(self, tok: Token) -> bool:
        """Is the paper's budget of expansions spent (said once, at the use that spends it)?"""
        self._expansions += 1
        if self._expansions == MAX_EXPANSIONS_PER_DOCUMENT + 1:
            self._diag("error", f"the paper's macros expand more than {MAX_EXPANSIONS_PER_DOCUMENT} times; "
                                f"\\{tok.text} and every later use are left unexpanded", tok.start)
        return self._expansions > MAX_EXPANSIONS_PER_DOCUMENT

    def expand(self, tokens: list[Token]) -> list[Token]:
        """Expand user macros in `tokens` (recording definitions as they appear). Returns a new list.

        Works in place on a copy: a macro use at index i is replaced by its expansion, which is then
        rescanned from i (TeX's order), so nested definitions behave as in TeX. Each use in the source
        has a budget of nested expansions and growth; past it, the use is reported and left as it is.
        """
        run = _Run(list(tokens))
        toks, out = run.toks, run.out
        while run.i < len(toks):
            tok = toks[run.i]
            kind = tok.kind
            if kind != CS:
                if self.package:
                    run.depth += (kind == BGROUP) - (kind == EGROUP)
                out.append(tok._replace(kind=CS) if kind == NOEXPAND else tok)
                run.i += 1
                continue
            self._note(run, tok.text)
            if not (self._pass_directive(run, tok.text) or self._pass_counter_format(run, tok.text)
                    or self._define(run, tok) or self._open_user_environment(run, tok)):
                self._expand_use(run, tok)
        return out

    def _note(self, run: _Run, name: str) -> None:
        """What a command says without being expanded: the TeX conditionals a package's directives stand in, the
        counters a declaration adds."""
        if self.package and (name == "fi" or _is_conditional(name)):
            run.depth += 1 if name != "fi" else -1
        if name in COUNTER_DECLARATIONS:
            self._note_counter(run.toks, run.i + 1)

    def _pass_directive(self, run: _Run, name: str) -> bool:
        """A package's numbering directive (kept for the document builder) or `\\newif`, passed through as it is."""
        if not self.package:
            return False
        toks, i = run.toks, run.i
        if name == "newif" and i + 1 < len(toks):  # \\newif\\iffoo names, does not test
            run.out.extend(toks[i:i + 2])
            run.i = i + 2
            return True
        if name in PACKAGE_DIRECTIVES and (run.depth == 0 or name in DECLARING_DIRECTIVES):
            k = _past_arguments(toks, i + 1, PACKAGE_DIRECTIVES[name])
            self.directives.extend(t._replace(start=0, end=0, expanded=True) for t in toks[i:k])
            run.out.extend(toks[i:k])
            run.i = k
            return True
        return False

    def _pass_counter_format(self, run: _Run, name: str) -> bool:
        """A definition of a counter's printed form (`\\renewcommand{\\theequation}{…}`), passed through: the document
        builder numbers as TeX does, and the uses of `\\the<counter>` go through unexpanded too."""
        if name not in NEWCOMMAND_LIKE and name not in DEF_LIKE:
            return False
        toks, i = run.toks, run.i
        defined, _ = self._read_defined_name(toks, _skip_star(toks, i + 1))
        if defined is None or not is_counter_format(defined, self.table.counters):
            return False
        k = self._skip_definition(toks, i, name)
        if self.package and run.depth == 0:
            self.directives.extend(t._replace(start=0, end=0, expanded=True) for t in toks[i:k])
        run.out.extend(toks[i:k])
        run.i = k
        return True

    def _define(self, run: _Run, tok: Token) -> bool:
        """A definition (`\\newcommand`, `\\def`, `\\let`, `\\DeclareMathOperator`, …), read into the table."""
        define = _DEFINITIONS.get(tok.text)
        if define is None:
            return False
        run.i = max(define(self, run.toks, run.i + 1, tok.start), run.i + 1)
        return True

    def _open_user_environment(self, run: _Run, tok: Token) -> bool:
        """`\\begin{env}` / `\\end{env}` of a user environment: its code, read again from here."""
        if tok.text not in ("begin", "end") or self.package:
            return False
        toks, i = run.toks, run.i
        env, k = _environment_name(toks, i + 1)
        if env is None or (BEGIN_PREFIX + env) not in self.table.macros:
            return False
        prefix = BEGIN_PREFIX if tok.text == "begin" else END_PREFIX
        toks[i:k] = [Token(CS, prefix + env, tok.start, toks[k - 1].end, tok.expanded)]
        return True

    def _expand_use(self, run: _Run, tok: Token) -> None:
        """A use of a macro: replaced by its expansion, to be read again from where it stood (or passed through
        when it is not a user macro, the budget is spent or its arguments are missing)."""
        toks, i, name = run.toks, run.i, tok.text
        macro = self.table.macros.get(name)
        if macro is None or name in self._disabled or self.package or self._spent(tok):
            run.out.append(tok)
            run.i += 1
            return
        if not tok.expanded:
            run.use_count, run.use_base = 0, len(toks)
        run.use_count += 1
        if run.use_count > MAX_EXPANSIONS_PER_USE or len(toks) - run.use_base > MAX_GROWTH_PER_USE:
            self._stop_runaway(run, tok)
            return
        if macro.n_args == 0 and not macro.prefix:
            toks[i:i + 1] = self._substitute(macro, [], tok)
            return
        args, k = self._collect_args(macro, toks, i + 1)
        if args is None:
            self._diag("warning", f"\\{name}: arguments not found; left unexpanded", tok.start)
            run.out.append(tok)
            run.i += 1
            return
        toks[i:k] = self._substitute(macro, args, tok)

    def _stop_runaway(self, run: _Run, tok: Token) -> None:
        """A use past its budget of nested expansions or growth: reported, and left unexpanded from then on."""
        toks, i, name = run.toks, run.i, tok.text
        self._diag("error", f"macro \\{name} expands without end (more than {MAX_EXPANSIONS_PER_USE} "
                            f"nested expansions or {MAX_GROWTH_PER_USE} new tokens); left unexpanded",
                   tok.start)
        # Drop what this runaway use produced (its tokens share the use's start) and keep the use itself.
        j = i + 1
        while j < len(toks) and toks[j].expanded and toks[j].start == tok.start:
            j += 1
        del toks[i + 1:j]
        run.use_count, run.use_base = 0, len(toks)
        self._disabled.add(name)
        run.out.append(tok)
        run.i += 1


@dataclass
class _Run:
    """One call of `Expander.expand`: the tokens rewritten in place, what is already out, the use being expanded."""

    toks: list[Token]
    """The tokens still to read (from `i`); an expansion replaces its use here and is read again."""
    out: list[Token] = field(default_factory=list)
    """The tokens read, expanded."""
    i: int = 0
    """The token being read."""
    depth: int = 0
    """Package mode: braces and TeX conditionals around the current token (directives only at 0)."""
    use_count: int = 0
    """Nested expansions of the current use in the source."""
    use_base: int = 0
    """How many tokens there were when the current use in the source began expanding."""


def _with_mode(define: Callable[..., int], mode: str) -> Callable[[Expander, list[Token], int, int], int]:
    return lambda expander, tokens, i, start: define(expander, tokens, i, mode, start)


_DEFINITIONS: dict[str, Callable[[Expander, list[Token], int, int], int]] = {
    **{name: _with_mode(Expander._define_newcommand, mode) for name, mode in NEWCOMMAND_LIKE.items()},
    **{name: _with_mode(Expander._define_environment, mode) for name, mode in ENVIRONMENT_LIKE.items()},
    **{name: _with_mode(Expander._define_document_command, mode) for name, mode in DOCUMENT_COMMAND_LIKE.items()},
    **{name: Expander._define_def for name in DEF_LIKE},
    "let": Expander._define_let,
    **{name: Expander._declare_operator for name in OPERATOR_DECL},
}
"""Defining command → how it is read (from the token after the command, with the command's source offset); each
returns the index after the definition."""
