"""Which display equations define, use or apply each symbol — worked out for the symbols asked, not the paper.

A reading shows, for each symbol of its equation, the first display whose left side defines it, every display
that defines it (the shapes context follows these), the displays that use what the equation defines, and
whether any display applies the symbol as a function. For a whole-paper read every display is parsed anyway
and these are plain dictionaries built in one pass (`EquationIndex.complete`). A one-equation command needs them
for a handful of keys only: a display is parsed for a key only when a cheap lexical test over its LaTeX says
it can write that key at all (`could_write`), so `read --eq N` parses the displays that mention N's symbols,
not the paper. The answers are the same either way (tests/test_paper.py: the lexical test admits every display
for every key its own tree gives, on every corpus formula; one-equation readings equal the whole-paper
reading's entries).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Iterator

from ..math.tables import (ACCENTS, BIG_OPERATORS, BINARY_OPS, BINOMIALS, CLOSE_DELIMS, CONDITION_BARS,
                           DIVERGENCE_BARS, ELLIPSES, FONTS, FRACTIONS, FUNCTION_MACROS, GREEK, LETTER_LIKE,
                           LIMIT_OPERATORS, NABLA, RELATIONS, ROOTS)
from .symbols import LHS_RELATIONS

_COMMAND = re.compile(r"\\([A-Za-z]+)\*?(\s*\{)?")
_COMMAND_NAME = re.compile(r"\\[A-Za-z]+")
_SUBSCRIPT = re.compile(r"_(?:\{[^{}]*\}|\\?[A-Za-z0-9]+)$")


def key_base(key: str) -> str:
    """The key up to its first top-level `^` or `_` (the symbol, without a label exponent or a subscript)."""
    depth = 0
    for i, c in enumerate(key):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0 and c in "^_" and i > 0:
            return key[:i]
    return key


def key_atoms(key: str) -> tuple[tuple[str, ...], frozenset[str], frozenset[str]] | None:
    """What a formula's text must hold to write `key`: (command names, letters standing bare, letters under a
    font or an accent), from the key's base and its scripts; None when nothing is certain (no atom in the base,
    a character outside ASCII there).

    A command that is not a font or an accent (`\\gamma`) names the symbol: its name must stand in the text (as a
    substring: `\\varepsilon` holds `epsilon`). Fonts and accents (`\\mathbf{…}`, `\\hat`) are never required:
    another spelling may give them (`\\bm`, `\\boldsymbol`). Letters of a bare key (`x`) must be letters of the
    text outside command names; letters under a font (`\\mathbf{x}`, `\\mathbb{R}`) outside command names or as
    a one-letter command (`\\R` may spell it: `FormulaText.spelt`). A script (`_{t}`, `^\\mathrm{cat}`) is
    written out in the text as the key holds it, up to its spelling (`^{\\text{cat}}`, `^{\\rm cat}`, `_t`): its
    letters and digits stand outside command names and its Greek letters (`_\\theta`) by name (other commands
    are not required: the key prints `\\|` as `\\lVert`, `'` as `\\prime`). A display that writes the base but
    not the script is not parsed for the key (`\\mathbf{x}^\\mathrm{cat}` in a paper whose every display writes
    `\\mathbf{x}`)."""
    return _key_atoms(key)


@lru_cache(maxsize=8192)
def _key_atoms(key: str) -> tuple[tuple[str, ...], frozenset[str], frozenset[str]] | None:
    base = key_base(key)
    atoms = base_atoms(base)
    if atoms is None:
        return None
    script = key[len(base):]
    if not script or not script.isascii():
        return atoms
    commands = tuple(m.group(1) for m in _COMMAND.finditer(script) if m.group(1) in GREEK)
    letters = frozenset(c for c in _COMMAND_NAME.sub(" ", script) if c.isalnum())
    return tuple(dict.fromkeys(atoms[0] + commands)), atoms[1] | letters, atoms[2]


def base_atoms(base: str) -> tuple[tuple[str, ...], frozenset[str], frozenset[str]] | None:
    """`key_atoms` of a key's base alone (the symbol without its scripts)."""
    if not base.isascii():
        return None
    commands = []
    wrapped = False
    for m in _COMMAND.finditer(base):
        if m.group(2) is not None or m.group(1) in _WRAPPERS:
            wrapped = True  # a font or an accent (\mathbf{…}, \mathbf\mu, \hat x): \bm, \R … may spell it
        else:
            commands.append(m.group(1))
    letters = {c for c in _COMMAND_NAME.sub(" ", base) if c.isalnum()}
    if not commands and not letters:
        return None
    if wrapped:
        return tuple(commands), frozenset(), frozenset(letters)
    return tuple(commands), frozenset(letters), frozenset()


