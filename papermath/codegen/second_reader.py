"""A second reader of an equation that does not use papermath's tree: SymPy's LaTeX parser.

papermath's code, its evaluator and its tree-derived checks all start from papermath's own parse of the formula:
if that parse misreads the paper (`f(x)` as a product, a subscript dropped), they agree with each other on the
wrong reading. SymPy's parser (`sympy.parsing.latex.parse_latex`) reads the same LaTeX with its own grammar. When
it can read the computed side, and each of its symbols is one of the inputs the generated function takes, its
value at the test's inputs is computed here, at generation time, and written into the generated test as a
literal: where the two readers disagree, that test fails.

What makes it independent, and where it stops:
- it reads the paper's own LaTeX (`Evaluation.source_latex`, `paper_text`), never `Evaluation.latex`, which is
  papermath's rendering of its tree and carries its reading (`A2` rendered `A 2`, `K^{T}` rendered `K^{\\top}`);
  `read(ev, rendering=True)` reads that rendering instead, for a check that is NOT independent (named so);
- the computed side is cut from the text (the part after the last top-level `=`, `:=`, `\\approx` …); the LaTeX is
  cleaned only lexically (font macros, `\\left`/`\\right`, `\\text{…}` in subscripts, alignment marks and
  indentation, the order of a symbol's two scripts, redundant braces), and each input's key is cleaned and parsed
  by SymPy the same way, so that the inputs are matched by SymPy's reading of their names; an input that is a
  sub-expression given one value (`p_\\theta(x \\mid c)`) is found in the text by its spelling (`_spelling`);
  the names are papermath's, the reading of the operations around them is SymPy's;
- SymPy's algebra is scalar: with array inputs it computes elementwise (numpy broadcasting). Where that gives
  another shape than papermath's result (a matrix product, a dot product, a reduction over an axis) it has no
  opinion and no check is written; an unknown function (`f(x)`, a network) or a symbol no input matches (SymPy
  read `\\gamma^2_t` as `gamma**2`) means no check either;
- the functions the paper's text or `--fn` names concretely (σ = sigmoid) are given to SymPy by name.

Optional: needs `sympy` and its ANTLR runtime (`pip install 'papermath[second-reader]'`); without them no check.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

_RELATIONS = re.compile(r"(?<![<>!\\])=|\\coloneqq|\\eqqcolon|\\approx|\\triangleq|\\equiv|\\leftarrow|\\gets"
                        r"|\\defeq|\\doteq|\\simeq")
"""Relations after which the computed side starts (`:` of `:=` is dropped with the left side)."""

_ORDER = re.compile(r"\\(?:le|leq|ge|geq|leqslant|geqslant|ll|gg|in|notin|sim|propto|subset|subseteq|neq|ne|to)\b"
                    r"|[<>]")
"""Relations that make a statement a bound or a condition, not a value."""

_FONTS = ("mathbf", "bm", "boldsymbol", "mathbfit", "mathit", "mathsf", "mathcal", "mathbb", "mathscr", "mathfrak",
          "pmb", "bf", "rm", "ensuremath", "displaystyle", "textstyle", "mathnormal", "vec")
"""Macros that only change how a symbol looks: the argument stays (the same cleaning is applied to the keys)."""

_WORDS = re.compile(r"(?P<script>[_^]\s*\{?\s*)?\\(?:text|mathrm|operatorname|textrm|textit|texttt|mathtt)\s*"
                    r"\{(?P<word>[^{}]*)\}")
"""An upright word; in a script (`p_{\\text{ref}}`, `x^\\mathrm{cat}`) its letters, elsewhere one symbol (`_word`)."""


@dataclass(frozen=True)
class SecondReading:
    """SymPy's reading of the computed side and its value at the test's inputs."""

    expression: str
    """SymPy's expression, as SymPy prints it."""
    value: Any
    """Its value at the inputs (a float or a nested list)."""
    agrees: bool
    """True when it equals papermath's result (rtol 1e-6)."""
    sides: bool = False
    """A comparison or bound: `value` is the list of each side's value, `expression` the relation, and `agrees`
    says every side equals papermath's value of that side (`Evaluation.sides`)."""


def available() -> bool:
    """sympy and the ANTLR runtime its LaTeX parser needs are installed (and PAPERMATH_SECOND_READER is not 0)."""
    import importlib.util
    import os

    if os.environ.get("PAPERMATH_SECOND_READER", "1") == "0":
        return False
    if importlib.util.find_spec("antlr4") is None or importlib.util.find_spec("sympy") is None:
        return False  # checked before importing sympy (a second of CPU) for nothing
    try:
        from sympy.parsing.latex import parse_latex
        parse_latex("x")
        return True
    except Exception:  # ImportError, or the ANTLR runtime missing/of another version
        return False


_CONDITION_CLAUSE = re.compile(r"(?:[,;]|\\[,;:! ]|\s)*(?:\\forall(?![A-Za-z])|[,;]\s*(?:\\[,;:! ]|\s)*\\(?:text|mathrm"
                               r"|textrm)\s*\{\s*(?:for|where|if|when|with|s\.t\.)\b).*$", re.S)
"""A trailing clause saying where the statement holds (`, \\forall t`, `, \\text{for } t > 0`)."""

_ANNOTATION = re.compile(r"\\(?P<kind>underbrace|overbrace|overset|underset|stackrel)(?![A-Za-z])\s*\{")


def without_annotations(latex: str) -> str:
    """The formula without its annotations: `\\underbrace{X}_{\\text{note}}` and `\\overbrace{X}^{…}` → `{X}`,
    `\\overset{(a)}{=}`, `\\underset{…}{X}`, `\\stackrel{…}{X}` → `X` (a relation stays a relation): the note is
    about the value, not part of it. Braces are matched in the text; an unbalanced one leaves the text as it is."""
    start = 0
    while True:
        match = _ANNOTATION.search(latex, start)
        if match is None:
            return latex
        try:
            first = _closing(latex, match.end() - 1)
            if match.group("kind") in ("underbrace", "overbrace"):
                body = latex[match.end():first]
                _, end = _script(latex, first + 1) if match.group("kind") == "underbrace" else _superscript(latex,
                                                                                                        first + 1)
                replacement = f"{{{body}}}"
            else:
                second = _skip_size(latex, first + 1)
                if not latex.startswith("{", second):
                    return latex
                end = _closing(latex, second) + 1
                replacement = f" {latex[second + 1:end - 1]} "
        except _NotRewritten:
            return latex
        latex = latex[:match.start()] + replacement + latex[end:]
        start = match.start()


def _superscript(text: str, i: int) -> tuple[str, int]:
    """A superscript at `i` (after spaces): (its text, end), or ("", i)."""
    match = re.match(r"\s*\^\s*(?:\{|\\[A-Za-z]+|\S)", text[i:])
    if match is None:
        return "", i
    j = i + match.end()
    if text[j - 1] == "{":
        close = _closing(text, j - 1)
        return text[j:close], close + 1
    return text[i + match.end() - 1:j], j


def computed_side(latex: str) -> str:
    """The text after the last top-level relation of the last statement (braces and \\left…\\right counted)."""
    text = re.sub(r"\\label\{[^{}]*\}|\\nonumber|\\notag", "", latex)
    text = re.split(r"\\\\(?:\[[^\]]*\])?", text)
    statement = _before_where(" ".join(text))
    depth, cut = 0, 0
    for match in re.finditer(r"\\left\b|\\right\b|[{}]|" + _RELATIONS.pattern, statement):
        token = match.group(0)
        if token in ("{", "\\left"):
            depth += 1
        elif token in ("}", "\\right"):
            depth -= 1
        elif depth == 0:
            cut = match.end()
    side = re.sub(r"\\(?:quad|qquad)\b.*$", "", statement[cut:], flags=re.S)  # `\quad \text{for } v ∈ V`
    side = _CONDITION_CLAUSE.sub("", side)  # `…, \forall t`: where it holds, not part of the value
    if _ORDER.search(_outside_braces(side)) or re.search(r"\\[lcv]?dots\b", side):
        return ""  # a bound or a condition (`\\le`, `\\in`, `\\sim`), or a pattern (`…`): not one value
    return _without_trailing(side.replace("&", " "))


_WHERE = re.compile(r"(?:[,;]|\\[,;:! ]|\s|~)*(?:[,;]|\\q?quad(?![A-Za-z]))(?:\\[,;:! ]|\s|~|\\q?quad(?![A-Za-z]))*"
                    r"(?:\\(?:text|mathrm|textrm)\s*\{\s*)?where\b")
"""The start of a clause that defines what the statement uses (`…, \\text{where } y = …`, `\\quad where\\ i = …`)."""


def _before_where(statement: str) -> str:
    """The statement without a trailing where-clause at its top level: the clause defines a symbol the statement
    uses (`p(x) = \\frac{1}{\\sigma} e^{-y}, \\text{ where } y = \\frac{x - \\mu}{\\sigma}`), it is not the
    value computed, and its `=` is not the statement's."""
    for match in _WHERE.finditer(statement):
        if statement[:match.start()].count("{") == statement[:match.start()].count("}"):  # not inside a group
            return statement[:match.start()]
    return statement


def _without_trailing(side: str) -> str:
    """A side without the punctuation and spacing that end the sentence after it (`…\\,,`, `… .`)."""
    return re.sub(r"(?:\s|\\[,;:! ]|\\q?quad(?![A-Za-z])|[.,;~])+$", "", side).strip()


_COMPARISON_OPS = {"\\le": "≤", "\\leq": "≤", "\\leqslant": "≤", "\\ge": "≥", "\\geq": "≥", "\\geqslant": "≥",
                   "\\lt": "<", "\\gt": ">", "<": "<", ">": ">", "=": "="}
"""Relations between two values a comparison or bound may chain (`0 \\le a = b < c`)."""

_SIDE_TOKENS = re.compile(
    r"\\left\s*\.|\\right\s*\.|\\[{}]|\\langle(?![A-Za-z])|\\rangle(?![A-Za-z])|[(\[{]|[)\]}]"
    r"|\\(?:leqslant|geqslant|leq|geq|le|ge|lt|gt)(?![A-Za-z])|(?<![<>!:\\])=|<|>"
    r"|(?P<other>:=|\\(?:in|notin|sim|propto|subset|subseteq|supset|neq|ne|to|approx|coloneqq|eqqcolon|triangleq"
    r"|equiv|leftarrow|gets|defeq|doteq|simeq|ll|gg|mapsto|rightarrow|Rightarrow|iff|implies|cong|asymp)"
    r"(?![A-Za-z]))"
    r"|(?P<clause>\\q?quad(?![A-Za-z])|\\forall(?![A-Za-z])|\\(?:text|mathrm|textrm)\s*\{\s*(?:for|where|if|s\.t\."
    r"|when|with|otherwise)\b)|(?P<joint>\\(?:text|mathrm|textrm)\s*\{\s*and\b|[,;])")
"""What `comparison_sides` looks at: brackets (depth), relations, the start of a condition clause, and what joins
two statements (a comma, `\\text{and}`)."""


def comparison_sides(latex: str) -> tuple[list[str], list[str]] | None:
    """The sides of a comparison or bound (`a \\le b \\le c`), cut from the text at its top-level relations after
    a trailing condition (`\\forall …`, `\\quad \\text{for } …`) is dropped; with the relations (≤, ≥, <, >, =).
    None where the statement is not one chain of comparisons of values: another relation (∈, ∼, ∝, →, ≈, :=), two
    statements (`a \\le b, \\; c \\le d`), an unbalanced bracket, an empty side."""
    text = re.sub(r"\\label\{[^{}]*\}|\\nonumber|\\notag", "", latex)
    # the punctuation that ends the sentence (`… \le D,`) is no second statement: dropped before the scan
    text = _without_trailing(" ".join(re.split(r"\\\\(?:\[[^\]]*\])?", text)).replace("&", " "))
    depth, cuts, ops, end = 0, [0], [], len(text)
    for match in _SIDE_TOKENS.finditer(text):
        token = match.group(0)
        if token in ("(", "[", "{", "\\{", "\\langle") or token.startswith("\\left"):
            depth += 1
        elif token in (")", "]", "}", "\\}", "\\rangle") or token.startswith("\\right"):
            depth -= 1
            if depth < 0:
                return None
        elif depth:
            continue
        elif match.group("clause"):
            rest = text[match.end():]
            if token.startswith("\\q") and not re.match(r"\s*(?:\\forall|\\(?:text|mathrm)\s*\{\s*(?:for|where|if"
                                                        r"|s\.t\.|when|with)\b)", rest):
                return None  # `a \le b \quad c \le d`: another statement, not a condition
            end = match.start()
            break
        elif match.group("joint"):
            if token in ",;" and re.match(r"\s*(?:\\[,;:! ]|~|\s)*(?:\\forall|\\(?:text|mathrm)\s*\{\s*(?:for"
                                          r"|where|if|s\.t\.|when|with)\b|\\q?quad)", text[match.end():]):
                end = match.start()
                break
            return None  # two statements, or a list
        elif match.group("other"):
            return None
        else:
            ops.append(_COMPARISON_OPS[token])
            cuts.append(match.start())
            cuts.append(match.end())
    if depth or not ops or "=" in ops and len(set(ops)) == 1:
        return None  # unbalanced, no comparison, or `a = b` (a value, read by `computed_side`)
    bounds = cuts + [end]
    sides = [_without_trailing(text[bounds[k]:bounds[k + 1]]) for k in range(0, len(bounds), 2)]
    if any(not side or re.search(r"\\[lcv]?dots\b", side) for side in sides):
        return None
    return sides, ops


def _outside_braces(text: str) -> str:
    out, depth = [], 0
    for char in text:
        depth += char == "{"
        if depth == 0:
            out.append(char)
        depth -= char == "}"
    return "".join(out)


def clean(latex: str) -> str:
    """Lexical cleaning for SymPy's grammar (the same for the formula and for each input's key): the passes of
    `_CLEANING` in order, each as many times as it says."""
    text = latex
    for rewrite, times in _CLEANING:
        for _ in range(times):
            text = rewrite(text)
    return text.strip()


_SNAKE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]+(?:\\_[A-Za-z]+)+(?![A-Za-z])")
"""A name written as code writes it (`step\\_num`, `warmup\\_steps`): one symbol, its `\\_` spelled in letters."""


def _upright_word(match: re.Match) -> str:
    letters = re.sub(r"\W", "", match.group("word"))
    script = match.group("script")
    if script is None:
        return _word(letters)
    return f"{script}{letters}" if script.rstrip().endswith("{") else f"{script}{{{letters}}}"  # `x^\\mathrm{cat}`


def _words_placed(text: str) -> str:
    """The `@W…@` marks of `_word` → `{\\mathit{Qqw…}}`, one symbol spelled in letters (SymPy's lexer reads `d`
    before a letter as a differential: `\\mathit{model}` does not parse); inside a script's braces, the word's
    letters (SymPy reads `x_{model}` whole, and a script cannot hold a group)."""
    out, scripts, i = [], [], 0
    for match in re.finditer(r"[_^]\s*\{|\{|\}|@W([A-Za-z]+)@", text):
        out.append(text[i:match.start()])
        token = match.group(0)
        if match.group(1):
            out.append(match.group(1) if any(scripts) else f"{{\\mathit{{Qqw{_spelled(match.group(1))}}}}}")
        else:
            if token.endswith("{"):
                scripts.append(token[0] in "_^")
            elif scripts:
                scripts.pop()
            out.append(token)
        i = match.end()
    out.append(text[i:])
    return "".join(out)


def _spelled(text: str) -> str:
    """`text` in letters SymPy's lexer reads as one name (two of `_SIXTEEN_LETTERS` a byte)."""
    return "".join(_SIXTEEN_LETTERS[b >> 4] + _SIXTEEN_LETTERS[b & 15] for b in text.encode())


def _word(word: str) -> str:
    """An upright or italic word (`\\text{model}`, `\\mathit{pos}`) as one symbol SymPy reads whole, not as a
    product of its letters (marked `@W…@` until the font macros are gone, then `{\\mathit{…}}`); one letter stays
    a letter, a word with other characters (`step\\_num`, `x2`) keeps its letters as before."""
    return f"@W{word}@" if re.fullmatch(r"[A-Za-z]{2,}", word) else word





def _group_as_name(match: re.Match) -> str:
    """`{d}_x` → `d_x` (one letter or Greek letter in braces, left to `_scripts_as_name`); any other group (a word,
    `{\\Delta x}_{1}`) → one symbol whose name spells the group and its subscript and decoration (`G_{\\mathit{Qqg…}}`),
    a power kept a power, the same for the formula and an input's key."""
    group = match.group("group").strip()
    scripts = match.group(0)[match.end("group") + 1 - match.start():]
    if not any(part and part.strip().startswith("_") for part in (match.group("first"), match.group("second"))):
        return match.group(0)  # a power of a group (`{\\nabla f(x)}^{\\top}`, `{x'}^{2}`): SymPy reads it
    if re.fullmatch(r"(?:[A-Za-z]|\\(?:%s))(?:'|@A[a-z]+@)*" % _GREEK, group):  # `{x'}_{1}`: `x'_{1}`
        return f"{group}{scripts}"
    spelled = _spelled_scripts(match, prefix=group, always=True)
    return f"G_{{\\mathit{{Qqg{spelled[0]}}}}}{spelled[1]}" if spelled else match.group(0)


_GREEK = ("alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|pi|varpi"
          "|rho|varrho|sigma|varsigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma"
          "|Upsilon|Phi|Psi|Omega|ell")
_ACCENTED = re.compile(r"\\(?P<accent>tilde|hat|bar|dot|ddot|check|breve|widetilde|widehat|overline|acute|grave"
                       r"|mathring)(?![A-Za-z])\s*\{\s*(?P<letter>[A-Za-z]|\\(?:%s)(?![A-Za-z]))\s*\}" % _GREEK)
