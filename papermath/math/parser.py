"""LaTeX math → papermath syntax tree: a precedence-climbing parser driven by the tables in `tables`.

Binding, loosest first: statements separated by `,`/`;`/`\\\\` → relation chains → additive operators →
multiplicative operators → prefix signs → juxtaposition (implicit product) → postfix scripts, primes,
factorials and calls → atoms. Big operators (`\\sum`, `\\mathbb E`, `\\max_\\theta`) take a body at the
multiplicative level; prefix functions (`\\log x`, `\\nabla_\\theta L`) take one at the product level.

Layout (`\\left`, spacing, `\\label`, `&` outside matrices, colours) is removed by a pre-pass over the
tokens, so the grammar never sees it; spans still cover it because they come from the kept tokens.
"""
from __future__ import annotations

import sys
from types import FrameType
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Optional, TypeVar

from ..errors import MathParseError
from ..limits import MAX_DEPTH, MAX_TOKENS
from . import ast as A
from . import tables as T
from .ast import replace  # dataclasses.replace, fast for nodes
from .tokens import (AMP, CMD, EOF, LBRACE, LETTER, NEWLINE, NUMBER, PRIME, PUNCT, RBRACE, SUB, SUP,
                     Token, tokenize)

TEXT = "text"       # synthetic: \text{…} with its raw content
BEGIN = "begin"     # synthetic: \begin{env}
END = "end"         # synthetic: \end{env}
NULL_OPEN = "\\left."
NULL_CLOSE = "\\right."

_MULT_OPS = {k for k, (_, p) in T.BINARY_OPS.items() if p == T.MULTIPLICATIVE}
_ADD_OPS = {k for k, (_, p) in T.BINARY_OPS.items() if p == T.ADDITIVE}
_CLOSERS = {")", "]", "|", ">", "."}
_PARAM_LETTERS = {"\\theta", "\\phi", "\\psi", "\\vartheta", "\\varphi", "\\omega", "\\xi"}
_EXPECT_FONTS = {"bb", "rm", None, "op", "bf", "cal", "sf"}
_WORDISH = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


_GUARD_LEVELS = 3 * MAX_DEPTH
"""Recursion levels (parse_postfix + parse_atom + parse_unary entries) after which the parser stops."""
_FRAMES_PER_LEVEL = 20
"""Python frames the parser may use between two guarded levels (measured: at most 17)."""


@contextmanager
def room_for_nesting() -> Iterator[None]:
    """Python's recursion limit raised (never lowered), for as long as a formula is parsed, so that MAX_DEPTH
    levels fit above the caller's own stack. Python-to-Python calls take no C stack in CPython 3.11+, so the
    extra frames are safe; past MAX_DEPTH the parser stops with a MathParseError, never a RecursionError."""
    frame: Optional[FrameType] = sys._getframe()
    depth = 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    need = depth + _GUARD_LEVELS * _FRAMES_PER_LEVEL + 200
    old = sys.getrecursionlimit()
    if need > old:
        sys.setrecursionlimit(need)
    try:
        yield
    finally:
        if need > old:
            sys.setrecursionlimit(old)


def _cmd_name(text: str) -> str:
    return text[1:] if text.startswith("\\") else text


# ---------------------------------------------------------------------------------------------------
# Pre-pass: drop layout, mark text and environments.
# ---------------------------------------------------------------------------------------------------

_ONE_SIDED_OPEN = frozenset(t for t in T.OPEN_DELIMS if t.startswith("\\") and t not in T.CLOSE_DELIMS)
_ONE_SIDED_CLOSE = frozenset(t for t in T.CLOSE_DELIMS if t.startswith("\\") and t not in T.OPEN_DELIMS)
_SYMMETRIC_BARS = {t: c for t, c in T.OPEN_DELIMS.items() if T.CLOSE_DELIMS.get(t) == c and c in ("|", "||")}
"""Bars that may open or close (`|`, `\\vert`, `\\|`, `\\Vert`) → the group they delimit (`|` or `||`)."""


_Rule = TypeVar("_Rule")


def _routes(rules: Iterable[tuple[Iterable[str], _Rule]]) -> dict[str, tuple[_Rule, ...]]:
    """Each key's rules, in the order `rules` lists them (a key several rules claim keeps them all)."""
    claimed: dict[str, list[_Rule]] = {}
    for keys, rule in rules:
        for key in dict.fromkeys(keys):
            claimed.setdefault(key, []).append(rule)
    return {key: tuple(those) for key, those in claimed.items()}


def _opens_group(tok) -> bool:
    """A brace, `(`, `[`, a one-sided opener (`\\{`, `\\langle`, `\\lVert`…) or an invisible `\\left.`:
    something that nests."""
    return tok.kind == LBRACE or (tok.kind == PUNCT and tok.text in "([") or \
        (tok.kind == CMD and (tok.text in _ONE_SIDED_OPEN or tok.text == NULL_OPEN))


def _closes_group(tok) -> bool:
    """The closing counterpart of `_opens_group`."""
    return tok.kind == RBRACE or (tok.kind == PUNCT and tok.text in ")]") or \
        (tok.kind == CMD and (tok.text in _ONE_SIDED_CLOSE or tok.text == NULL_CLOSE))


def _skip_arguments(tokens, j: int, count: int, single_tokens: bool, ends=None) -> int:
    """Index after an optional `[…]` and `count` brace groups (or, with `single_tokens`, single tokens)."""
    ends = ends or _brace_end
    n = len(tokens)
    if j < n and tokens[j].kind == PUNCT and tokens[j].text == "[":
        while j < n and not (tokens[j].kind == PUNCT and tokens[j].text == "]"):
            j += 1
        j += 1
    for _ in range(count):
        if j < n and tokens[j].kind == LBRACE:
            j = ends(tokens, j) + 1
        elif single_tokens and j < n and tokens[j].kind != EOF:
            j += 1
    return j


def _brace_table(tokens: list[Token]) -> list[int]:
    """For every `{`, the index of the `}` closing it (or of EOF, or the last token, when it is never closed),
    in one pass: looking a group's end up is then O(1), so nested or unclosed groups are never rescanned."""
    ends = list(range(len(tokens)))
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.kind == LBRACE:
            stack.append(i)
        elif tok.kind == RBRACE:
            if stack:
                ends[stack.pop()] = i
        elif tok.kind == EOF:
            for j in stack:
                ends[j] = i
            stack.clear()
    for j in stack:
        ends[j] = len(tokens) - 1
    return ends


class _Ends:
    """`_brace_end` for one token list, from a table built once (rebuilt only if the list is changed)."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.table = _brace_table(tokens)

    def __call__(self, tokens: list[Token], i: int) -> int:
        if tokens is not self.tokens or tokens[i].kind != LBRACE:
            return _brace_end(tokens, i)
        if len(self.table) != len(tokens):
            self.table = _brace_table(tokens)
        return self.table[i]


def _brace_end(tokens: list[Token], i: int) -> int:
    """Index of the token closing the brace group opening at i (or len-1 for EOF)."""
    depth = 0
    n = len(tokens)
    while i < n:
        k = tokens[i].kind
        if k == LBRACE:
            depth += 1
        elif k == RBRACE:
            depth -= 1
            if depth == 0:
                return i
        elif k == EOF:
            return i
        i += 1
    return n - 1


def _is_continuation(tok: Token) -> bool:
    if tok.kind == PUNCT:
        return tok.text in T.RELATIONS or tok.text in "+-=<>*/" or tok.text == ":"
    if tok.kind == CMD:
        return tok.text in T.RELATIONS or tok.text in T.BINARY_OPS or tok.text == "\\not"
    return False


def row_sets_own_relation(tokens: list[Token], k: int) -> bool:
    """Does the row starting at tokens[k] put a relation of its own at its alignment point (`- w B(x) &\\le …`)?
    Such a row is a statement of its own although it starts with a sign: a continuation starts at or after the
    alignment point (`& - w B(x)`)."""
    depth = 0
    i = k
    while i < len(tokens) and tokens[i].kind not in (NEWLINE, END, EOF):
        t = tokens[i]
        depth += t.kind == LBRACE
        depth -= t.kind == RBRACE
        if t.kind == AMP and depth == 0:
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            return nxt is not None and ((nxt.kind == PUNCT and nxt.text in "=<>") or
                                        (nxt.kind == CMD and nxt.text in T.RELATIONS))
        i += 1
    return False


def _stacks_a_relation(tokens: list[Token], k: int) -> bool:
    """Does `\\stackrel{…}{=}` / `\\overset{(a)}{\\le}` start at tokens[k]: a relation with a note over it (a row
    that starts with one goes on with the statement before it, as a row starting with `=` does)?"""
    if not (tokens[k].kind == CMD and tokens[k].text in ("\\stackrel", "\\overset")):
        return False
    j, depth = k + 1, 0
    if j >= len(tokens) or tokens[j].kind != LBRACE:
        return False
    while j < len(tokens):
        depth += tokens[j].kind == LBRACE
        depth -= tokens[j].kind == RBRACE
        j += 1
        if depth == 0:
            break
    if j + 2 >= len(tokens) or tokens[j].kind != LBRACE or tokens[j + 2].kind != RBRACE:
        return False
    rel = tokens[j + 1]
    return (rel.kind == PUNCT and rel.text in "=<>") or (rel.kind == CMD and rel.text in T.RELATIONS)


_BARE_WORDS = frozenset("where for if when whenever with given otherwise and".split())
"""Connectives a formula may write in plain letters (`\\frac{i}{N} where\\ i = 0 \\ldots N`): prose, as `\\text{…}`."""


JOINER_WORDS = frozenset({"and", "or"})
"""Words that join two statements or list items (`\\text{and}`, `{\\rm and}`); never a factor."""
ROMAN_STYLES = frozenset({"\\rm", "\\mathrm", "\\textrm", "\\text", "\\mbox", "\\textnormal"})


def _styled_joiners(tokens: list[Token]) -> list[Token]:
    """`{\\rm and}`, `\\mathrm{or}`: a joining word set upright is the word, as `\\text{and}` is (a text token)."""
    out: list[Token] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        word_at, close_at = None, None
        if tok.kind == LBRACE and i + 1 < n and tokens[i + 1].kind == CMD and tokens[i + 1].text == "\\rm":
            word_at = i + 2  # `{\rm and}`
        elif tok.kind == CMD and tok.text in ROMAN_STYLES and tok.text != "\\rm" and i + 1 < n and \
                tokens[i + 1].kind == LBRACE:
            word_at = i + 2  # `\mathrm{and}`
        if word_at is not None:
            j = word_at
            while j < n and tokens[j].kind == LETTER:
                j += 1
            word = "".join(t.text for t in tokens[word_at:j])
            applied = j + 1 < n and tokens[j + 1].kind == PUNCT and tokens[j + 1].text == "("  # `\\mathrm{or}(a, b)`
            if j < n and tokens[j].kind == RBRACE and word in JOINER_WORDS and not applied:
                close_at = j
        if close_at is not None:
            out.append(Token(TEXT, word, tok.start, tokens[close_at].end, tok.space_before))
            i = close_at + 1
            continue
        out.append(tok)
        i += 1
    return out


def _bare_words(tokens: list[Token]) -> list[Token]:
    """Fold a connective written in plain letters, standing apart from other letters, into one text token (as
    `\\text{where}` is): `where`, `for`, `and` … (`if` only with space on both sides: `i f` may multiply)."""
    out: list[Token] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if tok.kind == LETTER:
            j = i + 1
            while j < n and tokens[j].kind == LETTER and tokens[j].start == tokens[j - 1].end and j - i < 10:
                j += 1
            word = "".join(t.text for t in tokens[i:j])
            prev = out[-1] if out else None
            nxt = tokens[j] if j < n else None
            apart_before = prev is None or prev.end < tok.start or prev.kind not in (LETTER, NUMBER)
            apart_after = nxt is None or nxt.start > tokens[j - 1].end or nxt.kind not in (LETTER, NUMBER)
            spaced = (prev is None or prev.end < tok.start) and (nxt is None or nxt.start > tokens[j - 1].end)
            braced = prev is not None and (prev.kind in (LBRACE, CMD))  # `{\rm and}`, `\mathrm{for}`: a styled name
            if word in _BARE_WORDS and prev is not None and not braced and apart_before and apart_after and \
                    (len(word) > 2 or spaced) and not (nxt is not None and nxt.kind == PUNCT and nxt.text == "("):
                out.append(Token(TEXT, word, tok.start, tokens[j - 1].end, tok.space_before))
                i = j
                continue
            out.extend(tokens[i:j])
            i = j
            continue
        out.append(tok)
        i += 1
    return out


def _identifier_end(toks: list[Token], i: int) -> tuple[Optional[int], int]:
    """Where a name such as `step\\_num` or `d\\_model2` starting at letter `i` ends: letters and digits written
    together, joined by escaped underscores (at least one, each between two of them); None when there is none.
    Also where the scan stopped: every later start before it has no such name either."""
    def alnum(k: int) -> bool:
        return k < len(toks) and toks[k].kind in (LETTER, NUMBER) and toks[k].start == toks[k - 1].end

    j, joined = i + 1, False
    while j < len(toks):
        if alnum(j):
            j += 1
        elif toks[j].kind == CMD and toks[j].text == "\\_" and toks[j].start == toks[j - 1].end and alnum(j + 1):
            j, joined = j + 2, True
        else:
            break
    return (j if joined else None), j


def _plain_prose_around(source: str, tokens: list[Token], j: int, k: int, dollars: list[int]) -> bool:
    """Are the words around the formulas of a `\\text{… $…$ …}` plain prose (no commands, no braces)? Only then
    is the text split into prose and math (a styled or nested text is kept whole, as written)."""
    edges = [tokens[j].end] + [tokens[d].start if n % 2 == 0 else tokens[d].end for n, d in enumerate(dollars)] + \
        [tokens[k].start]
    words = False
    for a in range(0, len(edges), 2):
        piece = source[edges[a]:edges[a + 1]]
        if "\\" in piece or "{" in piece or "}" in piece:
            return False
        words = words or any(ch.isalpha() for ch in piece)
    return words  # (`\\fbox{$…$}` has no prose: it stays as written)


def _text_piece(out: list[Token], source: str, start: int, end: int, space_before: bool,
                close_end: Optional[int] = None) -> None:
    """The prose between the formulas of a `\\text{… $…$ …}` as a text token (punctuation alone is dropped)."""
    raw = source[start:end]
    body = raw
    if body.lstrip().startswith("\\"):
        # the command and its brace before the first formula: `\text{if ` → `if `
        brace = body.find("{")
        body = body[brace + 1:] if brace >= 0 else body
    if any(ch.isalnum() for ch in body):
        out.append(Token(TEXT, " ".join(body.split()), start, close_end if close_end is not None else end,
                         space_before))


def _prepare(source: str, tokens: list[Token]) -> list[Token]:
    """Remove layout tokens; fold `\\text{…}`, `\\begin{…}`/`\\end{…}` and `\\left.` into single tokens."""
    return _Preparation(source, tokens).run()


_SPACING_COMMANDS = frozenset({" ", ",", ";", ":", "!", ">", "/", "@", "-"})
"""`\\ `, `\\,` …: spacing and hyphenation hints, dropped like the layout commands without arguments."""

_ROW_LAYOUT = frozenset({"\\,", "\\;", "\\quad"})
"""Spacing a row may start with before its first meaningful token (besides the layout commands)."""


class _Preparation:
    """One pass over a formula's tokens (`_prepare`): each token goes to the rule its kind (and, for a command, its
    name in `_PREPARE_RULES`) names; a rule appends what it keeps to `out` and returns the index to go on from, or
    None to leave the token to the next rule (and finally to be kept as it is)."""

    def __init__(self, source: str, tokens: list[Token]) -> None:
        self.source = source
        self.tokens = tokens
        self.n = len(tokens)
        self.out: list[Token] = []
        self.env_stack: list[str] = ["rows"]
        self.plain_closers: dict[int, str] = {}
        # Open delimiters of the kept tokens, scanned lazily ("(" for brackets, "{" for braces), and where each
        # environment starts in that stack: a row break inside an open bracket of its own environment does not
        # end a statement (`\Biggl( a \\ + b \Biggr)`, `\left( a \right. \\ \left. b \right)`).
        self.delims: list[str] = []
        self.env_base: list[int] = [0]
        self.resume_text: dict[int, tuple] = {}  # closing `$` of math inside \text{…} → the prose that follows it
        self.scanned = 0
        self.dangling = 0    # `\right.` taken off row ends, waiting for the `\left.` that reopens them
        self.ends = _Ends(tokens)  # the module function, from a table (linear in the formula)

    def run(self) -> list[Token]:
        tokens, out = self.tokens, self.out
        i = 0
        while i < self.n:
            tok = tokens[i]
            rule = _PREPARE_BY_KIND.get(tok.kind)
            following = rule(self, i, tok) if rule is not None else None
            if following is None:
                out.append(tok)
                following = i + 1
            i = following
        if not out or out[-1].kind != EOF:
            out.append(tokens[-1])
        return out

    def _keep(self, kind: str, text: str, tok: Token, end: int) -> None:
        self.out.append(Token(kind, text, tok.start, end, tok.space_before))

    def _sync(self) -> None:
        """Bring the open-delimiter stack up to the tokens kept so far."""
        for t in self.out[self.scanned:]:
            if _opens_group(t):
                self.delims.append("{" if t.kind == LBRACE else "(")
            elif _closes_group(t):
                want = "{" if t.kind == RBRACE else "("
                if self.delims and self.delims[-1] == want and len(self.delims) > self.env_base[-1]:
                    self.delims.pop()
            elif t.kind == BEGIN:
                self.env_base.append(len(self.delims))
            elif t.kind == END and len(self.env_base) > 1:
                del self.delims[self.env_base.pop():]
        self.scanned = len(self.out)

    # --- tokens other than commands -------------------------------------------------------------------

    def _close_brace(self, i: int, tok: Token) -> Optional[int]:
        if i not in self.plain_closers:
            return None
        self._keep(END, self.plain_closers.pop(i), tok, tok.end)
        if len(self.env_stack) > 1:
            self.env_stack.pop()
        return i + 1

    def _punctuation(self, i: int, tok: Token) -> Optional[int]:
        tokens = self.tokens
        if tok.text == "." and i + 2 < self.n and tokens[i + 1].text == "." and tokens[i + 2].text == "." and \
                tokens[i + 1].kind == PUNCT and tokens[i + 2].kind == PUNCT:
            self._keep(CMD, "\\ldots", tok, tokens[i + 2].end)
            return i + 3
        if tok.text != "$":
            return None
        if i in self.resume_text:
            start, end, following, close_end = self.resume_text.pop(i)
            _text_piece(self.out, self.source, start, end, True, close_end)
            return following
        return i + 1

    def _ampersand(self, i: int, tok: Token) -> Optional[int]:
        return i + 1 if self.env_stack[-1] == "rows" else None

    def _row_break(self, i: int, tok: Token) -> Optional[int]:
        j = self._after_vertical_space(i + 1)
        if self.env_stack[-1] != "rows":
            self.out.append(tok)
            return j
        k, goes_on = self._next_row(j)
        if not goes_on:
            self.out.append(tok)
        return k

    def _after_vertical_space(self, j: int) -> int:
        """Past `\\\\[2pt]`'s optional vertical space."""
        tokens, n = self.tokens, self.n
        if j < n and tokens[j].kind == PUNCT and tokens[j].text == "[":
            k = j
            while k < n and tokens[k].kind not in (EOF,) and not (tokens[k].kind == PUNCT and tokens[k].text == "]"):
                k += 1
            if k < n and tokens[k].kind == PUNCT and k - j <= 4:
                return k + 1
        return j

    def _next_row(self, j: int) -> tuple[int, bool]:
        """Where the row after a break (at j, in a statement's rows) starts, past layout, and whether the statement
        goes on there (the break is then dropped)."""
        out = self.out
        while out and out[-1].kind == CMD and out[-1].text == NULL_CLOSE and len(out) > self.scanned:
            out.pop()       # `\right. \\`: the group goes on in the next row
            self.dangling += 1
        k, amp_first = self._first_meaningful(j)
        nxt = self.tokens[k] if k < self.n else None
        prev = out[-1] if out else None
        if nxt is None or nxt.kind in (EOF, END, NEWLINE):
            return k, True
        self._sync()
        inside = len(self.delims) > self.env_base[-1] and self.delims[-1] == "("
        own_row = not amp_first and nxt.kind == PUNCT and nxt.text in "+-" and row_sets_own_relation(self.tokens, k)
        return k, inside or (_is_continuation(nxt) and not own_row) or \
            (prev is not None and _is_continuation(prev)) or \
            prev is None or prev.kind in (NEWLINE, BEGIN) or _stacks_a_relation(self.tokens, k)

    def _first_meaningful(self, k: int) -> tuple[int, bool]:
        """The next row's first meaningful token, past layout (and the `\\left.` that reopens a group), and
        whether an alignment `&` came first."""
        tokens, n = self.tokens, self.n
        amp_first = False
        while k < n:
            t = tokens[k]
            if t.kind == CMD and (t.text[1:] in T.LAYOUT_NOARG or t.text in _ROW_LAYOUT) or t.kind == AMP:
                amp_first = amp_first or t.kind == AMP
                k += 1
            elif self.dangling and t.kind == CMD and t.text[1:] in T.SIZED_OPEN and k + 1 < n and \
                    tokens[k + 1].kind == PUNCT and tokens[k + 1].text == ".":
                k += 2
                self.dangling -= 1
            else:
                break
        return k, amp_first

    def _command(self, i: int, tok: Token) -> Optional[int]:
        for rule in _PREPARE_RULES.get(tok.text[1:], ()):
            following = rule(self, i, tok)
            if following is not None:
                return following
        return None

    # --- commands, by name (`_PREPARE_RULES`) ---------------------------------------------------------

    def _script_synonym(self, i: int, tok: Token) -> Optional[int]:
        mark = T.SCRIPT_SYNONYMS[tok.text[1:]]
        self._keep(SUP if mark == "^" else SUB, mark, tok, tok.end)
        return i + 1

    def _plain_tex_matrix(self, i: int, tok: Token) -> Optional[int]:
        tokens = self.tokens
        if i + 1 >= self.n or tokens[i + 1].kind != LBRACE:
            return None
        k = self.ends(tokens, i + 1)
        if tokens[k].kind != RBRACE:
            return None
        self.plain_closers[k] = T.PLAIN_TEX_MATRICES[tok.text[1:]]
        self.env_stack.append("matrix")
        self._keep(BEGIN, self.plain_closers[k], tok, tokens[i + 1].end)
        return i + 2

    def _plain_tex_row_end(self, i: int, tok: Token) -> Optional[int]:
        if self.env_stack[-1] != "matrix":
            return None
        self._keep(NEWLINE, "\\\\", tok, tok.end)
        return i + 1

    def _three_dots(self, i: int, tok: Token) -> Optional[int]:
        tokens = self.tokens
        if not (i + 2 < self.n and tokens[i + 1].text == "\\cdot" and tokens[i + 2].text == "\\cdot"):
            return None
        self._keep(CMD, "\\cdots", tok, tokens[i + 2].end)
        return i + 3

    def _double_bar(self, i: int, tok: Token) -> Optional[int]:
        nxt = self.tokens[i + 1] if i + 1 < self.n else None
        if nxt is None or nxt.kind != CMD or nxt.text != "\\mid":
            return None
        # `p \mid \mid q`: two condition bars side by side draw the double bar of a divergence
        self._keep(CMD, "\\|", tok, nxt.end)
        return i + 2

    def _sized_delimiter(self, i: int, tok: Token) -> Optional[int]:
        name = tok.text[1:]
        tokens = self.tokens
        nxt = tokens[i + 1] if i + 1 < self.n else None
        if nxt is None:
            return i + 1
        if nxt.kind == PUNCT and nxt.text == ".":
            self._keep(CMD, NULL_OPEN if name in T.SIZED_OPEN else NULL_CLOSE, tok, nxt.end)
            return i + 2
        if nxt.kind == CMD and nxt.text in ("\\middle", "\\big"):
            return i + 1
        if name in T.SIDED_SIZES and nxt.text in T.SIDED_BARS and nxt.kind in (PUNCT, CMD):
            # `\left\|`, `\right|`: the sizing says which side the bar is on; keep that
            nxt = Token(CMD, T.SIDED_BARS[nxt.text][T.SIDED_SIZES[name]], nxt.start, nxt.end, nxt.space_before)
            tokens[i + 1] = nxt
        if nxt.kind == PUNCT and nxt.text in ("<", ">"):
            # `\\left<`, `\\right>`: a sized < or > is TeX's angle bracket, never a comparison
            nxt = Token(CMD, "\\langle" if nxt.text == "<" else "\\rangle", nxt.start, nxt.end, nxt.space_before)
            tokens[i + 1] = nxt
        if name in T.SIZED_OPEN:
            # the delimiter's span starts at \left
            tokens[i + 1] = Token(nxt.kind, nxt.text, tok.start, nxt.end, tok.space_before)
        return i + 1

    def _dropped(self, i: int, tok: Token) -> Optional[int]:
        return i + 1

    def _text(self, i: int, tok: Token) -> Optional[int]:
        tokens, j = self.tokens, i + 1
        if j < self.n and tokens[j].kind == LBRACE:
            return self._text_group(tok, j)
        if j < self.n and tokens[j].kind in (LETTER, NUMBER, PUNCT):
            self._keep(TEXT, tokens[j].text, tok, tokens[j].end)
            return j + 1
        return i + 1

    def _text_group(self, tok: Token, j: int) -> int:
        """`\\text{…}` as one text token, or, around formulas (`\\text{if $t = 0$}`), its prose pieces."""
        tokens, source = self.tokens, self.source
        k = self.ends(tokens, j)
        if tokens[k].kind != RBRACE:
            raise MathParseError(f"missing }} to close {tok.text}{{", source, tokens[j].start)
        dollars = [d for d in range(j + 1, k) if tokens[d].kind == PUNCT and tokens[d].text == "$"]
        if dollars and len(dollars) % 2 == 0 and _plain_prose_around(source, tokens, j, k, dollars):
            # `\text{if $t = 0$}`: the prose is text, the formula inside it is read as math
            _text_piece(self.out, source, tok.start, tokens[dollars[0]].start, tok.space_before)
            for a in range(1, len(dollars), 2):
                after = dollars[a + 1] if a + 1 < len(dollars) else k
                self.resume_text[dollars[a]] = (tokens[dollars[a]].end, tokens[after].start,
                                                after + 1 if after != k else k + 1,
                                                tokens[k].end if after == k else None)
            return dollars[0] + 1
        raw = source[tokens[j].end:tokens[k].start]
        self._keep(TEXT, " ".join(raw.split()) if raw.strip() else raw and " ", tok, tokens[k].end)
        return k + 1

    def _environment(self, i: int, tok: Token) -> Optional[int]:
        tokens, j = self.tokens, i + 1
        if not (j < self.n and tokens[j].kind == LBRACE):
            return None
        k = self.ends(tokens, j)
        env = self.source[tokens[j].end:tokens[k].start].strip()
        if tok.text == "\\begin":
            self.env_stack.append("matrix" if (env in T.MATRIX_ENVS or env in T.CASES_ENVS) else "rows")
            self._keep(BEGIN, env, tok, tokens[k].end)
        else:
            if len(self.env_stack) > 1:
                self.env_stack.pop()
            self._keep(END, env, tok, tokens[k].end)
        return k + 1

    def _starred_operatorname(self, i: int, tok: Token) -> Optional[int]:
        tokens = self.tokens
        if not (i + 1 < self.n and tokens[i + 1].text == "*" and not tokens[i + 1].space_before):
            return None
        self._keep(CMD, "\\operatorname*", tok, tokens[i + 1].end)
        return i + 2

    def _layout_with_arguments(self, i: int, tok: Token) -> Optional[int]:
        # Layout arguments may be a group or a single token (\hspace{1em}, \kern 2pt).
        name = tok.text[1:]
        j = _skip_arguments(self.tokens, i + 1, T.LAYOUT_ARGS[name], single_tokens=True, ends=self.ends)
        if name in ("kern", "mkern", "hskip", "vskip"):
            while j < self.n and self.tokens[j].kind in (NUMBER, LETTER, PUNCT) and \
                    self.tokens[j].text not in "()[]|,;":
                j += 1
        return j

    def _transparent(self, i: int, tok: Token) -> Optional[int]:
        return _skip_arguments(self.tokens, i + 1, T.TRANSPARENT[tok.text[1:]], single_tokens=False, ends=self.ends)