_WRAPPERS = frozenset("mathbf mathrm mathcal mathbb mathsf mathtt mathit mathfrak mathscr mathnormal boldsymbol bm "
                      "pmb hat widehat tilde widetilde bar overline underline vec dot ddot dddot check breve acute "
                      "grave mathring text textrm textbf textit textsf texttt textsc mbox operatorname rm bf it sf "
                      "tt cal".split())


class FormulaText:
    """A formula's text as `could_write` tests it (computed once per formula)."""

    __slots__ = ("latex", "letters", "spelt", "unsure", "math")

    def __init__(self, latex: str) -> None:
        self.latex = latex
        self.math = blank_environments(latex)
        """The text with every `\\begin{…}` and `\\end{…}` blanked (same offsets): the parser reads an
        environment's name as layout (`_environment`), never as letters of a symbol (the d of `aligned`)."""
        self.letters = frozenset(_COMMAND_NAME.sub(" ", self.math))
        self.spelt = self.letters | frozenset(m.group(1) for m in _ONE_LETTER_COMMAND.finditer(latex))
        """Letters outside command names, and the letters a one-letter command names (`\\R` may spell
        `\\mathbb{R}`): where a letter under a font or an accent can come from."""
        self.unsure = not latex.isascii()


_ONE_LETTER_COMMAND = re.compile(r"\\([A-Za-z])(?![A-Za-z])")
_ENVIRONMENT_NAME = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}")


def blank_environments(latex: str) -> str:
    """The text with every `\\begin{…}` and `\\end{…}` written as spaces (offsets kept)."""
    if "\\begin" not in latex and "\\end" not in latex:
        return latex
    return _ENVIRONMENT_NAME.sub(lambda m: " " * len(m.group()), latex)


def could_write(atoms: tuple[tuple[str, ...], frozenset[str], frozenset[str]] | None, text: FormulaText) -> bool:
    """False only when the formula cannot write a symbol with these atoms (`key_atoms`)."""
    if atoms is None or text.unsure:
        return True
    commands, bare, wrapped = atoms
    latex = text.latex
    return all(c in latex for c in commands) and bare <= text.letters and wrapped <= text.spelt


_SKIP_AFTER = re.compile(r"\s+|~|&|'|\}|\\[!,;: ]|\\(?:left|right|mleft|mright|middle|mathopen|[bB]ig{1,2}[lrm]?)"
                         r"(?![A-Za-z])|[_^](?:\s*\{|\s*\\[A-Za-z]+|\s*.)")
"""What may stand between a name and the bracket it is applied to: space (`~` too), an alignment mark,
primes, scripts, closing braces, spacing and sizing commands (the parser drops these, `\\right(` leaves `(`)."""
_SCRIPT_COMMAND = re.compile(r"[_^]\s*\\[A-Za-z]+")
_OPENS = ("(", "[", "\\{", "\\lbrace", "\\lbrack", "\\lparen", "\\lgroup")
"""What the parser applies a name to: a call needs `(` or `[` right after the name and its scripts
(`Parser._postfix_loop`); a distribution after `\\sim` also takes `\\{ … \\}` or a braced `{[ … ]}`
(`_drawn_from`). A bar or an angle bracket after a name (`g_t \\|x\\|`, `f|x|`, `\\langle`) makes a product."""
_BRACED_OPEN = re.compile(r"\{\s*(?:\[|\\\{|\\lbrace)")
_COMMAND_AT = re.compile(r"\\(?:[A-Za-z]+|.)")
_NO_CALL_AFTER = frozenset("\\" + name for name in (
    GREEK | LETTER_LIKE | FONTS.keys() | ACCENTS.keys() | FRACTIONS | BINOMIALS | ROOTS | BIG_OPERATORS.keys() |
    LIMIT_OPERATORS.keys() | FUNCTION_MACROS | ELLIPSES.keys() | NABLA | {"partial"})) | frozenset(
    token for token in (*BINARY_OPS, *RELATIONS, *CLOSE_DELIMS, *CONDITION_BARS, *DIVERGENCE_BARS,
                        "\\langle", "\\lvert", "\\lVert", "\\vert", "\\Vert", "\\|", "\\lfloor", "\\lceil")
    if token.startswith("\\") and token not in _OPENS)