"""An accent on one letter (`\\tilde{g}`, `\\hat{y}`): another quantity than the letter, named by the letter with
the accent spelled into its name (`@A…@` until the scripts are read); SymPy reads `\\tilde{g}` as tilde·g."""
_SCRIPT = r"\s*[_^]\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[^\s{}\\])"
_SCRIPTED = re.compile(r"(?<![\\A-Za-z])(?P<base>[A-Za-z]|\\(?:%s)(?![A-Za-z]))(?P<primes>(?:'|@A[a-z]+@)*)"
                       r"(?P<first>%s)(?P<second>%s)?(?P<after>'*)" % (_GREEK, _SCRIPT, _SCRIPT))
"""A letter with one or two scripts (braced groups with no group inside: `_SCRIPTED` runs innermost first), and the
primes written after them (`v_{\\theta, k}'`, the same quantity as `v'_{\\theta, k}`)."""
_GROUP_SCRIPTED = re.compile(r"(?<![_^}A-Za-z\\])(?<![_^]\s)\{(?P<group>(?:[^{}]|\{[^{}]*\})*)\}"
                             r"(?P<primes>(?:'|@A[a-z]+@)*)(?P<first>%s)(?P<second>%s)?" % (_SCRIPT, _SCRIPT))
"""A braced group that is not a script or a command's argument, with scripts after it (`{\\Delta x}_{1}`,
`{d}_{model}`, `{\\mathit{pos}}_{i}`): SymPy's grammar cannot script a group."""
_DECORATIONS = {"*", "\\ast", "\\star", "\\prime", "\\dagger", "'", "\\circ"}
"""Superscripts that name a quantity, not a power (`z^{*}`, `x^{\\star}`)."""


def _scripts_as_name(match: re.Match) -> str:
    """A symbol SymPy's grammar cannot read as written — a decoration superscript (`z^{*}`, `z_0^{*}`,
    `z^{(1)}`), a subscript of several indices (`a_{t, i}`) — as one symbol whose subscript spells its scripts in
    letters (`z_{\\mathit{Qqs…}}`); a power stays a power (`a_{t, i}^{2}`). The same cleaning applies to each
    input's key, so SymPy matches them by name. Other scripts are left as written."""
    spelled = _spelled_scripts(match)
    if spelled is None:  # SymPy's own scripts; a script inside them (`v_{\\theta^{*}}`) is read on its own
        return re.sub(r"\{((?:[^{}]|\{[^{}]*\})*)\}", lambda m: "{%s}" % _SCRIPTED.sub(_scripts_as_name, m.group(1)),
                      match.group(0))
    if isinstance(spelled, str):
        return spelled
    return f"{match.group('base')}_{{\\mathit{{Qqs{spelled[0]}}}}}{spelled[1]}"


def _spelled_scripts(match: re.Match, prefix: str = "", always: bool = False) -> tuple[str, str] | str | None:
    """The scripts of `match` (groups first, second, primes) spelled in letters for a symbol's name, with the power
    kept apart: (spelling, `^{power}` or ""). A decoration superscript (`*`, `(1)`, a word of two or more
    letters: `x^{pred}`, `W^{KR}`) is part of the name, a power is not. Unless `always`: None where the scripts
    are SymPy's own (`x_t`, `x_t^2`), or the text with a superscript written first moved after the subscript
    (`\\sigma^2_t` → `\\sigma_t^{2}`: SymPy drops a subscript after a superscript), which TeX reads the same."""
    scripts = {}
    for part in (match.group("first"), match.group("second")):
        if part:
            mark, content = part.strip()[0], part.strip()[1:].strip()
            if mark in scripts:
                return None  # a double script: left to SymPy (which refuses it)
            scripts[mark] = content[1:-1].strip() if content.startswith("{") else content
    sub, sup = scripts.get("_"), scripts.get("^")
    decoration = sup is not None and (sup in _DECORATIONS or re.fullmatch(r"\([^()]*\)|[A-Za-z]{2,}", sup) is not None)
    # `z_{t, i}`, `z_*`, `\sigma_{t|t-1}` (a conditional's scripts, `|` or `\mid`: one name)
    several = sub is not None and (re.search(r"[,;|]|\\mid(?![A-Za-z])", sub) is not None or sub in _DECORATIONS)
    primes = match.group("primes") + (match.groupdict().get("after") or "")
    if not (decoration or several or always or "@A" in primes):
        head = match.group(0)[:match.start("primes") - match.start()]
        if sub is not None and (primes or sup is not None and match.group("first").strip().startswith("^")):
            # `z'_{t}` → `z_{t}'`, `\\sigma^2_t` → `\\sigma_{t}^{2}`: TeX reads them the same, SymPy only so
            return f"{head}_{{{sub}}}{primes}" + (f"^{{{sup}}}" if sup is not None else "")
        return None
    spelled = re.sub(r"\s+", "", re.sub(r"\\mid(?![A-Za-z])", "|",
                                         f"{prefix}|{sub or ''}|{sup if decoration else ''}|{primes}"))
    if not prefix:
        spelled = spelled[1:]  # the spelling `_scripts_as_name` always gave
    return _spelled(spelled), (f"^{{{sup}}}" if sup is not None and not decoration else "")


def _argument(match: re.Match) -> str:
    """A font macro's argument: bare when it is one letter or one command (`\\mathbf{x}_t` → `x_t`), else braced."""
    inner = match.group(1).strip()
    if re.fullmatch(r"[A-Za-z]", inner):
        return f" {inner}"
    if re.fullmatch(r"[A-Za-z]{2,}", inner):  # `\\mathit{pos}`: one symbol (`_word`)
        return f" {_word(inner)} "
    return f" {inner} " if re.fullmatch(r"\\[A-Za-z]+", inner) else f"{{{inner}}}"


def _accent_alone(text: str) -> str:
    """An accent with no script (`\\tilde{p}` alone): the letter with the accent spelled into its subscript."""
    return re.sub(r"(?<![\\A-Za-z])([A-Za-z]|\\(?:%s))((?:'|@A[a-z]+@)+)" % _GREEK,
                  lambda m: f"{m.group(1)}_{{\\mathit{{Qqs{_spelled('||' + m.group(2))}}}}}" if "@A" in m.group(2)
                  else m.group(0), text)


_SCRIPT_ARGUMENT = r"(?:\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+\s*\{[^{}]*\}|\\[A-Za-z]+|[^\s{}\\])"
_SUPER_FIRST = re.compile(r"\^\s*(?P<sup>%s)\s*_\s*(?P<sub>%s)" % (_SCRIPT_ARGUMENT, _SCRIPT_ARGUMENT))


def _subscript_first(text: str) -> str:
    """`p^*_\\theta` → `p_\\theta^*`: TeX prints both scripts of a symbol alike in either order; one order, so that
    the paper's spelling and an input's name compare."""
    return _SUPER_FIRST.sub(lambda m: f"_{m.group('sub')}^{m.group('sup')}", text)


_RENAMED_COMMANDS = {"\\Tilde": "\\tilde", "\\dfrac": "\\frac", "\\tfrac": "\\frac"}
"""Commands TeX prints as another does (for this comparison): one spelling, in the text SymPy reads and in the
tokens two spellings are compared by."""
_RENAMED_COMMAND = re.compile("|".join(re.escape(c) for c in _RENAMED_COMMANDS) + r"(?![A-Za-z])")


def _one_spelling(text: str) -> str:
    """Spellings TeX prints alike written one way: `{\\rm ref}` → `\\mathrm{ref}`, `x^\\prime` and `x^{\\prime}` →
    `x'`, `\\Tilde` → `\\tilde`, `\\dfrac`/`\\tfrac` → `\\frac`, `\\smash[t]{…}` → `{…}` (a printing hint),
    `\\tilde g` → `\\tilde{g}` (`_BARE_ACCENT`)."""
    text = re.sub(r"\{\s*\\rm\s+([^{}]*)\}", r"\\mathrm{\1}", text)
    text = re.sub(r"\^\s*(?:\{\s*\\prime\s*\}|\\prime(?![A-Za-z]))", "'", text)
    text = re.sub(r"\\prime(?![A-Za-z])", "'", text)
    text = _RENAMED_COMMAND.sub(lambda m: _RENAMED_COMMANDS[m.group(0)], text)
    text = _BARE_ACCENT.sub(lambda m: f"\\{m.group('accent')}{{{m.group('letter')}}}" if m.group("letter") else
                            f"\\{m.group('accent')}{{", text)
    # `\theta^*` → `\theta^{*}`: a decoration braced, so that it is read as a name inside a subscript too
    # (`v_{\theta^*}`, the input `v_{\theta^{*}}`)
    text = re.sub(r"\^\s*(\*|\\(?:ast|star|dagger|circ)(?![A-Za-z]))", r"^{\1}", text)
    return re.sub(r"\\smash\s*(?:\[[a-z]\])?", "", text)


_BARE_ACCENT = re.compile(r"\\(?P<accent>tilde|hat|bar|dot|ddot|check|breve|widetilde|widehat|overline|acute|grave"
                          r"|mathring|vec)(?![A-Za-z])(?:\s*(?P<letter>[A-Za-z]|\\(?:%s)(?![A-Za-z]))|\s+\{)" % _GREEK)
"""An accent on a letter written without braces (`\\tilde g_t`): TeX takes the next token as its argument, so it
is `\\tilde{g}_t` (SymPy would read `\\tilde g` as tilde·g, and the input `\\tilde{g}_{t}` is spelled with braces);
or with a space before its braces (`\\hat {\\bm{x}}`), which TeX ignores."""


_BRACKET_INDEX = re.compile(r"(?<![\\A-Za-z])(?P<head>[A-Za-z]'*(?:_\{(?P<first>(?:[^{}]|\{[^{}]*\})*)\})?)"
                            r"\[(?P<index>[A-Za-z0-9+\-\s]*(?:[A-Za-z]_\{[A-Za-z0-9+\-\s]*\}[A-Za-z0-9+\-\s]*)*)\]")
"""A letter directly followed by an index in square brackets (`x[k]`, `z[i-1][r[j]]`), as code indexes an array:
the index is a whole number's expression (letters, numerals, + and −, an element `r_{j}` of another array)."""


def _bracket_indices(text: str) -> str:
    """`x[k]` → `x_{k}`, `z[i-1][r[j]]` → `z_{i-1, r_{j}}`: the element an index in brackets picks, written as the
    subscript the same quantity has elsewhere (papers write both; SymPy reads `x[k]` as x·[k], which it cannot
    parse). Innermost first; a bracket holding anything else (a product, a list, an interval) is left alone."""
    for _ in range(4):
        rewritten = _BRACKET_INDEX.sub(_as_subscript, text)
        if rewritten == text:
            return text
        text = rewritten
    return text


def _as_subscript(match: re.Match) -> str:
    if re.search(r"[A-Za-z0-9}]\s+[A-Za-z0-9]", match.group("index")):
        return match.group(0)  # `c[a b]`: a product in brackets, not one index
    index = re.sub(r"\s+", "", match.group("index"))
    if not index or not re.search(r"[A-Za-z0-9]", index) or index[-1] in "+-":
        return match.group(0)
    letter = match.group("head")[:match.start("first") - match.start() - 2] if match.group("first") is not None \
        else match.group("head")
    indices = f"{match.group('first')}, {index}" if match.group("first") is not None else index
    return f"{letter}_{{{indices}}}"


_CLEANING: tuple[tuple[Any, int], ...] = (
    (_one_spelling, 1),
    (_subscript_first, 1),
    (lambda text: _SNAKE_WORD.sub(lambda m: _word(m.group(0).replace("\\_", "Qu")), text), 1),
    (lambda text: _WORDS.sub(_upright_word, text), 1),
    # fonts nest (`\\bm{\\mathrm{W}}`): innermost first, three levels
    (lambda text: re.sub(r"\\(?:%s)\b\s*" % "|".join(_FONTS), "",
                         re.sub(r"\\(?:%s)\s*\{([^{}]*)\}" % "|".join(_FONTS), _argument, text)), 3),
    # `{\\bm{\\mu}}_{{\\bm{\\theta}}}` → `\\mu_{\\theta}`: braces around one symbol that no command or script takes
    (lambda text: re.sub(r"(?<![\\A-Za-z_^}\]])\{\s*(\\[A-Za-z]+|[A-Za-z])\s*\}",
                                lambda m: f" {m.group(1)}{' ' if m.group(1).startswith(chr(92)) else ''}", text), 2),
    (_words_placed, 1),
    (_bracket_indices, 1),
    # `\\Delta x_1`: the increment of x, its first component (`{\\Delta x}_1`, one quantity), not Δ times x_1
    (lambda text: re.sub(r"(?<![\\A-Za-z{])\\Delta\s*([A-Za-z])(?=\s*_)", r" {\\Delta \1}", text), 1),
    (lambda text: re.sub(r"\\(?:big|Big|bigg|Bigg)[lr]?\b", "", re.sub(r"\\[,;:!> ]|~", " ", text)), 1),
    # `\\left( … \\right)`: SymPy's grammar reads the bracket, not the size (`\\left.` sizes nothing)
    (lambda text: re.sub(r"\\(?:left|right)(?![A-Za-z])\s*\.?", " ", text), 1),
    (lambda text: _ACCENTED.sub(lambda m: f"{m.group('letter')}@A{m.group('accent').lower()}@", text), 1),
    (lambda text: _GROUP_SCRIPTED.sub(_group_as_name, text), 3),  # innermost groups first (`{{\\Delta x}_{1}}_{2}`)
    (lambda text: _SCRIPTED.sub(_scripts_as_name, text), 3),  # innermost scripts first (`v_{\\theta^{*}}`)
    (_accent_alone, 1),
)
"""The cleaning passes, in order, with how many times each runs (a pass that reads the innermost construct runs
once per level of nesting it undoes)."""


_LETTERS = "abcefghijkp"
"""The letters that spell a numeral's digits and its point in a placeholder's name. No `d`: SymPy's lexer reads
`d` before a letter as a differential (`\\mathit{Numeralda}`, 30, did not parse)."""
_SIXTEEN_LETTERS = "abcefghijklmnopq"
"""The letters that spell a byte in two (no `d`, as in `_LETTERS`)."""
_DIGIT_LETTERS = str.maketrans("0123456789.", _LETTERS)
_LETTER_DIGITS = str.maketrans(_LETTERS, "0123456789.")
_NUMBER_MARK, _INPUT_MARK = "\\mathit{Numeral", "\\mathit{Input"
"""Placeholders are words in letters (`\\mathit{…}` is one symbol to SymPy's grammar, kept as written): SymPy
turns a number it parses into a value by `sympify` of its text, which `eval`s it; with every numeral a
placeholder symbol, nothing from the paper reaches an `eval`."""


def _numerals_as_symbols(text: str) -> str:
    """Each numeral → a braced placeholder symbol naming it in letters (`12` → `{\\mathit{Numeralbc}}`); directly
    after a command or a script mark only the first digit is the argument, as in TeX (`x^12` = x^1 2, `\\frac12`)."""
    text = re.sub(r"(\\[A-Za-z]+|[_^])(\s*)(\d)", lambda m: f"{m.group(1)}{m.group(2)}#{m.group(3)}#", text)
    text = re.sub(r"#(\d)#|(\d+(?:\.\d+)?)",
                  lambda m: "{%s%s}}" % (_NUMBER_MARK, (m.group(1) or m.group(2)).translate(_DIGIT_LETTERS)), text)
    return text


def _number_values(sympy: Any, expression: Any) -> Any:
    """The placeholders of `_numerals_as_symbols` replaced by their exact values (int/Fraction, no `eval`)."""
    from fractions import Fraction

    letters = {v: k for k, v in zip("0123456789.", _LETTERS)}
    values = {}
    for symbol in expression.free_symbols:
        match = re.fullmatch(r"Numeral([a-kp]+)", str(symbol))
        if match:
            numeral = "".join(letters[c] for c in match.group(1))
            values[symbol] = sympy.Integer(int(numeral)) if "." not in numeral else sympy.Rational(Fraction(numeral))
    if values and _past_exact_range(sympy, expression, values):
        raise ValueError("a power of numerals past exact arithmetic's range")
    return expression.xreplace(values) if values else expression


_LARGEST_EXPONENT = 10_000
"""A power of numerals SymPy would compute exactly on substitution (`10^{10^{10}}`: ten billion digits) is past
what a second opinion may cost: no reading."""


def _past_exact_range(sympy: Any, expression: Any, values: dict) -> bool:
    floats = {symbol: sympy.Float(value) for symbol, value in values.items()}
    for power in expression.atoms(sympy.Pow):
        if power.exp.free_symbols and power.exp.free_symbols <= set(values):
            exponent = power.exp.xreplace(floats)  # floating point: 10.0^(10.0^10.0) costs nothing
            if not exponent.is_number or not exponent.is_finite or abs(exponent) > _LARGEST_EXPONENT:
                return True
    return False