_PrepareRule = Callable[[_Preparation, int, Token], Optional[int]]
_PREPARE_BY_KIND: dict[str, _PrepareRule] = {
    RBRACE: _Preparation._close_brace, CMD: _Preparation._command, PUNCT: _Preparation._punctuation,
    AMP: _Preparation._ampersand, NEWLINE: _Preparation._row_break,
}

# Which command names each pre-pass rule claims, in the order the rules are tried (a rule may pass).
_PREPARE_RULES: dict[str, tuple[_PrepareRule, ...]] = _routes((
    (T.SCRIPT_SYNONYMS, _Preparation._script_synonym),
    (T.PLAIN_TEX_MATRICES, _Preparation._plain_tex_matrix),
    (("cr",), _Preparation._plain_tex_row_end),
    (("cdot",), _Preparation._three_dots),
    (("mid",), _Preparation._double_bar),
    (T.SIZED_OPEN | T.SIZED_CLOSE | T.SIZED_ANY, _Preparation._sized_delimiter),
    (("middle",), _Preparation._dropped),
    (T.TEXT_MACROS | {name for name in T.FONTS if name.startswith("text")} | {"emph"}, _Preparation._text),
    (("begin", "end"), _Preparation._environment),
    (("operatorname",), _Preparation._starred_operatorname),
    (T.LAYOUT_ARGS, _Preparation._layout_with_arguments),
    (T.TRANSPARENT, _Preparation._transparent),
    (T.LAYOUT_NOARG | _SPACING_COMMANDS, _Preparation._dropped),
))


# ---------------------------------------------------------------------------------------------------
# Parser
# ---------------------------------------------------------------------------------------------------

class _Bracketed:
    """A bracket group's content before we know whether it is a call's arguments or a factor."""

    __slots__ = ("open", "close", "items", "given", "params", "divergence", "semicolons", "colon",
                 "start", "end", "bar", "written")

    def __init__(self, open_: str, start: int, written: str = "") -> None:
        self.open = open_
        self.written = written
        """The opener as written (`<` or `\\langle` for the canonical `<`)."""
        self.close = ""
        self.items: list[A.Node] = []
        self.given: list[A.Node] = []
        self.params: list[A.Node] = []
        self.divergence: list[A.Node] = []
        self.semicolons = False
        self.colon = False
        self.bar = False
        self.start = start
        self.end = start