"""Commands after which no call can follow the name before them: a letter, an operator, a relation, a
closing bracket or bar, a font, an accent, a fraction. After any other command (spacing the parser drops,
`\\quad`, `\\hspace{…}`, a text macro, a row break) a call is not ruled out."""


def could_apply(key: str, text: FormulaText) -> bool:
    """False only when the formula cannot apply `key` as a function: a symbol named by a plain letter (`Q`,
    `z_{t}`) or a Greek letter (`\\gamma_t`) is applied by writing its argument's bracket after it (`Q(s, a)`,
    `z_t\\left(`, `Q^{\\pi}[`): past its scripts, primes, closing braces, spacing and size commands, an opening
    bracket follows (`_OPENS`). A letter that is a whole script (`\\phi_a(x)`, `W^{\\gamma}(x)`) is not: the
    bracket applies what the script is on. (Named functions, `\\log x`, may go without one: for a key with
    another command this is `could_write`; so is `\\Pi`, which a constraint under it makes a projection applied
    to what follows.) A letter under a font or an accent (`\\mathcal{F}`, `\\hat f`) is applied the same way; as
    a command may spell it (`\\R`), a formula that holds the letter inside a command name can apply it."""
    atoms = base_atoms(key_base(key))
    if atoms is None or text.unsure or not could_write(key_atoms(key), text):
        return atoms is None or text.unsure
    commands, bare, wrapped = atoms
    if len(bare | wrapped) + len(commands) != 1 or commands and (commands[0] not in GREEK or commands[0] == "Pi"):
        return True
    latex = text.math
    indexed = _has_subscript(key[len(key_base(key)):])
    if commands:  # every place the name stands (`\\varepsilon` writes `\\epsilon`'s name too)
        name = commands[0]
        return any(not latex[m.end():m.end() + 1].isalpha() and
                   _applied_at(latex, _command_start(latex, m.start()), m.end(), indexed)
                   for m in re.finditer(name, latex))
    letter = next(iter(bare | wrapped))
    for m in re.finditer(re.escape(letter), latex):
        at = m.start()
        if at > 0 and latex[at - 1] == "\\" or _inside_command(latex, at):
            if wrapped and _one_letter_command(latex, at):
                return True  # `\\R` may spell `\\mathbb{R}`; the x of `\\exp` or `\\max` spells nothing
            continue
        if _applied_at(latex, at, m.end(), indexed):
            return True
    return False


def _has_subscript(scripts: str) -> bool:
    """Whether a key's scripts (what follows its base) hold a subscript at the top level of braces."""
    depth = 0
    for c in scripts:
        depth += {"{": 1, "}": -1}.get(c, 0)
        if c == "_" and depth == 0:
            return True
    return False


def _applied_at(latex: str, start: int, end: int, indexed: bool = False) -> bool:
    """Whether the name written at `latex[start:end]` (a command's from its backslash) can be applied there: it
    is not a whole script of another name, and past its own scripts, primes, braces and spacing an opening
    bracket follows. `indexed`: the key applied has a subscript (`\\sigma_{t}`), so the name applied there must
    carry one — a `_` (or `\\sb`) among its scripts, or a bracket index (`x[k]` reads as `x_{k}`) before the
    call; `\\sigma(x)` applies `\\sigma`."""
    if _whole_script(latex, start, end):
        return False
    while True:
        skip = _SKIP_AFTER.match(latex, end)
        if skip is None:
            break
        indexed = indexed and skip.group()[0] != "_"
        end = _after_group(latex, skip.end()) if skip.group()[0] in "_^" and skip.group().endswith("{") \
            else skip.end()
        if _SCRIPT_COMMAND.fullmatch(skip.group()):  # `_\\text{BT}`: the command's argument
            while latex.startswith("{", end):
                end = _after_group(latex, end + 1)
    command = _COMMAND_AT.match(latex, end)
    if command is not None and command.group() not in _NO_CALL_AFTER and not latex.startswith(_OPENS, end) or \
            latex.startswith("$", end):
        return True  # a command the parser may drop (`\\quad`, `\\hspace{…}`, a row break), a formula in words
    if indexed:  # only a bracket index can still give the name its subscript (an indexed name is drawn from nothing)
        return latex.startswith(("[", "\\lbrack"), end)
    return latex.startswith(_OPENS, end) or _BRACED_OPEN.match(latex, end) is not None