def _sympy_parse(text: str) -> Any:
    """`parse_latex(text, strict=True)`, read first with ANTLR's SLL prediction and, where that reports a syntax
    error, by `parse_latex` itself (full LL): ANTLR's two-stage parsing. SLL either gives the tree LL gives or
    reports an error (ANTLR's `PredictionMode` documentation), so the expression is the same; SLL does not redo
    each ambiguous decision with the whole context, which made SymPy's parse most of a `code` run's time
    (half the CPU on the corpus's formulas; the same 129 expressions and errors)."""
    from sympy.parsing.latex import parse_latex

    try:
        import antlr4
        from antlr4.atn.PredictionMode import PredictionMode
        from sympy.parsing.latex import _parse_latex_antlr as grammar
        from sympy.parsing.latex.errors import LaTeXParsingError
        if grammar.LaTeXParser is None or grammar.MathErrorListener is None or not _antlr_of_the_grammar():
            raise ImportError("no ANTLR grammar")
    except (ImportError, AttributeError):
        return parse_latex(text, strict=True)
    source = text.strip()
    listener = grammar.MathErrorListener(source)
    lexer = grammar.LaTeXLexer(antlr4.InputStream(source))
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener)
    parser = grammar.LaTeXParser(antlr4.CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(listener)
    parser._interp.predictionMode = PredictionMode.SLL
    try:
        relation = parser.math().relation()
    except LaTeXParsingError:
        return parse_latex(text, strict=True)  # SLL's error may be no error: LL decides
    if relation.start.start != 0 or relation.stop.stop != len(source) - 1:
        return parse_latex(text, strict=True)  # not the whole text: parse_latex raises, as strict asks
    return grammar.convert_relation(relation)


@functools.lru_cache(maxsize=1)
def _antlr_of_the_grammar() -> bool:
    """The ANTLR runtime is the version SymPy's generated grammar needs (what `parse_latex` checks first)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("antlr4-python3-runtime").startswith("4.11")
    except PackageNotFoundError:
        return False


def _parse(latex: str, ordered: bool = False) -> Any:
    import sympy

    text = clean(latex)
    if _NUMBER_MARK in text or "#" in text:
        raise ValueError("the formula already writes a placeholder's spelling")
    text = re.sub(r"@(Input[a-k]+)@", lambda m: "{%s}" % m.group(1).replace("Input", _INPUT_MARK, 1) + "}", text)
    text = re.sub(r"@(Qq[a-z]+)@", lambda m: "F_{\\mathit{%s}}" % m.group(1), text)
    # strict: a formula read only in part is not read
    expression = _sympy_parse(_numerals_as_symbols(text))
    if ordered:  # before the numerals' values are put in, which rebuilds (and so re-sorts) a commutative product
        expression = _noncommutative(sympy, expression)
    return _number_values(sympy, expression)


def _noncommutative(sympy: Any, expression: Any) -> Any:
    """`expression` with its symbols non-commutative (but a sum's index and a numeral's placeholder)."""
    keep = {limit[0] for reduction in expression.atoms(sympy.Sum, sympy.Product) for limit in reduction.limits}
    return expression.xreplace({symbol: sympy.Symbol(symbol.name, commutative=False)
                                for symbol in expression.free_symbols - keep
                                if not re.fullmatch(r"Numeral[a-kp]+", symbol.name)})


_NAMED = {"sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0), "tanh": np.tanh,
          "exp": np.exp, "log": np.log, "identity": lambda x: x, "softplus": lambda x: np.logaddexp(0, x)}
"""Elementwise functions by the name papermath's `--fn` gives them."""

_BUILTIN = {"max": lambda *a: functools.reduce(np.maximum, a), "min": lambda *a: functools.reduce(np.minimum, a)}
"""Functions SymPy's parser leaves undefined that mean one thing (`\\max(a, b)`, `\\min(a, b)`)."""

_CONVENTIONAL = {"sigma": _NAMED["sigmoid"]}
"""Functions a letter names by the guides' vocabulary when the paper's text gives it no other meaning: σ applied
to a value is the logistic sigmoid (the Bradley–Terry and DPO losses). A paper that defines σ otherwise names it
(`ev.implementations`), and that meaning is taken instead."""


def read(ev: Any, rendering: bool = False) -> SecondReading | None:
    """SymPy's value of `ev`'s computed side at `ev`'s inputs, or None where it cannot say (see the module).
    Bounded by the per-formula time budget (`papermath.budget`)."""
    reading = reading_or_reason(ev, rendering)
    return reading if isinstance(reading, SecondReading) else None


def reading_or_reason(ev: Any, rendering: bool = False) -> SecondReading | str:
    """`read`, or the reason it has no opinion (for the coverage benchmark's table of causes)."""
    if ev.standins or not ev.params:
        return "stand-in or no inputs"
    if not available():
        return "second reader not installed"
    from ..budget import BudgetExceeded, formula_budget
    try:
        with formula_budget("second reader"):
            return _read(ev, rendering)
    except (BudgetExceeded, RecursionError):
        return "over the time budget"


def _read(ev: Any, rendering: bool = False) -> SecondReading | str:
    import sympy

    text = ev.latex if rendering else paper_text(ev)
    if not text:
        return "no text of the paper's own (papermath's rendering of its tree is not a second reading)"
    if any(mark in text for mark in (_INPUT_MARK, _NUMBER_MARK, "@", "Qq")):
        return "placeholder spelling"  # SymPy's reading could not be told from ours
    latex = _whole_families(without_annotations(text), ev)
    if ev.sides:
        return _read_comparison(sympy, ev, latex)
    side = computed_side(latex)
    if not side:
        return "no single value (a bound, a condition or a pattern)"
    read_side = _side_value(sympy, ev, side, np.asarray(ev.value, dtype=float))
    if isinstance(read_side, str):
        return read_side
    expression, value = read_side
    try:
        text = str(expression)
    except ValueError:  # an integer past Python's digit limit for printing (2^{1000000}): no reading to show
        return "an integer too long to print"
    return SecondReading(text, value.tolist(), _close(value, ev.value))


_FAMILY = re.compile(r"\\\{\s*(?P<first>[A-Za-z])_\{?1\}?\s*,\s*(?P=first)_\{?2\}?\s*,\s*(?:\\[lc]?dots|\.\.\.)\s*,"
                     r"\s*(?P=first)_(?P<last>\{[^{}]*\}|[A-Za-z0-9])\s*\\\}")
"""A written-out family `\\{r_1, r_2, \\cdots, r_G\\}` (the pattern 1, 2, …, last)."""


def _whole_families(latex: str, ev: Any) -> str:
    """`\\{r_1, r_2, \\cdots, r_G\\}` → `r` where the input r holds exactly the family: a vector whose length is the
    last index's value (an input, or a numeral). The text's own pattern says which members; the input's length
    says they are all of it. Any other `\\cdots` is left (a pattern the reader does not read)."""
    def whole(match: re.Match) -> str:
        letter, last = match.group("first"), match.group("last").strip("{}").strip()
        if letter not in ev.params or np.ndim(ev.input(letter).value) != 1:
            return match.group(0)
        length = np.shape(ev.input(letter).value)[0]
        count = float(last) if last.isdigit() else float(ev.input(last).value) if last in ev.params else None
        return f" {letter} " if count == length else match.group(0)
    return _FAMILY.sub(whole, latex)


_LAYOUT = re.compile(r"\\(?:begin|end)\s*\{\s*(?:aligned|align|alignat|split|gathered|gather|equation|eqnarray|multline"
                     r"|flalign)\*?\s*\}(?:\s*\{\d+\})?")
"""Environments that only lay the formula out on lines (alignment marks and line breaks are read elsewhere)."""


def paper_text(ev: Any) -> str:
    """The formula as the paper writes it (`Evaluation.source_latex`: before papermath parsed it), without layout
    environments: what the second reader reads. Not `ev.latex`, papermath's rendering of its own tree, which
    carries its reading (`A2` rendered `A 2`, `K^{T}` rendered `K^{\\top}`): a reading of that would start
    from papermath's tree. "" when there is none (an evaluation of a tree)."""
    if not getattr(ev, "source_latex", ""):
        return ""
    text = _LAYOUT.sub(" ", ev.source_latex)
    # `&\\qquad - …` at the start of a line, or after an alignment mark, indents a continued line: layout, not the
    # `\\quad` that starts a condition (`… \\quad \\text{for } t > 0`)
    text = re.sub(r"(&|\\\\(?:\[[^\]]*\])?|^)(\s*&)?\s*\\q?quad(?![A-Za-z])", r"\1\2 ", text).strip()
    return _without_outer_braces(text)


def _without_outer_braces(text: str) -> str:
    """`{a = b}.` → `a = b`: one group around the whole statement (the sentence's punctuation after it) groups
    nothing TeX prints, and a relation inside braces is not the statement's (`computed_side`)."""
    body = _without_trailing(text)
    while body.startswith("{"):
        try:
            if _closing(body, 0) != len(body) - 1:
                break
        except _NotRewritten:
            break
        body = body[1:-1].strip()
        text = body
    return text


def _close(value: Any, want: Any) -> bool:
    return bool(np.allclose(np.asarray(value, dtype=float), np.asarray(want, dtype=float), rtol=1e-6, atol=1e-9))


def _read_comparison(sympy: Any, ev: Any, latex: str) -> SecondReading | str:
    """A comparison or bound: each side cut from the text (`comparison_sides`) and read like a computed side; it
    agrees when every side equals papermath's value of that side (whether the relation holds is not what is
    checked: the test's inputs need not satisfy the paper's assumptions)."""
    cut = comparison_sides(latex)
    if cut is None:
        return "no single value (a bound, a condition or a pattern)"
    sides, ops = cut
    if len(sides) != len(ev.sides):
        return "a comparison whose sides papermath counts otherwise"
    # the indices every side picks of each array (`\\sum_t \\langle g_t, z_t\\rangle \\le \\sum_t \\|g_t - g_{t-1}\\|`):
    # one statement, so an array starts where the whole chain's sums say, not one side's
    picked: dict[str, set] = {}
    for text, (want, _) in zip(sides, ev.sides):
        _side_value(sympy, ev, text, np.asarray(want, dtype=float), constant=True, picked=picked)
    expressions, values = [], []
    for text, (want, _) in zip(sides, ev.sides):
        read_side = _side_value(sympy, ev, text, np.asarray(want, dtype=float), constant=True,
                                picked=picked, collect=False)
        if isinstance(read_side, str):
            return f"a side: {read_side}"
        expressions.append(read_side[0])
        values.append(read_side[1])
    try:
        shown = [str(e) for e in expressions]
    except ValueError:
        return "an integer too long to print"
    text = shown[0] + "".join(f" {op} {e}" for op, e in zip(ops, shown[1:]))
    agrees = all(_close(v, want) for v, (want, _) in zip(values, ev.sides))
    return SecondReading(text, [v.tolist() for v in values], agrees, sides=True)


def _constant_side(sympy: Any, expression: Any, has_value: bool) -> tuple[Any, np.ndarray] | str:
    """A side with no input: its number where the statement compares a scalar with a constant (`has_value`,
    `0 \\le …`), else why there is nothing of the inputs to check."""
    if not has_value:
        return "a constant"  # nothing of the inputs to check
    try:
        value = np.asarray(float(sympy.N(expression, 17)))
    except (TypeError, ValueError, OverflowError):  # `|0`, `\sqrt{-1}`: no real number
        return "no real value"
    return (expression, value) if np.isfinite(value) else "not finite"


def _side_value(sympy: Any, ev: Any, side: str, want: np.ndarray, constant: bool = False,
                picked: dict[str, set] | None = None, collect: bool = True) -> tuple[Any, np.ndarray] | str:
    """SymPy's expression for one side's text and its value at `ev`'s inputs (`want`: papermath's value, for the
    shape only), or why there is none. `constant`: a side with no input (`0 \\le …`) has its value. `picked`: the
    indices the statement's other sides pick of each input (by its dummy's name, `_picked_indices`), for where an
    array starts; with `collect`, this side's are added to it."""
    parsed = _parsed_side(sympy, ev, side)
    if isinstance(parsed, str):
        return parsed
    side, expression, placeholders, draws = parsed
    matched = _inputs(sympy, ev, placeholders)
    if isinstance(matched, str):
        return matched
    replacements, values = matched
    if any(np.ndim(v) >= 2 for v in values.values()) or sympy.Symbol("top") in expression.free_symbols:
        expression, replacements, values = _ordered(sympy, _parse(side, ordered=True), replacements, values)
    split = _tabulated(sympy, ev, placeholders, replacements)
    if isinstance(split, str):
        return split
    replacements, tabulated = split
    functions = _functions_here(sympy, ev, replacements)
    if not expression.free_symbols:
        return _constant_side(sympy, expression, constant and want.shape == ())
    if _bound_in_a_given_value(sympy, expression, replacements):
        # `\\sum_{j \\neq i} A^{j}_{t}` with A^{j}_{t} given one value: a term that varies with j read as a
        # constant would make any reading agree (as for a sub-expression input, `_opaque_inputs`)
        return "not rewritten: an input given one value depends on a variable a sum or 𝔼 binds"
    larger_first = sorted(replacements.items(), key=lambda kv: -sympy.count_ops(kv[0]) - len(kv[0].free_symbols))
    substituted = expression.subs(larger_first, simultaneous=True)  # `\\nabla f(y_t)` inside `\\gamma \\nabla f(y_t)`
    for name, constant in (("e", sympy.E), ("pi", sympy.pi)):  # e^{x}, \\pi with no input of that name
        named = {symbol: constant for symbol in substituted.free_symbols if symbol.name == name}
        substituted = substituted.xreplace(named) if named else substituted
    elements = {**_elements(sympy, substituted, replacements, values), **tabulated}
    transposes = {p.exp for p in substituted.atoms(sympy.Pow) if _is_transpose(p.exp)}
    identities = _identity_symbols(substituted) - set(elements)
    whole = {symbol for symbol in substituted.free_symbols if symbol.name == "F_{Qqwhole}"}
    if substituted.free_symbols - set(values) - set(elements) - transposes - identities - whole:
        return "a symbol no input matches"  # SymPy read something else
    doubles = _doubles(sympy, ev.abstract)
    unknown = {f.func.__name__ for f in substituted.atoms(sympy.core.function.AppliedUndef)}
    readers = {name for name in unknown if name.startswith("F_{Qq")}
    members = {name for name in unknown if _family_member(name, doubles) is not None}
    if unknown - set(functions) - set(doubles) - readers - members:
        return "an unknown function"  # SymPy's algebra has no value for it
    try:
        # over one draw (`_one_draw`) what each 𝔼 samples needs no name: its value is the operand's at that draw
        expectations = {f"F_{{{name}}}": () for name in draws} if _one_draw(ev) else \
            _draws(sympy, draws, replacements, placeholders)
    except ValueError:
        return "an expectation over something no input is"
    order = sorted(values, key=str)
    try:
        with np.errstate(all="ignore"):
            if all(values[s].ndim == 0 for s in order) and not readers and not elements and not identities \
                    and not members:
                value = _scalar_value(sympy, substituted, values, {**functions, **doubles})
            elif substituted.has(sympy.Piecewise):
                return "a piecewise over arrays"
            else:
                scope = _Scope(values, elements, {**functions, **doubles}, expectations,
                               free=_free_indices(sympy, replacements, values),
                               members=_members(ev, elements, replacements))
                scope = dataclasses.replace(scope, origins=_statement_origins(sympy, substituted, scope, picked,
                                                                              collect))
                value = _array_value(sympy, substituted, scope)
                if isinstance(value, _Identity):
                    raise _NoOpinion("an identity of no size (nothing it meets says how large)")
    except _NoOpinion as why:
        return f"no opinion: {why}"
    except Exception:  # a value SymPy cannot compute numerically
        return "no numeric value"
    value = np.asarray(value, dtype=float)
    if value.shape != want.shape or not np.all(np.isfinite(value)):
        return "another shape (matrix or reduction) or not finite"
    return expression, value


def _functions_here(sympy: Any, ev: Any, replacements: dict) -> dict[str, Any]:
    """`_named_functions` without a conventional one whose name is an input here (σ a standard deviation:
    `\\sigma(a + b)` is no sigmoid)."""
    functions = _named_functions(sympy, ev)
    for name in set(_CONVENTIONAL) & {str(key) for key in replacements}:
        if functions[name] is _CONVENTIONAL[name]:
            del functions[name]
    return functions


def _bound_in_a_given_value(sympy: Any, expression: Any, replacements: dict) -> bool:
    """An input given one value whose name carries the index of a sum or product it stands in (`A^{j}_{t}` in
    `\\sum_{j \\neq i}`): its name's symbols or scripts hold the index, and the reduction's term holds it."""
    for reduction in expression.atoms(sympy.Sum, sympy.Product):
        names = {limit[0].name for limit in reduction.limits}
        for key in replacements:
            if isinstance(key, sympy.Symbol) and key.name in names or not reduction.function.has(key):
                continue
            scripts = re.findall(r"[_^]\{([^{}]*)\}", getattr(key, "name", ""))
            inside = {s.name for s in key.free_symbols} | {w for part in scripts for w in re.findall(r"[A-Za-z]\w*",
                                                                                                     part)}
            if names & (inside - {getattr(key, "name", None)}):
                return True
    return False


_TRANSPOSE_T = re.compile(r"\^\s*(?:T|\{\s*T\s*\}|\\(?:mathrm|text|mathsf|rm|textsf)\s*\{\s*T\s*\}"
                          r"|\{\s*\\(?:mathrm|text|mathsf|rm|textsf)\s*\{\s*T\s*\}\s*\}|\\intercal(?![A-Za-z])"
                          r"|\{\s*\\intercal\s*\})")
"""A superscript T (`K^T`, `x^{T}`, `\\mu^\\text{T}`, `\\intercal`), read as `\\top` where no input is named T."""


def _parsed_side(sympy: Any, ev: Any, side: str) -> tuple[str, Any, dict[str, str], dict[str, str]] | str:
    """One side's text rewritten for SymPy (`_one_order`, `_opaque_inputs`, `reader_forms`) and SymPy's expression
    of it: (the rewritten text, the expression, the inputs' placeholders, the expectations' draws), or why not."""
    side = _one_order(side, ev.params)
    try:
        side, placeholders = _opaque_inputs(_bare_words(side, ev.params), ev.params, dict(ev.tables))
        side = _whole_ranges(side, ev, placeholders)
        side = _numbers_times_brackets(side, paper_text(ev) or side)
        side, draws = reader_forms(side)
    except _NotRewritten as why:
        return f"not rewritten: {why}"
    try:
        expression = _parse(side)
    except Exception:  # SymPy cannot read it: no second opinion
        return "sympy cannot parse"
    if not isinstance(expression, sympy.Expr) or expression.has(sympy.Integral, sympy.Derivative, sympy.Limit):
        return "not an expression / integral / derivative / limit"
    return side, expression, placeholders, draws


_BARE_FUNCTION = re.compile(r"(?<![\\A-Za-z])(sin|cos|tan|exp|log|tanh|sinh|cosh)(?=\s*(?:\\left\s*)?\()")
_WORD_KEY = re.compile(r"\\(?:mathit|text|textit|mathrm|textrm)\s*\{\s*([A-Za-z]{2,})\s*\}")


def _bare_words(side: str, keys: tuple[str, ...]) -> str:
    """Words a paper types in plain math italics: `sin(…)`, `cos(…)` (the standard functions, which TeX prints
    upright only when written `\\sin`), and a word that is an input's whole name (`pos` for the input
    `\\mathit{pos}`), each made the one symbol it names: SymPy would read s·i·n and p·o·s."""
    side = _BARE_FUNCTION.sub(lambda m: f"\\{m.group(1)}", side)
    for key in keys:
        word = _WORD_KEY.fullmatch(key.strip())
        if word:
            symbol = f"\\mathit{{{word.group(1)}}}"
            side = re.sub(r"(?<![\\A-Za-z{])%s(?![A-Za-z])" % word.group(1), lambda _m: symbol, side)  # noqa: B023
    return side


_LETTER = r"(?:[A-Za-z]|\\(?:%s))(?![A-Za-z])" % _GREEK
_BEFORE_BRACKET = r"(?=\s*(?:\\left\s*|\\[bB]igg?l?\s*)?\()"


def _numbers_times_brackets(side: str, formula: str) -> str:
    """`t(\\beta_t - \\beta_{t+1})` → `t \\cdot (…)` where the formula itself shows the letter is a number: it is
    in an index's arithmetic (`\\beta_{t+1}`, `x_{i,t}`, `\\gamma^{t-k}`, `w_{1:t}`) or a whole argument of an
    application (`\\sigma(t)`, `f(x, t)`). SymPy's grammar reads a letter before a bracket as a function applied;
    a number applied to a value means nothing, so the text's own use of the letter decides (the formula's
    spelling only, no papermath tree). A letter only ever a subscript's label (`\\epsilon_f`) is no evidence."""
    for letter in sorted(set(re.findall(r"(?<![\\A-Za-z_^])(%s)%s" % (_LETTER, _BEFORE_BRACKET), side)), key=len,
                         reverse=True):
        name = re.escape(letter)
        if re.search(_AS_INDEX % (name, name, name, name), formula) or re.search(_AS_ARGUMENT % name, formula):
            side = re.sub(r"(?<![\\A-Za-z_^])%s(?![A-Za-z])%s" % (name, _BEFORE_BRACKET),
                          lambda m: f"{m.group(0)} \\cdot ", side)
    return side


_AS_INDEX = (r"[_^]\s*\{[^{}]*(?:(?<![\\A-Za-z])%s(?![A-Za-z])\s*[-+,:]|[-+,:]\s*%s(?![A-Za-z])|"
             r"(?<![\\A-Za-z])%s(?![A-Za-z])\s*[-+,:]|[-+,:]\s*%s(?![A-Za-z]))[^{}]*\}")
"""A letter in a script's index arithmetic or list: `_{t+1}`, `^{t-k}`, `_{i,t}`, `_{1:t}`."""
_AS_ARGUMENT = r"[(,]\s*%s(?![A-Za-z])\s*[),]"
"""A letter that is a whole argument of an application: `\\sigma(t)`, `\\epsilon_\\theta(x_t, t)`."""


def _one_order(side: str, keys: tuple[str, ...]) -> str:
    """A symbol's scripts subscript first (`_subscript_first`), and a superscript T the transpose where no input is
    named T (`_TRANSPOSE_T`)."""
    side = _subscript_first(side)
    if any(key.strip() == "T" for key in keys):
        return side
    return _TRANSPOSE_T.sub(lambda _m: "^{\\top}", side)


def _ordered(sympy: Any, expression: Any, replacements: dict, values: dict) -> tuple[Any, dict, dict]:
    """The expression, the inputs' symbols and their dummies made non-commutative, so that a product keeps the
    order the text writes (SymPy's parser builds it unevaluated, in order; a commutative product is re-sorted on
    substitution): with a matrix among the inputs, or a transpose (`x^{\\top}`), `A x` and `x^{\\top} A` are
    matrix products (`_product`). `expression` is parsed so (`_parse(…, ordered=True)`); a sum's index stays
    commutative (SymPy's sums need it)."""
    dummies = {dummy: sympy.Symbol(dummy.name, commutative=False) for dummy in values}
    replacements = {_noncommutative(sympy, key): dummies[dummy] for key, dummy in replacements.items()}
    return expression, replacements, {dummies[dummy]: value for dummy, value in values.items()}


def _is_transpose(exponent: Any) -> bool:
    return getattr(exponent, "name", None) == "top"


def _inputs(sympy: Any, ev: Any, placeholders: dict[str, str]) -> tuple[dict, dict] | str:
    """SymPy's reading of each input's name → a dummy symbol, and each dummy's value (or why not)."""
    replacements, values = {}, {}
    keys = ev.params + tuple(i.key for i in ev.inputs if i.source == "dimension" and i.key not in ev.params)
    for k, key in enumerate(keys):  # a dimension (`t = gamma.shape[0]`) is one of the test's inputs too
        dummy = sympy.Symbol(f"_input{k}")
        values[dummy] = np.asarray(ev.input(key).value, dtype=float)
        if key in placeholders:
            replacements[sympy.Symbol(placeholders[key])] = dummy
            continue
        try:
            key_expression = _parse(key)
        except Exception:
            # not an input SymPy can name (a comparison's other side's `\\mathrm{Gap}(x; β)`): where the side
            # writes it, SymPy's reading holds a symbol no input matches, and there is no reading
            del values[dummy]
            continue
        if key_expression in replacements or not isinstance(key_expression, sympy.Expr):
            return "two inputs read as one symbol"  # `\\mathcal{L}_{\\text{bce}}`, `…_{\\text{dice}}`
        if key_expression.is_number:
            return "an input SymPy reads as a constant"  # `\\infty` given a value: a sum to ∞ is no sum to 3
        replacements[key_expression] = dummy
    return replacements, values


def _tabulated(sympy: Any, ev: Any, placeholders: dict[str, str], replacements: dict) -> tuple[dict, dict] | str:
    """The placeholders of inputs the evaluation made a table over the sums' variables (`Evaluation.tables`,
    checked against the text's sums by `_opaque_inputs`) taken out of `replacements` and read as elements
    (`_Scope.elements`): the placeholder → (the table's dummy, SymPy's names of its variables, in its axes' order),
    so that in `\\sum_t \\gamma^t A(a_t \\mid s_t)` the t-th term reads the t-th entry, as `x_t` reads x's."""
    tables = dict(ev.tables)
    names = {name: key for key, name in placeholders.items() if key in tables}
    kept, elements = {}, {}
    for symbol, dummy in replacements.items():
        key = names.get(getattr(symbol, "name", ""))
        if key is None:
            kept[symbol] = dummy
            continue
        try:
            variables = [str(_parse(var)) for var in tables[key]]
        except Exception:  # a variable SymPy cannot name: the placeholder names no element, no reading
            return "a table over a variable SymPy does not name"
        elements[symbol] = (dummy, ",".join(variables))
    return kept, elements


def _named_functions(sympy: Any, ev: Any) -> dict[str, Any]:
    """The functions the text or `--fn` names concretely, by SymPy's name of their head (plain identifiers only)."""
    functions: dict[str, Any] = {**_BUILTIN, **_CONVENTIONAL}
    for latex, op in ev.implementations:
        name = _function_name(sympy, latex)
        if name and op in _NAMED:
            functions[name] = _NAMED[op]
    return functions


def _placeholder(k: int) -> str:
    """The k-th sub-expression input's symbol, in letters (see `_numerals_as_symbols`)."""
    return "Input%s" % str(k).translate(_DIGIT_LETTERS)


def _opaque_inputs(side: str, keys: tuple[str, ...], tables: dict[str, tuple[str, ...]] | None = None
                   ) -> tuple[str, dict[str, str]]:
    """Inputs that are sub-expressions given one value (`V^{*}(x_{t - 1}, c)`, `p_\\theta(x \\mid c)`) replaced in
    the text by a placeholder SymPy reads as one symbol; SymPy still reads every operation around them. The keys
    are papermath's names of its inputs and the text is the paper's: they are matched by their spelling tokens
    (`_spelling`: fonts, braces, spaces and sizes dropped, `|` and `\\mid` one token), so `p_{\\text{ref}}
    (\\boldsymbol{x}_0|\\boldsymbol{c})` in the paper is the input `p_{\\text{ref}}(\\mathbf{x}_{0} \\mid
    \\mathbf{c})`. An input that mentions a variable a sum of the text binds around it is read only where the
    evaluation made it a table over exactly those variables (`tables`, `Evaluation.tables`): its placeholder then
    stands for the entry of the current term (`_tabulated`). (key → placeholder symbol name)"""
    out: dict[str, str] = {}
    for key in sorted((k for k in keys if "(" in k or "\\mid" in k), key=len, reverse=True):
        spans = [span for span in (_balanced(side, a, b) for a, b in _spelled_in(side, key)) if span]
        if not spans:
            continue
        outside = "".join(side[a:b] for a, b in zip([0] + [e for _, e in spans], [s for s, _ in spans] + [len(side)]))
        bound = {m.group(1) or m.group(2) for m in _BINDS.finditer(outside)}
        # a bound name as a symbol of its own (`b` in `\\pi(b \\mid s_t)`), not the base of another (`b_t`)
        mentioned = {name for name in bound
                     if re.search(r"(?<![A-Za-z\\])" + re.escape(name) + r"(?![A-Za-z_'])", key)}
        if mentioned and {v.strip() for v in (tables or {}).get(key, ())} != mentioned:
            # `\\sum_t \\gamma^t A(a_t \\mid s_t)` with A(a_t | s_t) given one value: a term that varies
            # with t read as a constant would make any reading agree
            raise _NotRewritten("an input given one value depends on a variable a sum or 𝔼 binds")
        name = _placeholder(len(out))
        for a, b in reversed(spans):
            side = f"{side[:a]} @{name}@ {side[b:]}"  # `\\mathit{…}` after `clean`
        out[key] = name
    return side, out


_SPELLING_TOKEN = re.compile(r"\\[A-Za-z]+\*?|\\.|\s+|.", re.S)
_LOOKS_ONLY = frozenset({f"\\{f}" for f in _FONTS} | {
    "\\text", "\\mathrm", "\\operatorname", "\\operatorname*", "\\textrm", "\\textit", "\\mathit", "\\rm",
    "\\left", "\\right", "\\big", "\\Big", "\\bigg", "\\Bigg", "\\bigl", "\\bigr", "\\Bigl", "\\Bigr",
    "\\biggl", "\\biggr", "\\Biggl", "\\Biggr", "\\limits", "\\,", "\\;", "\\!", "\\:", "\\ ", "~", "{", "}"})
"""Tokens that change how a formula looks, not what it says: dropped when two spellings are compared."""
_SAME_TOKEN = {"\\mid": "|", "\\vert": "|", "\\prime": "'", **_RENAMED_COMMANDS}
_ACCENTS = frozenset({"\\tilde", "\\hat", "\\bar", "\\dot", "\\ddot", "\\check", "\\breve", "\\widetilde",
                      "\\widehat", "\\overline", "\\vec", "\\Tilde", "\\mathring"})


def _spelling(text: str) -> list[tuple[str, int, int]]:
    """The tokens of `text` that say something (`_LOOKS_ONLY` dropped, `_SAME_TOKEN` one spelling, a `^` before a
    prime dropped), each with where it is in `text`."""
    tokens = []
    for match in _SPELLING_TOKEN.finditer(text):
        token = match.group(0)
        if token.isspace() or token in _LOOKS_ONLY:
            continue
        tokens.append((_SAME_TOKEN.get(token, token), match.start(), match.end()))
    return [t for k, t in enumerate(tokens) if not (t[0] == "^" and k + 1 < len(tokens) and tokens[k + 1][0] == "'")]


def _spelled_in(side: str, key: str) -> list[tuple[int, int]]:
    """Where `side` writes `key` (compared by `_spelling`), as spans of `side`: not inside a longer name (a
    letter or a command, an accent or a script mark just before it, a script just after it)."""
    wanted = [t for t, _, _ in _spelling(_subscript_first(key))]
    tokens = _spelling(side)
    spans, k, n = [], 0, len(wanted)
    while n and k + n <= len(tokens):
        if [t for t, _, _ in tokens[k:k + n]] != wanted:
            k += 1
            continue
        start, end = tokens[k][1], tokens[k + n - 1][2]
        before = tokens[k - 1][0] if k else ""
        after = tokens[k + n][0] if k + n < len(tokens) else ""
        glued = start > 0 and (side[start - 1].isalpha() or side[start - 1] == "\\")
        # a script after a name makes a longer name (`x_t` is not `x`); after an application's bracket a
        # superscript is a power of its value (`\\pi_\\theta(a|s)^2`)
        scripts_after = ("_", "'") if wanted[-1] == ")" else ("_", "^", "'")
        if glued or before in ("_", "^") or before in _ACCENTS or after in scripts_after:
            k += 1
            continue
        spans.append((start, end))
        k += n
    return spans


def _balanced(side: str, start: int, end: int) -> tuple[int, int] | None:
    """The span `side[start:end]` widened to the braces it opens or closes, where what is added only changes how
    the formula looks (`{\\rm Gap}(x)` found from `G`: the span takes `{\\rm `; `{p}_\\theta(x)` found from `p`: it
    takes the `{`), so that the placeholder put in its place leaves the braces balanced; None where it would take
    more (a brace that belongs to a larger group)."""
    depth, low = 0, 0
    for char in side[start:end]:
        depth += (char == "{") - (char == "}")
        low = min(low, depth)
    new_start, new_end = start, end
    for _ in range(-low):  # a `}` closes a `{` before the span
        opening = _opening_brace(side, new_start)
        if opening is None:
            return None
        new_start = opening
    for _ in range(depth - low):  # a `{` the span leaves open
        close = side.find("}", new_end)
        if close < 0:
            return None
        new_end = close + 1
    added = side[new_start:start] + side[end:new_end]
    return (new_start, new_end) if not _spelling(added) else None


_OPEN_SUM = re.compile(r"\\sum\s*(?:\\limits\s*)?_\s*"
                       r"(?:\{\s*(?P<braced>\\?[A-Za-z]+)\s*\}|(?P<bare>\\[A-Za-z]+|[A-Za-z]))(?![A-Za-z])(?!\s*\^)")
"""A sum whose subscript is its variable alone, with no range (`\\sum_b`, `\\sum_{b}`): over every value of b."""


def _whole_ranges(side: str, ev: Any, placeholders: dict[str, str]) -> str:
    """`\\sum_b …` with no range → `\\sum_{b=1}^{n}` where what b indexes in the side has n entries: a table over b
    (`Evaluation.tables`: `\\hat\\pi^2(b \\mid s_t)`, one entry per b), or an input vector written with b as its
    subscript (`w_b`). A sum with no range runs over every value of its variable, and those inputs hold them all;
    b counts from 1, as papers count (guide 002). Where they disagree on n, or nothing says, the sum is left (SymPy
    does not read it: no reading)."""
    def ranged(match: re.Match) -> str:
        var = match.group("braced") or match.group("bare")
        lengths = _lengths_over(var, side, ev, placeholders)
        return f"\\sum_{{{var}=1}}^{{{lengths.pop()}}}" if len(lengths) == 1 else match.group(0)
    return _OPEN_SUM.sub(ranged, side)


def _lengths_over(var: str, side: str, ev: Any, placeholders: dict[str, str]) -> set[int]:
    """How many entries each input the side indexes by `var` holds along that index (`_whole_ranges`)."""
    lengths: set[int] = set()
    for key, variables in ev.tables:
        names = [v.strip() for v in variables]
        if var in names and key in placeholders and f"@{placeholders[key]}@" in side:
            lengths.add(int(np.shape(ev.input(key).value)[names.index(var)]))
    subscript = r"_\s*(?:\{\s*%s\s*\}|%s(?![A-Za-z]))" % (re.escape(var), re.escape(var))
    for key in ev.params:
        value = ev.input(key).value
        if re.fullmatch(r"[A-Za-z]|\\[A-Za-z]+", key) and np.ndim(value) >= 1 and \
                re.search(r"(?<![\\A-Za-z])%s\s*%s" % (re.escape(key), subscript), side):
            lengths.add(int(np.shape(value)[0]))
    return lengths


def _opening_brace(side: str, i: int) -> int | None:
    """The position of the `{` left of `i` that no `}` between closes."""
    depth = 0
    for j in range(i - 1, -1, -1):
        if side[j] == "}":
            depth += 1
        elif side[j] == "{":
            if depth == 0:
                return j
            depth -= 1
    return None


_BINDS = re.compile(r"\\(?:sum|prod)\s*(?:\\limits\s*)?_\s*(?:\{\s*(\\?[A-Za-z]+)|(\\[A-Za-z]+|[A-Za-z]))")
"""A sum's or product's index (`\\sum_{t = 0}`, `\\sum_t`, `\\prod_{i \\in S}`): a variable the formula binds."""

_EXPECTATION = re.compile(r"\\operatorname\*?\s*\{\s*\\mathbb\s*\{?\s*E\s*\}?\s*\}|\\mathop\s*\{\s*\\mathbb\s*\{?\s*E"
                          r"\s*\}?\s*\}|\\mathbb\s*\{\s*E\s*\}|\\mathbb\s*E(?![A-Za-z])|\\E(?![A-Za-z])")
_NORM_OPEN = re.compile(r"(?:\\left\s*|\\[bB]igg?l?\s*)?(?:\\\||(?<!\\)\|\||\\lVert(?![A-Za-z])|\\Vert(?![A-Za-z]))")
_NORM_CLOSE = re.compile(r"(?:\\right\s*|\\[bB]igg?r?\s*)?(?:\\\||(?<!\\)\|\||\\rVert(?![A-Za-z])|\\Vert(?![A-Za-z]))")
_ABS_OPEN = re.compile(r"\\left\s*\||\\left\s*\\vert(?![A-Za-z])|(?:\\[bB]igg?l?\s*)?\\lvert(?![A-Za-z])")
_ABS_CLOSE = re.compile(r"\\right\s*\||\\right\s*\\vert(?![A-Za-z])|(?:\\[bB]igg?r?\s*)?\\rvert(?![A-Za-z])")
_INNER_OPEN = re.compile(r"(?:\\left\s*|\\[bB]igg?l?\s*)?\\langle(?![A-Za-z])")
_INNER_CLOSE = re.compile(r"(?:\\right\s*|\\[bB]igg?r?\s*)?\\rangle(?![A-Za-z])")
_NORM_KINDS = {"2": "two", "1": "one", "F": "fro", "\\mathrm{F}": "fro", "\\text{F}": "fro", "": "two"}
"""A norm's subscript → the norm SymPy is given (no subscript: Euclidean / Frobenius, as the guides read ‖·‖)."""
_OPENERS, _CLOSERS = "([{", ")]}"


class _NotRewritten(ValueError):
    """A construct the rewrites recognise but cannot put in SymPy's terms (`\\mathbb{E}` with no bracket)."""


def reader_forms(side: str) -> tuple[str, dict[str, str]]:
    """Token-level rewrites of constructs SymPy's grammar lacks into function applications it reads, SymPy still
    parsing every operand: `\\|…\\|_2` → `@Qqnormtwo@(…)`, `\\lvert…\\rvert` → `@Qqabs@(…)`, `\\langle a, b\\rangle`
    → `@Qqinner@(a, b)`, `\\mathcal{N}(x; \\mu, \\Sigma)` → `@Qqgauss@(x, \\mu, \\Sigma)`, `[a; b]` →
    `@Qqconcat@(a, b)`, `\\Pi_{\\|z\\| \\le D} v` → `@Qqproj@(v, D)`, then `\\mathbb{E}_{x \\sim p}[…]` →
    `@Qqexpecta@(…)` (the markers become
    `F_{\\mathit{Qq…}}` after cleaning; see `_array_value` for what each computes). An 𝔼 with no bracket takes
    the rest of its term (`\\mathbb{E}_{x} f(x) + c`: up to the `+` outside every bracket, as Σ does).
    Returns the text and each expectation's subscript (marker name → the LaTeX under 𝔼). No papermath tree is
    used: brackets are matched in the text. Raises `_NotRewritten` where a construct cannot be placed."""
    side = _concatenations(_gaussians(_inner_products(_absolute_values(_norms(_function_heads(
        _written_sets(_braced_extrema(_projections(_indicators(_conditioned_reductions(side)))))))))))
    draws: dict[str, str] = {}
    start = 0
    while True:
        match = _EXPECTATION.search(side, start)
        if match is None:
            return side, draws
        i = match.end()
        subscript, i = _script(side, i)
        i = _skip_size(side, i)
        if i < len(side) and (side[i] in "[(" or side.startswith("\\{", i)):
            close = _closing(side, i)
            body_start = i + (2 if side.startswith("\\{", i) else 1)
            body_end = close - (1 if side[close - 1] == "\\" else 0)
            body_end, rest = _strip_right(side, body_end), close + 1
        else:
            body_start, body_end = i, _term_end(side, i)
            rest = body_end
            body_end = _strip_right(side, body_end)
        if not side[body_start:body_end].strip():
            raise _NotRewritten("an expectation of nothing")
        name = "Qqexpect" + str(len(draws)).translate(_DIGIT_LETTERS)
        draws[name] = subscript
        side = f"{side[:match.start()]} @{name}@({side[body_start:body_end]}){side[rest:]}"
        start = match.start()


_WORD_HEAD = re.compile(r"\\(?:operatorname\*?|mathrm|text|textrm|mathit|texttt|mathtt|textsf)\s*"
                        r"\{\s*(?P<word>[A-Za-z]{2,})\s*\}"
                        r"(?=\s*(?:\\left\s*|\\[bB]igg?l?\s*)?\()")
"""A word in upright (or italic) font applied to a bracket: a function's name (`\\operatorname{Sigmoid}(u)`)."""


_GRADIENT_HEAD = re.compile(r"\\nabla(?![A-Za-z])\s*(?P<head>[A-Za-z]|\\(?:%s)(?![A-Za-z]))"
                            r"(?=\s*(?:\\left\s*|\\[bB]igg?l?\s*)?\()" % _GREEK)
"""The gradient of a function, written as the function applied (`\\nabla f(y_t, \\zeta_t)`, nothing under ∇): a
function of the point in its own right, named by both letters."""


def _function_heads(side: str) -> str:
    """`\\operatorname{Softmax}(x)`, `\\mathrm{LN}(x)` → `@Qqfn…@(x)`, a function SymPy reads by its spelled name
    (else it reads the word as a product of letters times the bracket); `_applied_value` computes the names
    `_WORD_FUNCTIONS` knows, the paper's concrete functions and the test's doubles. `\\nabla f(x)` → the function
    `∇f` at x (SymPy reads no ∇), its value that of the test's double for ∇f."""
    side = _GRADIENT_HEAD.sub(lambda m: f" @Qqfn{_spelled('nabla ' + m.group('head'))}@", side)
    side = _RM_WORD_HEAD.sub(lambda m: f" @Qqfn{_spelled(m.group('word'))}@", side)
    return _scripted_heads(_WORD_HEAD.sub(lambda m: f" @Qqfn{_spelled(m.group('word'))}@", side))


_RM_WORD_HEAD = re.compile(r"\{\s*\\rm\s+(?P<word>[A-Za-z]{2,})\s*\}(?=\s*(?:\\left\s*|\\[bB]igg?l?\s*)?\()")
"""`{\\rm Cov}(x, y)`: the old-style upright word in a group, applied to a bracket (as `_WORD_HEAD`)."""


_SCRIPTED_HEAD = re.compile(r"(?P<head>(?:(?<![\\A-Za-z])(?:[A-Za-z]|\\(?:%s)(?![A-Za-z]))"
                            r"|(?<![_^])\{(?:[^{}]|\{[^{}]*\})*\})"  # or a group: `{\\bm{\\mu}}_{\\theta}^{cat}`
                            r"(?:\s*[_^]\s*(?:\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[^\s{}\\]))+)\s*(?=\()" % _GREEK)


def _scripted_heads(side: str) -> str:
    """`Q^2(s_t, b_t)`, `A^{1}_t(s, a)` → `@Qqfn…@(…)`: a name with a superscript followed by a bracket that lists
    several arguments is a function applied to them (a power times a list means nothing), which SymPy's grammar
    does not read; its name spells the head's tokens (`head_function_name`), so that the test's double for that
    function is found. With one argument (`V^1(s)`) the text does not say application from power times a bracket:
    left to SymPy."""
    out, i = [], 0
    for match in _SCRIPTED_HEAD.finditer(side):
        if "^" not in match.group("head") or match.start() < i:
            continue
        try:
            close = _closing(side, match.end())
        except _NotRewritten:
            continue
        if len(_split_top(side[match.end() + 1:close], ",")) < 2:
            continue
        out.append(side[i:match.start()] + f" @Qqfn{head_function_name(match.group('head'))}@")
        i = match.end()
    return "".join(out) + side[i:]


def head_function_name(head: str) -> str:
    """The spelled name of a function head written with scripts (`Q^{2}_{t}`, `Q^2_t`: one name), from its
    spelling tokens (`_spelling`) in one script order."""
    return _spelled("".join(token for token, _, _ in _spelling(_subscript_first(head))))


_EXTREMUM_SET = re.compile(r"\\(?P<op>min|max|exp|log)(?![A-Za-z])\s*(?:\\left\s*|\\[bB]igg?l?\s*)?\\\{")


def _braced_extrema(side: str) -> str:
    """`\\min\\{a, b\\}` → `\\min(a, b)`: the least of the listed values (SymPy reads only `\\min(a, b)`); a
    `\\min` with a subscript (`\\min_{x \\in S}`) is not this form and is left alone. `\\exp\\{…\\}`,
    `\\log\\{…\\}`: braces that group the argument, as a bracket does."""
    start = 0
    while True:
        match = _EXTREMUM_SET.search(side, start)
        if match is None:
            return side
        close = _closing(side, match.end() - 1)
        body_end = _strip_right(side, close - 1)  # the `\\` of `\\}`, and a `\\right`
        side = f"{side[:match.start()]}\\{match.group('op')}({side[match.end():body_end]}){side[close + 1:]}"
        start = match.start() + 1


_SET_OPEN = re.compile(r"(?:\\left\s*|\\[bB]igg?l?\s*)?\\\{")


def _written_sets(side: str) -> str:
    """`\\{k, n\\}` → `@Qqset@(k, n)`: a finite set written out member by member (two or more, at the braces' top
    level), whose value is its distinct members in increasing order (`_applied_value`): a set has no order and
    counts a repeat once, so one order is chosen, the increasing one. A set-builder (`\\{v \\in V : …\\}`) or
    a brace holding one item is left alone (SymPy then reads nothing it knows, and has no opinion)."""
    start = 0
    while True:
        match = _SET_OPEN.search(side, start)
        if match is None:
            return side
        close = _closing(side, match.end() - 1)
        body = side[match.end():_strip_right(side, close - 1)]
        members = _split_top(body, ",")
        if len(members) < 2 or any(not m or re.search(r"[:|]|\\mid(?![A-Za-z])|\\[lc]?dots|\.\.\.", m)
                                   for m in members):
            start = match.end()
            continue
        side = f"{side[:match.start()]} @Qqset@({', '.join(members)}){side[close + 1:]}"
        start = match.start() + 1


_CONDITIONED = re.compile(r"\\(?P<op>sum|prod|max|min)(?![A-Za-z])\s*(?:\\limits(?![A-Za-z])\s*)?(?=_)")
"""A sum, product, max or min with a subscript (what the subscript says is read by `_conditioned_reductions`)."""

_CONDITION_OPS = (("\\neq", "ne"), ("\\ne", "ne"), ("\\leqslant", "le"), ("\\leq", "le"), ("\\le", "le"),
                  ("\\geqslant", "ge"), ("\\geq", "ge"), ("\\ge", "ge"), ("\\notin", "ni"), ("\\in", "in"),
                  ("<", "lt"), (">", "gt"), ("=", "eq"))
"""A condition's relations → the two-letter code the range marker spells (`_conditioned_value` reads them)."""
_FLIPPED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "ne": "ne", "eq": "eq"}
"""`e < k` is `k > e`: the relation read from the bound variable's side."""
_CONDITION_OP = re.compile("|".join(re.escape(op) + ("(?![A-Za-z])" if op[0] == "\\" else "")
                                    for op, _ in _CONDITION_OPS))