class Parser:
    """One parse of one formula. Use `parse()` in `papermath.math`, not this class directly."""

    def __init__(self, source: str, strict: bool = False, functions: frozenset[str] = frozenset()) -> None:
        self.source = source
        self.strict = strict
        self.functions = frozenset(f.lstrip("\\") for f in functions)
        self.warnings: list[str] = []
        if len(source) > 16 * MAX_TOKENS:  # not even tokenized: 16 characters a token is far past any formula
            raise MathParseError(f"formula too long: {len(source)} characters (papermath's limit is "
                                 f"{MAX_TOKENS} tokens)", source, 16 * MAX_TOKENS)
        raw = tokenize(source)
        if len(raw) > MAX_TOKENS + 1:  # + the EOF token
            raise MathParseError(f"formula too long: {len(raw) - 1} tokens (papermath's limit is {MAX_TOKENS})",
                                 source, raw[MAX_TOKENS].start)
        self.tokens = _bare_words(_prepare(source, _styled_joiners(raw)))
        self.tokens.extend([self.tokens[-1]] * 8)
        self._brace = _Ends(self.tokens)
        # Each atom is parsed once per (position, context): a speculative parse that is abandoned and redone
        # (`\hat{\hat{…}}`, `{\cmd …}`) reuses it, so nesting costs linear time, not 2^depth.
        self._atoms: dict[tuple, tuple | MathParseError] = {}
        self._plain_run = (0, 0, -1)  # (start, stop, version) of the last run `_identifier_end` found no name in
        self._version = 0           # bumped when a token is split (`_one_digit`): the memo is then stale
        self.depth = 0              # current nesting (parse_postfix / parse_unary), bounded by MAX_DEPTH
        self.pos = 0
        # the opener of the innermost ( ), [ ], | | group ("" outside one, and in braces and scripts):
        # a bar there closes the group or separates, unless it opens a pair of its own
        self.bar_stop = ""
        self._pending_under: Optional[A.Node] = None
        self._pending_over: Optional[A.Node] = None
        self.script_depth = 0      # >0 inside a sub/superscript: a lone bar there is a relation (`p_{X|Y}`)
        self.prose_depth = 0       # >0 inside what a text connective qualifies (`\text{if } v_i \text{ is in …}`)
        self.braced: set[tuple[int, int]] = set()  # spans of brace groups' contents: a reduction ends inside
        self._unclosed: Optional[tuple[int, frozenset[int]]] = None  # (token count, `(`s no `)` closes)

    # --- errors ----------------------------------------------------------------------------------
    def error(self, message: str, offset: Optional[int] = None) -> MathParseError:
        if offset is None:
            offset = self.peek().start
        return MathParseError(message, self.source, offset)

    def warn(self, message: str, offset: Optional[int] = None) -> None:
        if offset is None:
            offset = self.peek().start
        self.warnings.append(f"{message} (at offset {offset})")

    def recoverable(self, message: str, offset: Optional[int] = None) -> None:
        """A problem tolerant mode reports and gets past; strict mode raises."""
        if self.strict:
            raise self.error(message, offset)
        self.warn(message, offset)

    # --- token access ----------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        # the token list ends with EOF padding, so a short look-ahead never runs off the end
        return self.tokens[self.pos + k]

    def next(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != EOF:
            self.pos += 1
        return tok

    def last_end(self) -> int:
        return self.tokens[self.pos - 1].end if self.pos > 0 else 0

    def at_punct(self, text: str) -> bool:
        tok = self.peek()
        return tok.kind == PUNCT and tok.text == text

    def expect_rbrace(self, opened: Token) -> Token:
        tok = self.peek()
        if tok.kind != RBRACE:
            raise self.error("missing } to close the { opened here", opened.start)
        return self.next()

    # --- entry points ----------------------------------------------------------------------------
    def parse_formula(self) -> A.Node:
        statements: list[A.Node] = []
        pending_row = True          # a new row starts: the next statement is not juxtaposed
        while True:
            tok = self.peek()
            kind = tok.kind
            if kind == EOF:
                break
            if kind == NEWLINE:
                self.next()
                pending_row = True
                continue
            if kind == AMP:
                self.next()
                continue
            stray = None
            if kind == RBRACE:
                stray = "unbalanced }: no { to close"
            elif kind == END:
                stray = f"\\end{{{tok.text}}} without \\begin"
            elif kind == PUNCT and tok.text in ")]":
                stray = f"unbalanced {tok.text}: nothing to close"
            elif kind == CMD and tok.text == NULL_CLOSE:
                stray = "\\right. without \\left"
            elif statements and not pending_row and ((kind == PUNCT and tok.text in "|>") or
                                                      (kind == CMD and (tok.text in T.CLOSE_DELIMS or
                                                                        tok.text in T.CONDITION_BARS))):
                stray = f"unexpected {tok.text}"
            if stray is not None:
                self.recoverable(stray, tok.start)
                self.next()
                continue
            if statements and not pending_row:
                # tolerant recovery only: glue what follows a stray token to the statement before it
                if self.strict:
                    raise self.error(f"unexpected {tok.text or tok.kind}")
                rest = self.parse_sequence()
                statements[-1] = self._juxtapose(statements[-1], rest)
                continue
            statements.append(self.parse_sequence())
            pending_row = False
        statements = [st for st in statements if not isinstance(st, A.Empty)] or statements[:1]
        if not statements:
            self.recoverable("empty formula", 0)
            return A.Empty(span=(0, len(self.source)))
        if len(statements) == 1:
            return self._bounded(statements[0])
        return self._bounded(A.Rows(tuple(statements), span=(statements[0].span[0], statements[-1].span[1])))

    def _bounded(self, tree: A.Node) -> A.Node:
        """The tree, if no path in it is longer than MAX_DEPTH (a chain `a + b + …` nests one level per
        operator); else a MathParseError where it crosses the limit. Every later stage relies on this."""
        stack = [(tree, 1)]
        while stack:
            node, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise self.error(f"formula nested more than {MAX_DEPTH} levels deep (papermath's limit)",
                                 node.span[0] if node.span else 0)
            stack.extend((child, depth + 1) for child in A.children(node))
        return tree

    def _juxtapose(self, left: A.Node, right: A.Node) -> A.Node:
        if isinstance(left, A.Empty):
            return right
        if isinstance(right, A.Empty):
            return left
        return A.Product((left, right), span=(left.span[0], right.span[1]))

    # --- statements --------------------------------------------------------------------------------
    def parse_sequence(self) -> A.Node:
        """Comma/semicolon separated statements (trailing punctuation dropped), with the conditions that qualify
        them: `\\text{for } i = 1, \\ldots, k`, `\\text{ s.t. } …`, `\\forall x', x \\in S`, `n = 0, 1, \\ldots`."""
        start = self.peek().start
        items = [self._sequence_item()]
        seps: list[str] = []
        while True:
            tok = self.peek()
            if _is_connective(tok) or (tok.kind == CMD and tok.text in _QUANTIFIERS) or self._prose_words(tok):
                seps.append(",")
                items.append(self._condition())
                continue
            if _is_joiner(tok) and not self._ends_statement(self.peek(1)):
                self.next()  # `B = 2 \quad \text{and} \quad C = 1`: two statements
                seps.append(",")
                items.append(self._sequence_item())
                continue
            if tok.kind == PUNCT and tok.text in ",;.":
                self.next()
                nxt = self.peek()
                if self._ends_statement(nxt):
                    break
                if tok.text == ".":
                    self.recoverable("unexpected .", tok.start)
                    seps.append(",")
                    items.append(self._sequence_item())
                    continue
                seps.append(tok.text)
                if _is_joiner(nxt) and not self._ends_statement(self.peek(1)):
                    self.next()  # `a \le b, \quad \text{and} \quad c \le d`: the conjunction after the comma
                items.append(self._sequence_item())
                continue
            break
        items, seps = _enumerations(items, seps)
        items, seps = _listed_left_side(items, seps)
        if len(items) == 1:
            return items[0]
        # the sequence ends with its last item (a trailing `,` or `;` is punctuation, not part of it)
        return A.Sequence(tuple(items), tuple(seps), span=(start, max(items[-1].span[1], start)))

    def _sequence_item(self) -> A.Node:
        tok = self.peek()
        if _is_connective(tok) or (tok.kind == CMD and tok.text in _QUANTIFIERS) or self._prose_words(tok):
            return self._condition()
        return self.parse_relation()

    def _prose_words(self, tok: Token) -> bool:
        """Inside what a text connective qualifies, words set as text go on with the sentence
        (`\\text{if } v_i \\text{ is in the top } k \\text{ elements of } v`), unless a bracket follows a name."""
        if not self.prose_depth or tok.kind != TEXT or _is_joiner(tok):
            return False
        words = tok.text.split()
        if not words or not all(w.strip(".,;:").isalpha() for w in words):
            return False
        nxt = self.peek(1)
        if nxt.kind == PUNCT and nxt.text in "([" and len(words) == 1:
            return False  # `\text{softmax}(z)`: a function named in the prose
        return len(words) >= 2 or (words[0].islower() and len(words[0]) >= 3)

    def _condition(self) -> A.Node:
        """A condition: the connective (`\\text{for }`, `\\forall`) and everything it qualifies, to the end of
        the statement. After a quantifier, the variables before a membership are one list (`\\forall x', x \\in S`)."""
        tok = self.next()
        note: A.Node = A.Text(tok.text, span=(tok.start, tok.end)) if tok.kind == TEXT else \
            A.Symbol(tok.text, span=(tok.start, tok.end))
        if self._ends_statement(self.peek()) or (self.peek().kind == PUNCT and self.peek().text in ",;."):
            return note
        self.prose_depth += tok.kind == TEXT
        try:
            body = self.parse_sequence()
        finally:
            self.prose_depth -= tok.kind == TEXT
        if tok.kind == CMD:
            body = _quantified(body)
        return A.Annotated(body, note, "condition", span=(tok.start, body.span[1]))

    def _ends_statement(self, tok: Token) -> bool:
        return tok.kind in (EOF, NEWLINE, RBRACE, END, AMP) or (tok.kind == PUNCT and tok.text in ")]") or \
            (tok.kind == CMD and tok.text in (NULL_CLOSE, "\\}", "\\rangle", "\\rVert", "\\rvert", "\\rfloor",
                                               "\\rceil"))

    def _relation_at(self) -> Optional[tuple[str, int]]:
        """If a relation starts here: (canonical relation, number of tokens)."""
        tok = self.peek()
        kind, text = tok.kind, tok.text
        if kind == PUNCT:
            if text == ":":
                nxt = self.peek(1)
                if nxt.kind == PUNCT and nxt.text == "=" and not nxt.space_before:
                    return ":=", 2
                return ":", 1
            if text == "=":
                nxt = self.peek(1)
                if nxt.kind == PUNCT and nxt.text == ":" and not nxt.space_before:
                    return "=:", 2
                return "=", 1
            if text in ("<", ">"):
                nxt = self.peek(1)
                if nxt.kind == PUNCT and nxt.text == "=" and not nxt.space_before:
                    return ("\\le" if text == "<" else "\\ge"), 2
                return text, 1
            if text == "|" and self.script_depth and not self.bar_stop and not self._bar_opens_pair():
                return "\\mid", 1
            return None
        if kind == CMD:
            if text in T.RELATIONS:
                return T.RELATIONS[text], 1
            if text == "\\not":
                nxt = self.peek(1)
                rel = T.RELATIONS.get(nxt.text) or ("=" if nxt.text == "=" else None) or \
                    ("\\mid" if nxt.text in ("\\mid", "|") else None)
                if rel is None and nxt.text in ("<", ">"):
                    rel = nxt.text
                if rel is not None:
                    return T.NEGATABLE.get(rel, "\\not" + rel if rel.startswith("\\") else "\\not" + rel), 2
                return None
            if text in ("\\mid", "\\divides") and not self.bar_stop:
                return "\\mid", 1
            if text in ("\\parallel",):
                return "\\parallel", 1
        return None

    def _stacked_relation_at(self) -> bool:
        """`\\overset{…}{=}`, `\\stackrel{…}{\\sim}`, `\\xrightarrow{…}`: a relation with a note."""
        tok = self.peek()
        if tok.kind != CMD or tok.text not in ("\\overset", "\\stackrel", "\\underset"):
            return False
        toks = self.tokens
        first = self.pos + 1
        if first >= len(toks) or toks[first].kind == EOF:
            return False
        if toks[first].kind == CMD and (toks[first].text in T.OPEN_DELIMS or toks[first].text == NULL_OPEN):
            return False
        j = self._brace(toks, first) + 1 if toks[first].kind == LBRACE else first + 1
        if j >= len(toks):
            return False
        if toks[j].kind == LBRACE:
            k = self._brace(toks, j)
            inner = toks[j + 1:k]
        else:
            inner = [toks[j]]
        if not inner:
            return False
        head = inner[0]
        if head.kind == PUNCT and head.text in ("=", "<", ">", ":"):
            return len(inner) <= 2
        return head.kind == CMD and head.text in T.RELATIONS and len(inner) == 1

    def parse_relation(self) -> A.Node:
        start = self.peek().start
        if self._relation_at() is not None or self._stacked_relation_at():
            left: A.Node = A.Empty(span=(start, start))
        else:
            left = self.parse_additive()
        operands = [left]
        ops: list[str] = []
        notes: list[Optional[A.Node]] = []
        while True:
            rel = self._relation_at()
            note: Optional[A.Node] = None
            if rel is not None:
                op, count = rel
                tok = self.peek()
                for _ in range(count):
                    self.next()
                if tok.text in ("\\xrightarrow", "\\xleftarrow", "\\xmapsto"):
                    if self.at_punct("["):
                        self._skip_optional()
                    if self.peek().kind == LBRACE:
                        note = self.parse_arg()
            elif self._stacked_relation_at():
                self.next()
                note = self.parse_arg()
                opened = self.peek()
                if opened.kind == LBRACE:
                    self.next()
                rel2 = self._relation_at()
                if rel2 is None:
                    raise self.error("\\overset/\\stackrel: expected a relation to stack on")
                op = rel2[0]
                for _ in range(rel2[1]):
                    self.next()
                if opened.kind == LBRACE:
                    self.expect_rbrace(opened)
            else:
                break
            ops.append(op)
            notes.append(note)
            if self._starts_operand(self.peek()):
                operands.append(self.parse_additive())
            else:
                here = self.peek().start
                operands.append(A.Empty(span=(here, here)))
        if not ops:
            return left
        for i, op in enumerate(ops):
            # `\alpha_t \in (0,1)`: after a membership sign, a pair in parentheses is an open interval
            right = operands[i + 1]
            if op in ("\\in", "\\notin") and isinstance(right, A.Tuple) and len(right.items) == 2 and \
                    right.open == "(" and right.close == ")":
                operands[i + 1] = A.Interval(right.items[0], right.items[1], False, False, span=right.span)
        if ops == ["="]:
            operands = _differential_equation(operands)
        end = self.last_end()
        if len(ops) >= 2 and ops[0] == ":" and all(op in _ARROWS for op in ops[1:]) and not any(notes):
            # `f: \mathcal X \to \mathcal Y`, `T_{ij}: x \mapsto \zeta`: f names the map from X to Y
            inner = A.Relation(tuple(operands[1:]), tuple(ops[1:]), span=(operands[1].span[0], end))
            return A.Relation((operands[0], inner), (":",), span=(start, end))
        return A.Relation(tuple(operands), tuple(ops),
                          tuple(notes) if any(n is not None for n in notes) else (), span=(start, end))

    def _skip_optional(self) -> None:
        """Skip `[ … ]`."""
        depth = 0
        while self.peek().kind != EOF:
            tok = self.next()
            if tok.kind == PUNCT and tok.text == "[":
                depth += 1
            elif tok.kind == PUNCT and tok.text == "]":
                depth -= 1
                if depth == 0:
                    return

    # --- operators ---------------------------------------------------------------------------------
    def _binary_at(self, level: int) -> Optional[str]:
        tok = self.peek()
        if tok.kind in (PUNCT, CMD):
            entry = T.BINARY_OPS.get(tok.text)
            if entry is not None and entry[1] == level:
                return entry[0]
        return None

    def parse_additive(self) -> A.Node:
        return self._left_associative(T.ADDITIVE, self.parse_multiplicative)

    def parse_multiplicative(self) -> A.Node:
        tok = self.peek()
        if tok.kind in (PUNCT, CMD) and tok.text in ("+", "-", "\\pm", "\\mp") and self._starts_operand(self.peek(1)):
            # `+ 2 * \langle a, b \rangle`, `-\frac{1}{2} \cdot x`: a sign applies to the whole term, as a sign
            # before a juxtaposed product does (`-a b`)
            self.next()
            self._deeper()
            try:
                operand = self.parse_multiplicative()
            finally:
                self.depth -= 1
            return A.UnaryOp(T.UNARY_OPS[tok.text], operand, span=(tok.start, self.last_end()))
        return self._left_associative(T.MULTIPLICATIVE, self.parse_unary)

    def _left_associative(self, level: int, operand) -> A.Node:
        """One precedence level of left-associative infix operators over `operand`."""
        start = self.peek().start
        left = operand()
        while True:
            op = self._binary_at(level)
            if op is None:
                break
            optok = self.next()
            if not self._starts_operand(self.peek()):
                self.recoverable(f"missing operand after {optok.text}", optok.start)
                right: A.Node = A.Empty(span=(optok.end, optok.end))
            else:
                right = operand()
            if op == "/":
                deriv = self._derivative(left, right)
                if deriv is not None:
                    left = replace(deriv, span=(start, self.last_end()))
                    continue
            if level == T.ADDITIVE:
                extended = _extend_scope(left, op, right, self.braced) or \
                    _close_integral(left, op, right, start, self.braced)
                if extended is not None:
                    left = extended
                    continue
            left = A.BinOp(op, left, right, span=(start, self.last_end()))
        return left

    def parse_unary(self) -> A.Node:
        tok = self.peek()
        if tok.kind in (PUNCT, CMD) and tok.text in T.UNARY_OPS:
            nxt = self.peek(1)
            if self._starts_operand(nxt):
                self.next()
                self._deeper()
                try:
                    operand = self.parse_unary()
                finally:
                    self.depth -= 1
                return A.UnaryOp(T.UNARY_OPS[tok.text], operand, span=(tok.start, self.last_end()))
            # a lone sign used as a placeholder or a superscript mark (`x^+`, `(\cdot)`)
            self.next()
            return A.Symbol(tok.text, span=(tok.start, tok.end))
        return self.parse_product()

    def _starts_operand(self, tok: Token) -> bool:
        kind = tok.kind
        if kind in (LETTER, NUMBER, LBRACE, TEXT, BEGIN, SUB, SUP, PRIME):
            return True
        if kind == PUNCT:
            text = tok.text
            if text in "([|":
                return True
            if text in T.UNARY_OPS:
                return True
            return text in "?@\"'`"
        if kind == CMD:
            text = tok.text
            if text in T.RELATIONS or text in ("\\not",):
                return False
            if text in T.CLOSE_DELIMS and text not in T.OPEN_DELIMS:
                return False
            if text == NULL_CLOSE:
                return False
            if text == "\\mid":
                return False
            if text in T.BINARY_OPS:
                return text in T.UNARY_OPS or (text[1:] in T.PREFIX_BIG_BINARY and self.peek(1).kind in (SUB, SUP))
            name = text[1:]
            if name in T.INFIX_GENFRAC:
                return False
            if text in ("\\mid", "\\parallel"):
                return False
            return True
        return False

    def _starts_factor(self, tok: Token) -> bool:
        """Can juxtaposition continue with this token?"""
        kind = tok.kind
        if (kind == TEXT and (_is_connective(tok) or _is_joiner(tok))) or (kind == CMD and tok.text in _QUANTIFIERS) or \
                self._prose_words(tok):
            return False  # `a_i \\text{ for } i = 1`: prose that qualifies, not a factor
        if kind in (LETTER, NUMBER, LBRACE, TEXT, BEGIN):
            return True
        if kind == PUNCT:
            text = tok.text
            if text in "([":
                return True
            if text == "|":
                if self.bar_stop or self.script_depth:
                    return self._bar_opens_pair()
                return True
            return text in "?@\"`"
        if kind == CMD:
            text = tok.text
            if text in T.BINARY_OPS or text in T.RELATIONS or text in T.UNARY_OPS:
                return False
            if text in T.CLOSE_DELIMS and text not in T.OPEN_DELIMS:
                return False
            if text in (NULL_CLOSE, "\\not", "\\mid", "\\parallel"):
                return False
            if text in _SYMMETRIC_BARS and self.bar_stop:
                return self._bar_opens_pair()
            if text[1:] in T.INFIX_GENFRAC:
                return False
            if text[1:] in T.STACK_MACROS and self._stacked_relation_at():
                return False
            return True
        return False

    def parse_product(self, stop_at_operators: bool = False, stop_after_call: bool = False) -> A.Node:
        """Juxtaposed factors. With `stop_after_call` (a prefix operator's operand: `\\nabla F(z) (y - z)`,
        `\\exp Q(b) \\frac{c}{d}`) the operand ends after a factor that closes an application's brackets."""
        start = self.peek().start
        first = self.parse_postfix()
        factors = [first]
        extents = [(start, self.last_end())]
        while self._starts_factor(self.peek()):
            if stop_at_operators and self._starts_operator(self.peek()):
                break
            if stop_after_call and _ends_in_call(factors[-1]):
                break
            if self._evaluation_bar():
                break
            here = self.peek().start
            factors.append(self.parse_postfix())
            extents.append((here, self.last_end()))
        factors = _join_factors(factors, extents)
        node = factors[0] if len(factors) == 1 else A.Product(tuple(factors), span=(start, self.last_end()))
        if self._evaluation_bar():
            # `\frac{\partial}{\partial a} F(v, a) \mid_{a = 0}`: evaluated at a = 0
            self.next()
            marker = self.next()
            note = self.parse_script_arg(marker)
            node = A.Annotated(node, note, "evaluated", span=(start, self.last_end()))
        return node

    def _evaluation_bar(self) -> bool:
        """A bar with a subscript right after an expression, outside any bracket: `… \\big|_{a = 0}`."""
        tok = self.peek()
        return not self.bar_stop and not self.script_depth and self.peek(1).kind == SUB and \
            ((tok.kind == CMD and tok.text in T.CONDITION_BARS) or (tok.kind == PUNCT and tok.text == "|"))

    def _starts_operator(self, tok: Token) -> bool:
        """Does a prefix operator (function, big operator) start here? Used to end a function's operand."""
        if tok.kind != CMD:
            return False
        name = tok.text[1:]
        return (name in T.FUNCTION_MACROS or name in T.BIG_OPERATORS or name in T.LIMIT_OPERATORS
                or name == "nabla" or name == "operatorname*" or name == "mathop")

    # --- postfix -------------------------------------------------------------------------------------
    def _deeper(self) -> None:
        """One more level of recursion (parse_postfix, parse_atom, parse_unary): a formula nested past the
        limit stops here, where it crosses it, before Python's own recursion limit is reached. The tree's
        depth is checked exactly at the end (`_bounded`); this guard counts each of the three entry points."""
        self.depth += 1
        if self.depth > _GUARD_LEVELS:
            raise self.error(f"formula nested more than {MAX_DEPTH} levels deep (papermath's limit)")

    def parse_postfix(self) -> A.Node:
        self._deeper()
        try:
            return self._parse_postfix()
        finally:
            self.depth -= 1

    def _parse_postfix(self) -> A.Node:
        start = self.peek().start
        braced = self.peek().kind == LBRACE
        atom, role = self.parse_atom()
        if role.startswith(("bigop", "limop", "expect")):
            return self._reduction(atom, role, start)
        if role == "nabla":
            return self._gradient(atom, start)
        if role == "func":
            return self._function(atom, start)
        if role == "indicator":
            return self._indicator(atom, start)
        if braced and isinstance(atom, (A.Symbol, A.Text)):
            atom = self._respan(atom, (start, self.last_end()))  # `{x}_1`: the base is what the braces hold
        return self._postfix_loop(atom, start)

    def _postfix_loop(self, atom: A.Node, start: int, callable_: bool = True) -> A.Node:
        while True:
            tok = self.peek()
            kind = tok.kind
            if kind in (SUB, SUP, PRIME):
                sub, sup, primes = self._read_scripts()
                if isinstance(atom, A.Symbol) and not primes and atom.name.startswith("\\") and \
                        (atom.name[1:] in T.BIG_OPERATORS or atom.name[1:] in T.LIMIT_OPERATORS) and \
                        atom.font is None and not atom.accents and atom.sub_label is None and atom.sup_label is None:
                    # an operator that reached its limits late (`{\begin{aligned}\lim\end{aligned}}_x`)
                    role = "bigop" if atom.name[1:] in T.BIG_OPERATORS else "limop"
                    atom = self._make_reduction(self._op_name(atom, role), atom, sub, sup, None, "",
                                                (start, self.last_end()))
                    continue
                atom = self._attach(atom, sub, sup, primes, start)
                callable_ = True
                continue
            if kind == PUNCT and tok.text == "!":
                self.next()
                atom = A.Factorial(atom, span=(start, tok.end))
                continue
            braced = kind == LBRACE and self.peek(1).kind in (PUNCT, CMD) and self.peek(1).text in ("[", "\\{")
            if ((kind == PUNCT and tok.text == "[") or (kind == CMD and tok.text in ("\\{", "\\lbrace")) or braced) and \
                    callable_ and self._drawn_from(atom, start) and (tok.text != "[" or self._bracket_has_comma()):
                # `t \sim U[0, 1]`, `k \sim \mathcal{U}\{1, …, K\}`: a distribution over the interval or set written
                # after it, not a position in it
                support, _ = self.parse_atom()
                span = (start, self.last_end())
                if braced and not isinstance(support, (A.Interval, A.SetLiteral, A.SetBuilder)):
                    atom = A.Product((atom, support), span=span)  # `U {[a + b]}`: braces around something else
                else:
                    # (`U {[0, 1]}` is how the printer writes it back: the braces only group)
                    atom = A.Apply(atom, (support,), (), (), "formula", "", span=span)
                callable_ = False
                continue
            if kind == PUNCT and tok.text in "([" and callable_:
                certainty = self._call_candidate(atom)
                if certainty is None and tok.text == "(" and isinstance(atom, A.Symbol) and atom.name == "d" and \
                        self._bracket_has_comma():
                    certainty = "ambiguous"  # `d(g, h)`: a distance of two things, not a differential
                if certainty is None and tok.text == "[" and isinstance(atom, A.Apply) and atom.brackets == "()" and \
                        not tok.space_before and self._short_index_ahead(plain=True):
                    # `{\text{sorted}}_j(c_j)[n]`: the n-th entry of what the function returns
                    group = self._bracketed()
                    atom = A.Indexed(atom, _bracket_indices(group.items + group.params), span=(start, group.end))
                    continue
                if certainty is None:
                    break
                if tok.text == "[" and certainty not in ("known", "declared") and not self._bracket_has_bar():
                    if not self._index_bracket(atom) and self._functional_bracket():
                        # `S[\pi_\theta](s_t)`: a functional of \pi_\theta, its value applied to s_t
                        group = self._bracketed()
                        atom = A.Apply(atom, tuple(group.items + group.params), (), (), "formula", "[]",
                                       span=(start, group.end))
                        call = self._bracketed()
                        atom = self._apply(atom, call, "formula", start)
                        continue
                    if not self._index_bracket(atom):
                        break
                    # `x[n]`, `z[i][j]`, `z[i-1][r[j]]`: an array indexed by position
                    group = self._bracketed()
                    items = _bracket_indices(group.items + group.params)
                    if isinstance(atom, A.Indexed):
                        atom = A.Indexed(atom.base, atom.indices + items, span=(start, group.end))
                    else:
                        atom = A.Indexed(atom, items, span=(start, group.end))
                    continue
                group = self._bracketed()
                if tok.text == "[" and certainty not in ("known", "declared") and not (group.given or group.bar or
                                                                                    group.divergence):
                    certainty = "scalar"  # `x[n]`: a bracket after an unknown name is not a call
                atom = self._apply(atom, group, certainty, start)
                continue
            break
        return atom

    _INDEX_PUNCT = frozenset("+-:,[]()'")

    def _drawn_from(self, atom: A.Node, start: int) -> bool:
        """Is `atom` (starting at `start`) a distribution's name right after `\\sim`: a capital or calligraphic
        letter with nothing written on it?"""
        if not (isinstance(atom, A.Symbol) and atom.sub_label is None and atom.sup_label is None and
                not atom.accents and (atom.name.isupper() or atom.font == "cal") and len(atom.name) == 1):
            return False
        k = self.pos - 1
        while k >= 0 and self.tokens[k].start >= start:
            k -= 1
        return k >= 0 and self.tokens[k].kind == CMD and self.tokens[k].text == "\\sim"

    def _functional_bracket(self) -> bool:
        r"""Is the `[ … ]` here closed right before `(`, the value of a functional applied (`S[\pi](s)`)?"""
        depth = 0
        i = self.pos
        toks = self.tokens
        while i < len(toks) and toks[i].kind not in (EOF, END):
            tok = toks[i]
            if _opens_group(tok):
                depth += 1
            elif _closes_group(tok):
                depth -= 1
                if depth == 0:
                    nxt = toks[i + 1] if i + 1 < len(toks) else None
                    return tok.text == "]" and nxt is not None and nxt.kind == PUNCT and nxt.text == "(" and \
                        not nxt.space_before
            i += 1
        return False

    def _index_bracket(self, atom: A.Node) -> bool:
        """Is the `[ … ]` here a position after a name (`x[n]`, `z[i-1][r[j]]`)? Only short index arithmetic
        after a plain name; `\\beta [a + b]`, `S[\\frac{…}]`, `x[0, 1)` are something else."""
        name = atom
        while isinstance(name, (A.Indexed, A.Power, A.Primed)):
            name = name.base  # `P_i^k[t_i]`
        if not isinstance(name, A.Symbol) or name.name in T.SCALAR_LETTERS and name.name.startswith("\\") or \
                name.name.lstrip("\\") in T.FUNCTION_MACROS:
            return False
        return self._short_index_ahead()

    def _short_index_ahead(self, plain: bool = False) -> bool:
        """Is the `[ … ]` here short index arithmetic (`[n]`, `[i-1]`, `[r[j]]`)? `plain`: letters, digits, `+`,
        `-` only, a few of them (`f(x)[1 - p(x)]` is a product)."""
        if plain:
            toks = self.tokens
            i = self.pos + 1
            while i < len(toks) and i - self.pos <= 6:
                tok = toks[i]
                if tok.kind == PUNCT and tok.text == "]":
                    return i > self.pos + 1
                if not (tok.kind in (LETTER, NUMBER) and (tok.kind == NUMBER or tok.text.islower())) and \
                        not (tok.kind == PUNCT and tok.text in "+-"):
                    return False
                i += 1
            return False
        depth = 0
        i = self.pos
        toks = self.tokens
        count = 0
        listed = scripted = False  # a top-level comma seen; an indexed position seen
        while i < len(toks):
            tok = toks[i]
            count += 1
            if count > 16 or tok.kind in (EOF, END, NEWLINE, AMP):
                return False
            if tok.kind == PUNCT and tok.text in "([":
                depth += 1
            elif tok.kind == PUNCT and tok.text in ")]":
                depth -= 1
                if depth == 0:
                    return tok.text == "]" and count > 2
            elif tok.kind == PUNCT and tok.text == "," and depth == 1:
                if scripted:
                    return False
                listed = True
            elif tok.kind == PUNCT and tok.text not in self._INDEX_PUNCT:
                return False
            elif tok.kind == LETTER and not tok.text.islower():
                return False  # `W[A]`, `\\Theta[\\phi]`: a functional of A, not row A
            elif tok.kind == SUB:
                # `P_i^k[t_i]`, `\\bm{x}[t_N]`, `x[t_{N-1}]`: a position may itself be indexed, by any letter
                end = self._plain_script_end(i + 1)
                if end is None or listed:
                    return False  # `W_s [h_{t-1}, x_t]`: indexed quantities listed are a concatenation
                scripted = True
                count += end - i - 1
                i = end
                continue
            elif tok.kind not in (LETTER, NUMBER, PUNCT, PRIME):
                return False
            i += 1
        return False

    def _plain_script_end(self, i: int) -> Optional[int]:
        """Where a subscript of letters, digits, `+` and `-` that starts at token `i` ends (`N`, `{N-1}`);
        None when it holds anything else."""
        toks = self.tokens
        if toks[i].kind in (LETTER, NUMBER):
            return i + 1
        if toks[i].kind != LBRACE:
            return None
        j = i + 1
        while j < len(toks) and j - i <= 8:
            tok = toks[j]
            if tok.kind == RBRACE:
                return j + 1 if j > i + 1 else None
            if not (tok.kind in (LETTER, NUMBER) or (tok.kind == PUNCT and tok.text in "+-")):
                return None
            j += 1
        return None

    def _bracket_has_bar(self) -> bool:
        """Does the bracket group starting here hold a top-level `\\|`, `||`, `|` or `\\mid`?"""
        depth = 0
        toks = self.tokens
        i = self.pos
        while i < len(toks):
            tok = toks[i]
            if tok.kind == EOF:
                return False
            if _opens_group(tok):
                depth += 1
            elif _closes_group(tok):
                depth -= 1
                if depth <= 0:
                    return False
            elif depth == 1 and ((tok.kind == PUNCT and tok.text == "|") or
                                 (tok.kind == CMD and (tok.text in T.DIVERGENCE_BARS or tok.text == "\\mid"))):
                return True
            i += 1
        return False

    def _bracket_has_comma(self) -> bool:
        """Does the bracket group starting here hold a top-level comma (`[a, b]`)?"""
        depth = 0
        toks = self.tokens
        i = self.pos
        while i < len(toks):
            tok = toks[i]
            if tok.kind in (EOF, END):
                return False
            if _opens_group(tok):
                depth += 1
            elif _closes_group(tok):
                depth -= 1
                if depth <= 0:
                    return False
            elif depth == 1 and tok.kind == PUNCT and tok.text == ",":
                return True
            i += 1
        return False

    def _bar_at(self, i: int) -> Optional[tuple[str, int]]:
        """The bar starting at token i, if any: (`|` or `||`, how many tokens it takes)."""
        tok = self.tokens[i]
        if tok.kind == PUNCT and tok.text == "|":
            nxt = self.tokens[i + 1]
            if nxt.kind == PUNCT and nxt.text == "|" and not nxt.space_before:
                return "||", 2
            return "|", 1
        if tok.kind == CMD and tok.text in _SYMMETRIC_BARS:
            return _SYMMETRIC_BARS[tok.text], 1
        return None

    def _bar_opens_pair(self, after_factor: bool = True) -> bool:
        """Does the bar here open a norm or an absolute value (`[a \\|u\\|^2]`, `(s |x|)`, `e^{-a|x|^2}`)? Only if
        it does not close the group it is in, and the same bar closes it, around something, before that group
        ends or a comma, relation or condition bar (`T.BAR_PAIR_STOPS`) says the bar separates (`p(x | y, z)`,
        `p_{X|Y}`). After a factor, a bar in a `T.BAR_SEPARATED_GROUPS` group (a bra-ket) separates."""
        bar = self._bar_at(self.pos)
        if bar is None:
            return False
        kind, width = bar
        if self.bar_stop == kind or (after_factor and self.bar_stop in T.BAR_SEPARATED_GROUPS):
            return False
        i = self.pos + width
        after = self._bar_at(i)
        if after is not None and after[0] == kind:
            return False  # nothing between the bars: `x | |y|` is a condition bar before an absolute value
        depth = 0
        toks = self.tokens
        while i < len(toks):
            tok = toks[i]
            if tok.kind in (EOF, NEWLINE, AMP, END):
                return False
            if _opens_group(tok):
                depth += 1
            elif _closes_group(tok):
                depth -= 1
                if depth < 0:
                    return False
            elif depth == 0:
                other = self._bar_at(i)
                if other is not None:
                    if other[0] == kind:
                        return True
                    i += other[1]  # a bar of the other kind: an absolute value inside a norm, or around it
                    continue
                if tok.text in T.BAR_PAIR_STOPS and tok.kind in (PUNCT, CMD):
                    return False
            i += 1
        return False

    def _bar_separates(self) -> bool:
        """Inside a bracket group, is the token here a bar that closes the group or separates its parts?"""
        return bool(self.bar_stop) and self._bar_at(self.pos) is not None and not self._bar_opens_pair()

    def _read_scripts(self) -> tuple[Optional[A.Node], Optional[A.Node], int]:
        sub: Optional[A.Node] = None
        sup: Optional[A.Node] = None
        primes = 0
        while True:
            tok = self.peek()
            if tok.kind == PRIME:
                if sup is not None:
                    break
                self.next()
                primes += 1
                continue
            if tok.kind == SUB:
                if sub is not None:
                    break
                self.next()
                sub = self.parse_script_arg(tok)
                continue
            if tok.kind == SUP:
                if sup is not None:
                    break
                self.next()
                sup = self.parse_script_arg(tok)
                continue
            break
        return sub, sup, primes

    def parse_script_arg(self, marker: Token) -> A.Node:
        tok = self.peek()
        kind = tok.kind
        if kind == LBRACE:
            self.next()
            saved = self.bar_stop
            self.bar_stop = ""
            self.script_depth += 1
            try:
                node = self._group_content(tok)
            finally:
                self.script_depth -= 1
            self.bar_stop = saved
            return node
        if kind == LETTER:
            self.next()
            return A.Symbol(tok.text, span=(tok.start, tok.end))
        if kind == NUMBER:
            return self._one_digit()
        if kind == PRIME:
            self.next()
            return A.Symbol("\\prime", span=(tok.start, tok.end))
        if kind == PUNCT:
            self.next()
            return A.Symbol(tok.text, span=(tok.start, tok.end))
        if kind == CMD:
            if tok.text in T.BINARY_OPS or tok.text in T.RELATIONS or tok.text in ("\\prime", "\\ast", "\\star"):
                self.next()
                canon = T.BINARY_OPS[tok.text][0] if tok.text in T.BINARY_OPS else T.RELATIONS.get(tok.text, tok.text)
                return A.Symbol(canon, span=(tok.start, tok.end))
            saved = self.bar_stop
            self.bar_stop = ""
            node = self.parse_postfix_noscript()
            self.bar_stop = saved
            return node
        if kind == TEXT:
            self.next()
            return A.Text(tok.text, span=(tok.start, tok.end))
        raise self.error(f"missing {'subscript' if marker.kind == SUB else 'superscript'} after "
                         f"{marker.text}", marker.start)

    def parse_postfix_noscript(self) -> A.Node:
        """One command with its arguments, for an unbraced script (`x^\\top`, `x_\\theta`, `x^\\frac12`)."""
        atom, _ = self.parse_atom()
        return atom

    def _one_digit(self) -> A.Node:
        """Read one digit of a number token (`x^23` is `x^2 3`, `\\frac12` is 1/2)."""
        tok = self.peek()
        if len(tok.text) == 1:
            self.next()
            return A.Number(tok.text, span=(tok.start, tok.end))
        digit = tok.text[0]
        rest = Token(NUMBER, tok.text[1:], tok.start + 1, tok.end, False)
        if rest.text.startswith("."):
            rest = Token(PUNCT, ".", tok.start + 1, tok.start + 2, False)
            tail = tok.text[2:]
            self.tokens[self.pos] = rest
            if tail:
                self.tokens.insert(self.pos + 1, Token(NUMBER, tail, tok.start + 2, tok.end, False))
        else:
            self.tokens[self.pos] = rest
        self._version += 1
        return A.Number(digit, span=(tok.start, tok.start + 1))

    # --- classification of scripts ------------------------------------------------------------------
    def _attach(self, base: A.Node, sub: Optional[A.Node], sup: Optional[A.Node], primes: int,
                start: int) -> A.Node:
        span = (start, self.last_end())
        base, indices, sub_label = _classified_sub(base, sub, span)
        sup_kind, sup_value = classify_sup(sup, base) if sup is not None else (None, None)
        if isinstance(base, A.Symbol):
            base, indices, primes, sup_kind = _onto_symbol(base, indices, sub_label, primes, sup_kind, sup_value, span)
        elif sub_label is not None:
            base = A.Labeled(base, sub_label, "sub", span=span)
        if primes:
            base = A.Primed(base, primes, span=span)
        if indices:
            base = A.Indexed(base, indices, span=span)
        if sup_kind is not None and sup is not None:  # (a superscript's kind comes with the superscript)
            base = _with_sup(base, sup_kind, sup_value, sup, span)
        return base

    # --- atoms ---------------------------------------------------------------------------------------
    def parse_atom(self) -> tuple[A.Node, str]:
        """One atom and its role: plain, func, bigop, limop, expect, nabla, indicator (memoised, see __init__)."""
        if self._pending_under is not None or self._pending_over is not None:
            self._deeper()
            try:
                return self._parse_atom()
            finally:
                self.depth -= 1
        key = (self.pos, self.bar_stop, self.script_depth, self._version)
        hit = self._atoms.get(key)
        if hit is not None:
            if isinstance(hit, MathParseError):
                raise hit
            node, role, self.pos, self._pending_under, self._pending_over = hit
            return node, role
        self._deeper()  # every nesting construct parses its inner part through here (or parse_unary)
        try:
            node, role = self._parse_atom()
        except MathParseError as error:
            if self._version == key[3]:
                self._atoms[key] = error  # a failed speculation is not retried either
            raise
        finally:
            self.depth -= 1
        if self._version == key[3]:
            self._atoms[key] = (node, role, self.pos, self._pending_under, self._pending_over)
        return node, role

    def _parse_atom(self) -> tuple[A.Node, str]:
        tok = self.peek()
        read = _ATOM_READERS.get(tok.kind)
        if read is not None:
            return read(self, tok)
        raise self.error(_UNEXPECTED.get(tok.kind, "unexpected {0}").format(tok.text))

    # Each `_atom_*` reads the atom that starts with `tok` (the current token), with its role.
    def _atom_letters(self, tok: Token) -> tuple[A.Node, str]:
        return self._letters()

    def _atom_number(self, tok: Token) -> tuple[A.Node, str]:
        self.next()
        return A.Number(tok.text, span=(tok.start, tok.end)), "plain"

    def _atom_group(self, tok: Token) -> tuple[A.Node, str]:
        inner = self.peek(1)
        if inner.kind == CMD:
            # `{\mathbb{E}}_{x}`, `{\sum}`: a group holding one operator keeps its role
            save = self.pos
            self.next()
            try:
                node, role = self.parse_atom()
            except MathParseError:
                node, role = None, "plain"
            if node is not None and role != "plain" and self.peek().kind == RBRACE and \
                    self.peek(1).kind in (SUB, SUP):
                self.next()
                return node, role
            self.pos = save
        self.next()
        saved = self.bar_stop
        self.bar_stop = ""
        group = self._group_content(tok)
        self.bar_stop = saved
        return group, "plain"

    def _atom_text(self, tok: Token) -> tuple[A.Node, str]:
        self.next()
        word = tok.text.strip()
        if word in _ARG_OPTIMISATIONS:
            # `\text{argmin } F`: an optimiser set as text is still the operator (as `\operatorname{argmin}`);
            # `d_{\text{min}}` keeps its word (a minimum's name, no operator)
            return A.Symbol(word, font="op", span=(tok.start, tok.end)), "limop"
        # `\text{log } p(x)`: a function's name set as text is still the function
        role = "func" if word in T.FUNCTION_MACROS else "plain"
        return A.Text(tok.text, span=(tok.start, tok.end)), role

    def _atom_environment(self, tok: Token) -> tuple[A.Node, str]:
        return self._environment(), "plain"

    def _atom_script_alone(self, tok: Token) -> tuple[A.Node, str]:
        # a script with nothing before it: `{}^{14}C`, `_i`
        return A.Empty(span=(tok.start, tok.start)), "plain"

    def _atom_punct(self, tok: Token) -> tuple[A.Node, str]:
        text = tok.text
        if text in "([" or text == "|" or text == "<":
            group = self._bracketed()
            return self._group_node(group), "plain"
        if text in "?@\"`":
            self.next()
            return A.Symbol(text, span=(tok.start, tok.end)), "plain"
        if text in ".,;:" and not self.strict:
            # stray punctuation (prose pasted into a formula): kept as a mark, with a warning
            self.warn(f"unexpected {text}", tok.start)
            self.next()
            return A.Symbol(text, span=(tok.start, tok.end)), "plain"
        if text in T.BINARY_OPS:
            # an operator used as a placeholder: f(*)
            self.next()
            return A.Symbol(T.BINARY_OPS[text][0], span=(tok.start, tok.end)), "plain"
        raise self.error(f"unexpected {text}")

    def _atom_command(self, tok: Token) -> tuple[A.Node, str]:
        return self._command()

    def _identifier_end(self, i: int) -> Optional[int]:
        # One scan covers every start inside a run of letters with no escaped underscore: a run of n letters
        # is scanned once, not once per letter (n² on `xxxx…`).
        start, stop, version = self._plain_run
        if start < i < stop and version == self._version:
            return None
        end, stop = _identifier_end(self.tokens, i)
        if end is None:
            self._plain_run = (i, stop, self._version)
        return end

    def _letters(self) -> tuple[A.Node, str]:
        """A letter, or a run of letters that is a known function name (`softmax`, `ReLU`)."""
        toks = self.tokens
        i = self.pos
        first = toks[i]
        end = self._identifier_end(i)
        if end is not None:
            # `step\_num`, `warmup\_steps`: letters joined by an escaped underscore spell one code-style name
            self.pos = end
            sym = A.Symbol("".join(t.text for t in toks[i:end]), span=(first.start, toks[end - 1].end))
            return sym, self._symbol_role(sym)
        j = i + 1
        while j < len(toks) and toks[j].kind == LETTER and not toks[j].space_before and j - i < 24:
            j += 1
        if j - i > 1:
            word = "".join(t.text for t in toks[i:j])
            for k in range(j - i, 1, -1):
                cand = word[:k]
                if cand in T.KNOWN_FUNCTIONS or cand in self.functions:
                    if k < 3 and cand not in self.functions and k != j - i:
                        continue
                    if k == 2 and cand not in self.functions and not (
                            cand in _TWO_LETTER_FUNCTIONS and toks[i + 2].kind == PUNCT and toks[i + 2].text == "("):
                        continue  # `Tr(\pi)`, `KL(p \| q)`: a two-letter name applied (but `QK`, `Tr` alone multiply)
                    self.pos = i + k
                    sym = A.Symbol(cand, span=(first.start, toks[i + k - 1].end))
                    return sym, self._symbol_role(sym)
            if _name_before_call(word) and j < len(toks) and toks[j].kind == PUNCT and toks[j].text == "(" and \
                    all(toks[k].start == toks[k - 1].end for k in range(i + 1, j + 1)):
                # `LN(h)`, `CE(y, \hat y)`, `ReLU(x)`, `sim(u, v)`: letters run together up to the brackets name the
                # function applied (a product of matrices is not applied to brackets)
                self.pos = j
                sym = A.Symbol(word, span=(first.start, toks[j - 1].end))
                return sym, self._symbol_role(sym)
        self.pos = i + 1
        sym = A.Symbol(first.text, span=(first.start, first.end))
        return sym, self._symbol_role(sym)

    def _symbol_role(self, sym: A.Symbol) -> str:
        name = sym.name
        if name == "E" and sym.font in _EXPECT_FONTS and not sym.primes:
            # E is an expectation when blackboard, or followed by [ … ] or a \sim script
            if sym.font == "bb" or self._expectation_follows():
                return "expect"
        bare = name.lstrip("\\")
        if name == "1" and sym.font in ("bb", "bf"):
            return "indicator"
        if (name == "I" and sym.font == "bb") and self._indicator_follows():
            return "indicator"
        if sym.font in ("op", "rm", "sf", None, "it", "bf", "tt") and not sym.accents:
            if bare in T.LIMIT_OPERATORS and (len(bare) > 1):
                if sym.font is not None or name.startswith("\\"):
                    return "limop"
            if len(bare) > 1 and (bare in T.FUNCTION_MACROS and (name.startswith("\\") or sym.font in
                                                                  ("op", "rm") or len(bare) > 2)):
                return "func"
        return "plain"

    def _expectation_follows(self) -> bool:
        tok = self.peek()
        if tok.kind == PUNCT and tok.text == "[":
            return True
        if tok.kind == SUB:
            # look for \sim inside the subscript
            nxt = self.peek(1)
            if nxt.kind == LBRACE:
                k = self._brace(self.tokens, self.pos + 1)
                return any(t.text in ("\\sim", "\\thicksim") for t in self.tokens[self.pos + 1:k])
        return False

    def _indicator_follows(self) -> bool:
        tok = self.peek()
        return (tok.kind == PUNCT and tok.text in "([") or (tok.kind == CMD and tok.text == "\\{")

    def _command(self) -> tuple[A.Node, str]:
        """A command token: the first rule of `_COMMAND_RULES` whose table holds it and that takes it here."""
        tok = self.peek()
        for rule in _COMMAND_DISPATCH.get(tok.text, ()):
            parsed = rule(self, tok)
            if parsed is not None:
                return parsed
        return self._unknown(tok), "plain"

    # The command rules, one per kind of command; `_COMMAND_RULES` (after the class) says which tables route to
    # which. A rule returns None to pass the token on to the next rule that claims it.

    def _cmd_letter(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        return A.Symbol(tok.text, span=(tok.start, tok.end)), "plain"

    def _cmd_lone_delimiter(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        if self.peek(1).kind != EOF or self.pos != 0:
            return None
        # a delimiter named on its own (`$\\Vert$` in prose)
        self.next()
        return A.Symbol(tok.text, span=(tok.start, tok.end)), "plain"

    def _cmd_open_delimiter(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        return self._group_node(self._bracketed()), "plain"

    def _cmd_font(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        name = tok.text[1:]
        self.next()
        return self._font(T.FONTS[name], tok, limits=name == "operatorname*")

    def _cmd_starred_operatorname(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        return self._font("op", tok, limits=True)

    def _cmd_accent(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        arg, _ = self._arg_with_role()
        if isinstance(arg, A.Empty):
            self.recoverable(f"{tok.text} over nothing", tok.start)
        accent = T.ACCENTS[tok.text[1:]]
        span = (tok.start, self.last_end())
        if isinstance(arg, A.Symbol):
            sym = replace(arg, accents=(accent,) + arg.accents, span=span)
            if len(sym.name.lstrip("\\")) > 1:
                return sym, self._word_role(sym, False)
            return sym, self._symbol_role(sym)
        return A.Annotated(arg, A.Text(accent), "accent", span=span), "plain"

    def _cmd_fraction(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        start = tok.start
        self.next()
        num = self.parse_arg()
        den = self.parse_arg()
        span = (start, self.last_end())
        if isinstance(num, A.Empty) or isinstance(den, A.Empty):
            self.recoverable(f"{tok.text} with an empty {'numerator' if isinstance(num, A.Empty) else 'denominator'}",
                             start)
        deriv = self._derivative(num, den)
        if deriv is None:
            return A.Frac(num, den, span=span), "plain"
        deriv = replace(deriv, span=span)
        if deriv.body is None and self._starts_factor(self.peek()):
            body = self.parse_product(stop_at_operators=False)
            deriv = replace(deriv, body=body, span=(start, self.last_end()))
        return deriv, "plain"

    def _cmd_binomial(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        n = self.parse_arg()
        k = self.parse_arg()
        if isinstance(n, A.Empty) or isinstance(k, A.Empty):
            self.recoverable(f"{tok.text} with an empty argument", tok.start)
        return A.Binom(n, k, span=(tok.start, self.last_end())), "plain"

    def _cmd_root(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        index = None
        if self.at_punct("["):
            open_tok = self.next()
            saved = self.bar_stop
            self.bar_stop = "["
            index = self.parse_sequence()
            self.bar_stop = saved
            if not self.at_punct("]"):
                raise self.error("missing ] after \\sqrt[", open_tok.start)
            self.next()
        body = self.parse_arg()
        if isinstance(body, A.Empty):
            self.recoverable("\\sqrt of nothing", tok.start)
        return A.Root(body, index, span=(tok.start, self.last_end())), "plain"

    def _cmd_big_operator(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        return A.Symbol(tok.text, span=(tok.start, tok.end)), "bigop"

    def _cmd_limit_operator(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        return A.Symbol(tok.text, span=(tok.start, tok.end)), "limop"

    def _cmd_arg(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        nxt = self.peek()
        if nxt.kind == CMD and nxt.text in ("\\max", "\\min", "\\sup", "\\inf"):
            self.next()
            return A.Symbol("\\arg" + nxt.text[1:], span=(tok.start, nxt.end)), "limop"
        return A.Symbol(tok.text, span=(tok.start, tok.end)), "func"

    def _cmd_function(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        return A.Symbol(tok.text, span=(tok.start, tok.end)), "func"

    def _cmd_ellipsis(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        return A.Ellipsis_(T.ELLIPSES[tok.text[1:]], span=(tok.start, tok.end)), "plain"

    def _cmd_nabla(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        # `\\triangledown`, `\\bigtriangledown` written for ∇ are the same operator
        name = "\\nabla" if tok.text[1:] in T.NABLA_SPELLINGS else tok.text
        return A.Symbol(name, span=(tok.start, tok.end)), "nabla"

    def _cmd_partial(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        nxt = self.peek()
        if not (self._starts_factor(nxt) and nxt.kind != PUNCT or nxt.kind == PUNCT and nxt.text == "(") or \
                nxt.kind in (SUB, SUP):
            return A.Symbol(tok.text, span=(tok.start, tok.end)), "plain"
        here = nxt.start
        body = self.parse_postfix()
        if isinstance(body, A.Symbol) and body.name == "\\Delta" and self._starts_factor(self.peek()):
            # `\partial \Delta\epsilon_\theta(x)`: the differential of the increment, one name
            there = self.peek().start
            following = self.parse_postfix()
            joined = _join_factors([body, following], [(here, there), (there, self.last_end())])
            body = joined[0] if len(joined) == 1 else A.Product(tuple(joined), span=(here, self.last_end()))
        return A.Differential("partial", body, span=(tok.start, self.last_end())), "plain"

    def _cmd_math_class(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        name = tok.text[1:]
        self.next()
        inner, role = self._arg_with_role()
        span = (tok.start, self.last_end())
        if role != "plain":
            return self._respan(inner, span), role
        if not isinstance(inner, A.Symbol):
            return inner, "plain"
        role = self._symbol_role(inner)
        bare = inner.name.lstrip("\\")
        if name == "mathop" and bare in T.BIG_OPERATORS and inner.name.startswith("\\"):
            return self._respan(inner, span), "bigop"  # `\mathop{{\prod}'}`
        if role == "plain" and name == "mathop":
            role = "limop" if bare in T.LIMIT_OPERATORS else "func" if bare in T.KNOWN_FUNCTIONS else "plain"
        return replace(inner, span=span), role

    def _cmd_stacked_relation(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        if not self._stacked_relation_at():
            return None
        return self.parse_relation(), "plain"

    def _cmd_stack(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        name = tok.text[1:]
        self.next()
        note = self.parse_arg()
        body, role = self._arg_with_role()
        if role in ("limop", "bigop", "expect"):
            # \underset{\theta}{\arg\max}: the note is the under-script (over-script for \overset)
            if name == "underset":
                self._pending_under = note
            else:
                self._pending_over = note
            return body, role
        here = (tok.start, self.last_end())
        if isinstance(body, A.Symbol) and (body.name in T.RELATIONS or body.name in ("=", "<", ">", ":")) and \
                not body.accents and body.font is None and body.sub_label is None and body.sup_label is None:
            # a relation with a note, reached as an argument: `x^{\overset{a}{=}}`
            return A.Relation((A.Empty(span=(tok.start, tok.start)), A.Empty(span=here)),
                              (T.RELATIONS.get(body.name, body.name),), (note,), span=here), "plain"
        return A.Annotated(body, note, name if name != "stackrel" else "overset", span=here), "plain"

    def _cmd_brace(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        brace = T.BRACES[tok.text[1:]]
        self.next()
        body = self.parse_arg()
        note: A.Node = A.Empty()
        if self.peek().kind == (SUB if brace == "underbrace" else SUP):
            marker = self.next()
            note = self.parse_script_arg(marker)
        return A.Annotated(body, note, brace, span=(tok.start, self.last_end())), "plain"

    def _cmd_substack(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        return self._substack(tok), "plain"

    def _cmd_unary(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        name = "\\neg" if tok.text == "\\not" else T.UNARY_OPS[tok.text]
        return A.Symbol(name, span=(tok.start, tok.end)), "plain"

    def _cmd_escaped_character(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        return A.Symbol(tok.text, span=(tok.start, tok.end)), "plain"

    def _cmd_prefix_big_binary(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        if self.peek(1).kind not in (SUB, SUP):
            return None
        self.next()
        return A.Symbol(tok.text, span=(tok.start, tok.end)), "bigop"

    def _cmd_placeholder_operator(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        # an operator used as a placeholder: f(\cdot), (\cdot \mid x)
        self.next()
        return A.Symbol(T.BINARY_OPS[tok.text][0], span=(tok.start, tok.end)), "plain"

    def _cmd_relation(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.next()
        return A.Symbol(tok.text, span=(tok.start, tok.end)), "plain"

    def _cmd_misplaced_closer(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        raise self.error(f"unexpected {tok.text}")

    def _cmd_misplaced_infix(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        raise self.error(f"\\{tok.text[1:]} outside a {{ }} group")

    def _cmd_unmatched_right(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        raise self.error("\\right. without \\left")

    def _cmd_lone_backslash(self, tok: Token) -> Optional[tuple[A.Node, str]]:
        self.recoverable("lone backslash", tok.start)
        self.next()
        return A.Empty(span=(tok.start, tok.end)), "plain"

    def _arg_with_role(self) -> tuple[A.Node, str]:
        tok = self.peek()
        if tok.kind == LBRACE:
            self.next()
            inner_tok = self.peek()
            if inner_tok.kind == CMD:
                save = self.pos
                node, role = self.parse_atom()
                if self.peek().kind == RBRACE and role != "plain":
                    self.next()
                    return node, role
                self.pos = save
            node = self._group_content(tok)
            return node, "plain"
        return self.parse_atom()

    def _unknown(self, tok: Token) -> A.Node:
        self.next()
        if self.strict:
            raise self.error(f"unknown macro {tok.text}", tok.start)
        args: list[str] = []
        while self.peek().kind == LBRACE and not self.peek().space_before and len(args) < 3:
            open_tok = self.peek()
            k = self._brace(self.tokens, self.pos)
            close = self.tokens[k]
            if close.kind != RBRACE:
                raise self.error("missing } to close the { opened here", open_tok.start)
            args.append(self.source[open_tok.end:close.start])
            self.pos = k + 1
        self.warn(f"unknown macro {tok.text} kept as an opaque symbol", tok.start)
        return A.Opaque(tok.text, tuple(args), span=(tok.start, self.last_end()))

    def parse_arg(self) -> A.Node:
        """A macro argument: a brace group, or one token (`\\frac12`, `\\hat x`, `\\sqrt\\pi`)."""
        tok = self.peek()
        if tok.kind == LBRACE:
            self.next()
            saved = self.bar_stop
            self.bar_stop = ""
            node = self._group_content(tok)
            self.bar_stop = saved
            return node
        if tok.kind == NUMBER:
            return self._one_digit()
        if tok.kind == LETTER:
            self.next()
            return A.Symbol(tok.text, span=(tok.start, tok.end))
        if tok.kind == CMD:
            node, role = self.parse_atom()
            return node
        if tok.kind == TEXT:
            self.next()
            return A.Text(tok.text, span=(tok.start, tok.end))
        if tok.kind == PUNCT and not tok.text.isascii():
            # a character the tokenizer could not read (`\\boldsymbol၆`): as an atom it is unexpected, and an
            # argument is an atom (braced, `\\mathbf{၆}`, it was already refused)
            raise self.error(f"unexpected {tok.text}")
        if tok.kind == PUNCT and tok.text not in "()[]|":
            self.next()
            return A.Symbol(tok.text, span=(tok.start, tok.end))
        raise self.error("missing argument")

    def _group_content(self, open_tok: Token) -> A.Node:
        """Content of `{ … }` (the `{` is consumed): transparent grouping, `\\over`, `\\choose`, font switches."""
        start = open_tok.start
        if self.peek().kind == RBRACE:
            close = self.next()
            return A.Empty(span=(start, close.end))
        if self.peek().kind == PUNCT and self.peek().text in ".,;!?" and self.peek(1).kind == RBRACE:
            # `1{,}000`, `\right){.}`: punctuation kept as a mark
            tok = self.next()
            self.next()
            return A.Symbol(tok.text, span=(tok.start, tok.end))
        font = None
        tok = self.peek()
        if tok.kind == CMD and tok.text[1:] in T.FONT_SWITCHES:
            self.next()
            font = T.FONTS.get(tok.text[1:])
            if self.peek().kind == RBRACE:
                close = self.next()
                return A.Empty(span=(start, close.end))
        node = self._group_body()
        tok = self.peek()
        if tok.kind == CMD and tok.text[1:] in T.INFIX_GENFRAC:
            self.next()
            den = self._group_body() if self.peek().kind != RBRACE else A.Empty()
            if T.INFIX_GENFRAC[tok.text[1:]] == "binom":
                node = A.Binom(node, den, span=(start, self.peek().end))
            else:
                deriv = self._derivative(node, den)
                node = replace(deriv, span=(start, self.peek().end)) if deriv is not None else \
                    A.Frac(node, den, span=(start, self.peek().end))
        close = self.expect_rbrace(open_tok)
        if font is not None:
            # `{\rm Gap}`: the styled name covers its group, switch included
            node = self._respan(self._apply_font(node, font), (start, close.end))
        self.braced.add(node.span)  # `{\sum_t x} - t`: the closing brace ends the sum there
        return node

    def _group_body(self) -> A.Node:
        start = self.peek().start
        items = [self.parse_sequence()]
        while self.peek().kind in (NEWLINE, AMP):
            self.next()
            if self.peek().kind == RBRACE:
                break
            items.append(self.parse_sequence())
        if len(items) == 1:
            return items[0]
        return A.Sequence(tuple(items), tuple("\\\\" for _ in items[1:]), span=(start, self.last_end()))

    def _substack(self, tok: Token) -> A.Node:
        opened = self.peek()
        if opened.kind != LBRACE:
            raise self.error("\\substack needs { }", tok.start)
        self.next()
        body = self._group_body()
        self.expect_rbrace(opened)
        return body

    # --- fonts -----------------------------------------------------------------------------------------
    def _font(self, font: str, tok: Token, limits: bool = False) -> tuple[A.Node, str]:
        start = tok.start
        arg_tok = self.peek()
        if arg_tok.kind == LBRACE:
            k = self._brace(self.tokens, self.pos)
            inner = self.tokens[self.pos + 1:k]
            if inner and all(t.kind in (LETTER, NUMBER) or (t.kind == PUNCT and t.text in "-.'") or
                             (t.kind == CMD and t.text == "\\_") or
                             (t.kind == PUNCT and t.text == "@" and t is inner[-1]) for t in inner) and len(inner) > 1 and \
                    all(t.kind == LETTER for t in inner[:1]) and self.tokens[k].kind == RBRACE:
                # a multi-letter name: \mathrm{Attention}, \operatorname{arg\,max}, \mathrm{Top\_k} (the escaped
                # underscore is part of the name, kept escaped so the name prints back as written)
                word = "".join(t.text for t in inner)
                self.pos = k + 1
                sym = A.Symbol(word, font=font, span=(start, self.last_end()))
                role = self._word_role(sym, limits)
                return sym, role
            if self.peek(1).kind == CMD and self.peek(2).kind == RBRACE:
                self.next()
                node, _ = self.parse_atom()
                self.expect_rbrace(arg_tok)
            else:
                self.next()
                node = self._group_content(arg_tok)
        else:
            node = self.parse_arg()
        node = self._apply_font(node, font)
        node = self._respan(node, (start, self.last_end()))
        if isinstance(node, A.Symbol):
            role = self._word_role(node, limits) if len(node.name.lstrip("\\")) > 1 else self._symbol_role(node)
            return node, role
        return node, "plain"

    def _word_role(self, sym: A.Symbol, limits: bool) -> str:
        bare = sym.name.lstrip("\\")
        if bare in T.LIMIT_OPERATORS and (limits or bare in ("argmax", "argmin", "max", "min", "sup", "inf",
                                                              "lim", "softmax", "Softmax", "topk", "Topk",
                                                              "TopK", "argtopk", "mean", "avg")):
            return "limop"
        if limits:
            return "limop"
        if bare in T.EXPECTATION_NAMES and sym.font in _EXPECT_FONTS and self._expectation_follows():
            return "expect"
        if bare in T.FUNCTION_MACROS:
            return "func"
        return self._symbol_role(sym)

    def _apply_font(self, node: A.Node, font: str) -> A.Node:
        if isinstance(node, A.Symbol):
            if node.font is None or node.font == font:
                return replace(node, font=font)
            return node
        if isinstance(node, A.Number) and node.value == "1":
            return A.Symbol("1", font=font, span=node.span)
        if isinstance(node, A.Number) and font in ("bb", "bf", "rm", "cal"):
            return node
        if isinstance(node, A.Product) and font in ("rm", "op", "sf", "tt", "it", "bf") and \
                all(isinstance(f, A.Symbol) and len(f.name) == 1 and f.font is None and not f.accents and
                    not f.sub_label and not f.sup_label and not f.primes and not f.optimum for f in node.factors):
            word = "".join(f.name for f in node.factors)  # type: ignore[attr-defined]
            return A.Symbol(word, font=font, span=node.span)
        if isinstance(node, A.Product) and font in ("rm", "op", "sf", "tt", "it", "bf") and \
                all(_plain_letter(f) for f in node.factors[:-1]) and isinstance(node.factors[-1], A.Symbol) and \
                node.factors[-1].sub_label is not None and len(node.factors[-1].name) == 1 and \
                _plain_letter(replace(node.factors[-1], sub_label=None)):
            # `\mathrm{head_h}`: the letters are one name and h indexes it (whatever d_h alone would be)
            last = node.factors[-1]
            word = "".join(f.name for f in node.factors)  # type: ignore[attr-defined]
            base = A.Symbol(word, font=font, span=(node.span[0], last.span[0] + 1))
            return A.Indexed(base, classify_sub(last.sub_label)[1] if classify_sub(last.sub_label)[0] == "index"
                             else (last.sub_label,), span=node.span)  # type: ignore[arg-type]
        if isinstance(node, A.Product) and font in ("rm", "op", "sf", "tt", "it", "bf") and \
                all(_plain_letter(f) for f in node.factors[:-1]) and \
                isinstance(node.factors[-1], (A.Indexed, A.Power)) and _plain_letter(node.factors[-1].base):
            # `\mathrm{head_i}`: the letters are one name, the script belongs to it
            scripted = node.factors[-1]
            word = "".join(f.name for f in node.factors[:-1]) + scripted.base.name  # type: ignore[attr-defined]
            named = A.Symbol(word, font=font, span=(node.span[0], scripted.base.span[1]))
            return replace(scripted, base=named, span=node.span)
        if isinstance(node, A.Product):
            return replace(node, factors=tuple(self._apply_font(f, font) for f in node.factors))
        if isinstance(node, A.Indexed):
            return replace(node, base=self._apply_font(node.base, font))
        if isinstance(node, A.Power):
            styled = self._apply_font(node.base, font)
            if isinstance(styled, A.Symbol) and styled.sup_label is None and not styled.optimum and \
                    classify_sup(node.exponent, styled)[0] == "label":
                # `{\bf x^w}` reads as `\mathbf{x}^w`: the script is classified against the styled base
                return replace(styled, sup_label=node.exponent, span=node.span)
            return replace(node, base=styled)
        if isinstance(node, (A.Transpose, A.Inverse)):
            return replace(node, base=self._apply_font(node.base, font))
        return node

    @staticmethod
    def _respan(node: A.Node, span: A.Span) -> A.Node:
        try:
            return replace(node, span=span)
        except TypeError:
            return node

    # --- brackets ------------------------------------------------------------------------------------
    def _bracketed(self) -> _Bracketed:
        return self._finish(self._bracketed_raw())

    def _never_closed(self, index: int) -> bool:
        """Is the `(` at tokens[index] one that no `)` of the formula closes (schedule_free's
        `w_{1:t-1} (F(x_t) - F(x_{t-1}) + w_t(…) = …`, a paren the authors forgot)? Found for all of them in one
        pass, rebuilt only if the token list changes."""
        if self._unclosed is None or self._unclosed[0] != len(self.tokens):
            stack: list[int] = []
            for i, t in enumerate(self.tokens):
                if t.kind == PUNCT and t.text == "(":
                    stack.append(i)
                elif t.kind == PUNCT and t.text == ")" and stack:
                    stack.pop()
            self._unclosed = (len(self.tokens), frozenset(stack))
        return index in self._unclosed[1]

    def _bracketed_raw(self) -> _Bracketed:
        """Read a bracket group: ( … ), [ … ], \\{ … \\}, | … |, \\| … \\|, \\langle … \\rangle, \\left. …"""
        # a `(` nothing closes does not reach over the statement's relation that follows it: the reader ends it
        # there (in a script, `_{(x \sim p, y \sim q}`, the relations are the bindings the group lists)
        never_closed = self.script_depth == 0 and self.peek().kind == PUNCT and self.peek().text == "(" and \
            self._never_closed(self.pos)
        tok = self.next()
        group = self._opened_group(tok)
        saved = self.bar_stop
        self.bar_stop = group.open
        try:
            return self._bracket_content(group, tok, never_closed)
        finally:
            self.bar_stop = saved

    def _opened_group(self, tok: Token) -> _Bracketed:
        """The group the opener `tok` (already read) starts."""
        open_ = "." if tok.text == NULL_OPEN else T.OPEN_DELIMS.get(tok.text, tok.text)
        # || written as two bars opens a norm
        if open_ == "|" and self.peek().kind == PUNCT and self.peek().text == "|" and not self.peek().space_before:
            self.next()
            open_ = "||"
        return _Bracketed(open_, tok.start, tok.text)

    def _bracket_content(self, group: _Bracketed, tok: Token, never_closed: bool) -> _Bracketed:
        """The items of `group` up to its closer: each item, then what separates it from the next."""
        target = group.items
        content_end: Optional[int] = None
        if self._closes(group):
            self._close(group)
            return group
        while True:
            while self.peek().kind in (NEWLINE, AMP):
                self.next()
            nxt = self.peek()
            if nxt.kind in (EOF, RBRACE, END):
                return self._left_open(group, tok, content_end)
            if self._closes(group):
                self._close(group)
                return group
            item = self._bracket_item(nxt, target, never_closed)
            if item is None:
                continue
            target.append(item)
            content_end = self.last_end()
            nxt = self.peek()
            if never_closed and (self._relation_at() is not None or self._stacked_relation_at()):
                self.recoverable(f"missing closing delimiter for {tok.text}: closed before the relation", tok.start)
                group.close = ")"
                group.end = content_end
                return group
            if self._closes(group):
                self._close(group)
                return group
            following = self._past_separator(group, target, nxt, tok.text)
            if following is None:
                return group
            target = following

    def _left_open(self, group: _Bracketed, tok: Token, content_end: Optional[int]) -> _Bracketed:
        """A group the formula ends inside: an error in strict mode, else closed with a warning."""
        if self.strict:
            raise self.error(f"missing closing delimiter for {tok.text}", tok.start)
        self.warn(f"missing closing delimiter for {tok.text}", tok.start)
        group.close = T.MATCHING.get(group.open, ".")
        # the group ends with its content, not with the punctuation the statement ends with
        group.end = content_end if content_end is not None else self.last_end()
        return group

    def _bracket_item(self, nxt: Token, target: list[A.Node], never_closed: bool) -> Optional[A.Node]:
        """The group's next item, starting at `nxt`; None when `nxt` was a list's conjunction (read past)."""
        if (nxt.kind == PUNCT and nxt.text in ",;") or (nxt.kind == CMD and nxt.text in T.CONDITION_BARS
                                                        and nxt.text != "\\vert") or \
                (nxt.kind == PUNCT and nxt.text == "|" and not self._bar_opens_pair(after_factor=False)):
            # an empty item: `\pi(|s)`, `a,;b`
            return A.Empty(span=(nxt.start, nxt.start))
        if _is_connective(nxt) or (nxt.kind == CMD and nxt.text in _QUANTIFIERS):
            return self._condition()  # `(\text{with } m = d)`: a remark in parentheses
        if _is_joiner(nxt) and target and not self._ends_statement(self.peek(1)):
            self.next()  # `(2, 8, 32, \text{and}\,128)`: the list's conjunction, not a factor of 128
            return None
        # a relation straight after the `(` has no left side to end before: it is the group's content
        reads_to_relation = never_closed and self._relation_at() is None and not self._stacked_relation_at()
        return self.parse_additive() if reads_to_relation else self.parse_relation()

    def _past_separator(self, group: _Bracketed, target: list[A.Node], nxt: Token,
                        written: str) -> Optional[list[A.Node]]:
        """Read what follows an item (`nxt`): the list the next item goes to (`target`, or the part after a `;`,
        a bar or a divergence bar), or None when a mismatched closer ended the group."""
        ntext = nxt.text
        if nxt.kind == PUNCT and ntext == ";":
            self.next()
            group.semicolons = True
            if group.open in ("(",) and (target is group.given or target is group.items) and group.open != "[":
                return group.params
            return target
        if (nxt.kind == PUNCT and ntext == "|") or (nxt.kind == CMD and ntext in T.CONDITION_BARS):
            return self._past_bar(group, nxt)
        if nxt.kind == CMD and ntext in T.DIVERGENCE_BARS:
            self.next()
            return _divergence_from_here(group)
        if (nxt.kind == PUNCT and ntext in (",", ".")) or nxt.kind in (AMP, NEWLINE):
            self.next()
            return target
        if nxt.kind in (RBRACE, END, EOF):
            return target
        if nxt.kind == PUNCT and ntext in ")]" or (nxt.kind == CMD and (ntext in T.CLOSE_DELIMS or
                                                                        ntext == NULL_CLOSE)):
            # a mismatched closer: an interval such as (0,1] or [0, 1)
            self.next()
            group.close = T.CLOSE_DELIMS.get(ntext, ntext) if ntext != NULL_CLOSE else "."
            group.end = nxt.end
            return None
        raise self.error(f"unexpected {ntext or nxt.kind} inside {written} … ", nxt.start)

    def _past_bar(self, group: _Bracketed, nxt: Token) -> list[A.Node]:
        """A bar after an item: `||` inside a call is a divergence bar; one bar starts what the items are given."""
        after = self.peek(1)
        if nxt.kind == PUNCT and after.kind == PUNCT and after.text == "|":
            self.next()
            self.next()
            return _divergence_from_here(group)
        self.next()
        group.bar = True
        return group.given

    def _finish(self, group: _Bracketed) -> _Bracketed:
        if group.bar and not group.given:
            group.given.append(A.Empty(span=(group.end, group.end)))
        return group

    def _closes(self, group: _Bracketed) -> bool:
        tok = self.peek()
        want = T.MATCHING.get(group.open, "")
        if tok.kind == PUNCT:
            if want == "||" and tok.text == "|":
                nxt = self.peek(1)
                return nxt.kind == PUNCT and nxt.text == "|" and not nxt.space_before
            if group.open == "." and tok.text in ")]|":
                return True
            if tok.text == ">" and group.written != "<":
                return False  # inside `\\langle … \\rangle` a `>` is greater-than: only a written `<` pairs with it
            return tok.text == want
        if tok.kind == CMD:
            if tok.text == NULL_CLOSE:
                return True
            canon = T.CLOSE_DELIMS.get(tok.text)
            if canon is None:
                return False
            if group.open == ".":
                return True
            return canon == want
        return False

    def _close(self, group: _Bracketed) -> None:
        tok = self.next()
        if group.open == "||" and tok.kind == PUNCT and tok.text == "|":
            tok = self.next()
            group.close = "||"
        elif tok.text == NULL_CLOSE:
            group.close = "."
        else:
            group.close = T.CLOSE_DELIMS.get(tok.text, tok.text)
        group.end = tok.end

    def _seq(self, items: list[A.Node], group: _Bracketed) -> A.Node:
        if not items:
            return A.Empty(span=(group.start, group.start))
        if len(items) == 1:
            return items[0]
        return A.Tuple(tuple(items), "(", ")", span=(items[0].span[0], items[-1].span[1]))

    def _scripted_group(self, group: _Bracketed) -> A.Node:
        """A bracket group with the scripts that follow it (`(a_i)^2`)."""
        sub, sup, primes = self._read_scripts()
        return self._attach(self._group_node(group), sub, sup, primes, group.start)

    def _group_node(self, group: _Bracketed) -> A.Node:
        """A bracket group standing on its own (not a call's arguments)."""
        span = (group.start, group.end)
        o, c = group.open, group.close
        items = group.items
        if group.divergence and o == "[" and c == "]":
            # `[\mathbf W h_i \| \mathbf W h_j]`: a bracket no divergence names joins its parts
            return A.Concat(tuple(group.divergence + items + group.params), span=span)
        if group.divergence:
            return A.Divergence(A.Empty(span=(group.start, group.start)), self._seq(group.divergence, group),
                                self._seq(items, group), span=span)
        if o == "{":
            if group.bar and group.given:
                return A.SetBuilder(self._seq(items, group), self._seq(group.given, group), span=span)
            if len(items) == 1 and isinstance(items[0], A.Relation) and ":" in items[0].ops:
                return self._colon_builder(items[0], span)
            if len(items) == 1 and not group.params and _grouping(items[0]):
                # `\sum_t \left\{ a - b \right\}`: braces around one computation group it; a set of one
                # element is a name or a value (`\{o_i\}`, `\{0\}`)
                return A.Group(items[0], "{", "}", span=span)
            if len(items) == 2 and not group.params and _membership_of(items[1], items[0]):
                # `\{\theta_i = 10000^{-2(i-1)/d}, i \in [1, …, d/2]\}`: the elements, as i runs over a set
                return A.SetBuilder(items[0], items[1], span=span)
            return A.SetLiteral(tuple(items + group.params), span=span)
        if group.bar or group.given:
            return A.Apply(A.Empty(span=(group.start, group.start)), tuple(items), tuple(group.given),
                           tuple(group.params), "conditional", self._brackets(o, c), span=span)
        if o == "|":
            return A.Abs(self._seq(items + group.params, group), span=span)
        if o == "||":
            return A.Norm(self._seq(items + group.params, group), span=span)
        if o in ("floor", "ceil", "[["):
            return A.Delimited(o, self._seq(items, group), span=span)
        if o == "<":
            return A.Delimited("angle", self._seq(items + group.params, group), span=span)
        if o == "[" and group.semicolons:
            return A.Concat(tuple(items + group.params), span=span)
        if o == "[" and c == "]" and not group.params and _stacked_vectors(items):
            # `W_s [h_{t-1}, x_t]`: indexed quantities of different names, listed in brackets, are stacked
            # into one vector (an interval runs between two values of one quantity: `[t_0, t_1]`)
            return A.Concat(tuple(items), span=span)
        all_items = items + group.params
        if not all_items:
            return A.Group(A.Empty(span=span), o if o in "([." else "(", c, span=span)
        mismatched = (o, c) not in (("(", ")"), ("[", "]"))
        if len(all_items) == 2 and o in "([" and c in ")]" and (mismatched or o == "["):
            return A.Interval(all_items[0], all_items[1], o == "[", c == "]", span=span)
        if len(all_items) == 1:
            return A.Group(all_items[0], o if o in "([." else "(", c, span=span)
        return A.Tuple(tuple(all_items), o if o in "([." else "(", c, span=span)

    def _colon_builder(self, rel: A.Relation, span: A.Span) -> A.Node:
        i = rel.ops.index(":")
        left = self._rel_part(rel.operands[:i + 1], rel.ops[:i], rel.notes[:i] if rel.notes else ())
        right = self._rel_part(rel.operands[i + 1:], rel.ops[i + 1:], rel.notes[i + 1:] if rel.notes else ())
        return A.SetBuilder(left, right, span=span)

    @staticmethod
    def _rel_part(operands: tuple, ops: tuple, notes: tuple) -> A.Node:
        if not ops:
            return operands[0]
        return A.Relation(tuple(operands), tuple(ops), tuple(notes) if notes and any(notes) else (),
                          span=(operands[0].span[0], operands[-1].span[1]))

    @staticmethod
    def _brackets(o: str, c: str) -> str:
        if o == "[":
            return "[]"
        if o == "{":
            return "{}"
        return "()"

    # --- calls -----------------------------------------------------------------------------------------
    def _call_candidate(self, atom: A.Node) -> Optional[str]:
        return call_certainty(atom, self.functions)

    def _function_status(self, sym: A.Symbol) -> Optional[str]:
        return function_status(sym, self.functions)

    def _apply(self, func: A.Node, group: _Bracketed, certainty: str, start: int) -> A.Node:
        span = (start, group.end)
        if group.divergence:
            return A.Divergence(func, self._seq(group.divergence, group), self._seq(group.items, group), span=span)
        if group.given or group.bar:
            certainty = "conditional" if certainty not in ("known", "declared") else certainty
        elif certainty in ("scalar", "indexed"):
            # `x(1-x)`, `y_k(1-\alpha)`: a product
            node = self._group_node(group)
            return A.Product((func, node), span=span)
        if group.open in ("|", "||", "floor", "ceil", "<", "[[", "."):
            node = self._group_node(group)
            return A.Product((func, node), span=span)
        mism = (group.open, group.close) not in (("(", ")"), ("[", "]"), ("(", "."), ("[", "."), ("(", ""),
                                                 ("[", ""))
        if mism and not group.given:
            node = self._group_node(group)
            return A.Product((func, node), span=span)
        args = tuple(group.items)
        if group.open == "[" and group.semicolons and not group.given:
            args = (A.Concat(tuple(group.items + group.params), span=(group.start, group.end)),)
            return A.Apply(func, args, (), (), certainty, "[]", span=span)
        return A.Apply(func, args, tuple(group.given), tuple(group.params), certainty,
                       self._brackets(group.open, group.close), span=span)

    def _end_before_punctuation(self, node: A.Node) -> int:
        """Where a construct that ends with `node` ends: after the last token read, unless only the statement's
        punctuation (`.`, `,`) was read after `node` (inside a bracket the paper left open)."""
        end = self.last_end()
        k = self.pos - 1
        while k >= 0 and self.tokens[k].start >= node.span[1] and self.tokens[k].kind == PUNCT and \
                self.tokens[k].text in ".,;":
            k -= 1
        if k < self.pos - 1 and k >= 0 and self.tokens[k].end <= node.span[1]:
            return node.span[1]
        return end

    def _function(self, func: A.Node, start: int) -> A.Node:
        """A function macro: `\\log x`, `\\log(x)`, `\\log^2 x`, `\\operatorname{Softmax}_j(z)`."""
        sub, sup, primes = self._read_scripts()
        if sub is not None or sup is not None or primes:
            func = self._attach(func, sub, sup, primes, start)
        tok = self.peek()
        if tok.kind == PUNCT and tok.text in "([":
            group = self._bracketed()
            return self._postfix_loop(self._apply(func, group, "known", start), start)
        if tok.kind == CMD and tok.text in ("\\{", "\\lbrace") and not self._bracket_has_comma():
            # `\exp\{-(y + \exp\{-y\})\}`: braces as the function's brackets
            group = self._bracketed()
            if not group.given and not group.divergence and len(group.items) == 1:
                node = A.Apply(func, tuple(group.items), (), (), "known", "{}", span=(start, group.end))
                return self._postfix_loop(node, start)
            return self._postfix_loop(A.Apply(func, (self._group_node(group),), (), (), "known", "",
                                              span=(start, group.end)), start)
        if self._starts_factor(tok):
            operand = self.parse_product(stop_at_operators=True, stop_after_call=True)
            # (the application ends with its argument: a bracket the paper left open may run to the statement's end)
            return A.Apply(func, (operand,), (), (), "known", "", span=(start, self._end_before_punctuation(operand)))
        if tok.kind == PUNCT and tok.text == "-" and self._starts_factor(self.peek(1)):
            # `\exp -\beta E(x)`: the function of the negated product (a function is never subtracted from)
            sign = self.next()
            operand = self.parse_product(stop_at_operators=True, stop_after_call=True)
            negated = A.UnaryOp("-", operand, span=(sign.start, self.last_end()))
            return A.Apply(func, (negated,), (), (), "known", "", span=(start, self.last_end()))
        alone = self.tokens[0].start == start and tok.kind == EOF
        if self.strict and tok.kind == EOF and (sub is not None or sup is not None or not alone):
            # `\cos^2`, `\cos 1 \cos`: a function with nothing to apply to (named alone, it is notation)
            raise self.error(f"{_name_of(func)} without an argument", start)
        return func

    # --- reductions --------------------------------------------------------------------------------------
    def _reduction(self, operator: A.Node, role: str, start: int) -> A.Node:
        under_pending, over_pending = self._pending_under, self._pending_over
        self._pending_under = self._pending_over = None
        sub, sup, _ = self._read_scripts()
        if under_pending is not None:
            sub = under_pending if sub is None else sub
        if over_pending is not None:
            sup = over_pending if sup is None else sup
        op = self._op_name(operator, role)
        tok = self.peek()
        if role == "limop" and sub is None and sup is None and self._opens_arguments(tok):
            return self._applied_operator(operator, start)
        if role == "limop" and tok.kind == PUNCT and tok.text == "(" and not self._bracket_has_bar():
            return self._bracketed_body(op, operator, sub, sup, start)
        if role == "expect" and ((tok.kind == PUNCT and tok.text in "([") or
                                 (tok.kind == CMD and tok.text in ("\\{", "\\lbrace"))):
            return self._bracketed_expectation(op, operator, sub, sup, start)
        return self._reduction_body(op, operator, role, sub, sup, start)

    def _opens_arguments(self, tok: Token) -> bool:
        """`(`, or `[` / `\\{` holding a comma: the brackets of an operator's arguments (`\\max(a, b)`)."""
        return (tok.kind == PUNCT and (tok.text == "(" or (tok.text == "[" and self._bracket_has_comma()))) or \
            (tok.kind == CMD and tok.text in ("\\{", "\\lbrace") and self._bracket_has_comma())

    def _applied_operator(self, operator: A.Node, start: int) -> A.Node:
        """\\max(a, b), \\min\\left[a, b\\right], \\max\\{a, b\\}, \\operatorname{softmax}(x): an application."""
        group = self._bracketed()
        if group.open == "{":
            node = A.Apply(operator, tuple(group.items + group.params), (), (), "known", "{}",
                           span=(start, group.end))
            return self._postfix_loop(node, start)
        return self._postfix_loop(self._apply(operator, group, "known", start), start)

    def _bracketed_body(self, op: str, operator: A.Node, sub: Optional[A.Node], sup: Optional[A.Node],
                        start: int) -> A.Node:
        """\\operatorname{Softmax}_j(z): the body in parentheses."""
        group = self._bracketed()
        inner = group.items + group.params
        if self.peek().kind in (SUB, SUP):
            # `\max_i (a_i)^2`: the script belongs to the bracket, which is then the body
            body = self._scripted_group(group)
            return self._make_reduction(op, operator, sub, sup, body, "", (start, self.last_end()))
        if len(inner) == 1 and (group.open, group.close) == ("(", ")"):
            return self._make_reduction(op, operator, sub, sup, inner[0], "()", (start, self.last_end()))
        body = self._group_node(group)
        return self._make_reduction(op, operator, sub, sup, body, "", (start, self.last_end()))

    def _bracketed_expectation(self, op: str, operator: A.Node, sub: Optional[A.Node], sup: Optional[A.Node],
                               start: int) -> A.Node:
        """`\\mathbb{E}[…]`, `\\mathbb{E}(…)`, `\\mathbb{E}\\{…\\}`: the expectation of what the brackets hold."""
        group = self._bracketed()
        o = group.open
        brackets = "[]" if o == "[" else "{}" if o == "{" else "()"
        inner = group.items + group.params
        if self.peek().kind in (SUB, SUP) and o == "(" and inner and not group.given and not group.bar:
            # `\mathbb{E}_{x}(h(x) - c)^2`: the expectation of the square (IPO); a script after the
            # expectation's own square bracket (`\mathbb{E}[X]^2`) squares the expectation, below
            body: Optional[A.Node] = self._scripted_group(group)
            return self._make_reduction(op, operator, sub, sup, body, "", (start, self.last_end()))
        empty = not inner and not group.given and not group.divergence
        if not empty and o != "{" and (group.given or group.bar):
            return self._conditional_expectation(op, operator, sub, sup, group, brackets, start)
        if empty:
            body = A.Empty(span=(group.start, group.end))
        elif o == "{" or len(inner) != 1:
            body = self._group_node(group)
            brackets = ""
        else:
            body = inner[0]
        spec = _sampling_spec(body) if sub is None else None
        if spec is not None:
            # `\mathbb{E}[q \sim P(Q), o \sim \pi(O|q)]\, body`: the brackets say what is sampled
            sub, body, brackets = spec, None, ""
            self._body_on_next_row()
            if self._starts_operand(self.peek()) and not self._bar_separates():
                body = self.parse_multiplicative()
        node = self._make_reduction(op, operator, sub, sup, body, brackets, (start, self.last_end()))
        if self.peek().kind in (SUB, SUP) and brackets:
            # `\mathbb{E}[X]^2` is the square of the expectation (`\mathbb{E}[X^2] - \mathbb{E}[X]^2`)
            sub2, sup2, primes2 = self._read_scripts()
            return self._attach(node, sub2, sup2, primes2, start)
        return node

    def _conditional_expectation(self, op: str, operator: A.Node, sub: Optional[A.Node], sup: Optional[A.Node],
                                 group: _Bracketed, brackets: str, start: int) -> A.Node:
        """`\\mathbb E[V(s') \\mid s, a]`: the average of V(s') given s and a."""
        body = self._seq(group.items + group.params, group)
        given = self._seq(group.given, group)
        node = self._make_reduction(op, operator, sub, sup, body, brackets, (start, self.last_end()))
        if not isinstance(given, A.Empty):
            cond = given if node.condition is None else A.Sequence((node.condition, given), (",",),
                                                                  span=(node.condition.span[0], given.span[1]))
            return replace(node, condition=cond)
        return node

    def _reduction_body(self, op: str, operator: A.Node, role: str, sub: Optional[A.Node], sup: Optional[A.Node],
                        start: int) -> A.Node:
        """The operand after the operator and its scripts is its body; with neither, the operator is named on its
        own (`$\\sum$` in prose)."""
        if sub is not None or sup is not None:
            self._body_on_next_row()
        if not (self._starts_operand(self.peek()) and not self._bar_separates()):
            if sub is None and sup is None:
                return operator
            return self._make_reduction(op, operator, sub, sup, None, "", (start, self.last_end()))
        body: Optional[A.Node] = self.parse_multiplicative() if role != "limop" or op not in ("softmax",) else \
            self.parse_product(stop_at_operators=True)
        if role == "expect" and sub is None and body is not None:
            sub, body = self._sampled_in_body(body)
        return self._make_reduction(op, operator, sub, sup, body, "", (start, self.last_end()))

    def _sampled_in_body(self, body: A.Node) -> tuple[Optional[A.Node], Optional[A.Node]]:
        """(what is sampled, the body) of an expectation with no subscript whose body starts by saying what it
        samples (`\\mathbb{E}\\, q \\sim P(Q) \\; …`); (None, body) otherwise."""
        spec = _sampling_spec(body)
        if spec is not None:
            self._body_on_next_row()
            return spec, (self.parse_multiplicative() if self._starts_operand(self.peek()) else None)
        if isinstance(body, A.Product) and _sampling_spec(body.factors[0]) is not None:
            # `\mathbb{E}{[q \sim P(Q), …]} \frac{1}{G} …`
            rest = body.factors[1:]
            return _sampling_spec(body.factors[0]), \
                rest[0] if len(rest) == 1 else A.Product(rest, span=(rest[0].span[0], rest[-1].span[1]))
        return None, body

    def _body_on_next_row(self) -> None:
        r"""`\mathbb{E}_{x \sim p} \\ \log \sigma(…)`: a row that ends with an operator has its body on the next row."""
        if self.peek().kind != NEWLINE:
            return
        k = self.pos
        while self.tokens[k].kind in (NEWLINE, AMP):
            k += 1
        if self._starts_operand(self.tokens[k]):
            self.pos = k

    def _op_name(self, operator: A.Node, role: str) -> str:
        if role == "expect":
            return "E"
        if isinstance(operator, A.Symbol):
            bare = operator.name.lstrip("\\")
            if role == "bigop":
                return T.BIG_OPERATORS.get(bare) or T.PREFIX_BIG_BINARY.get(bare, bare)
            return T.LIMIT_OPERATORS.get(bare, bare)
        return "op"

    def _make_reduction(self, op: str, operator: A.Node, under: Optional[A.Node], over: Optional[A.Node],
                        body: Optional[A.Node], brackets: str, span: A.Span) -> A.Reduction:
        variables: tuple[A.Node, ...] = ()
        lower = upper = domain = distribution = condition = None
        differentials: tuple[A.Node, ...] = ()
        if op == "int":
            lower, upper = under, over
            if isinstance(under, A.Relation) and under.ops and under.ops[0] in ("\\in",):
                variables = _split_vars(under.operands[0])
                domain = under.operands[-1]
                lower = None
            elif over is None and under is not None and _is_space(under):
                domain, lower = under, None  # `\\int_{\\mathbb{R}^D}`, `\\int_{\\mathcal{A}}`: over a set, not from it
            if body is not None:
                body, dvars, differentials = _split_differentials(body)
                variables = variables + tuple(v for v in dvars if v not in variables)
        else:
            if under is not None:
                variables, lower, domain, distribution, condition = _analyze_under(op, under)
            upper = over
        samples = tuple(_samples(under)) if under is not None else ()
        return A.Reduction(op, operator, under, over, body, variables, lower, upper, domain, distribution,
                           condition, brackets, samples, differentials, span=span)

    def _gradient(self, operator: A.Node, start: int) -> A.Node:
        sub, sup, primes = self._read_scripts()
        body = None
        if self._starts_operand(self.peek()) and self.peek().kind not in (SUB, SUP, PRIME):
            body = self.parse_product(stop_at_operators=False, stop_after_call=True)
        if sub is None and sup is None and body is None:
            return operator  # `$\nabla$` named on its own
        if isinstance(body, A.Transpose) and _ends_in_call(body.base):
            # `\nabla f(x)^\top (x' - x)`: the transposed gradient (a scalar f(x) has nothing to transpose)
            grad = A.Gradient(sub, sup, body.base, span=(start, body.base.span[1]))
            return A.Transpose(grad, span=(start, self.last_end()))
        return A.Gradient(sub, sup, body, span=(start, self.last_end()))

    def _indicator(self, symbol: A.Node, start: int) -> A.Node:
        tok = self.peek()
        if (tok.kind == PUNCT and tok.text in "([") or (tok.kind == CMD and tok.text in ("\\{", "\\lbrace")):
            group = self._bracketed()
            inner = group.items + group.given + group.params
            cond = self._seq(inner, group) if inner else A.Empty(span=(group.start, group.end))
            brackets = {"[": "[]", "(": "()", "{": "{}"}.get(group.open, "[]")
            if (group.open, group.close) not in (("(", ")"), ("[", "]"), ("{", "}")) or group.given or \
                    group.divergence:
                return A.Product((symbol, self._group_node(group)), span=(start, group.end))
            node: A.Node = A.Indicator(symbol, cond, brackets, span=(start, group.end))
            return self._postfix_loop(node, start)
        if tok.kind == SUB:
            save = self.pos
            self.next()
            sub = self.parse_script_arg(tok)
            if isinstance(sub, A.Group) and isinstance(sub.body, A.Relation):
                sub = sub.body  # `\mathbb{1}_{[k \neq i]}`
            if isinstance(sub, A.SetLiteral) and len(sub.items) == 1 and isinstance(sub.items[0], A.Relation):
                sub = sub.items[0]  # `\mathbb{1}_{\{x_t = m\}}`
            if isinstance(sub, (A.Relation, A.Sequence)) or (isinstance(sub, A.Apply)):
                node = A.Indicator(symbol, sub, "_", span=(start, self.last_end()))
                return self._postfix_loop(node, start)
            self.pos = save
        return self._postfix_loop(symbol, start)

    # --- derivatives ---------------------------------------------------------------------------------
    def _derivative(self, num: A.Node, den: A.Node) -> Optional[A.Derivative]:
        def dform(node: A.Node) -> Optional[tuple[str, Optional[A.Node], Optional[A.Node]]]:
            """(kind, operand, order) if node is `d`, `d x`, `d^2 y`, `\\partial`, `\\partial L`."""
            if isinstance(node, A.Symbol) and _is_d(node):
                return "d", None, None
            if isinstance(node, A.Symbol) and node.name == "\\partial" and not node.sub_label:
                return "partial", None, None
            if isinstance(node, A.BinOp) and node.op == "-" and isinstance(node.left, A.Symbol) and \
                    (node.left.name == "\\partial" or _is_d(node.left)):
                # `\partial -\log q(u)`: the derivative of -log q(u)
                kind_ = "partial" if node.left.name == "\\partial" else "d"
                return kind_, A.UnaryOp("-", node.right, span=(node.left.span[1], node.span[1])), None
            if isinstance(node, A.Differential):
                return node.kind, node.body, None
            if isinstance(node, A.Power) and isinstance(node.base, A.Symbol) and \
                    (_is_d(node.base) or node.base.name == "\\partial"):
                return ("d" if _is_d(node.base) else "partial"), None, node.exponent
            if isinstance(node, A.Product) and len(node.factors) >= 2:
                head = node.factors[0]
                rest = node.factors[1:]
                operand = rest[0] if len(rest) == 1 else A.Product(tuple(rest), span=(rest[0].span[0],
                                                                                      rest[-1].span[1]))
                if isinstance(head, A.Symbol) and _is_d(head):
                    return "d", operand, None
                if isinstance(head, A.Symbol) and head.name == "\\partial":
                    return "partial", operand, None
                if isinstance(head, A.Power) and isinstance(head.base, A.Symbol) and \
                        (_is_d(head.base) or head.base.name == "\\partial"):
                    return ("d" if _is_d(head.base) else "partial"), operand, head.exponent
                if isinstance(head, A.Differential) and all(isinstance(f, A.Differential) for f in rest):
                    return head.kind, node, None
            return None

        top = dform(num)
        bottom = dform(den)
        if top is None or bottom is None or bottom[1] is None:
            return None
        kind = top[0]
        wrt_node = bottom[1]
        if top[2] is not None and isinstance(wrt_node, A.Power) and wrt_node.exponent == top[2]:
            # `\partial^2 u / \partial x^2`: the second derivative with respect to x (not to x squared)
            wrt_node = wrt_node.base
        if isinstance(wrt_node, A.Product) and all(isinstance(f, A.Differential) for f in wrt_node.factors):
            wrt = tuple(f.body for f in wrt_node.factors)  # type: ignore[attr-defined]
        else:
            wrt = (wrt_node,)
        return A.Derivative(kind, top[1], wrt, top[2])

    # --- environments --------------------------------------------------------------------------------
    def _environment(self) -> A.Node:
        tok = self.next()
        env = tok.text
        # skip an optional placement `[t]`/`[b]`/`[c]` — nothing else: `\begin{aligned} \relax [Q_1; Q_2] = …`
        # starts with content, not with an argument
        if self.at_punct("[") and self.peek(1).kind == LETTER and self.peek(1).text in "tbc" and \
                self.peek(2).kind == PUNCT and self.peek(2).text == "]":
            self._skip_optional()
        for _ in range(T.ENV_ARGS.get(env, 0)):
            if self.peek().kind == LBRACE:
                self.pos = self._brace(self.tokens, self.pos) + 1
        if env in T.MATRIX_ENVS or env in T.CASES_ENVS:
            return self._grid_environment(env, tok.start)
        return self._statement_environment(env, tok.start)

    def _grid_environment(self, env: str, start: int) -> A.Node:
        """A matrix or cases environment: its cells, row by row."""
        rows: list[list[A.Node]] = [[]]
        saved = self.bar_stop
        self.bar_stop = ""
        while True:
            t = self.peek()
            if t.kind == END:
                if t.text != env:
                    raise self.error(f"\\end{{{t.text}}} closes \\begin{{{env}}}", t.start)
                self.next()
                break
            if t.kind == EOF:
                raise self.error(f"missing \\end{{{env[:40]}}}", start)
            if t.kind == AMP:
                self.next()
                if not rows[-1]:
                    rows[-1].append(A.Empty(span=(t.start, t.start)))
                if self.peek().kind in (AMP, NEWLINE, END):
                    rows[-1].append(A.Empty(span=(t.end, t.end)))
                continue
            if t.kind == NEWLINE:
                self.next()
                rows.append([])
                continue
            if t.kind == RBRACE:
                raise self.error(f"unbalanced }} inside \\begin{{{env}}}", t.start)
            rows[-1].append(self._cell())
        self.bar_stop = saved
        if rows and not rows[-1]:
            rows.pop()
        span = (start, self.last_end())
        if env in T.CASES_ENVS:
            cases = tuple((r[0] if r else A.Empty(), (r[1] if len(r) == 2 else
                           (A.Sequence(tuple(r[1:]), tuple("&" for _ in r[2:])) if len(r) > 2 else None)))
                          for r in rows)
            return A.Cases(cases, span=span)
        return A.Matrix(env, tuple(tuple(r) for r in rows), span=span)

    def _statement_environment(self, env: str, start: int) -> A.Node:
        """An align-like environment nested in a formula: its statements."""
        statements: list[A.Node] = []
        while True:
            t = self.peek()
            if t.kind == END:
                self.next()
                break
            if t.kind == EOF:
                raise self.error(f"missing \\end{{{env[:40]}}}", start)
            if t.kind in (NEWLINE, AMP):
                self.next()
                continue
            if t.kind == RBRACE:
                raise self.error(f"unbalanced }} inside \\begin{{{env}}}", t.start)
            statements.append(self.parse_sequence())
            t = self.peek()
            while t.kind not in (NEWLINE, END, AMP, EOF):
                if not (t.kind in (PUNCT, CMD) and (t.text in ")]|" or t.text in T.CLOSE_DELIMS)) and \
                        t.kind != RBRACE:
                    raise self.error(f"unexpected {t.text or t.kind} in \\begin{{{env}}}", t.start)
                # a stray closer inside an align block (unbalanced parentheses in the paper)
                self.recoverable(f"unexpected {t.text} in \\begin{{{env}}}", t.start)
                self.next()
                if self.peek().kind not in (NEWLINE, END, AMP, EOF):
                    statements[-1] = self._juxtapose(statements[-1], self.parse_sequence())
                t = self.peek()
        span = (start, self.last_end())
        if len(statements) == 1:
            return replace(statements[0], span=statements[0].span)
        if not statements:
            return A.Empty(span=span)
        return A.Rows(tuple(statements), span=span)

    def _cell(self) -> A.Node:
        """One matrix or cases cell."""
        start = self.peek().start
        items = [self.parse_sequence()]
        while self.peek().kind not in (AMP, NEWLINE, END, EOF, RBRACE):
            tok = self.peek()
            if tok.kind == PUNCT and tok.text in ")]|" or tok.kind == CMD and (tok.text in T.CLOSE_DELIMS):
                raise self.error(f"unexpected {tok.text}")
            items.append(self.parse_sequence())
        if len(items) == 1:
            return items[0]
        return A.Product(tuple(items), span=(start, self.last_end()))


# ---------------------------------------------------------------------------------------------------
# Script and under-script classification (pure functions on nodes, shared with the printer)
# ---------------------------------------------------------------------------------------------------


_ATOM_READERS: dict[str, Callable[[Parser, Token], tuple[A.Node, str]]] = {
    LETTER: Parser._atom_letters, NUMBER: Parser._atom_number, LBRACE: Parser._atom_group, TEXT: Parser._atom_text,
    BEGIN: Parser._atom_environment, SUB: Parser._atom_script_alone, SUP: Parser._atom_script_alone,
    PRIME: Parser._atom_script_alone, PUNCT: Parser._atom_punct, CMD: Parser._atom_command}
"""Token kind → how an atom starting with it is read; any other kind cannot start one (`_UNEXPECTED`)."""

_UNEXPECTED = {EOF: "unexpected end of formula", RBRACE: "unexpected }}: nothing to close",
               NEWLINE: "unexpected \\\\ (row break)", AMP: "unexpected &", END: "unexpected \\end{{{0}}}"}
"""Token kind → the error where an atom should start (formatted with the token's text)."""


def _divergence_from_here(group: _Bracketed) -> list[A.Node]:
    """A divergence bar: the items so far are its left side; the next items start a new list (returned)."""
    group.divergence = group.divergence + list(group.items)
    group.items = []
    return group.items

def _classified_sub(base: A.Node, sub: Optional[A.Node],
                    span: tuple[int, int]) -> tuple[A.Node, tuple[A.Node, ...], Optional[A.Node]]:
    """(base, indices, label) of a subscript: a norm's subscript is its order (`\\|x\\|_2`); any other subscript
    indexes or labels its base, as `classify_sub` says."""
    if sub is None:
        return base, (), None
    if isinstance(base, A.Norm) and base.order is None:
        return replace(base, order=sub, span=span), (), None
    cls, value = classify_sub(sub, base)
    if cls == "label":
        return base, (), value  # type: ignore[return-value]
    return base, value, None  # type: ignore[return-value]


def _onto_symbol(base: A.Symbol, indices: tuple[A.Node, ...], sub_label: Optional[A.Node], primes: int,
                 sup_kind: Optional[str], sup_value: Any,
                 span: tuple[int, int]) -> tuple[A.Node, tuple[A.Node, ...], int, Optional[str]]:
    """A symbol takes its scripts into itself where it has room (a label below, primes, a label, star or primes
    above): (the symbol, the indices left, the primes left, the superscript's kind left to wrap it, or None)."""
    changes: dict = {}
    if sub_label is not None:
        if base.sub_label is None and not indices:
            changes["sub_label"] = sub_label
        else:
            indices = (sub_label,)
    if primes:
        if base.sup_label is None and not base.optimum:
            changes["primes"] = base.primes + primes
            primes = 0
    if sup_kind == "label" and base.sup_label is None and not base.optimum and not primes:
        changes["sup_label"] = sup_value
        sup_kind = None
    elif sup_kind == "optimum" and not base.optimum and not primes:
        changes["optimum"] = True
        sup_kind = None
    elif sup_kind == "prime" and base.sup_label is None and not base.optimum and not primes:
        changes["primes"] = changes.get("primes", base.primes) + int(sup_value)
        sup_kind = None
    return (replace(base, span=span, **changes) if changes else base), indices, primes, sup_kind


def _with_sup(base: A.Node, sup_kind: str, sup_value: Any, sup: A.Node, span: tuple[int, int]) -> A.Node:
    """`base` under the superscript `classify_sup` read as `sup_kind` (with `sup_value`)."""
    if sup_kind == "power":
        return A.Power(base, sup_value, span=span)
    if sup_kind == "transpose":
        return A.Transpose(base, span=span)
    if sup_kind == "inverse":
        return A.Inverse(base, span=span)
    if sup_kind == "prime":
        return A.Primed(base, int(sup_value), span=span)
    # a label or a star on a node that has no room for it
    return A.Labeled(base, sup if sup_kind == "optimum" else sup_value, "sup", span=span)


def _commands(names: Collection[str]) -> tuple[str, ...]:
    """The command tokens spelled by these names (`frac` → `\\frac`)."""
    return tuple("\\" + name for name in names)


# Which command tokens each rule claims, in the order the rules are tried: a token two tables hold goes to the
# first rule that takes it (a rule may pass, as the lone-delimiter and stacked-relation rules do).
_CommandRule = Callable[[Parser, Token], Optional[tuple[A.Node, str]]]
_COMMAND_RULES: tuple[tuple[tuple[str, ...], _CommandRule], ...] = (
    (_commands(T.GREEK | T.LETTER_LIKE), Parser._cmd_letter),
    (tuple(T.OPEN_DELIMS) + tuple(T.CLOSE_DELIMS), Parser._cmd_lone_delimiter),
    (tuple(T.OPEN_DELIMS) + (NULL_OPEN,), Parser._cmd_open_delimiter),
    (_commands(T.FONTS), Parser._cmd_font),
    (_commands(("operatorname*",)), Parser._cmd_starred_operatorname),
    (_commands(T.ACCENTS), Parser._cmd_accent),
    (_commands(T.FRACTIONS), Parser._cmd_fraction),
    (_commands(T.BINOMIALS), Parser._cmd_binomial),
    (_commands(T.ROOTS), Parser._cmd_root),
    (_commands(T.BIG_OPERATORS), Parser._cmd_big_operator),
    (_commands(T.LIMIT_OPERATORS), Parser._cmd_limit_operator),
    (_commands(("arg",)), Parser._cmd_arg),
    (_commands(T.FUNCTION_MACROS), Parser._cmd_function),
    (_commands(T.ELLIPSES), Parser._cmd_ellipsis),
    (_commands(T.NABLA), Parser._cmd_nabla),
    (_commands(("partial",)), Parser._cmd_partial),
    (_commands(("mathop", "mathbin", "mathrel", "mathord")), Parser._cmd_math_class),
    (_commands(T.STACK_MACROS), Parser._cmd_stacked_relation),
    (_commands(T.STACK_MACROS), Parser._cmd_stack),
    (_commands(T.BRACES), Parser._cmd_brace),
    (_commands(("substack", "atop_")), Parser._cmd_substack),
    (("\\not",) + tuple(T.UNARY_OPS), Parser._cmd_unary),
    (("\\#", "\\$", "\\%", "\\&", "\\_"), Parser._cmd_escaped_character),
    (_commands(T.PREFIX_BIG_BINARY), Parser._cmd_prefix_big_binary),
    (tuple(T.BINARY_OPS), Parser._cmd_placeholder_operator),
    (tuple(T.RELATIONS), Parser._cmd_relation),
    (tuple(T.CLOSE_DELIMS) + tuple(T.CONDITION_BARS) + tuple(T.DIVERGENCE_BARS), Parser._cmd_misplaced_closer),
    (_commands(T.INFIX_GENFRAC), Parser._cmd_misplaced_infix),
    ((NULL_CLOSE,), Parser._cmd_unmatched_right),
    (("\\",), Parser._cmd_lone_backslash),
)

_COMMAND_DISPATCH = _routes(_COMMAND_RULES)


def _is_d(node: A.Symbol) -> bool:
    return node.name == "d" and node.font in (None, "rm", "op", "it") and not node.accents and _unscripted(node)


def _plain_letter(node: A.Node) -> bool:
    return isinstance(node, A.Symbol) and len(node.name) == 1 and node.name.isalpha() and node.font is None \
        and not node.accents and _unscripted(node)


_TWO_LETTER_FUNCTIONS = frozenset("Tr tr KL ln lg Pr".split())
_COUNT_LETTERS = frozenset("T N K M L".split())
"""Capitals papers use as counts, and so as the last position (`x_T`, `h_N`)."""
_LABEL_MARKS = frozenset({"*", "\\star", "\\ast", "+", "-", "\\dagger", "\\circ", "\\bullet", "\\emptyset",
                          "\\varnothing"})
"""Marks that name a variant (`x_\\star`, `\\bm{z}_\\emptyset`: the null token), never a position."""
_RUNNING_GREEK = frozenset({"\\tau", "\\iota"})
"""Greek letters papers do run over as indices (`x_\\tau`); other Greek subscripts name a parameter or a
setting (`\\pi_\\theta`, `\\ell_\\lambda`, `d_\\gamma`)."""


def _rule_for_node_type(rules: tuple[tuple[type, Callable[[Any, Any], Optional[tuple[str, object]]]], ...],
                        node: A.Node, base: Optional[A.Node]) -> Optional[tuple[str, object]]:
    """What the rule for the node's type (the first that matches) says of a script, or None."""
    for node_type, rule in rules:
        if isinstance(node, node_type):
            return rule(node, base)
    return None


def classify_sub(sub: A.Node, base: Optional[A.Node] = None) -> tuple[str, object]:
    """("label", node) or ("index", (index, …)). A subscript names when it is a word, a mark (`x_\\star`), a
    Greek parameter (`\\pi_\\theta`), a styled or capital letter (`q_{\\bm\\theta}`, `B_F`, `p_A`), a set
    (`L_{X \\setminus A}`) or sits on a named function (`\\log_2`, `\\text{Regret}_\\ell`); it indexes when it is
    a running letter, a number or arithmetic on them (`x_t`, `x_{t-1}`, `W_{ij}`, `x_{0,ij}`)."""
    found = _rule_for_node_type(_SUBSCRIPT_RULES, sub, base)
    if found is not None:
        return found
    if any(isinstance(n, A.Symbol) and n.name in T.PARAMETER_LETTERS for n in A.walk(sub)) and \
            not isinstance(sub, (A.Relation, A.Sequence)):
        return "label", sub  # `\\pi_{\\theta + \\alpha \\nabla V}`, `\\pi_{\\theta_i}`: a policy named by its parameters
    return "index", (_index_item(sub),)


def _on_named_function(base: Optional[A.Node]) -> bool:
    return isinstance(base, A.Symbol) and base.name.lstrip("\\") in T.FUNCTION_MACROS  # `\\log_2`


def _symbol_subscript(sub: A.Symbol, base: Optional[A.Node]) -> Optional[tuple[str, object]]:
    name = sub.name
    if isinstance(base, A.Text) and name == "\\ell":
        return "label", sub  # `\\text{Regret}_\\ell`: the regret of the loss \\ell
    if (len(name.lstrip("\\")) > 1 and not name.startswith("\\")) or " " in name:
        return "label", sub  # a word, or a name of several parts (`F'_{\Delta x}`: along the increment)
    if name in _LABEL_MARKS or (name.startswith("\\") and name[1:] in T.LIMIT_OPERATORS) or \
            name.lstrip("\\") in T.FUNCTION_MACROS:
        return "label", sub  # `x_\star`, `d_{\min}`, `L_{\max}`
    if name.lstrip("\\") in T.GREEK and name not in _RUNNING_GREEK and not sub.accents:
        return "label", sub
    if sub.font in ("rm", "op", "text", "sf", "tt", "cal", "bb", "bf", "frak") and \
            (name.isalpha() or name.lstrip("\\") in T.GREEK):
        return "label", sub
    if len(name) == 1 and name.isupper() and sub.font is None and name not in _COUNT_LETTERS:
        return "label", sub  # `B_F`, `p_A`, `n_P` (but `x_T`, `h_N`: the last position)
    if _on_named_function(base) and not name.isdigit():
        return "label", sub
    if isinstance(base, A.Symbol) and base.name in ("I", "1") and base.font in ("bf", "bb") and name.isalpha():
        return "label", sub  # `\mathbf{I}_d`: the identity of size d
    return "index", (sub,)


def _number_subscript(sub: A.Number, base: Optional[A.Node]) -> Optional[tuple[str, object]]:
    return ("label", sub) if _on_named_function(base) else None


def _listed_subscript(sub: A.Sequence, base: Optional[A.Node]) -> Optional[tuple[str, object]]:
    if not all(s == "," for s in sub.separators):
        return None
    if any(isinstance(i, A.Symbol) and i.name.lstrip("\\") in T.GREEK and i.name not in _RUNNING_GREEK
           for i in sub.items):
        return "label", sub  # `\ell_{s, \lambda}`: named by its settings
    items: list[A.Node] = []
    for item in sub.items:
        # `x_{0, ij}`: a run of running letters in a list is one index per letter
        if isinstance(item, A.Product) and all(_plain_letter(f) for f in item.factors) \
                and all(f.name in T.INDEX_LETTERS for f in item.factors if isinstance(f, A.Symbol)):
            items.extend(item.factors)
        else:
            items.append(_index_item(item))
    return "index", tuple(items)


def _product_subscript(sub: A.Product, base: Optional[A.Node]) -> Optional[tuple[str, object]]:
    if not all(_plain_letter(f) or (isinstance(f, A.Number) and len(f.value) == 1) for f in sub.factors):
        return None
    letters = [f for f in sub.factors if isinstance(f, A.Symbol)]
    word = "".join(f.name if isinstance(f, A.Symbol) else f.value for f in sub.factors)  # type: ignore[attr-defined]
    if len(word) <= 3 and all(f.name in T.INDEX_LETTERS for f in letters) and word not in T.LABEL_WORDS:
        return "index", tuple(sub.factors)  # `W_{ij}`, `w_{i1}`
    if len(letters) == len(sub.factors):
        return "label", A.Symbol(word, span=sub.span)
    return None


def _tuple_subscript(sub: A.Tuple, base: Optional[A.Node]) -> Optional[tuple[str, object]]:
    if sub.open != "(":
        return None
    return "index", tuple(_index_item(i) for i in sub.items)  # `PE_{(pos, 2i+1)}`


def _set_subscript(sub: A.BinOp, base: Optional[A.Node]) -> Optional[tuple[str, object]]:
    return ("label", sub) if sub.op in ("\\setminus", "\\cup", "\\cap") else None  # `L_{X \\setminus A}`


_SubscriptRule = Callable[[Any, Optional[A.Node]], Optional[tuple[str, object]]]  # the node is of the rule's type
_SUBSCRIPT_RULES: tuple[tuple[type, _SubscriptRule], ...] = (
    (A.Text, lambda sub, base: ("label", sub)),
    (A.Symbol, _symbol_subscript),
    (A.Number, _number_subscript),
    (A.Sequence, _listed_subscript),
    (A.Product, _product_subscript),
    (A.Tuple, _tuple_subscript),
    (A.BinOp, _set_subscript),
)
"""The subscript rule for each kind of node (the first whose type matches); when it finds nothing, a subscript
naming a parameter is a label and anything else an index."""


def _index_item(node: A.Node) -> A.Node:
    if isinstance(node, A.Relation) and node.ops == (":",):
        a, b = node.operands
        return A.Slice(None if isinstance(a, A.Empty) else a, None if isinstance(b, A.Empty) else b,
                       span=node.span)
    return node


_TRANSPOSE_NAMES = {"\\top", "\\intercal", "\\transpose", "\\T"}
_SIGN_MARKS = frozenset(("+", "-", "*", "\\ast", "\\star", "\\times"))
"""Superscripts that restrict a number set (`\\mathbb{R}^+`, `\\mathbb{C}^*`) rather than raise it to a dimension."""


def classify_sup(sup: A.Node, base: A.Node) -> tuple[str, object]:
    """(kind, value): kind is power, transpose, inverse, optimum, prime or label."""
    if isinstance(base, A.Symbol) and base.font == "bb" and base.name in ("R", "N", "Z", "C", "Q") and \
            not base.accents:
        if isinstance(sup, A.Symbol) and sup.name in _SIGN_MARKS:
            return "label", sup  # `\\mathbb{R}^+`, `\\mathbb{R}^*`: the positive (non-zero) numbers, no dimension
        return "power", sup  # `\\mathbb{R}^D`, `\\mathbb{R}^{n \\times d}`: a space of D-tuples
    if isinstance(base, A.Number):
        return "power", sup
    return _rule_for_node_type(_SUPERSCRIPT_RULES, sup, base) or _named_by_words(sup, base) or ("power", sup)


_EXPONENTIAL_NAMES = ("e", "\\exp")


def _symbol_superscript(sup: A.Symbol, base: A.Node) -> Optional[tuple[str, object]]:
    name = sup.name
    if name in _TRANSPOSE_NAMES and not sup.accents:
        return "transpose", None
    if name == "T" and sup.font in (None, "sf", "rm", "tt", "bf", "text", "op") and not sup.accents \
            and sup.sub_label is None and sup.sup_label is None and not sup.primes and not sup.optimum:
        return "transpose", None
    if name in T.OPTIMUM_MARKS and sup.font is None:
        return "optimum", None
    if name in ("\\prime", "'"):
        return "prime", 1
    if name in T.DAGGER_MARKS or name in _MARK_LABELS:
        return "label", sup
    if len(name.lstrip("\\")) > 1 and not name.startswith("\\"):
        return "label", sup
    if sup.font in ("rm", "op", "text", "sf", "tt", "cal", "frak", "bb"):
        return "label", sup
    if len(name) == 1 and name.isalpha() and isinstance(base, A.Symbol) and base.font == "bf" and \
            sup.font is None and name not in "nkm":
        return "label", sup
    if len(name) == 1 and name.isupper() and not (isinstance(base, A.Symbol) and base.name in _EXPONENTIAL_NAMES):
        return "label", sup
    return "power", sup


_MARK_LABELS = frozenset(("\\dagger", "+", "-", "\\ddagger", "\\circ", "\\bullet", "\\perp", "\\star"))
"""Superscript marks that name a variant (`x^\\dagger`, `\\theta^+`), never an exponent."""


def _text_superscript(sup: A.Text, base: A.Node) -> Optional[tuple[str, object]]:
    if sup.text.strip() in ("T", "\\top", "\\intercal"):
        return "transpose", None  # `(\\mu - \\mu_k)^\\text{T}`
    return "label", sup


def _negated_superscript(sup: A.UnaryOp, base: A.Node) -> Optional[tuple[str, object]]:
    if not (sup.op == "-" and isinstance(sup.operand, A.Number) and sup.operand.value == "1"):
        return None
    if isinstance(base, A.Symbol) and base.name in _EXPONENTIAL_NAMES and base.font in (None, "rm"):
        return "power", sup
    return "inverse", None


def _bracketed_superscript(sup: A.Group | A.Tuple, base: A.Node) -> Optional[tuple[str, object]]:
    # `h^{(\ell)}`, `y^{[n]}`, `D^{(k, m)}`: a bracketed name (layer, patch, a pair of names), not an exponent
    return ("label", sup) if sup.open in ("(", "[") else None


def _product_superscript(sup: A.Product, base: A.Node) -> Optional[tuple[str, object]]:
    primes = [isinstance(f, A.Symbol) and f.name in ("\\prime", "'") for f in sup.factors]
    if all(primes):
        return "prime", len(sup.factors)
    if primes[0]:
        return "label", sup  # `h^{\prime k}`: a primed, labelled quantity, not a power
    if all(_plain_letter(f) for f in sup.factors):
        word = "".join(f.name for f in sup.factors)  # type: ignore[attr-defined]
        if word.isupper() or word in T.LABEL_WORDS or len(word) >= 3:
            return "label", A.Symbol(word, span=sup.span)  # `x_0^{pred}`: a word names
    return None


def _sequence_superscript(sup: A.Sequence, base: A.Node) -> Optional[tuple[str, object]]:
    return "label", sup  # `\Pr^{\pi^1, \pi^2}`: a list is never an exponent


def _named_by_words(sup: A.Node, base: A.Node) -> Optional[tuple[str, object]]:
    """A superscript of words or text on anything but e: a name (`\\hat A_t^{\\text{GAE}(\\gamma, \\lambda)}`,
    `L_t^{CLIP+VF+S}`), not an exponent."""
    if isinstance(base, A.Symbol) and base.name in _EXPONENTIAL_NAMES:
        return None
    leaves = [n for n in A.walk(sup) if isinstance(n, (A.Symbol, A.Number, A.Text))]
    if any(isinstance(n, A.Text) for n in leaves):
        return "label", sup
    if isinstance(sup, (A.BinOp, A.Product)) and leaves and all(
            isinstance(n, A.Symbol) and n.name.isalpha() and n.name.isupper() for n in leaves) and \
            any(len(n.name) > 1 for n in leaves if isinstance(n, A.Symbol)):
        return "label", sup
    return None


_SuperscriptRule = Callable[[Any, A.Node], Optional[tuple[str, object]]]  # the node is of the rule's type
_SUPERSCRIPT_RULES: tuple[tuple[type, _SuperscriptRule], ...] = (
    (A.Symbol, _symbol_superscript),
    (A.Text, _text_superscript),
    (A.UnaryOp, _negated_superscript),
    (A.Group, _bracketed_superscript),
    (A.Tuple, _bracketed_superscript),
    (A.Product, _product_superscript),
    (A.Sequence, _sequence_superscript),
)
"""The superscript rule for each kind of node (the first whose type matches); when it finds nothing, a
superscript of words is a name and anything else a power."""


def _split_vars(node: A.Node) -> tuple[A.Node, ...]:
    core = node
    while isinstance(core, (A.Indexed, A.Power, A.Labeled)):
        core = core.base
    if core is not node and isinstance(core, A.SetLiteral):
        return tuple(core.items)  # `\{o_i\}_{i=1}^G \sim \pi`: the o_i
    if isinstance(node, A.Labeled) and isinstance(node.base, A.SetLiteral):
        return tuple(node.base.items)
    if isinstance(node, (A.Tuple, A.SetLiteral, A.Concat)):
        return tuple(node.items)
    if isinstance(node, A.Sequence):
        return tuple(node.items)
    if isinstance(node, A.Group):
        return _split_vars(node.body)
    if isinstance(node, A.Empty):
        return ()
    return (node,)


def _under_relation(op: str, node: A.Relation) -> tuple:
    """(variables, lower, domain, distribution, condition) of an under-script that is a relation: `i = 1`,
    `x \\in S`, `x \\sim p`, `1 \\le i < N`, `t \\to 0`, `i : m_i = 1`."""
    variables: tuple[A.Node, ...] = ()
    lower: Optional[A.Node] = None
    domain: Optional[A.Node] = None
    distribution: Optional[A.Node] = None
    condition: Optional[A.Node] = None
    ops = node.ops
    first = ops[0]
    if ":" in ops:
        i = ops.index(":")
        left = Parser._rel_part(node.operands[:i + 1], ops[:i], ())
        right = Parser._rel_part(node.operands[i + 1:], ops[i + 1:], ())
        variables, lower, domain, distribution, _ = _analyze_under(op, left)
        condition = right
    elif first == "=" and len(ops) == 1:
        variables = _split_vars(node.operands[0])
        lower = node.operands[1]
    elif first in ("\\in", "\\subset", "\\subseteq") and len(ops) == 1:
        variables = _split_vars(node.operands[0])
        domain = node.operands[1]
    elif first == "\\sim" and len(ops) == 1:
        variables = _split_vars(node.operands[0])
        distribution = node.operands[1]
    elif len(ops) == 2 and ops[0] in ("\\le", "<") and ops[1] in ("\\le", "<"):
        variables = _split_vars(node.operands[1])
        lower = node.operands[0]
        condition = node
    elif first in ("\\to", "\\rightarrow"):
        variables = _split_vars(node.operands[0])
        condition = node
    else:
        condition = node
        head = node.operands[0]
        if isinstance(head, A.Empty):
            head = node.operands[1]
        variables = tuple(v for v in _split_vars(head) if isinstance(v, (A.Symbol, A.Indexed, A.Tuple)))
    return variables, lower, domain, distribution, condition


def _analyze_under(op: str, under: A.Node):
    """(variables, lower, domain, distribution, condition) from an under-script."""
    variables: tuple[A.Node, ...] = ()
    lower: Optional[A.Node] = None
    domain: Optional[A.Node] = None
    distribution: Optional[A.Node] = None
    condition: Optional[A.Node] = None
    node = under
    extra: list[A.Node] = []
    if isinstance(node, A.Sequence) and any(s == "\\\\" for s in node.separators):
        node, extra = node.items[0], list(node.items[1:])
    if op == "E" and isinstance(node, A.Tuple) and any(isinstance(i, A.Relation) and "\\sim" in i.ops
                                                       for i in node.items):
        # `\mathbb{E}_{(x^w, x^l \sim p, c \sim D}` (a bracket the paper leaves open): draws, not one tuple
        node = A.Sequence(node.items, (",",) * (len(node.items) - 1), span=node.span)
    if isinstance(node, A.Sequence):
        parts = list(node.items)
        for part in parts:
            if variables and isinstance(part, A.Relation) and part.ops == ("=",) and \
                    isinstance(part.operands[0], A.Indexed) and \
                    any(i == v for i in part.operands[0].indices for v in variables if isinstance(v, A.Symbol)):
                # `i \in [1, N], m_i = 1`: a condition on the bound i, not a second variable
                condition = part if condition is None else condition
                continue
            v, lo, dom, dist, cond = _analyze_under(op, part)
            variables += v
            lower = lower or lo
            domain = domain or dom
            distribution = distribution or dist
            condition = condition or cond
    elif isinstance(node, A.Relation):
        variables, lower, domain, distribution, condition = _under_relation(op, node)
    elif isinstance(node, A.Power) and isinstance(node.base, (A.Symbol, A.Indexed)):
        variables = (node,)  # `\max_{\theta^1}`: a name whose superscript is decided later
    elif isinstance(node, A.Annotated) and node.kind == "condition" and isinstance(node.note, A.Symbol) and \
            node.note.name == "\\forall":
        # `\sum_{\forall i \in [1, N], m_i = 1}`: what the quantifier ranges over is bound
        return _analyze_under(op, node.body)
    elif isinstance(node, A.Annotated) and node.kind == "condition":
        condition = node.body  # `N, D \\text{ s.t. } \\text{FLOPs}(N, D) = C`
    elif isinstance(node, (A.Symbol, A.Indexed, A.Tuple, A.Group, A.Slice)):
        if op == "E" and (isinstance(node, A.Apply) or (isinstance(node, A.Symbol) and node.font == "cal")):
            distribution = node
        else:
            variables = _split_vars(node)
    elif isinstance(node, A.Apply):
        if op == "E":
            # `\mathbb E_{p_A(a)}`, `\mathbb E_{q(x_t | x)}`: the average over a, drawn from p_A
            distribution = node
            if not isinstance(node.func, A.Empty):
                variables = tuple(v for a in node.args for v in _split_vars(a))
        else:
            condition = node
    elif isinstance(node, A.Product) and all(_plain_letter(f) for f in node.factors) and len(node.factors) <= 3:
        variables = tuple(node.factors)
    else:
        condition = node
    for more in extra:
        if op == "E" and _declares_samples(more):
            # `\substack{x^w \sim p(x^w) \\ x^l \sim p(x^l)}`: every row draws what it names
            v, _, _, dist, _ = _analyze_under(op, more)
            variables += tuple(x for x in v if x not in variables)
            distribution = distribution or dist
            continue
        condition = more if condition is None else A.Sequence((condition, more), (",",))
    return variables, lower, domain, distribution, condition


def _d_of(node: A.Node) -> Optional[A.Differential]:
    """`d x_t` written as the product of an italic d and a quantity, as a differential (None otherwise)."""
    if isinstance(node, A.Product) and len(node.factors) == 2 and isinstance(node.factors[0], A.Symbol) and \
            _is_d(node.factors[0]) and isinstance(node.factors[1], (A.Symbol, A.Indexed)):
        return A.Differential("d", node.factors[1], span=node.span)
    return None


def _differential_equation(operands: list[A.Node]) -> list[A.Node]:
    """`d\\bm{x}_t = [f_t \\bm{x}_t - …] dt + g_t dw`: an equation of differentials (an SDE or ODE in differential
    form): the left side `d x` and every term of the right side that ends with `d t` / `d w` are differentials.
    Unchanged unless the left side is such a `d x` and some term on the right ends with one."""
    left, right = operands
    lhs = _d_of(left)
    if lhs is None:
        return operands

    def term(node: A.Node) -> Optional[A.Node]:
        if isinstance(node, A.BinOp) and node.op in ("+", "-"):
            a, b = term(node.left), term(node.right)
            if a is None and b is None:
                return None
            return replace(node, left=a or node.left, right=b or node.right)
        if isinstance(node, A.UnaryOp) and node.op == "-":
            inner = term(node.operand)
            return None if inner is None else replace(node, operand=inner)
        if isinstance(node, A.Product) and len(node.factors) >= 2:
            tail = _d_of(A.Product(node.factors[-2:], span=(node.factors[-2].span[0], node.factors[-1].span[1])))
            if tail is None:
                return None
            if len(node.factors) == 2:
                return tail
            return replace(node, factors=node.factors[:-2] + (tail,))
        return None

    rhs = term(right)
    if rhs is None:
        return operands
    return [lhs, rhs]


def _bracket_indices(items: list[A.Node]) -> tuple[A.Node, ...]:
    """The positions `x[…]` selects, read as a subscript's are (`z[ij]` as `z_{ij}`: one index per running letter)."""
    out: list[A.Node] = []
    for item in items:
        if isinstance(item, A.Product) and all(_plain_letter(f) for f in item.factors):
            kind, value = classify_sub(item)
            if kind == "index":
                out.extend(value)  # type: ignore[arg-type]
                continue
        out.append(_index_item(item))
    return tuple(out)


def _declares_samples(row: A.Node) -> bool:
    """A row of an expectation's under-script that only draws variables (`x \\sim p`, `t \\sim U, y \\sim q`)."""
    items = row.items if isinstance(row, A.Sequence) and all(s == "," for s in row.separators) else (row,)
    return all(isinstance(i, A.Relation) and i.ops == ("\\sim",) for i in items)


# --- how far a reduction reaches ---------------------------------------------------------------------

def _open_reductions(node: A.Node, braced: Collection[tuple[int, int]] = ()) -> list[tuple[A.Reduction, list[A.Node]]]:
    """The reductions whose body ends where `node` ends (outermost first), each with the path of nodes from
    `node` down to it: `\\frac{1}{G} \\sum_i a_i` → [(the sum, [Product, sum])]. A body in brackets, an
    integral closed by its differential, a bracket-less function's argument and whatever a brace group holds
    (`braced`: the spans of brace groups' contents, `{\\sum_t x}`) are closed."""
    out: list[tuple[A.Reduction, list[A.Node]]] = []
    path: list[A.Node] = []
    current: Optional[A.Node] = node
    while current is not None:
        if current.span in braced:
            break
        path.append(current)
        if isinstance(current, A.Reduction):
            if current.body is None or current.brackets or (current.op == "int" and current.variables):
                break
            out.append((current, list(path)))
            current = current.body
        elif isinstance(current, A.Product):
            current = current.factors[-1]
        elif isinstance(current, A.BinOp) and T.BINARY_OPS.get(current.op, ("", 0))[1] == T.MULTIPLICATIVE:
            current = current.right
        elif isinstance(current, A.BinOp) and current is not node and current.op in ("+", "-"):
            current = current.right
        elif isinstance(current, A.UnaryOp):
            current = current.operand
        else:
            break
    return out


def _keys(node: A.Node) -> set[str]:
    """Names a bound variable can be recognised by: the symbol (`t`), and the whole written variable (`x_i`)."""
    from .printer import to_latex
    out = set()
    core = node
    while isinstance(core, (A.Indexed, A.Primed)):
        core = core.base
    if isinstance(core, A.Symbol):
        out.add(to_latex(core))
    if not isinstance(node, A.Symbol):
        out.add(to_latex(node))
    return out


def _free_names(node: A.Node) -> set[str]:
    """Every symbol written in `node` that it does not bind itself (a divergence binds its distributions'
    arguments: `D_{KL}(p(x \\mid c) \\| q(x \\mid c))` says nothing about x)."""
    from .printer import to_latex
    out: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, A.Reduction):
            bound: set[str] = set()
            for v in current.variables:
                bound |= _keys(v)
            inner = _free_names(current.body) if current.body is not None else set()
            out |= inner - bound
            for part in (current.upper, current.lower, current.domain, current.distribution):
                if part is not None:
                    stack.append(part)
            continue
        if isinstance(current, A.Divergence):
            for side in (current.left, current.right):
                if isinstance(side, A.Apply):
                    # the distributions' events are bound by the divergence; what they are conditioned on is not
                    stack.append(side.func)
                    stack.extend(side.given + side.params)
                else:
                    stack.append(side)
            continue
        if isinstance(current, A.Symbol):
            out.add(to_latex(current))
        elif isinstance(current, (A.Indexed,)):
            out.add(to_latex(current))
            if isinstance(current.base, A.Symbol):
                # `b_t` is another variable than a bound `b` (`\sum_{b \ne b_t} e^{Q(b)} + e^{Q(b_t)}`): the
                # written name counts, and what its indices use, not its letter alone
                stack.extend(current.indices)
                continue
        stack.extend(A.children(current))
    return out


_OPTIMISATIONS = frozenset("max min argmax argmin sup inf".split())
_ARG_OPTIMISATIONS = frozenset("argmax argmin".split())


def _indexed_bases(node: A.Node) -> set[str]:
    """The letters written with an index in `node` (`\alpha` for `\alpha_i`), outside reductions that bind them."""
    from .printer import to_latex
    out: set[str] = set()
    for n in A.walk(node):
        if isinstance(n, A.Indexed) and isinstance(n.base, A.Symbol):
            out.add(to_latex(n.base))
    return out


def _bound_names(red: A.Reduction) -> set[str]:
    """The names a reduction binds: its variables; an optimisation over a constraint alone (`\\argmin_{\\|z\\| \\le
    D}`) binds the letters of the constraint's left side."""
    if red.variables:
        return set().union(*(_keys(v) for v in red.variables))
    if red.op in _OPTIMISATIONS and isinstance(red.condition, A.Relation) and red.condition.ops and \
            red.condition.ops[0] in _CONSTRAINT_SIGNS:
        return {to for n in A.walk(red.condition.operands[0]) if isinstance(n, A.Symbol) for to in _keys(n)}
    return set()


_CONSTRAINT_SIGNS = frozenset(("\\le", "\\leq", "<", "\\ge", "\\geq", ">", "="))


def _extend_scope(left: A.Node, op: str, right: A.Node,
                  braced: Collection[tuple[int, int]] = ()) -> Optional[A.Node]:
    """`\\sum_{t=1}^T a_t - b_t`: the next term uses t, so it belongs to the sum's body. The term joins the
    outermost open reduction on the left's right edge whose variables it uses and, of those, the innermost
    that binds every such variable it uses; None when it uses none (`\\sum_i x_i + \\lambda R`)."""
    opened = _open_reductions(left, braced)
    if not opened:
        return None
    free = _free_names(right)
    if not free:
        return None
    scopes = [(red, path, _bound_names(red)) for red, path in opened]
    used = set()
    components = _indexed_bases(right)
    for red, _, bound in scopes:
        used |= bound & free
        if red.op in _OPTIMISATIONS:
            # `\max_\alpha \sum_i \alpha_i - \frac12 \sum_{i,j} \alpha_i \alpha_j …`: the entries of the
            # vector optimised over use it (a sum's `b_t` stays another variable than its bound `b`)
            used |= bound & components
    if not used:
        return None
    rebound: set[str] = set()
    for n in A.walk(right):
        if isinstance(n, A.Reduction):
            for v in n.variables:
                rebound |= _keys(v)
    if used & rebound:
        return None  # `\sum_t a_t - \sum_{t = \pi(t)+1} b_t`: the next term runs over t itself
    target = None
    in_scope: set[str] = set()
    for k, (_, _, bound) in enumerate(scopes):
        in_scope |= bound
        if used <= in_scope:
            target = k
            break
    if target is None:
        return None
    while target + 1 < len(scopes) and _stacked_optimisations(scopes[target][0], scopes[target + 1][0]):
        # `\min_x \max_y f(x, y) + \lambda \|x\|^2 - \gamma y^2`: operators written one after the other
        # optimise one objective, so a term on x joins the innermost's body too (and y's term can follow it)
        target += 1
    red, path, _ = scopes[target]
    body = red.body
    assert body is not None
    new_body: A.Node = A.BinOp(op, body, right, span=(body.span[0], right.span[1]))
    node: A.Node = replace(red, body=new_body, span=(red.span[0], right.span[1]))
    for parent in reversed(path[:-1]):
        node = _replace_last(parent, node, right.span[1])
    return node


NAME_JOINERS = frozenset("@-_")
"""Characters a text ends with that join it to the letter after it into one name (`pass@k`, `top-k`, `min_p`)."""


def _unscripted(node: A.Symbol) -> bool:
    """No label, prime or optimum mark on the symbol."""
    return node.sub_label is None and node.sup_label is None and not node.primes and not node.optimum


def _stacked_vectors(items: list[A.Node]) -> bool:
    """Two or more indexed or labelled symbols with pairwise different names (`h_{t-1}, x_t`)."""
    if len(items) < 2:
        return False
    names = []
    for item in items:
        if not isinstance(item, A.Indexed) and not (isinstance(item, A.Symbol) and item.sub_label is not None):
            return False
        core = item.base if isinstance(item, A.Indexed) else item
        if not isinstance(core, A.Symbol):
            return False
        names.append((core.name, core.font))
    return len(set(names)) == len(names)


def _stacked_optimisations(outer: A.Reduction, inner: A.Reduction) -> bool:
    """`\\min_x \\max_y …`: an optimisation whose body is, as written, directly another optimisation."""
    return outer.op in _OPTIMISATIONS and inner.op in _OPTIMISATIONS and outer.body is inner


def _close_integral(left: A.Node, op: str, right: A.Node, start: int,
                    braced: Collection[tuple[int, int]] = ()) -> Optional[A.Node]:
    """`\\int_T^0 f_t x_t - \\frac{1}{2} g_t^2 \\nabla \\log p_t(x_t) \\, dt`: an integral still waiting for its
    differential takes every term up to the one that ends with it (the terms of `left`'s chain after the
    integral, and `right` without its `dt`). None when no term ends with a differential or no integral is open."""
    rest, dvars, marks = _split_differentials(right)
    if not dvars or isinstance(rest, A.Empty):
        return None
    terms: list[A.Node] = [left]
    ops: list[str] = []
    while isinstance(terms[0], A.BinOp) and terms[0].op in ("+", "-") and terms[0].span[0] == start:
        chain = terms.pop(0)
        terms[0:0] = [chain.left, chain.right]  # type: ignore[attr-defined]
        ops.insert(0, chain.op)  # type: ignore[attr-defined]
    for i in range(len(terms) - 1, -1, -1):
        opened = [(red, path) for red, path in _open_reductions(terms[i], braced)
                  if red.op == "int" and not red.variables and not red.differentials]
        if not opened:
            continue
        red, path = opened[-1]
        assert red.body is not None
        body: A.Node = red.body
        for k, term in enumerate(terms[i + 1:] + [rest]):
            sign = (ops[i + k] if i + k < len(ops) else op)
            body = A.BinOp(sign, body, term, span=(body.span[0], term.span[1]))
        node: A.Node = replace(red, body=body, variables=dvars, differentials=marks,
                               span=(red.span[0], right.span[1]))
        for parent in reversed(path[:-1]):
            node = _replace_last(parent, node, right.span[1])
        if i == 0:
            return node
        out = terms[0]
        for k in range(1, i + 1):
            out = A.BinOp(ops[k - 1], out, terms[k] if k < i else node,
                          span=(start, (terms[k] if k < i else node).span[1]))
        return out
    return None


def _replace_last(parent: A.Node, child: A.Node, end: int) -> A.Node:
    span = (parent.span[0], end)
    if isinstance(parent, A.Product):
        return replace(parent, factors=parent.factors[:-1] + (child,), span=span)
    if isinstance(parent, A.BinOp):
        return replace(parent, right=child, span=span)
    if isinstance(parent, A.UnaryOp):
        return replace(parent, operand=child, span=span)
    if isinstance(parent, A.Reduction):
        return replace(parent, body=child, span=span)
    return parent


def _grouping(node: A.Node) -> bool:
    """A computation (a sum, a difference, a product with an operator, a reduction): what braces group."""
    if isinstance(node, A.BinOp) and node.op in ("+", "-", "\\pm", "\\cdot", "\\times", "/"):
        return True
    if isinstance(node, (A.Reduction, A.UnaryOp)):
        return True
    return isinstance(node, A.Product) and any(isinstance(f, (A.Reduction, A.Apply, A.Frac)) for f in node.factors)


def _membership_of(cond: A.Node, element: A.Node) -> bool:
    """Is `cond` a membership `i \\in S` of a variable that `element` uses?"""
    if not (isinstance(cond, A.Relation) and cond.ops == ("\\in",) and isinstance(cond.operands[0], A.Symbol)):
        return False
    name = cond.operands[0].name
    return any(isinstance(n, A.Symbol) and n.name == name for n in A.walk(element))


_QUANTIFIERS = frozenset({"\\forall", "\\exists", "\\nexists"})
_ARROWS = frozenset({"\\to", "\\mapsto", "\\rightarrow", "\\longrightarrow", "\\longmapsto"})
CONNECTIVES = frozenset("for where if s.t. st such that subject to when whenever with given for all "
                        "otherwise".split()) | {"s.t.", "such that", "subject to", "for all", "for any", "for each",
                                                "for every"}
"""Words that, set as text between formulas, qualify what came before (they are not factors)."""


def _is_joiner(tok: Token) -> bool:
    r"""Prose that joins two statements (`\text{and}`, `\text{or}`)."""
    return tok.kind == TEXT and " ".join(tok.text.replace(",", " ").split()).lower() in ("and", "or", "and thus")


PHRASE_OPENERS = frozenset("is are was were be being been denotes denote means mean stands after before during at "
                           "every each per in on over under until using via by as which that we is computed "
                           "evaluated taken applied updated repeated".split())
"""First words of a phrase set as text that comments on the formula (`\\text{after every step}`,
`\\mathcal M \\text{ is the set of masked positions}`): prose, never a factor. A text whose first word is
something else (`\\text{batch size}`, `\\text{Oracle Computational Cost}`, `\\text{selects Expert}`) may
be a name the formula computes with."""


def _is_prose_phrase(text: str) -> bool:
    """Several words, the first a lowercase preposition, copula or relative word; or a remark in parentheses
    (`\\text{(masked patches only)}`)."""
    stripped = text.strip()
    if stripped.startswith("(") and stripped.endswith(")"):
        words = stripped[1:-1].replace(",", " ").split()
        return len(words) >= 2 and all(w.strip(".;:").replace("-", "").isalpha() for w in words)
    words = text.replace(",", " ").split()
    return len(words) >= 2 and words[0] in PHRASE_OPENERS and \
        all(w.strip(".;:").replace("-", "").replace("'", "").isalpha() for w in words)


def _is_connective(tok: Token) -> bool:
    if tok.kind != TEXT:
        return False
    word = " ".join(tok.text.replace(",", " ").split()).lower()
    return word in CONNECTIVES or word.rstrip(":") in CONNECTIVES or _is_prose_phrase(tok.text)


def _quantified(body: A.Node) -> A.Node:
    """`\\forall x', x \\in S, y \\in T`: the bare variables before a membership belong to it."""
    if not isinstance(body, A.Sequence):
        return body
    items: list[A.Node] = []
    seps: list[str] = []
    pending: list[A.Node] = []
    for i, item in enumerate(body.items):
        if isinstance(item, A.Relation) and item.ops and item.ops[0] in ("\\in", "\\subset", "\\subseteq") and pending:
            head = item.operands[0]
            group = A.Tuple(tuple(pending) + (head,), "", "", span=(pending[0].span[0], head.span[1]))
            item = replace(item, operands=(group,) + item.operands[1:], span=(group.span[0], item.span[1]))
            pending = []
        elif isinstance(item, (A.Symbol, A.Indexed, A.Primed)) and i + 1 < len(body.items):
            pending.append(item)
            continue
        items.extend(pending)
        pending = []
        if items:
            seps.append(",")
        items.append(item)
    items.extend(pending)
    seps = seps[:max(len(items) - 1, 0)] + [","] * max(len(items) - 1 - len(seps), 0)
    if len(items) == 1:
        return items[0]
    return A.Sequence(tuple(items), tuple(seps[:len(items) - 1]), span=body.span)


def _listed_left_side(items: list[A.Node], seps: list[str]) -> tuple[list[A.Node], list[str]]:
    r"""`N_{opt}(C), D_{opt}(C) = \arg\min …`, `\alpha, \beta > 0`: names listed before a relation share its left
    side (a pair defined at once). Each run of bare names joins the relation that follows it
    (`Q_1, Q_2, K_1 \in \mathbb{R}^{N \times d}, \ V \in \mathbb{R}^{N \times 2d}`: two statements)."""
    if len(items) < 2 or any(s != "," for s in seps):
        return items, seps
    out: list[A.Node] = []
    pending: list[A.Node] = []
    for item in items:
        if isinstance(item, A.Relation) and pending and _listable(item.operands[0]):
            head = item.operands[0]
            group = A.Tuple(tuple(pending) + (head,), "", "", span=(pending[0].span[0], head.span[1]))
            out.append(replace(item, operands=(group,) + item.operands[1:], span=(pending[0].span[0], item.span[1])))
            pending = []
        elif _listable(item):
            pending.append(item)
        else:
            out.extend(pending)
            pending = []
            out.append(item)
    out.extend(pending)
    if len(out) == len(items):
        return items, seps
    return out, [","] * (len(out) - 1)


def _listable(node: A.Node) -> bool:
    core = node.func if isinstance(node, A.Apply) and node.brackets else node
    while isinstance(core, (A.Indexed, A.Primed, A.Power)):
        core = core.base
    return isinstance(core, A.Symbol) and core.name not in ("\\ldots", "\\cdots")


def _enumerations(items: list[A.Node], seps: list[str]) -> tuple[list[A.Node], list[str]]:
    """`i = 1, \\ldots, k` is one statement, i running over 1, …, k (not three); after a statement it is the
    condition the statement holds under (`x_{n+1} = \\phi(x_n), \\quad n = 0, 1, 2, \\ldots`)."""
    for i, item in enumerate(items):
        rest = items[i + 1:]
        if not rest and i > 0 and isinstance(item, A.Relation) and item.ops == ("=",) and \
                isinstance(item.operands[1], A.Sequence) and any(isinstance(v, A.Ellipsis_)
                                                                 for v in item.operands[1].items) and \
                not isinstance(items[i - 1], A.Annotated):
            # the same range written with braces (`n = {0, 1, \\ldots}`, as the printer writes it)
            cond = A.Annotated(item, A.Empty(span=(item.span[0], item.span[0])), "condition", span=item.span)
            return items[:i] + [cond], seps
        if not rest or not isinstance(item, A.Relation) or item.ops not in (("=",), ("\\in",)) or \
                not isinstance(item.operands[0], (A.Symbol, A.Indexed)):
            continue
        if not all(isinstance(r, (A.Number, A.Ellipsis_, A.Symbol, A.Indexed, A.BinOp)) for r in rest) or \
                not any(isinstance(r, A.Ellipsis_) for r in rest) or any(s != "," for s in seps[i:]):
            continue
        values = (item.operands[1],) + tuple(rest)
        run = A.Sequence(values, tuple("," for _ in values[1:]), span=(values[0].span[0], values[-1].span[1]))
        merged: A.Node = replace(item, operands=(item.operands[0], run), span=(item.span[0], run.span[1]))
        if i > 0 and not isinstance(items[i - 1], A.Annotated):
            merged = A.Annotated(merged, A.Empty(span=(item.span[0], item.span[0])), "condition", span=merged.span)
        return items[:i] + [merged], seps[:i]
    return items, seps


def _ends_in_call(node: A.Node) -> bool:
    if isinstance(node, (A.Transpose, A.Power, A.Inverse)):
        return _ends_in_call(node.base)  # `f(x)^\top`
    return _ends_in_call_core(node)


def _ends_in_call_core(node: A.Node) -> bool:
    """Does this factor close an application's brackets (`F(z)`, `\\log \\pi(a \\mid s)`)?"""
    if isinstance(node, A.Apply):
        if node.brackets:
            return not isinstance(node.func, A.Empty)
        return bool(node.args) and _ends_in_call(node.args[-1])
    return False


def _differential_mark(node: A.Node) -> Optional[str]:
    """"d" for an upright d (`\\mathrm{d}`, `\\text{d}`, `\\operatorname{d}`), "partial" for ∂ in any font."""
    if isinstance(node, A.Symbol) and not node.accents and node.sub_label is None and node.sup_label is None:
        if node.name == "d" and node.font in ("rm", "op"):
            return "d"
        if node.name == "\\partial" and node.font is not None:
            return "partial"
    if isinstance(node, A.Text) and node.text.strip() == "d":
        return "d"
    return None


def _name_like(node: A.Node) -> bool:
    r"""What `\Delta` before it makes one name with (`\Delta t`, `\Delta {\bm x}`, `\Delta W`) — not a bold capital,
    a matrix the step multiplies (`\exp(\Delta \mathbf{A})`)."""
    core = node
    while isinstance(core, (A.Indexed, A.Power, A.Primed)):
        core = core.base
    if isinstance(core, A.Symbol) and core.font == "bf" and len(core.name) == 1 and core.name.isupper():
        return False
    return isinstance(core, A.Symbol) and (core.name.isalpha() or core.name.lstrip("\\") in T.GREEK) and \
        not core.name.startswith("\\Delta")


def _join_factors(factors: list[A.Node], extents: list[tuple[int, int]]) -> list[A.Node]:
    """What juxtaposition writes as two factors but means as one: an upright differential and its variable
    (`\\mathrm{d} x_t` → dx_t), an increment (`\\Delta t`, `\\Delta\\theta_2` → one name), and nothing at all
    (`\\mathop{}`, whose place goes to what follows it). `extents` are where each factor was written (braces
    included), so a joined node covers exactly what was written."""
    if len(factors) > 1 and any(isinstance(f, A.Empty) for f in factors):
        kept, kept_ext = [], []
        pending = None
        for f, ext in zip(factors, extents):
            if isinstance(f, A.Empty):
                pending = ext[0] if pending is None else pending
                continue
            kept.append(f)
            kept_ext.append((pending, ext[1]) if pending is not None else ext)
            pending = None
        if kept:
            factors, extents = kept, kept_ext
    out: list[A.Node] = []
    i = 0
    while i < len(factors):
        f = factors[i]
        nxt = factors[i + 1] if i + 1 < len(factors) else None
        span = (extents[i][0], extents[i + 1][1]) if nxt is not None else extents[i]
        mark = _differential_mark(f)
        if mark is not None and nxt is not None:
            out.append(A.Differential(mark, nxt, span=span))
            i += 2
            continue
        if isinstance(f, A.Symbol) and f.name == "\\Delta" and f.font is None and not f.accents and \
                f.sub_label is None and f.sup_label is None and not f.primes and nxt is not None and _name_like(nxt):
            out.append(_increment(f, nxt, span))
            i += 2
            continue
        if isinstance(f, A.Text) and f.text and f.text[-1] in NAME_JOINERS and " " not in f.text.strip() and \
                isinstance(nxt, A.Symbol) and nxt.font is None and len(nxt.name) == 1 and _unscripted(nxt) and \
                extents[i][1] == extents[i + 1][0]:
            # `\text{pass@}k`, `\text{min\_}p`: the metric's name runs on into its parameter (a text that ends
            # in a bracket, `\texttt{<|fim\_hole|>}f_{\text{suf}}`, is a token of its own before a symbol)
            out.append(A.Text(f.text + nxt.name, span=span))
            i += 2
            continue
        if isinstance(f, A.Symbol) and len(f.name) > 1 and f.name.endswith("@") and not f.sub_label and \
                not f.sup_label and extents[i][1] == extents[i + 1][0] and \
                ((isinstance(nxt, A.Symbol) and nxt.font is None and len(nxt.name) == 1) or isinstance(nxt, A.Number)):
            # `\mathrm{acc@}k`, `\mathrm{Recall@}10`: the metric's name runs on into its parameter
            tail = nxt.name if isinstance(nxt, A.Symbol) else nxt.value
            out.append(replace(f, name=f.name + tail, span=span))
            i += 2
            continue
        applied = _applied_core(nxt)
        if isinstance(f, A.Symbol) and f.name == "\\Delta" and f.font is None and not f.accents and \
                f.sub_label is None and f.sup_label is None and not f.primes and applied is not None and \
                applied.brackets and _name_like(applied.func):
            # `\Delta\epsilon_\theta(x_t, z_i)` (also `…(x_t, z_i)^\top`): the increment is the function applied
            func = _increment(f, applied.func, (span[0], applied.func.span[1]))
            out.append(_onto_core(nxt, replace(applied, func=func, span=(span[0], applied.span[1])), span[0]))
            i += 2
            continue
        if extents[i][0] < f.span[0] and not isinstance(f, A.Empty) and extents[i][0] != extents[0][0]:
            f = _respan_node(f, (extents[i][0], max(f.span[1], extents[i][1]))) if isinstance(f, A.Differential) \
                else f
        out.append(f)
        i += 1
    return out


def _name_before_call(word: str) -> bool:
    """Letters written together that, right before `(`, name a function: capitals (`LN`, `CE`), or three or more
    letters (`ReLU`, `sim`, `enc`) — not two small letters (`xy(z)` multiplies)."""
    return (len(word) >= 2 and word.isupper()) or len(word) >= 3


_POSTFIX = (A.Transpose, A.Power, A.Inverse, A.Indexed, A.Primed)


def _applied_core(node: Optional[A.Node]) -> Optional[A.Apply]:
    """The application under postfix scripts (`f(x)^\\top`, `f(x)_i`), or None."""
    while isinstance(node, _POSTFIX):
        node = node.base
    return node if isinstance(node, A.Apply) else None


def _onto_core(node: A.Node, core: A.Node, start: int) -> A.Node:
    """`node` with its innermost base (under postfix scripts) replaced by `core`, every span starting at `start`."""
    if isinstance(node, _POSTFIX):
        return replace(node, base=_onto_core(node.base, core, start), span=(start, node.span[1]))
    return core


def _respan_node(node: A.Node, span: A.Span) -> A.Node:
    try:
        return replace(node, span=span)
    except TypeError:
        return node


def _increment(delta: A.Symbol, node: A.Node, span: A.Span) -> A.Node:
    """`\\Delta x_t` → the one symbol `\\Delta x` indexed by t (its scripts stay on it)."""
    if isinstance(node, (A.Indexed, A.Power, A.Primed)):
        base = _increment(delta, node.base, (span[0], node.base.span[1]))
        return replace(node, base=base, span=(span[0], max(node.span[1], span[1])))
    assert isinstance(node, A.Symbol)
    return replace(node, name="\\Delta " + node.name, span=(span[0], max(node.span[1], span[1])))


def _is_space(node: A.Node) -> bool:
    """A set to integrate over: `\\mathbb{R}^D`, `\\mathcal{A}`, `\\Omega`."""
    core = node.base if isinstance(node, A.Power) else node
    return isinstance(core, A.Symbol) and (core.font in ("bb", "cal", "scr") or core.name in ("\\Omega",)) and \
        not core.accents


def _split_differentials(body: A.Node) -> tuple[A.Node, tuple[A.Node, ...], tuple[A.Node, ...]]:
    """Take trailing `d x` / `\\mathrm{d}x` factors off an integral's body: (body, variables, differentials)."""
    if isinstance(body, A.Product):
        factors = list(body.factors)
        variables: list[A.Node] = []
        marks: list[A.Node] = []
        while True:
            if len(factors) >= 2 and isinstance(factors[-2], A.Symbol) and _is_d(factors[-2]):  # type: ignore[arg-type]
                variables.insert(0, factors[-1])
                marks.insert(0, A.Differential("d", factors[-1], span=(factors[-2].span[0], factors[-1].span[1])))
                del factors[-2:]
            elif factors and isinstance(factors[-1], A.Differential) and factors[-1].kind == "d":
                variables.insert(0, factors[-1].body)  # type: ignore[union-attr]
                marks.insert(0, factors[-1])
                del factors[-1:]
            else:
                break
        if not variables:
            return _split_last_factor(body) if isinstance(body.factors[-1], A.Apply) else (body, (), ())
        if not factors:
            return A.Empty(span=(body.span[0], body.span[0])), tuple(variables), tuple(marks)
        if len(factors) == 1:
            return factors[0], tuple(variables), tuple(marks)
        return A.Product(tuple(factors), span=(factors[0].span[0], factors[-1].span[1])), tuple(variables), \
            tuple(marks)
    if isinstance(body, A.BinOp) and body.op in ("\\cdot", "*"):
        right, vars_, marks_ = _split_differentials(body.right)
        if vars_:
            if isinstance(right, A.Empty):
                return body.left, vars_, marks_
            return A.BinOp(body.op, body.left, right, span=body.span), vars_, marks_
    if isinstance(body, A.Apply) and body.brackets == "" and len(body.args) == 1 and not body.given:
        # `\log \langle a, b \rangle dt`: a function written without brackets does not take the integral's dx
        arg, vars_, marks_ = _split_differentials(body.args[0])
        if vars_ and not isinstance(arg, A.Empty):
            return replace(body, args=(arg,), span=(body.span[0], arg.span[1])), vars_, marks_
    return body, (), ()


def _split_last_factor(body: A.Product) -> tuple[A.Node, tuple[A.Node, ...], tuple[A.Node, ...]]:
    """`f(x) \\log g(x) dx`: the differential inside the last factor's bracket-less argument."""
    last, vars_, marks_ = _split_differentials(body.factors[-1])
    if not vars_:
        return body, (), ()
    return replace(body, factors=body.factors[:-1] + (last,), span=(body.span[0], last.span[1])), vars_, marks_


def function_status(sym: A.Symbol, functions: frozenset[str] = frozenset()) -> Optional[str]:
    """How a symbol followed by `(` reads: known, declared, ambiguous, scalar (a product) or None."""
    bare = sym.name.lstrip("\\")
    if bare in functions or sym.name in functions:
        return "declared"
    if len(bare) > 1 and bare in T.KNOWN_FUNCTIONS and not (sym.name.startswith("\\") and bare in T.GREEK):
        return "known"
    if sym.font == "cal" and bare in T.DISTRIBUTIONS:
        return "known"
    if sym.font == "op" and len(bare) > 1:
        return "declared"  # `\operatorname{OutHead}`: the author marked it as an operator
    if not any(ch.isalnum() for ch in bare):
        return None  # a placeholder operator or a mark: `(\cdot)`, `/`
    if bare == "1":
        return None
    if sym.name in ("d", "\\partial") and sym.font in (None, "rm", "op") and sym.sub_label is None and \
            sym.sup_label is None and not sym.accents:
        return None  # `d(dC_p)`, `\frac{d(T c)}{d\eta}`: a differential, not a call
    if sym.name.startswith("\\") and bare not in T.GREEK and sym.name not in T.LIKELY_FUNCTION_LETTERS and \
            not sym.name.startswith("\\Delta "):
        return None
    return "ambiguous"  # `T(x)`, `x(t)`: syntax cannot tell; the resolution pass decides from evidence


def call_certainty(atom: A.Node, functions: frozenset[str] = frozenset()) -> Optional[str]:
    """Could `atom(` start a call? The certainty it would have (known, declared, ambiguous, or scalar /
    indexed for what reads as a product unless the parentheses hold a condition), None for a product."""
    name_node = atom
    while isinstance(name_node, (A.Power, A.Indexed, A.Primed, A.Labeled)):
        if isinstance(name_node, (A.Indexed, A.Power)):
            inner = name_node.base
            while isinstance(inner, (A.Indexed, A.Primed, A.Power)):
                inner = inner.base
            status = function_status(inner, functions) if isinstance(inner, A.Symbol) else \
                call_certainty(inner, functions) if isinstance(inner, (A.Text, A.Opaque)) else None
            if status in ("known", "declared"):
                return status
            if isinstance(name_node, A.Power) and not (isinstance(inner, A.Symbol) and
                                                       isinstance(name_node.exponent, (A.Symbol, A.Number,
                                                                                       A.UnaryOp, A.BinOp,
                                                                                       A.Indexed))):
                return None
            # `r_t(\theta)`, `Q^1(s, a)`, `x^2(1-x)`: an application or a product, decided from evidence
            return "ambiguous" if status is not None or isinstance(name_node, A.Power) else None
        name_node = name_node.base
    if isinstance(name_node, A.Symbol):
        return function_status(name_node, functions)
    if isinstance(name_node, A.Text):
        word = name_node.text.strip()
        if word in T.KNOWN_FUNCTIONS:
            return "known"
        if word in functions:
            return "declared"
        if len(word) > 1 and " " not in word and word.replace("_", "").replace("\\", "").replace("-", "").isalnum():
            return "ambiguous"  # `\text{KeepTopK}(v, k)`: a name written out, then brackets
        return None
    if isinstance(name_node, A.Opaque):
        return "ambiguous"
    return None


def _name_of(node: A.Node) -> str:
    while isinstance(node, (A.Indexed, A.Power, A.Labeled, A.Primed)):
        node = node.base
    return node.name if isinstance(node, A.Symbol) else type(node).__name__


def _sampling_spec(body: Optional[A.Node]) -> Optional[A.Node]:
    """`[q \\sim P(Q), o \\sim \\pi]` after an expectation: the sampled variables, as an under-script."""
    if body is None:
        return None
    if isinstance(body, A.Interval):
        items: tuple = (body.lower, body.upper)
    elif isinstance(body, (A.Tuple, A.Concat)):
        items = body.items
    elif isinstance(body, A.Group) and isinstance(body.body, A.Relation):
        items = (body.body,)
    elif isinstance(body, A.Relation) and body.ops == ("\\sim",):
        items = (body,)
    else:
        return None
    if not items or not all(isinstance(i, A.Relation) and i.ops and i.ops[0] == "\\sim" for i in items):
        return None
    if len(items) == 1:
        return items[0]
    return A.Sequence(tuple(items), tuple("," for _ in items[1:]), span=(items[0].span[0], items[-1].span[1]))


def _samples(under: A.Node):
    """The `x \\sim p` relations of an under-script (through commas and `\\substack` rows)."""
    if isinstance(under, A.Sequence):
        for item in under.items:
            yield from _samples(item)
    elif isinstance(under, A.Relation) and "\\sim" in under.ops:
        yield under