def _whole_script(latex: str, start: int, end: int) -> bool:
    """Whether the name at `latex[start:end]` is all of a script: `_a`, `^\\gamma`, `_{a}` (TeX's script takes one
    token or one group, so a bracket after it applies the name the script is on)."""
    before = latex[:start].rstrip()
    if before.endswith("{"):
        if not latex[end:].lstrip().startswith("}"):
            return False
        before = before[:-1].rstrip()
    return before.endswith(("_", "^")) and not before.endswith(("\\_", "\\^"))


def _command_start(latex: str, at: int) -> int:
    """Where the command whose name holds the letters at `at` starts (its backslash; `\\varepsilon` for the
    `epsilon` in it); `at` itself when no backslash leads to them (the `eta` of `\\beta`: not that command)."""
    k = at
    while k > 0 and latex[k - 1].isalpha():
        k -= 1
    return k - 1 if k > 0 and latex[k - 1] == "\\" and latex[k:at] in ("", "var") else at


def _inside_command(latex: str, at: int) -> bool:
    """Whether the letter at `at` is part of a command name (`x` in `\\exp`)."""
    k = at
    while k > 0 and latex[k - 1].isalpha():
        k -= 1
    return k > 0 and latex[k - 1] == "\\"


def _one_letter_command(latex: str, at: int) -> bool:
    """Whether the letter at `at` is a one-letter command (`\\R`), not a letter of a longer name (`\\exp`)."""
    return at > 0 and latex[at - 1] == "\\" and not latex[at + 1:at + 2].isalpha()


def _after_group(latex: str, start: int) -> int:
    """The offset just past the braced group whose `{` ends at `start`."""
    depth = 1
    k = start
    while k < len(latex) and depth:
        if latex[k] == "\\":
            k += 2
            continue
        depth += {"{": 1, "}": -1}.get(latex[k], 0)
        k += 1
    return k


_RELATION_NAMES = frozenset(k[1:] for k in RELATIONS if k.startswith("\\") and k[1:].isalpha()) | frozenset(
    ("mid", "divides", "parallel", "not", "overset", "stackrel", "underset"))
_SIGN_OR_BRACE = re.compile(r"\\[A-Za-z]+|\\.|[{}=<>:]|[_^]\s*\|")
_LEFT_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}()\[\]=<>:,;.&]|[_^]\s*\|")
_OPENERS = frozenset(("(", "[", "\\{", "\\lbrace", "\\lbrack", "\\langle", "\\lceil", "\\lfloor"))
_CLOSERS = frozenset((")", "]", "\\}", "\\rbrace", "\\rbrack", "\\rangle", "\\rceil", "\\rfloor"))
_SEPARATORS = frozenset((",", ";", ".", "&", "\\\\", "\\cr", "\\newline", "\\quad", "\\qquad", "\\forall", "\\exists",
                         "\\nexists", "\\text", "\\textrm", "\\textit", "\\textbf", "\\textsf", "\\texttt", "\\mbox",
                         "\\mathrm", "\\operatorname", "\\hbox", "\\intertext", "\\shortintertext", "\\hspace",
                         "\\,", "\\;", "\\:", "\\!", "\\ ", "\\label", "\\tag", "\\nonumber", "\\notag"))
"""Tokens that may end one statement of a display and start the next (`\\\\`, `,`, `\\quad`, `\\text{and}`,
`\\forall`, …): a superset of where the parser starts a statement (`Parser.parse_sequence`, align rows)."""
_SIGNS = frozenset("=<>:")
_SIZES = frozenset(("\\left", "\\right", "\\mleft", "\\mright", "\\bigl", "\\bigr", "\\Bigl", "\\Bigr", "\\biggl",
                    "\\biggr", "\\Biggl", "\\Biggr", "\\big", "\\Big", "\\bigg", "\\Bigg"))