_BOUND_NAME = re.compile(r"\s*(?:[A-Za-z]|\\(?:%s)(?![A-Za-z]))'*\s*" % _GREEK)
"""A bound variable's name: one letter or Greek letter (primes kept: `v'`)."""


def _conditioned_reductions(side: str) -> str:
    """`\\sum_{k<t}`, `\\sum_{j \\neq i}`, `\\prod_{t \\in T}`, `\\sum_b`, `\\sum_{\\substack{j=1 \\\\ j \\neq i}}^n`
    → `\\sum_{k=@Qqwhere…@(…)}^{…}`: SymPy's grammar reads a sum only as `\\sum_{k=a}^{b}`, so the subscript's
    conditions on the bound variable are spelled as its lower limit, a marker whose name lists each relation
    (`Qqwherelt`, `Qqwhereeqne`, `Qqwherein`; `Qqwhereall` for no condition) applied to each relation's other
    side, which SymPy still parses (and the inputs are substituted into, as anywhere); the written upper limit
    stays (else `@Qqwhole@`). `_conditioned_value` computes the range. A subscript this does not read (`\\sum_{(s,
    a)}`, several variables, a relation on no single name) is left as written: SymPy cannot parse it, no opinion.
    An ordinary `\\sum_{k=a}^{b}` is left alone."""
    start = 0
    while True:
        match = _CONDITIONED.search(side, start)
        if match is None:
            return side
        subscript, end = _script(side, match.end())
        upper_match = re.match(r"\s*\^\s*(?P<arg>%s)" % _SCRIPT_ARGUMENT, side[end:])
        upper = upper_match.group("arg") if upper_match else ""
        after = end + (upper_match.end() if upper_match else 0)
        upper = upper[1:-1] if upper.startswith("{") else upper
        start = match.end()
        if upper and re.fullmatch(r"[^=<>]*=[^=<>]*", subscript) and not _CONDITION_OP.search(
                subscript.replace("=", " ")):
            continue  # `\\sum_{k=1}^{n}`: SymPy's own form
        read = _conditions(subscript)
        if read is None:
            continue
        variable, codes, others = read
        marker = f"@Qqwhere{''.join(codes) or 'all'}@({', '.join(others) or '0'})"  # a bracket SymPy reads
        limit = f"{{{upper}}}" if upper else "{@Qqwhole@}"
        # `\\limits` dropped; a max or min is read as Σ is (its term as far as Σ's), its marker names the extremum
        operator = {"max": "\\sum", "min": "\\sum"}.get(match.group("op"), f"\\{match.group('op')}")
        marker = marker.replace("@Qqwhere", f"@Qq{match.group('op')}where") if operator == "\\sum" and \
            match.group("op") != "sum" else marker
        side = f"{side[:match.start()]}{operator}_{{{variable}={marker}}}^{limit}{side[after:]}"