def left_side(latex: str) -> str:
    """The parts of the formula's text that can hold a left-hand side: every key a display defines is the first
    operand of one of its statements (or the second, after a bracket `[k_1; k_2] = k = …`), which stands before
    the statement's first relation sign, at the top level of braces and brackets (`=`, `:`, `<`, `\\in`,
    `\\coloneqq`, a stacked `\\overset{…}{=}`, …). Cut at those signs, the text before the first one is kept,
    and of every later piece the text after its first statement separator (`,`, `\\\\`, `\\quad`, `\\text{…}`:
    `_SEPARATORS`); a piece with none is the middle of a chain (`b` in `a = b = c`, the right side of an align
    row `&= …` continues) and is dropped, unless the piece before it holds a bracket. A bar is a relation only in
    a script (`_|`; in `\\|x\\|` or `p(x|y)` it is not one at the top level). With brackets that do not balance
    (`[0, 1)` balances; a `\\left\\{` closed by `\\right.` does not), the text up to the last relation sign
    outside braces, as when no sign stands outside them: the whole text. An environment's `\\begin{…}` and
    `\\end{…}` are read as spaces: a bracket right after `\\begin{aligned}` starts an item (`[Q_1; Q_2] = …`)."""
    latex = blank_environments(latex)
    braces = brackets = 0
    pieces: list[tuple[int, int]] = []  # (start, end) of the text between relation signs
    separator_at: list[int] = []  # per piece, where the text after its first separator starts (-1: none)
    start, first_separator = 0, -1
    sized = False  # the token before was \left, \bigl, …: `\left<` opens an angle bracket, `\right>` closes it
    for m in _LEFT_TOKEN.finditer(latex):
        token = m.group()
        if token == "{":
            braces += 1
        elif token == "}":
            braces = max(braces - 1, 0)
        elif token in _OPENERS or sized and token == "<":
            brackets += 1
        elif token in _CLOSERS or sized and token == ">":
            brackets -= 1
            if brackets < 0:
                return _up_to_last_sign(latex)
        elif token in _SEPARATORS or token.startswith("\\text"):
            if first_separator < 0:
                first_separator = m.end()
        elif braces == 0 and brackets == 0 and (token in _SIGNS or token[0] in "_^" or token[1:] in _RELATION_NAMES):
            pieces.append((start, m.end()))
            separator_at.append(first_separator)
            start, first_separator = m.end(), -1
        sized = token in _SIZES
    if brackets != 0:
        return _up_to_last_sign(latex)
    if not pieces:
        return _without_arguments(latex)
    kept = [latex[:pieces[0][1]]]
    for k in range(1, len(pieces)):
        piece_start, piece_end = pieces[k]
        if "[" in latex[pieces[k - 1][0]:pieces[k - 1][1]] or "\\lbrack" in latex[pieces[k - 1][0]:pieces[k - 1][1]]:
            kept.append(latex[piece_start:piece_end])
        elif separator_at[k] >= 0:
            kept.append(latex[separator_at[k]:piece_end])
    return " ".join(_without_arguments(text) for text in kept)


def _up_to_last_sign(latex: str) -> str:
    """The formula's text up to the end of its last relation sign outside braces (the whole text without one)."""
    depth = 0
    end = -1
    for m in _SIGN_OR_BRACE.finditer(latex):
        token = m.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth = max(depth - 1, 0)
        elif depth == 0 and (token[0] != "\\" or token[1:] in _RELATION_NAMES):
            end = m.end()
    return _without_arguments(latex if end < 0 else latex[:end])


_OPEN_BRACKET = re.compile(r"\\(?:left|[bB]igg?l?|mleft)\s*(?:\(|\[)|\(|\[")
_SIZE_BEFORE = re.compile(r"\\(?:left|[bB]igg?l?|mleft)\s*$")
_STARTS_AN_ITEM = re.compile(r"(?:^|[&,;{=<>:~]|\\\\|\\[,;:! ]|\\q?quad|\\(?:" + "|".join(
    sorted(_RELATION_NAMES, key=len, reverse=True)) + r"))\s*$")