def _conditions(subscript: str) -> tuple[str, list[str], list[str]] | None:
    """A sum's subscript as (the bound variable, each condition's code, each condition's other side), or None
    where it is not conditions on one name. Parts are split at `\\\\` (a `\\substack`) and top-level commas; a
    chain (`1 \\le j \\le n`) is two conditions."""
    stacked = re.fullmatch(r"\s*\\substack\s*\{(.*)\}\s*", subscript, flags=re.S)
    body = stacked.group(1) if stacked else subscript
    if stacked and "\\\\" not in body:
        # the line breaks are gone (`computed_side` joins a display's lines): a new condition starts where a name
        # and a relation follow a space (`j=1 j \\neq i`)
        body = re.sub(r"(?<=\S)\s+(?=%s(?:%s))" % (_BOUND_NAME.pattern, _CONDITION_OP.pattern), r" \\\\ ", body)
    parts = [p for chunk in re.split(r"\\\\", body) for p in _split_top(chunk, ",") if p.strip()]
    if not parts:
        return None
    variable: str | None = None
    codes: list[str] = []
    others: list[str] = []
    for part in parts:
        pieces: list[str] = []
        ops: list[str] = []
        k = 0
        for found in _CONDITION_OP.finditer(part):
            before = part[:found.start()]
            if sum(c in _OPENERS for c in before) != sum(c in _CLOSERS for c in before):
                continue  # a relation inside a group (`x_{i<j}`, `\\mathcal{N}(i)`): not the subscript's
            pieces.append(part[k:found.start()])
            ops.append(dict(_CONDITION_OPS)[found.group(0)])
            k = found.end()
        pieces.append(part[k:])
        names = [i for i, piece in enumerate(pieces) if _BOUND_NAME.fullmatch(piece)]
        if variable is None:
            if not names:
                return None
            variable = pieces[names[0] if len(pieces) != 3 or len(names) == 1 else 1].strip()
        place = next((i for i, piece in enumerate(pieces) if piece.strip() == variable), None)
        if place is None or any(not piece.strip() for piece in pieces):
            return None
        for i, op in enumerate(ops):
            if i + 1 == place:  # `e < k`: read from k's side
                codes.append(_FLIPPED.get(op, ""))
                others.append(pieces[i].strip())
            elif i == place:
                codes.append(op)
                others.append(pieces[i + 1].strip())
            else:
                return None  # a relation between two other things
    if variable is None or "" in codes or (len(parts) == 1 and not codes and len(parts[0].split()) > 1):
        return None
    return variable, codes, others


_INDICATOR = re.compile(r"\\(?:mathbb|mathbf|mathds|mathbbm|bm)\s*(?:\{\s*1\s*\}|1(?![0-9]))\s*(?=[_\[({]|\\\{)")
"""The indicator `\\mathbb{1}` before its condition (`\\{t \\in X\\}`, `_{k < t}`, `[a \\ne b]`)."""


def _indicators(side: str) -> str:
    """`\\mathbb{1}\\{t \\in X\\}`, `\\mathbb{1}_{k<t}`, `\\mathbf{1}[a \\neq b]` → `@Qqtruth<code>@(t, X)`: 1 where
    the one relation it holds is true, else 0 (`_applied_value`, the codes of `_CONDITION_OPS`). An indicator of
    anything else (several relations, prose) is left alone: SymPy reads no value for it."""
    start = 0
    while True:
        match = _INDICATOR.search(side, start)
        if match is None:
            return side
        i = match.end()
        start = i
        if side.startswith("_", i):
            condition, end = _script(side, i)
        else:
            end = _closing(side, i) + 1
            condition = side[i + (2 if side.startswith("\\{", i) else 1):_strip_right(side, end - 1)]
            condition = condition[:-1] if condition.endswith("\\") else condition
        ops = [op for op in _CONDITION_OP.finditer(condition) if op.group(0) != "="]
        if len(ops) != 1:
            continue
        op = ops[0]
        left, right = condition[:op.start()].strip(), condition[op.end():].strip()
        if not left or not right:
            continue
        code = dict(_CONDITION_OPS)[op.group(0)]
        side = f"{side[:match.start()]} @Qqtruth{code}@({left}, {right}){side[end:]}"
        start = match.start() + 1


_PROJECTION = re.compile(r"\\Pi\s*_\s*\{")
_BALL = re.compile(r"\s*(?:\\\||\\lVert(?![A-Za-z])|\\Vert(?![A-Za-z]))(?P<variable>.*?)(?:\\\||\\rVert(?![A-Za-z])"
                   r"|\\Vert(?![A-Za-z]))\s*(?:_\s*\{?\s*2\s*\}?)?\s*\\leq?(?![A-Za-z])\s*(?P<radius>.+?)\s*", re.S)
"""The subscript of a projection onto a Euclidean ball: `\\|z\\| \\le D` (the variable, the radius)."""