def _without_arguments(text: str) -> str:
    """`text` without the bracket groups that cannot hold a left-hand side: a group written after a name, a
    script, a number or an operator (`q(\\mathbf{x}_t \\mid \\mathbf{x}_0)`, `\\sigma^{num}(t)`, `a + (b)`) is
    an application's arguments or a factor of a larger term, and neither is a left side's key (the key of
    `f(x) = …` is f; a product or a sum has none). A group that starts an item — after the row's start, `&`,
    `,`, `;`, an opening brace, spacing or a relation — may be one (`(x) = …`, `[k_1; k_2] = …`) and is kept;
    so is a group holding a relation sign or one never closed (`[0, 1)` closes on the other bracket)."""
    out = []
    at = 0
    for m in _OPEN_BRACKET.finditer(text):
        if m.start() < at:
            continue
        before = _SIZE_BEFORE.sub("", text[:m.start()]) if m.group().startswith("\\") else text[:m.start()]
        if _STARTS_AN_ITEM.search(before[-40:] if len(before) > 40 else before):
            continue
        end = _group_end(text, m.end())
        if end < 0:
            continue
        out.append(text[at:m.start()])
        out.append(" ")
        at = end
    if not out:
        return text
    out.append(text[at:])
    return "".join(out)


def _group_end(text: str, start: int) -> int:
    """The offset past the bracket that closes the group opened just before `start` (either of `)` `]`), or
    -1 when it is never closed or holds a relation sign or a brace it does not close."""
    depth = 1
    braces = 0
    k = start
    while k < len(text):
        c = text[k]
        if c == "\\":
            k += 2
            continue
        if c == "{":
            braces += 1
        elif c == "}":
            braces -= 1
            if braces < 0:
                return -1
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                return k + 1 if braces == 0 else -1
        elif c in "=<>:" and braces == 0:
            return -1
        k += 1
    return -1


_DEFINING_SIGNS = tuple(dict.fromkeys(
    [sign.rstrip("_") for sign, meaning in RELATIONS.items() if meaning in LHS_RELATIONS and sign != "="] +
    ["=", "\\stackrel", "\\overset", "\\underset", "\\mathrel"]))
"""How a formula's text can write a relation that defines its left side (`symbols.LHS_RELATIONS`: `=`, `:=`,
`\\coloneqq`, `\\leftarrow`, `\\approx`, …, each spelling the parser reads as one; a stacked or classed
relation)."""


_ONE_LETTER_SCRIPT = re.compile(r"(?<!\\)[_^]\s*(?:\{\s*[A-Za-z0-9]\s*\}|[A-Za-z0-9])")


def base_letters(latex: str) -> frozenset[str]:
    """Letters of the text outside command names and outside one-letter scripts (`_t`, `^{T}`): where the base
    of a key a left side defines is written. TeX's script takes one token or one group, and the key of what a
    left side defines is the key of its first operand (`x_t` defines `x_{t}` or `x`, never `t`), so a letter that
    is all of a script is never that key's base; its scripts' letters may stand anywhere."""
    return frozenset(_COMMAND_NAME.sub(" ", _ONE_LETTER_SCRIPT.sub(" ", latex)))


def could_define(text: FormulaText) -> bool:
    """False only when the formula writes no defining relation (`_DEFINING_SIGNS`) outside its scripts, so that
    no statement of it defines anything: `symbols.collect` takes left-side keys only from a statement that is a
    relation whose first sign is one of `LHS_RELATIONS`, and a relation in a script (`\\sum_{t=1}^T`,
    `\\mathbb{E}_{x=0}`) is the script's, never a statement (an objective `\\max_\\theta \\mathbb{E}[…]` or a
    bound `\\sum_{t=1}^T a_t \\le D` defines nothing)."""
    if text.unsure:
        return True
    latex = text.latex
    if not any(sign in latex for sign in _DEFINING_SIGNS):
        return False
    outside = _outside_scripts(latex)
    return any(sign in outside for sign in _DEFINING_SIGNS)


_SCRIPT_GROUP = re.compile(r"(?<!\\)[_^]\s*\{")


def _outside_scripts(latex: str) -> str:
    """The text without its braced scripts (`_{t=1}`, `^{(k)}`): what a statement's own relation can be in."""
    out = []
    at = 0
    for m in _SCRIPT_GROUP.finditer(latex):
        if m.start() < at:
            continue  # a script inside a script already dropped
        out.append(latex[at:m.start()])
        at = _after_group(latex, m.end())
    out.append(latex[at:])
    return " ".join(out)


class EquationIndex:
    """defined-by, definers, used-in and applied-as-function over the display equations of a paper, computed
    per key on demand (`parse(eq)` gives an equation's (FormulaSymbols or None, warnings, error))."""

    def __init__(self, equations: list[Any], parse) -> None:
        self._equations = equations
        self._parse = parse
        self._by_id = {eq.id: eq for eq in equations}
        self._info: dict[str, tuple] = {}
        self._texts = [FormulaText(eq.latex) for eq in equations]
        self._candidates: dict[Any, list[Any]] = {}
        self._definer_candidates: dict[Any, list[Any]] = {}
        self._left_texts: dict[str, FormulaText] = {}
        self._left_bases: dict[str, frozenset[str]] = {}
        self._full: tuple[dict, dict, dict, frozenset] | None = None
        self._memo: dict[tuple[str, str], Any] = {}
        self.formulas = _Formulas(self)
        self.defined_by = _KeyView(self, "defined_by")
        self.used_in = _KeyView(self, "used_in")
        self.definers = _KeyView(self, "definers")
        self.function_keys = _KeyView(self, "functions")
        self.order = {eq_id: k for k, eq_id in enumerate(self._by_id)}

    def info(self, eq: Any) -> tuple:
        found = self._info.get(eq.id)
        if found is None:
            from ..budget import outside_budget
            with outside_budget():  # another display's parse is not the reading's time
                found = self._info[eq.id] = self._parse(eq)
        return found

    def complete(self) -> tuple[dict, dict, dict, frozenset]:
        """Every display parsed, and the four relations as dictionaries (what a whole-paper read uses)."""
        if self._full is None:
            defined_by: dict[str, str] = {}
            used_in: dict[str, list[str]] = {}
            definers: dict[str, list[str]] = {}
            functions: set[str] = set()
            for eq in self._equations:
                symbols = self.info(eq)[0]
                if symbols is None:
                    continue
                for key in symbols.lhs_keys:
                    defined_by.setdefault(key, eq.id)
                    for name in dict.fromkeys((key, _SUBSCRIPT.sub("", key))):
                        definers.setdefault(name, []).append(eq.id)
                for key in dict.fromkeys(u.key for u in symbols.uses if not u.lhs):
                    used_in.setdefault(key, []).append(eq.id)
                functions.update(u.key for u in symbols.uses if u.kind == "function")
            self._full = (defined_by, used_in, definers, frozenset(functions))
        return self._full

    def _candidates_for(self, key: str, with_text: bool = False) -> list[Any]:
        atoms = key_atoms(key)
        found = self._candidates.get(atoms)
        if found is None:
            found = self._candidates[atoms] = [(eq, text) for eq, text in zip(self._equations, self._texts)
                                               if could_write(atoms, text)]
        return found if with_text else [eq for eq, _ in found]

    def _definers_for(self, key: str) -> list[Any]:
        """The displays whose left side can write `key` (what `defined_by` and `definers` parse): a display
        that writes the key only on its right-hand side cannot define it."""
        atoms = key_atoms(key)
        found = self._definer_candidates.get(atoms)
        if found is None:
            base = base_atoms(key_base(key))
            found = self._definer_candidates[atoms] = [
                eq for eq, text in self._candidates_for(key, True) if could_define(text) and
                could_write(atoms, self._left_text(eq)) and (base is None or base[1] <= self._left_base(eq))]
        return found

    def _left_text(self, eq: Any) -> FormulaText:
        found = self._left_texts.get(eq.id)
        if found is None:
            found = self._left_texts[eq.id] = FormulaText(left_side(eq.latex))
        return found

    def _left_base(self, eq: Any) -> frozenset[str]:
        """The letters of the display's left side that can be the base of what it defines (`base_letters`)."""
        found = self._left_bases.get(eq.id)
        if found is None:
            found = self._left_bases[eq.id] = base_letters(self._left_text(eq).math)
        return found

    def lookup(self, relation: str, key: str) -> Any:
        """One relation's value for one key (None / a list / a bool), as `complete()` would give it."""
        if self._full is not None:
            defined_by, used_in, definers, functions = self._full
            if relation == "functions":
                return key in functions
            return {"defined_by": defined_by, "used_in": used_in, "definers": definers}[relation].get(key)
        memo = self._memo.get((relation, key), _MISSING)
        if memo is not _MISSING:
            return memo
        value: Any
        if relation == "defined_by":
            first = self._first(self._definers_for(key), lambda eq: self._lhs(eq, key))
            value = first.id if first is not None else None
        elif relation == "definers":
            value = [eq.id for eq in self._definers_for(key) for name in self._lhs_names(eq) if name == key]
        elif relation == "used_in":
            value = [eq.id for eq in self._candidates_for(key) if self._uses(eq, key)]
        else:
            value = self._any([eq for eq, text in self._candidates_for(key, True) if could_apply(key, text)],
                              lambda eq: self._applies(eq, key))
        if relation in ("definers", "used_in") and not value:
            value = None
        self._memo[(relation, key)] = value
        return value

    def definers_before(self, key: str, position: int) -> list[str]:
        """`definers[key]` among the displays before the one at `position` in document order (what the shapes of
        that display read from): only the displays before it are parsed for the key."""
        if self._full is not None:
            return [eq_id for eq_id in self._full[2].get(key, ()) if self.order[eq_id] < position]
        return [eq.id for eq in self._definers_for(key) if self.order[eq.id] < position
                for name in self._lhs_names(eq) if name == key]

    def writes(self, key: str) -> bool:
        """Whether some display writes `key` as a symbol (on either side)."""
        memo = self._memo.get(("writes", key), _MISSING)
        if memo is _MISSING:
            memo = self._memo[("writes", key)] = self._any(self._candidates_for(key), lambda eq: any(
                u.key == key for u in self.info(eq)[0].uses) if self.info(eq)[0] is not None else False)
        return memo  # type: ignore[return-value]

    def _any(self, candidates: list[Any], test) -> bool:
        """Whether some candidate passes `test`, asking the displays parsed already first: one of them that
        passes saves parsing the others."""
        return any(test(eq) for eq in candidates if eq.id in self._info) or \
            any(test(eq) for eq in candidates if eq.id not in self._info)

    def _first(self, candidates: list[Any], test) -> Any:
        """The first candidate in document order that passes `test`, parsing only the displays before the first
        parsed one that passes (what a scan in order from the start finds, with fewer displays parsed)."""
        known = next((eq for eq in candidates if eq.id in self._info and test(eq)), None)
        for eq in candidates:
            if eq is known:
                return eq
            if eq.id not in self._info and test(eq):
                return eq
        return None

    def _lhs(self, eq: Any, key: str) -> bool:
        symbols = self.info(eq)[0]
        return symbols is not None and key in symbols.lhs_keys

    def _lhs_names(self, eq: Any) -> Iterator[str]:
        symbols = self.info(eq)[0]
        if symbols is None:
            return
        for key in symbols.lhs_keys:
            yield from dict.fromkeys((key, _SUBSCRIPT.sub("", key)))

    def _uses(self, eq: Any, key: str) -> bool:
        symbols = self.info(eq)[0]
        return symbols is not None and any(u.key == key and not u.lhs for u in symbols.uses)

    def _applies(self, eq: Any, key: str) -> bool:
        symbols = self.info(eq)[0]
        return symbols is not None and any(u.key == key and u.kind == "function" for u in symbols.uses)