def _projections(side: str) -> str:
    """`\\Pi_{\\|z\\| \\le D} v` → `@Qqproj@(v, D)`: the projection onto the ball the subscript states
    (`_projected`); v is the bracket that follows, else the rest of the term (as for Σ). A Π whose subscript states
    another set is left alone (SymPy then reads a symbol no input is, and has no opinion)."""
    start = 0
    while True:
        match = _PROJECTION.search(side, start)
        if match is None:
            return side
        close = _closing(side, match.end() - 1)
        ball = _BALL.fullmatch(side, match.end(), close)
        if ball is None:
            start = match.end()
            continue
        i = _skip_size(side, close + 1)
        if i < len(side) and side[i] in "([{":
            end = _closing(side, i) + 1
            operand = side[i + 1:_strip_right(side, end - 1)]
            if re.fullmatch(r"\s*(?:\\left\s*)?[\[(].*[\])]\s*", operand, re.S):  # `{[…]}`: the printer's braces
                inner = _skip_size(operand, 0)
                if _closing(operand, inner) == len(operand.rstrip()) - 1:
                    operand = operand[inner + 1:_strip_right(operand, len(operand.rstrip()) - 1)]
        else:
            end = _term_end(side, i)
            operand = side[i:end]
            if side[end:].strip()[:1] in ("+", "-") or re.match(r"\s*\\(?:pm|mp)(?![A-Za-z])", side[end:]):
                # `\Pi_{…} z_t - \eta g_t`: Π of z_t alone, or of the step (projected gradient) — the text
                # does not say (a sum's Σ takes its term by convention; a projection has none)
                raise _NotRewritten("a projection with no bracket before a sign")
        if not operand.strip():
            raise _NotRewritten("a projection of nothing")
        side = f"{side[:match.start()]} @Qqproj@({operand}, {ball.group('radius')}){side[end:]}"
        start = match.start() + 1


_GAUSSIAN = re.compile(r"\\mathcal\s*(?:\{\s*N\s*\}|N(?![A-Za-z]))")


def _gaussians(side: str) -> str:
    """`\\mathcal{N}(x; \\mu, \\Sigma)` → `@Qqgauss@(x, \\mu, \\Sigma)`: the normal density at x, its mean and
    covariance (`_gaussian_density`), the `;` and `,` found at the bracket's top level in the text. `\\mathcal{N}`
    with no `;` (`\\mathcal{N}(0, I)`, a distribution, not a value at a point) is left alone."""
    start = 0
    while True:
        match = _GAUSSIAN.search(side, start)
        if match is None:
            return side
        i = _skip_size(side, match.end())
        if not side.startswith("(", i):
            start = match.end()
            continue
        close = _closing(side, i)
        point, *rest = _split_top(side[i + 1:_strip_right(side, close)], ";")
        moments = _split_top(rest[0], ",") if len(rest) == 1 else []
        if len(moments) != 2:
            start = match.end()
            continue
        side = f"{side[:match.start()]} @Qqgauss@({point}, {moments[0]}, {moments[1]}){side[close + 1:]}"
        start = match.start() + 1


_BRACKET_OPEN = re.compile(r"(?:\\left\s*)?(?:\[|\\lbrack(?![A-Za-z]))")


def _concatenations(side: str) -> str:
    """`[a; b]`, `\\lbrack a; b \\rbrack` → `@Qqconcat@(a, b)`: the parts stacked one after the other (a `;` in a
    bracket stacks vertically: vectors joined end to end, matrices' rows one after the other). A bracket with no
    top-level `;` is left alone (`[a, b]`, a group); a part with a top-level comma is no concatenation."""
    side = re.sub(r"\\lbrack(?![A-Za-z])", "[", re.sub(r"\\rbrack(?![A-Za-z])", "]", side))
    start = 0
    while True:
        match = _BRACKET_OPEN.search(side, start)
        if match is None:
            return side
        close = _closing(side, match.end() - 1)
        parts = _split_top(side[match.end():_strip_right(side, close)], ";")
        if len(parts) < 2:
            start = match.end()
            continue
        if any(len(_split_top(part, ",")) != 1 for part in parts):
            raise _NotRewritten("a bracket mixing ; and , (a matrix or a list, not a concatenation)")
        side = f"{side[:match.start()]} @Qqconcat@({', '.join(parts)}){side[close + 1:]}"
        start = match.start() + 1


def _split_top(text: str, separator: str) -> list[str]:
    """`text` split at each `separator` outside every bracket (empty parts kept, so that `a;` is two parts)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += char in _OPENERS
        depth -= char in _CLOSERS
        if char == separator and depth == 0 and text[i - 1:i] != "\\":
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [part.strip() for part in parts]


def _term_end(text: str, i: int) -> int:
    """Where the term that starts at `i` ends: at the first `+`, `-`, `\\pm`, `\\mp` outside every bracket and
    bar pair opened after `i` (a sign that starts the term is its own), at a bracket that closes one opened
    before `i`, at `&`, `\\\\`, a top-level comma or `\\quad`; else the end of the text."""
    depth, bars, j, n = 0, 0, i, len(text)
    started = False
    while j < n:
        char = text[j]
        if char == "\\":
            command = re.match(r"\\(?:[A-Za-z]+|.)", text[j:j + 40])
            word = command.group(0) if command else "\\"
            if word in ("\\pm", "\\mp") and depth == 0 and bars % 2 == 0 and started:
                return j
            if word in ("\\\\", "\\quad", "\\qquad") and depth == 0:
                return j
            if word in ("\\{", "\\}"):
                depth += 1 if word == "\\{" else -1
                if depth < 0:
                    return j
            j += len(word)
            started = started or word not in ("\\,", "\\;", "\\!", "\\ ")
            continue
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth -= 1
            if depth < 0:
                return j
        elif depth == 0 and char == "|":
            bars += 1
        elif depth == 0 and bars % 2 == 0 and (char in "&," or char in "+-" and started):
            return j
        started = started or not char.isspace()
        j += 1
    return n


def _norms(side: str) -> str:
    """`\\|…\\|_2`, `\\lVert…\\rVert`, `\\left\\|…\\right\\|_F` → `@Qqnorm<kind>@(…)`, bars matched in the text."""
    start = 0
    while True:
        match = _NORM_OPEN.search(side, start)
        if match is None:
            return side
        close = _bar_close(side, match.end(), _NORM_CLOSE)
        end = close.end()
        subscript, end = _script(side, end)
        kind = _NORM_KINDS.get(re.sub(r"\s", "", subscript))
        if kind is None:
            raise _NotRewritten("a norm with a subscript the second reader does not know")
        side = f"{side[:match.start()]} @Qqnorm{kind}@({side[match.end():close.start()]}){side[end:]}"
        start = match.start()


def _absolute_values(side: str) -> str:
    """`\\lvert a \\rvert`, `\\left| a \\right|` → `@Qqabs@(a)` (elementwise |·|), its bars matched in the text: a
    bare `|` is left to SymPy."""
    start = 0
    while True:
        match = _ABS_OPEN.search(side, start)
        if match is None:
            return side
        close = _bar_close(side, match.end(), _ABS_CLOSE)
        side = f"{side[:match.start()]} @Qqabs@({side[match.end():close.start()]}){side[close.end():]}"
        start = match.start()


def _inner_products(side: str) -> str:
    """`\\langle a, b \\rangle` → `@Qqinner@(a, b)` (the sum of the elementwise product), at its first top-level
    comma; an inner product with no comma is not rewritten."""
    start = 0
    while True:
        match = _INNER_OPEN.search(side, start)
        if match is None:
            return side
        depth, comma = 0, None
        for i in range(match.end(), len(side)):
            close = _INNER_CLOSE.match(side, i)
            if close is not None and depth == 0:
                break
            depth += side[i] in _OPENERS
            depth -= side[i] in _CLOSERS
            if depth < 0:
                raise _NotRewritten("an unclosed inner product")
            if side[i] == "," and depth == 0 and comma is None:
                comma = i
        else:
            raise _NotRewritten("an unclosed inner product")
        if comma is None:
            raise _NotRewritten("an inner product with no comma")
        side = (f"{side[:match.start()]} @Qqinner@({side[match.end():comma]}, {side[comma + 1:close.start()]})"
                f"{side[close.end():]}")
        start = match.start()


def _script(text: str, i: int) -> tuple[str, int]:
    """A subscript at `i` (`_x`, `_\\theta`, `_{…}`), after optional spaces and `\\limits`: (its text, end)."""
    j = i
    while True:
        k = len(text[j:]) - len(text[j:].lstrip())
        j += k
        if text.startswith("\\limits", j):
            j += len("\\limits")
            continue
        break
    if not text.startswith("_", j):
        return "", i
    j += 1
    j += len(text[j:]) - len(text[j:].lstrip())
    if text.startswith("{", j):
        close = _closing(text, j)
        return text[j + 1:close], close + 1
    command = re.match(r"\\[A-Za-z]+|.", text[j:])
    if command is None:
        return "", j
    return command.group(0), j + command.end()


def _skip_size(text: str, i: int) -> int:
    """Past spaces and a size or delimiter command (`\\left`, `\\big`, `\\Big`) before a bracket."""
    match = re.match(r"\s*(?:\\left\b|\\[bB]igg?l?\b)?\s*", text[i:])
    return i + (match.end() if match else 0)


def _strip_right(text: str, end: int) -> int:
    """The end of a bracket's content without its `\\right` / `\\big` size command."""
    match = re.search(r"(?:\\right|\\[bB]igg?r?)\s*$", text[:end])
    return match.start() if match else end


def _closing(text: str, i: int) -> int:
    """The index of the bracket that closes the one at `i` (every kind of bracket counted, `\\{` as `{`)."""
    depth = 0
    for j in range(i, len(text)):
        char = text[j]
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth -= 1
            if depth == 0:
                return j
    raise _NotRewritten("an unclosed bracket")


def _bar_close(text: str, i: int, closer: re.Pattern) -> re.Match:
    """The bar (`closer`) that closes the one ending at `i`: the next bar outside any bracket opened after it."""
    depth = 0
    j = i
    while j < len(text):
        close = closer.match(text, j)
        if close is not None and depth == 0:
            return close
        depth += text[j] in _OPENERS
        depth -= text[j] in _CLOSERS
        if depth < 0:
            break
        j += 1
    raise _NotRewritten("an unclosed norm")


def _doubles(sympy: Any, abstract: tuple) -> dict[str, Any]:
    """SymPy's name of each function the paper leaves abstract → a function returning the output papermath's
    numbers gave it for the same arguments (the generated test's double): the second reader computes the
    arithmetic around the function; where it calls the function on other arguments, it has no value."""
    out = {}
    for latex, _, calls in abstract:
        name = _function_name(sympy, latex)
        if name:
            out[name] = _double(calls)
        if "^" in latex:  # the same function applied to several arguments (`_scripted_heads`)
            out[f"F_{{Qqfn{head_function_name(latex)}}}"] = _double(calls)
    return out


def _function_name(sympy: Any, head: str) -> str:
    """SymPy's name of the function whose head is `head` (`f`, `\\epsilon_\\theta`, `\\operatorname{MLP}`), read
    as the formula's calls are (`_function_heads`); "" where SymPy reads no function."""
    from ..budget import BudgetExceeded
    try:
        call = _parse(_function_heads(head + "(z)"))
    except BudgetExceeded:
        raise  # the formula's time is up: not a head SymPy cannot read
    except Exception:  # SymPy cannot read the head: no name
        return ""
    if isinstance(call, sympy.core.function.AppliedUndef):
        return call.func.__name__
    return ""


def _double(calls: tuple) -> Any:
    def double(*args: Any) -> Any:
        for known, output in calls:
            if len(known) == len(args) and all(_same_value(a, k) for a, k in zip(args, known)):
                output = np.asarray(output, dtype=float)
                return float(output) if output.ndim == 0 else output
        for known, output in calls:
            output = _one_sample_of(args, known, np.asarray(output, dtype=float))
            if output is not None:
                return float(output) if output.ndim == 0 else output
        raise LookupError("called on arguments papermath's numbers did not use")
    return double


def _one_sample_of(args: tuple, known: tuple, output: np.ndarray) -> np.ndarray | None:
    """The output of one sample of a batched call: where the numbers called the function once on inputs with a
    sample axis (`r(x_0, c)` on 3 draws → 3 outputs) and the second reader, computing 𝔼 draw by draw, calls it on
    the s-th draw of each argument, the s-th output (a function applied per sample); None where the arguments are
    no one draw of that call."""
    if len(known) != len(args) or output.ndim == 0:
        return None
    known = [np.asarray(k, dtype=float) for k in known]
    if any(k.ndim == 0 or k.shape[0] != output.shape[0] for k in known):
        return None
    for s in range(output.shape[0]):
        if all(_same_value(a, k[s]) for a, k in zip(args, known)):
            return output[s]
    return None


def _same_value(computed: Any, known: Any) -> bool:
    """An argument SymPy's reading computed equals one the numbers called the function on: same shape (a scalar
    or an array: `F(\\mathbf{v}(\\mathbf{x}), \\Delta x)`), every element within rounding."""
    try:
        computed, known = np.asarray(computed, dtype=float), np.asarray(known, dtype=float)
    except (TypeError, ValueError):  # a SymPy number that is not real, a ragged argument: not the same value
        return False
    return computed.shape == known.shape and bool(np.allclose(computed, known, rtol=1e-9, atol=1e-12))


class _NoOpinion(ValueError):
    """A value the second reader's algebra does not define (a matrix product, a sum over part of an array)."""


@dataclass(frozen=True)
class _Scope:
    """What the symbols of SymPy's expression stand for while `_array_value` computes it."""

    values: dict
    """Each input's symbol → its value (an array or a scalar)."""
    elements: dict
    """A subscripted symbol whose base is an input (`w_{i}`, input `w`) → (the input's symbol, the index's name)."""
    functions: dict
    """A function's SymPy name → a NumPy function (named by the text, `--fn`, or the numbers' double)."""
    expectations: dict
    """An expectation's function name (`reader_forms`) → the input symbols drawn under its 𝔼."""
    indices: tuple = ()
    """The indices the enclosing sums bind: (name, value, position in the array, count)."""
    free: dict = dataclasses.field(default_factory=dict)
    """An index no sum binds whose value is an input (`t`, set or read from a shape) → that whole number."""
    origins: dict = dataclasses.field(default_factory=dict)
    """An input array → the index of its first element, where a sum of the same formula runs over all of it
    (`\\sum_{i=1}^{t} \\gamma_i` with t its length: 1), so that a free index picks an element: `\\gamma_t` is
    element t − 1."""
    members: frozenset = frozenset()
    """Subscripted symbols the evaluation records it read as the whole input at a free index (`Evaluation.members`:
    `x_{t}` with x declared [d], the member at a free step): the input itself where the index is still free here."""

    def index(self, name: str) -> tuple | None:
        return next((entry for entry in reversed(self.indices) if entry[0] == name), None)


_MOST_TERMS = 4096
"""Past this many terms a sum, or samples an expectation, is not computed (the test's inputs are a few)."""


def _array_value(sympy: Any, expression: Any, scope: _Scope) -> Any:
    """SymPy's expression computed with array inputs by walking its tree (nothing compiled or executed; no
    `lambdify`, which builds Python source from the expression and runs it). SymPy's algebra is scalar and its
    products commute, so a product is elementwise: where factors are two matrices, or arrays of different shapes
    (papers do not inherit NumPy's broadcasting), it has no opinion. A sum binds its index: `w_{i}` is element
    i − lower of input `w` when the sum runs over all of it; 𝔼 over drawn inputs is the mean over their leading
    (sample) axis of the operand at each draw; ‖·‖₂ is over every element of a vector."""
    if expression in scope.values:
        return scope.values[expression]
    if isinstance(expression, sympy.Symbol):
        return _symbol_value(expression, scope)
    if expression.is_number:
        return np.float64(float(sympy.N(expression, 17)))
    args = expression.args
    if isinstance(expression, sympy.Add):
        return _sum_with_identity([_array_value(sympy, a, scope) for a in args])
    if isinstance(expression, sympy.Mul):
        return _product_with_identity([_array_value(sympy, a, scope) for a in args], expression.is_commutative)
    if isinstance(expression, sympy.Pow) and isinstance(args[1], sympy.Integer):
        base = _array_value(sympy, args[0], scope)
        if isinstance(base, _Identity):  # (λI)^{-1} = λ^{-1} I, (λI)^2 = λ² I
            return dataclasses.replace(base, scale=base.scale ** int(args[1]))
    if isinstance(expression, sympy.Pow) and _is_transpose(args[1]):
        return _transpose(_array_value(sympy, args[0], scope))
    if isinstance(expression, sympy.Pow) and not expression.is_commutative and args[1] == -1:
        base = np.asarray(_array_value(sympy, args[0], scope), dtype=float)
        if base.ndim == 2 and base.shape[0] == base.shape[1]:
            return np.linalg.inv(base)  # (A + λI)^{-1}: the inverse of a square matrix
        if base.ndim:
            raise _NoOpinion("the inverse of a vector or of a matrix that is not square")
        return 1 / base
    if isinstance(expression, sympy.Pow):
        base, exponent = (_array_value(sympy, a, scope) for a in args)
        if np.ndim(exponent) and np.shape(exponent) != np.shape(base):
            raise _NoOpinion("a power by an array")
        return np.power(np.asarray(base, dtype=float), exponent)
    if isinstance(expression, (sympy.Sum, sympy.Product)):
        return _reduction_value(sympy, expression, scope)
    if isinstance(expression, sympy.core.function.AppliedUndef):
        return _applied_value(sympy, expression, scope)
    for kind, function in _ELEMENTWISE.items():
        if isinstance(expression, getattr(sympy, kind)):
            return function(*(_array_value(sympy, a, scope) for a in args))
    raise _NoOpinion(f"{type(expression).__name__} is not computed")


_ELEMENTWISE = {"exp": np.exp, "log": lambda x, base=None: np.log(x) if base is None else np.log(x) / np.log(base),
                "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh,
                "Abs": np.abs, "Max": lambda *a: functools.reduce(np.maximum, a),
                "Min": lambda *a: functools.reduce(np.minimum, a)}
"""SymPy's functions the array walk computes, elementwise."""