_MISSING = object()


class _Formulas(Mapping):
    """Equation id → (FormulaSymbols or None, warnings, error), each display parsed on first use."""

    def __init__(self, index: EquationIndex) -> None:
        self._index = index

    def __getitem__(self, eq_id: str) -> tuple:
        eq = self._index._by_id.get(eq_id)
        if eq is None:
            raise KeyError(eq_id)
        return self._index.info(eq)

    def __iter__(self) -> Iterator[str]:
        return iter(self._index._by_id)

    def __len__(self) -> int:
        return len(self._index._by_id)

    def __contains__(self, eq_id: object) -> bool:
        return eq_id in self._index._by_id


class _KeyView(Mapping):
    """One relation as a read-only mapping, looked up per key (iterating it completes the index)."""

    def __init__(self, index: EquationIndex, relation: str) -> None:
        self._index = index
        self._relation = relation

    def get(self, key: Any, default: Any = None) -> Any:
        value = self._index.lookup(self._relation, key)
        if self._relation == "functions":
            return value
        return default if value is None else value

    def __getitem__(self, key: str) -> Any:
        value = self._index.lookup(self._relation, key)
        if value is None or value is False:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        value = self._index.lookup(self._relation, key)  # type: ignore[arg-type]
        return bool(value) if self._relation == "functions" else value is not None

    def _whole(self) -> Any:
        defined_by, used_in, definers, functions = self._index.complete()
        return {"defined_by": defined_by, "used_in": used_in, "definers": definers,
                "functions": dict.fromkeys(functions, True)}[self._relation]

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())