@dataclass(frozen=True)
class _Identity:
    """The identity matrix `I` (no input of that name), times a number: its size is what it meets — added to an
    n × n matrix it is the n × n identity, multiplying a vector or a matrix it leaves it (times the number), as a
    Gaussian's covariance it is one variance for every entry. `size`: the `d` of `I_d`, where d has a value."""

    scale: float = 1.0
    size: int | None = None

    def sized(self, n: int) -> np.ndarray:
        if self.size is not None and self.size != n:
            raise _NoOpinion("an identity whose size is not that of what it meets")
        return self.scale * np.eye(n)


_IDENTITY_NAME = re.compile(r"I(?:_\{(?P<size>[A-Za-z]\w*)\})?")
"""SymPy's name of `I`, `\\mathbf{I}`, `I_d` after cleaning (fonts dropped)."""


def _identity_symbols(expression: Any) -> set:
    """The symbols of `expression` (after the inputs are substituted) that name the identity."""
    return {symbol for symbol in expression.free_symbols if _IDENTITY_NAME.fullmatch(symbol.name)}


def _sum_with_identity(terms: list) -> Any:
    """A sum; an identity among the terms takes the size of the square matrix the other terms sum to."""
    identities = [t for t in terms if isinstance(t, _Identity)]
    if not identities:
        return _same_shapes(np.add, terms)
    rest = [t for t in terms if not isinstance(t, _Identity)]
    if not rest:
        return _Identity(sum(i.scale for i in identities), identities[0].size)
    other = np.asarray(_same_shapes(np.add, rest), dtype=float)
    if other.ndim != 2 or other.shape[0] != other.shape[1]:
        raise _NoOpinion("the identity added to what is not a square matrix")
    return other + sum(i.sized(other.shape[0]) for i in identities)


def _product_with_identity(factors: list, commutative: bool) -> Any:
    """A product (`_product` where the order counts, else elementwise); an identity among the factors scales
    them: I x = x, λ I stays an identity until it meets a size."""
    identities = [f for f in factors if isinstance(f, _Identity)]
    rest = [f for f in factors if not isinstance(f, _Identity)]
    if not rest:
        return _Identity(float(np.prod([i.scale for i in identities])), identities[0].size)
    if not commutative:
        value = _product(rest)
    elif sum(np.ndim(f) >= 2 for f in rest) >= 2:
        raise _NoOpinion("a product of matrices (SymPy's products commute)")
    else:
        value = _same_shapes(np.multiply, rest)
    if not identities:
        return value
    scale = float(np.prod([i.scale for i in identities]))
    if np.ndim(value) == 0:
        return _Identity(scale * float(value), identities[0].size)
    if any(i.size is not None and i.size != np.shape(value)[0] for i in identities):
        raise _NoOpinion("an identity whose size is not that of what it multiplies")
    return scale * np.asarray(value, dtype=float)


def _gaussian_density(point: Any, mean: Any, covariance: Any) -> Any:
    """The normal density N(x; μ, Σ) at x, from its formula: (2π)^{-n/2} det(Σ)^{-1/2} exp(-½ (x-μ)ᵀ Σ⁻¹ (x-μ)),
    with Σ a number or λI (one variance for every entry), a vector of x's shape (one variance per entry) or an
    n × n matrix for an n-vector x (a full covariance)."""
    x = np.asarray(point, dtype=float)
    mu = np.asarray(mean, dtype=float)
    if mu.ndim and mu.shape != x.shape:
        raise _NoOpinion("a Gaussian whose mean has another shape than its point")
    diff = x - mu
    if isinstance(covariance, _Identity):
        if covariance.size is not None and diff.ndim and covariance.size != diff.shape[0]:
            raise _NoOpinion("an identity covariance of another size than the point")
        covariance = covariance.scale
    cov = np.asarray(covariance, dtype=float)
    if cov.ndim == 2 and diff.ndim == 1 and cov.shape == (diff.size, diff.size):
        determinant = np.linalg.det(cov)
        if not determinant > 0:
            raise _NoOpinion("a covariance that is not positive definite")
        quadratic = diff @ np.linalg.inv(cov) @ diff
        return np.exp(-0.5 * quadratic) / np.sqrt((2 * np.pi) ** diff.size * determinant)
    if cov.ndim and cov.shape != diff.shape:
        raise _NoOpinion("a Gaussian whose covariance fits neither one variance per entry nor a full matrix")
    variance = np.broadcast_to(cov, diff.shape)
    if np.any(variance <= 0):
        raise _NoOpinion("a variance that is not positive")
    return np.prod(np.exp(-diff ** 2 / (2 * variance)) / np.sqrt(2 * np.pi * variance))


def _projected(vector: Any, radius: Any) -> Any:
    """The point of the ball {z : ‖z‖₂ ≤ r} nearest to v: v inside the ball, else v · r / ‖v‖₂."""
    v, r = np.asarray(vector, dtype=float), np.asarray(radius, dtype=float)
    if r.ndim or r < 0:
        raise _NoOpinion("a ball whose radius is not one number ≥ 0")
    length = np.sqrt(np.sum(v * v))
    return v if length <= r else v * (r / length)


def _concatenated(parts: list) -> Any:
    """`[a; b]`: the parts one after the other along their first axis (numbers as one-element vectors)."""
    arrays = [np.atleast_1d(np.asarray(part, dtype=float)) for part in parts]
    if len({a.ndim for a in arrays}) != 1 or len({a.shape[1:] for a in arrays}) != 1:
        raise _NoOpinion("a concatenation of parts whose shapes do not line up")
    return np.concatenate(arrays, axis=0)


class _Row(np.ndarray):
    """A transposed vector (`x^{\\top}`): one row, so that `x^{\\top} y` is the inner product, a number."""


def _transpose(value: Any) -> Any:
    value = np.asarray(value, dtype=float)
    if value.ndim == 1:
        return value.reshape(1, -1).view(_Row)
    if value.ndim == 2:
        return value.T
    raise _NoOpinion("a transpose of a scalar or of an array of more than two axes")


def _product(factors: list) -> Any:
    """A product as the text orders it (`_ordered`): numbers scale; a matrix (or a transposed vector) times a
    vector or a matrix is the matrix product; two vectors of one shape, elementwise (as in the commutative reading);
    anything else, no opinion. A row times a vector is a number, a row times a matrix a row."""
    scale, arrays = np.float64(1.0), []
    for factor in factors:
        if np.ndim(factor) == 0:
            scale = scale * np.asarray(factor, dtype=float)
        else:
            arrays.append(factor)
    if not arrays:
        return scale
    out = arrays[0]
    for right in arrays[1:]:
        row = isinstance(out, _Row)
        left, right = np.asarray(out, dtype=float), np.asarray(right, dtype=float)
        if left.ndim == 2 and right.ndim in (1, 2) and left.shape[1] == right.shape[0]:
            product = left @ right
            out = (product[0] if right.ndim == 1 else product.view(_Row)) if row else product
        elif left.ndim == 1 and right.ndim == 1 and left.shape == right.shape and not isinstance(right, _Row):
            out = left * right
        else:
            raise _NoOpinion("a product whose shapes do not line up as a matrix product")
    return scale * np.asarray(out, dtype=float) if isinstance(out, _Row) else scale * out


def _symbol_value(symbol: Any, scope: _Scope) -> Any:
    bound = scope.index(symbol.name)
    if bound is not None:
        return np.float64(bound[1])
    if symbol not in scope.elements:
        identity = _IDENTITY_NAME.fullmatch(symbol.name)
        if identity is None:
            raise _NoOpinion("a symbol no input matches")
        size = identity.group("size")
        return _Identity(size=None if size is None else _index_value(size, scope))
    base, index = scope.elements[symbol]
    array = scope.values[base]
    if "," in index:
        return _element_of_several(array, index.split(","), scope)
    bound = scope.index(index)
    if bound is not None and np.ndim(array) and np.shape(array)[0] == bound[3]:
        return array[bound[2]]  # the sum runs over all of the array: its k-th term is the k-th element
    if bound is not None and base not in scope.origins:
        raise _NoOpinion("a sum over part of an array, or over a scalar")
    if symbol in scope.members and _is_unvalued(index, scope):
        return array  # `x_t` the member at a step nothing gives: the input x itself, as the evaluation records
    return _free_element(array, base, index, scope)


def _element_of_several(array: Any, indices: list[str], scope: _Scope) -> Any:
    """The element several indices pick (`g'_{j,t}` in `\\sum_j g'_{j,t}`, `a_{h,q,k}` in sums over h and k). An
    index no sum binds and no input gives (t, q) names no position: the equation holds at each of its values, and
    at one of them an array with no axis for it is that value's array, so such an index is passed over while the
    array has fewer axes than the indices. Each other index is a sum's, running over all of its axis (its k-th
    term the k-th element), or unvalued and left: it names every position of its axis (`g'_{i,t}` with i free is the
    vector over i); anything else (an index with a value, a sum over part of an axis) has no opinion."""
    indices = [index.strip() for index in indices]
    unvalued = [k for k, index in enumerate(indices) if _is_unvalued(index, scope)]
    while len(indices) > np.ndim(array) and unvalued:
        del indices[unvalued.pop(0)]
        unvalued = [k - 1 if k > 0 else k for k in unvalued]
    if len(indices) != np.ndim(array):
        raise _NoOpinion("more indices than the array has axes")
    positions: list = []
    for axis, index in enumerate(indices):
        bound = scope.index(index)
        if bound is None and _is_unvalued(index, scope):
            positions.append(slice(None))
            continue
        if bound is None or np.shape(array)[axis] != bound[3]:
            raise _NoOpinion("an element of several indices not each a sum's over its whole axis")
        positions.append(bound[2])
    return array[tuple(positions)]


def _is_unvalued(index: str, scope: _Scope) -> bool:
    """A single name no enclosing sum binds and no input gives a value (a free index: `t` in `g'_{j,t}`)."""
    terms = _index_terms(index)
    return (terms is not None and len(terms) == 1 and isinstance(terms[0][1], str) and terms[0][0] == 1
            and scope.index(terms[0][1]) is None and terms[0][1] not in scope.free)


def _free_element(array: Any, base: Any, index: str, scope: _Scope) -> Any:
    """The element an index picks (`\\gamma_t`, `x_{0}`, `g_{t-1}` in a sum over t): the index's value (the enclosing
    sums' indices, inputs, numerals, added and subtracted) less the array's origin (`_Scope.origins`); no opinion
    where no sum of the formula says where the array starts."""
    value = _index_value(index, scope)
    if value is None:
        raise _NoOpinion("an element picked by an index no sum binds")
    if base not in scope.origins:
        raise _NoOpinion("an element picked by a free index, where no sum says where the array starts")
    position = value - scope.origins[base]
    if np.ndim(array) == 0 or not 0 <= position < np.shape(array)[0]:
        raise _NoOpinion("an element picked by a free index outside the array")
    return array[position]


_INDEX_TERM = re.compile(r"\s*(?P<sign>[+-])?\s*(?:Numeral(?P<numeral>[a-k]+)|(?P<digits>\d+)|(?P<name>[A-Za-z]\w*))"
                         r"\s*")


def _index_terms(index: str) -> tuple[tuple[int, str | int], ...] | None:
    """An index written as a sum of names and whole numbers (`t`, `t-1`, `-Numeralb + i`, `i+k`): its terms, each
    (sign, name or number); None for anything else (`t+1/2`, `\\pi(t)`, a word spelled in letters)."""
    terms: list[tuple[int, str | int]] = []
    i = 0
    while i < len(index):
        match = _INDEX_TERM.match(index, i)
        if match is None or match.end() == i or (terms and not match.group("sign")):
            return None
        sign = -1 if match.group("sign") == "-" else 1
        if match.group("name"):
            if match.group("name").startswith(("Qq", "Numeral")):
                return None
            terms.append((sign, match.group("name")))
        else:
            digits = match.group("digits") or match.group("numeral").translate(_LETTER_DIGITS)
            if not digits.isdigit():
                return None
            terms.append((sign, int(digits)))
        i = match.end()
    return tuple(terms) or None


def _index_value(index: str, scope: _Scope) -> int | None:
    """The whole number an index stands for (`_index_terms`): each name the value an enclosing sum gives it, else
    an input's (`_Scope.free`); None where a name has neither."""
    terms = _index_terms(index)
    if terms is None:
        return None
    total = 0
    for sign, term in terms:
        if isinstance(term, int):
            total += sign * term
            continue
        bound = scope.index(term)
        value = bound[1] if bound is not None else scope.free.get(term)
        if value is None:
            return None
        total += sign * value
    return total


def _statement_origins(sympy: Any, expression: Any, scope: _Scope, picked: dict[str, set] | None,
                       collect: bool) -> dict:
    """The origins (`_origins_of`) from the indices `expression` picks and those the statement's other sides pick
    (`picked`, by the dummy's name; with `collect`, this side's are added to it)."""
    own = _picked_indices(sympy, expression, scope)
    if picked is not None and collect:
        for base, indices in own.items():
            picked.setdefault(base.name, set()).update(indices)
    merged = {base: own.get(base, set()) | (picked or {}).get(base.name, set()) for base in scope.values}
    return _origins_of(merged, scope)


def _origins_of(picked: dict, scope: _Scope) -> dict:
    """Each input array's origin: the least index the sums pick of it, where the indices they pick
    (`\\sum_{t=1}^{T} \\|g_t - g_{t-1}\\|`: 0 … T) are exactly as many as its elements, none missing; an array the
    sums pick otherwise has none (nothing says where it starts)."""
    return {base: min(indices) for base, indices in picked.items() if indices and np.ndim(scope.values[base])
            and len(indices) == np.shape(scope.values[base])[0] and max(indices) - min(indices) + 1 == len(indices)}


def _picked_indices(sympy: Any, expression: Any, scope: _Scope) -> dict:
    """The indices the sums of `expression` with whole-number bounds pick of each input array (by its symbol):
    `\\sum_{t=1}^{3} g_{t-1}` picks 0, 1, 2 of g."""
    picked: dict = {}
    for reduction in expression.atoms(sympy.Sum, sympy.Product):
        for index, lower, upper in reduction.limits:
            try:
                low, high = (_array_value(sympy, bound, scope) for bound in (lower, upper))
            except _NoOpinion:
                continue
            if np.ndim(low) or np.ndim(high) or low != round(float(low)) or high != round(float(high)):
                continue
            low, high = int(round(float(low))), int(round(float(high)))
            if not 0 < high - low + 1 <= _MOST_TERMS:
                continue
            for symbol in reduction.function.free_symbols:
                base, name = scope.elements.get(symbol, (None, None))
                offset = _offset_from(name, index.name) if base is not None else None
                if offset is not None and np.ndim(scope.values[base]):
                    picked.setdefault(base, set()).update(range(low + offset, high + offset + 1))
    return picked


def _offset_from(index: str, name: str) -> int | None:
    """`t-1` → −1 from t, `t` → 0: an index that is the sum's index plus a whole number (else None)."""
    terms = _index_terms(index)
    if terms is None or [t for t in terms if not isinstance(t[1], int)] != [(1, name)]:
        return None
    return sum(sign * term for sign, term in terms if isinstance(term, int))


def _reduction_value(sympy: Any, expression: Any, scope: _Scope) -> Any:
    *inner, (index, lower, upper) = expression.limits
    if isinstance(lower, sympy.core.function.AppliedUndef) and _WHERE_MARKER.match(lower.func.__name__):
        return _conditioned_value(sympy, expression, scope)
    body = type(expression)(expression.function, *inner) if inner else expression.function
    low, high = (_array_value(sympy, bound, scope) for bound in (lower, upper))
    if np.ndim(low) or np.ndim(high) or low != round(float(low)) or high != round(float(high)):
        raise _NoOpinion("a sum whose bounds are not whole numbers")
    low, high = int(round(float(low))), int(round(float(high)))
    count = high - low + 1
    if not 0 < count <= _MOST_TERMS:
        raise _NoOpinion("a sum with no terms or too many")
    terms = [_array_value(sympy, body, dataclasses.replace(scope, indices=scope.indices + (
        (index.name, value, value - low, count),))) for value in range(low, high + 1)]
    terms = _stacked(terms)
    return terms.sum(axis=0) if isinstance(expression, sympy.Sum) else terms.prod(axis=0)


_WHERE_MARKER = re.compile(r"F_\{Qq(max|min)?where(\w+)\}")
"""The lower limit `_conditioned_reductions` writes for a sum's conditions: (the extremum or none, the codes)."""


def _conditioned_value(sympy: Any, expression: Any, scope: _Scope) -> Any:
    """A sum or product over the values its subscript's conditions keep (`_conditioned_reductions`), each term
    computed with the index bound to (value, position, count) as an ordinary sum's is. The candidates: the members
    of the set an `\\in` names (in order); else the whole numbers between the bounds the conditions and the upper
    limit give (`j = 1`, `k \\ge 1`, `^{n}`, `k < t`: t − 1), where both ends are given; else the positions of the
    input arrays the index picks an element of (one length for all), counted from where the subscript or the
    statement's sums say the array starts (`_Scope.origins`), else from `_FIRST_INDEX`; an index that picks no
    element and has no stated range has no opinion. Then every condition is tested on each candidate (`\\neq`,
    `<`, `\\notin` …). A max or min (`\\max_{j \\in S}`) takes the extremum of the kept terms."""
    *inner, (index, lower, upper) = expression.limits
    body = type(expression)(expression.function, *inner) if inner else expression.function
    extremum, codes = _WHERE_MARKER.fullmatch(lower.func.__name__).groups()  # type: ignore[union-attr]
    codes = [] if codes == "all" else [codes[k:k + 2] for k in range(0, len(codes), 2)]
    sides = [_array_value(sympy, arg, scope) for arg in lower.args] if codes else []
    whole = isinstance(upper, sympy.Symbol) and upper.name == "F_{Qqwhole}"
    last = None if whole else _array_value(sympy, upper, scope)
    candidates = _candidates(sympy, index, body, codes, sides, last, scope)
    tests = list(zip(codes, sides)) + ([] if last is None else [("le", last)])  # `\\sum_{i}^{n}`: i ≤ n as well
    kept = [(value, position, count) for value, position, count in candidates
            if all(_holds(code, value, side) for code, side in tests if code != "eq")]
    if not kept:
        raise _NoOpinion("a sum or product whose conditions keep no term")
    if len(kept) > _MOST_TERMS:
        raise _NoOpinion("a sum with too many terms")
    terms = _stacked([_array_value(sympy, body, dataclasses.replace(scope, indices=scope.indices + (
        (index.name, value, position, count),))) for value, position, count in kept])
    if extremum:
        return terms.max(axis=0) if extremum == "max" else terms.min(axis=0)
    return terms.sum(axis=0) if isinstance(expression, sympy.Sum) else terms.prod(axis=0)


def _candidates(sympy: Any, index: Any, body: Any, codes: list[str], sides: list, upper: Any,
                scope: _Scope) -> list[tuple[Any, int, int]]:
    """The values a conditioned index may take, each (value, position in the arrays it picks, their count)."""
    if "in" in codes:
        members = np.asarray(sides[codes.index("in")], dtype=float)
        if members.ndim != 1:
            raise _NoOpinion("a sum over a set that is not one list of numbers")
        # a member is a value, not a position: no array is indexed by position with it (count −1)
        return [(float(m), p, -1) for p, m in enumerate(members)]
    low, high = _whole_bounds(codes, sides, upper)
    if low is not None and high is not None:
        if not 0 < high - low + 1 <= _MOST_TERMS:
            raise _NoOpinion("a sum with no terms or too many")
        return [(value, value - low, high - low + 1) for value in range(low, high + 1)]
    lengths, starts = set(), set()
    for symbol in body.free_symbols:
        base, name = scope.elements.get(symbol, (None, None))
        if base is not None and name.strip() == index.name and np.ndim(scope.values[base]):
            lengths.add(np.shape(scope.values[base])[0])
            starts.add(scope.origins.get(base, _FIRST_INDEX if low is None else low))
    if len(lengths) != 1 or len(starts) != 1:
        raise _NoOpinion("a sum whose range nothing states (it picks no element, or arrays of several lengths or "
                         "starts)")
    (length,), (start,) = lengths, starts
    return [(start + p, p, length) for p in range(length)]


_FIRST_INDEX = 1
"""Where a sequence starts when neither the subscript nor a sum of the statement says: `a_1, …, a_n`, the
convention of a family a paper writes without a start (`\\sum_{j \\neq i} a_j` over a of length n: j = 1 … n)."""


def _whole_bounds(codes: list[str], sides: list, upper: Any) -> tuple[int | None, int | None]:
    """The least and greatest whole number the conditions (`=`, `≥`, `>`, `≤`, `<`) and the upper limit allow."""
    low = high = None
    bounds = [(code, side) for code, side in zip(codes, sides) if code in ("eq", "ge", "gt", "le", "lt")]
    if upper is not None:
        bounds.append(("le", upper))
    for code, side in bounds:
        if np.ndim(side) or not np.isfinite(float(side)) and code in ("eq", "ge", "gt"):
            raise _NoOpinion("a sum whose bounds are not whole numbers")
        value = float(side)
        if not np.isfinite(value):
            continue  # `^{\\infty}` with `k < t`: the other bound decides
        if value != round(value):
            raise _NoOpinion("a sum whose bounds are not whole numbers")
        value = int(round(value)) + {"gt": 1, "lt": -1}.get(code, 0)
        if code in ("eq", "ge", "gt"):
            low = value if low is None else max(low, value)
        else:
            high = value if high is None else min(high, value)
    return low, high


_TESTS = {"ne": lambda v, s: v != s, "lt": lambda v, s: v < s, "le": lambda v, s: v <= s, "gt": lambda v, s: v > s,
          "ge": lambda v, s: v >= s, "in": lambda v, s: v in s, "ni": lambda v, s: v not in s}
"""A condition's test on a candidate value and the condition's other side (a number, or a set's members)."""


def _holds(code: str, value: Any, side: Any) -> bool:
    side = np.asarray(side, dtype=float)
    if code in ("in", "ni"):
        return _TESTS[code](float(value), set(side.reshape(-1).tolist()))
    if side.ndim:
        raise _NoOpinion("a condition against an array")
    return bool(_TESTS[code](float(value), float(side)))


def _applied_value(sympy: Any, call: Any, scope: _Scope) -> Any:
    name = call.func.__name__
    if name in scope.expectations:
        return _expectation_value(sympy, call, scope)
    args = [_array_value(sympy, a, scope) for a in call.args]
    if name.startswith("F_{Qqnorm"):
        (operand,) = args
        kind = name[len("F_{Qqnorm"):-1]
        if np.ndim(operand) >= 2 and kind != "fro":
            raise _NoOpinion("an operator norm of a matrix")
        operand = np.asarray(operand, dtype=float)
        return np.sum(np.abs(operand)) if kind == "one" else np.sqrt(np.sum(operand * operand))
    if name == "F_{Qqgauss}":
        return _gaussian_density(*args)
    if name == "F_{Qqconcat}":
        return _concatenated(args)
    if name == "F_{Qqset}":
        if any(np.ndim(a) for a in args):
            raise _NoOpinion("a set of arrays")
        return np.unique(np.array([float(a) for a in args]))
    if name == "F_{Qqproj}":
        return _projected(*args)
    if name.startswith("F_{Qqtruth"):
        value, other = args
        if np.ndim(value):
            raise _NoOpinion("an indicator of a condition on an array")
        return np.float64(_holds(name[len("F_{Qqtruth"):-1], value, other))
    if any(isinstance(a, _Identity) for a in args):
        raise _NoOpinion("the identity as a function's argument")
    if name == "F_{Qqabs}":
        (operand,) = args
        return np.abs(np.asarray(operand, dtype=float))
    if name == "F_{Qqinner}":
        left, right = (np.asarray(a, dtype=float) for a in args)
        if left.shape != right.shape:
            raise _NoOpinion("an inner product of arrays of different shapes")
        return np.sum(left * right)
    if name not in scope.functions and name.startswith("F_{Qqfn"):
        word = _unspelled(name[len("F_{Qqfn"):-1]).lower()
        if word in _WORD_FUNCTIONS and len(args) == 1:
            return _WORD_FUNCTIONS[word](np.asarray(args[0], dtype=float))
    member = _family_member(name, scope.functions)
    if name not in scope.functions and member is not None:
        value = _index_value(member[1], scope)
        if value is None:
            raise _NoOpinion("a member of a family of functions at an index nothing binds or gives")
        return scope.functions[member[0]](np.float64(value), *args)
    if name not in scope.functions:
        raise _NoOpinion("an unknown function")
    return scope.functions[name](*args)


def _family_member(name: str, functions: dict) -> tuple[str, str] | None:
    """`q_{k}` where `q` is a function the test knows (a double): a member of the family q, its index k (the
    family's callable takes the member's index first, then the arguments); None for any other name."""
    match = re.fullmatch(r"(?P<base>.+?)_\{(?P<index>[^{}]+)\}", name)
    if match is None or match.group("base") not in functions or _index_terms(match.group("index")) is None:
        return None
    return match.group("base"), match.group("index")


def _softmax(x: np.ndarray) -> np.ndarray:
    if x.ndim > 1:
        raise _NoOpinion("a softmax of a matrix (over which axis is the notation's)")
    shifted = np.exp(x - np.max(x))
    return shifted / np.sum(shifted)


_WORD_FUNCTIONS = {"sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0), "tanh": np.tanh,
                   "softplus": lambda x: np.logaddexp(0, x), "exp": np.exp, "log": np.log, "sin": np.sin,
                   "cos": np.cos, "softmax": _softmax, "silu": lambda x: x / (1 + np.exp(-x)), "abs": np.abs,
                   "sqrt": np.sqrt, "mean": lambda x: np.mean(_vector(x)), "std": lambda x: np.std(_vector(x))}
"""Functions a word names the same in every paper (`\\operatorname{Sigmoid}`, `\\mathrm{softmax}` of a
vector), by the word in lower case: computed here, not by papermath's evaluator."""


def _vector(x: np.ndarray) -> np.ndarray:
    """The members of a family for `\\operatorname{mean}`/`\\operatorname{std}` of a set (a vector): the mean and
    the standard deviation of a finite set, its members equally weighted (the population's, as the words define
    them); of a matrix the axis is not the notation's, no opinion."""
    if x.ndim != 1:
        raise _NoOpinion("a mean or std of what is not one family of numbers")
    return x


def _unspelled(letters: str) -> str:
    """The text `_spelled` spelled (letters that are not a spelling give "")."""
    if len(letters) % 2 or any(c not in _SIXTEEN_LETTERS for c in letters):
        return ""
    pairs = (letters[k:k + 2] for k in range(0, len(letters), 2))
    return bytes(_SIXTEEN_LETTERS.index(a) * 16 + _SIXTEEN_LETTERS.index(b) for a, b in pairs).decode(errors="replace")


def _expectation_value(sympy: Any, call: Any, scope: _Scope) -> Any:
    (body,) = call.args
    drawn = scope.expectations[call.func.__name__]
    if all(np.ndim(scope.values[d]) == 0 for d in drawn):
        # No drawn input has a sample axis: one draw (a scalar input), or none the operand uses: 𝔼 of one value
        return _array_value(sympy, body, scope)
    lengths = {np.shape(scope.values[d])[0] if np.ndim(scope.values[d]) else None for d in drawn}
    if len(lengths) != 1 or None in lengths or not 0 < next(iter(lengths)) <= _MOST_TERMS:
        raise _NoOpinion("an expectation whose draws have no common sample axis")
    samples = []
    for s in range(next(iter(lengths))):
        values = dict(scope.values)
        values.update({d: scope.values[d][s] for d in drawn})
        samples.append(_array_value(sympy, body, dataclasses.replace(scope, values=values)))
    return _stacked(samples).mean(axis=0)


def _stacked(parts: list) -> Any:
    if len({np.shape(p) for p in parts}) != 1:
        raise _NoOpinion("terms of different shapes")
    return np.stack([np.asarray(p, dtype=float) for p in parts])


def _same_shapes(operation: Any, operands: list) -> Any:
    shapes = {np.shape(o) for o in operands if np.ndim(o)}
    if len(shapes) > 1:
        raise _NoOpinion("arrays of different shapes (papers do not inherit NumPy broadcasting)")
    return functools.reduce(operation, [np.asarray(o, dtype=float) for o in operands])


def _free_indices(sympy: Any, replacements: dict, values: dict) -> dict:
    """Inputs named by one letter or word whose value is one whole number (`t = 3`): what a free index is worth."""
    out = {}
    for key, dummy in replacements.items():
        value = values[dummy]
        if isinstance(key, sympy.Symbol) and np.ndim(value) == 0 and float(value) == round(float(value)):
            out[key.name] = int(round(float(value)))
    return out


def _elements(sympy: Any, expression: Any, replacements: dict, values: dict) -> dict:
    """Subscripted symbols whose base is an input (`w_{i}` with input `w`): symbol → (input symbol, index name)."""
    bases = {str(key): dummy for key, dummy in replacements.items() if isinstance(key, sympy.Symbol)}
    out = {}
    for symbol in expression.free_symbols - set(values):
        match = re.fullmatch(r"(.+?)_\{([^{}]+)\}('*)", symbol.name)  # `a_{k}'` is an element of `a'`
        if match is None:
            continue
        base, index = match.group(1) + match.group(3), match.group(2)
        spelled = re.fullmatch(r"Qqs([a-q]+)", index)
        if spelled and not match.group(3):  # `\\tilde{g}_{i}`, `W^{out}_{h}`: the scripts spelled in the name
            base, index = _decorated_base(match.group(1), _unspelled(spelled.group(1)))
        grouped = re.fullmatch(r"Qqg([a-q]+)", index)
        if grouped and base == "G" and not match.group(3):  # `{\\mu_{x}}_{k}`: element k of the input μ_x
            base, index = _grouped_base(_unspelled(grouped.group(1)))
        if base in bases and all(_index_terms(part) is not None for part in index.split(",")):
            out[symbol] = (bases[base], index)  # one index (`t-1`) or several (`j,t`: `_element_of_several`)
    return out


def _members(ev: Any, elements: dict, replacements: dict) -> frozenset:
    """The symbols of `elements` the evaluation read as the whole input they are an element of, at a free index
    (`Evaluation.members`): SymPy's reading of the written form names the element, and SymPy's reading of the
    recorded key the same input's dummy. Only which input a name refers to is shared, not a value."""
    dummies = {str(key): dummy for key, dummy in replacements.items()}
    recorded = set()
    for written, key in getattr(ev, "members", ()):
        try:
            recorded.add((str(_parse(written)), dummies.get(str(_parse(key)))))
        except Exception:  # a form SymPy cannot read names no symbol of the expression
            continue
    return frozenset(symbol for symbol, (dummy, _) in elements.items() if (symbol.name, dummy) in recorded)


def _grouped_base(spelled: str) -> tuple[str, str]:
    """A braced group with a subscript (`_group_as_name`: `group|sub|sup|primes`, `{\\mu_{x}}_{k}`) → SymPy's name
    of the group (`mu_{x}`, matched against the inputs' names) and the subscript; ("", "") for anything else (a
    superscript or a prime on the group, a group SymPy cannot read)."""
    parts = spelled.split("|")
    if len(parts) != 4 or not parts[1] or parts[2] or parts[3]:
        return "", ""
    try:
        group = _parse(parts[0])
    except Exception:  # not a name SymPy reads: no element
        return "", ""
    return (str(group), parts[1]) if getattr(group, "is_Symbol", False) else ("", "")


def _decorated_base(letter: str, scripts: str) -> tuple[str, str]:
    """A decorated symbol's element (`_spelled_scripts`: `sub|sup|primes`, the accent among the primes) → the name
    of the symbol without the subscript (`\\tilde{g}`, `W^{out}`) and the subscript; ("", "") if none."""
    parts = scripts.split("|")
    if len(parts) != 3 or not parts[0]:
        return "", ""
    sub, sup, primes = parts
    return (letter + primes if not sup and "@" not in primes else f"{letter}_{{Qqs{_spelled(f'|{sup}|{primes}')}}}",
            sub)


def _draws(sympy: Any, draws: dict[str, str], replacements: dict, opaque: dict[str, str] | None = None
           ) -> dict[str, tuple]:
    """Each expectation's function name → the input symbols its subscript draws (`x \\sim p, t` → x, t; a
    distribution applied to its variable, `p(x)`, `q(x_t \\mid x)`, draws x, x_t). A drawn variable no input is
    (SymPy's reading of its name matches none) is dropped: if the operand used it, SymPy's expression holds a
    symbol no input matches and there is no reading; but where an input given as one value is written with it
    (`opaque`, key → placeholder: `q_\\theta(u \\mid x_t)` under `\\mathbb{E}_{t, x_0, x_t}`), that input varies
    with the draw, and it is drawn: its leading axis is the sample axis. A ValueError where no sample axis can be
    named: nothing under 𝔼, or a draw SymPy cannot read."""
    opaque = opaque or {}
    out = {}
    for name, subscript in draws.items():
        drawn = []
        parts = _top_level_split(subscript)
        if not parts:
            raise ValueError("an expectation with no subscript")
        for latex in (latex for part in parts for latex in _drawn_names(part)):
            try:
                key = _parse(latex) if latex.strip() else None
            except Exception as error:  # SymPy cannot read the draw's name: no sample axis named
                raise ValueError(f"{latex!r} does not parse") from error
            if key in replacements:
                drawn.append(replacements[key])
                continue
            for key_text, placeholder in opaque.items():
                if latex.strip() and _spelled_in(key_text, latex) and sympy.Symbol(placeholder) in replacements:
                    drawn.append(replacements[sympy.Symbol(placeholder)])
        out[f"F_{{{name}}}"] = tuple(dict.fromkeys(drawn))
    return out


def _one_draw(ev: Any) -> bool:
    """The test's inputs hold one draw of what the 𝔼s sample: papermath's numbers took no mean over a sample axis
    (no step of theirs is an expectation's, and no input is batched). How many draws the inputs hold is how the
    test lays out its data, not a reading of the formula: an input array drawn under 𝔼 (the vector `x_t`) is
    then one draw, not a sample axis, and 𝔼 of one draw is its value."""
    return ev.samples is None and not any(step.op == "E" for step in ev.steps)


def _drawn_names(part: str) -> list[str]:
    """The variables one part of 𝔼's subscript draws: `x \\sim p` → x; `(x, y) \\sim D` → x, y; a distribution
    applied to its variable, `p(x)` or `q(x_t \\mid x)` → x, x_t (what stands before `\\mid`)."""
    if re.search(r"\\sim(?![A-Za-z])", part):
        variable = re.split(r"\\sim(?![A-Za-z])", part)[0].strip()
    else:
        applied = re.fullmatch(r"\s*(?:\\[A-Za-z]+\s*\{?[A-Za-z]?\}?|[A-Za-z])"
                               r"(?:\s*_\s*(?:\{[^{}]*\}|\\?[A-Za-z]+|\S))?\s*\((.*)\)\s*", part, flags=re.S)
        variable = re.split(r"\\mid(?![A-Za-z])|\|", applied.group(1))[0].strip() if applied else part.strip()
    if variable.startswith("(") and variable.endswith(")"):
        return _top_level_split(variable[1:-1])
    return [variable]


def _top_level_split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += char in _OPENERS
        depth -= char in _CLOSERS
        if char in ",;" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def _scalar_value(sympy: Any, expression: Any, values: dict, functions: dict) -> Any:
    """The value with scalar inputs: substituted, sums done, then each function applied inside out."""
    done = expression.xreplace({s: sympy.Float(float(v)) for s, v in values.items()}).doit()

    def apply(call: Any) -> Any:
        args = [float(sympy.N(a, 17)) for a in call.args]
        return sympy.Float(float(np.asarray(functions[call.func.__name__](*args), dtype=float)))

    done = done.replace(lambda e: isinstance(e, sympy.core.function.AppliedUndef), apply)
    return float(sympy.N(done.doit(), 17))
