"""The notation dictionary and the Greek-letter reference, loaded from `papermath/data/`.

The dictionary (`data/notation.json`) is data shared by `read`'s "conventional" meanings, `explain` and the
CLI: each entry gives a LaTeX example form, a reading in words, a code analog, a warning when the notation
has several meanings, the guide it comes from, and the LaTeX commands / operator names it covers.
Conventional meanings are never a paper's definition: a reading must quote the paper.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .errors import PapermathError, UsageError


@dataclass(frozen=True)
class NotationEntry:
    """One notation: how to read it, a code analog, and what it can be confused with."""

    id: str
    """Stable identifier, e.g. "expectation"; used as `notation:<id>` by later stages."""
    pattern: str
    """A LaTeX example form, e.g. `\\mathbb{E}_{x\\sim p}[f(x)]`."""
    reading: str
    """The notation in words."""
    code: str
    """A NumPy/PyTorch analog."""
    warning: str | None
    """Set when the notation has several meanings or a common misreading."""
    source: str
    """Where the guides give it: "guide 000 dictionary" or "guide 002 notation reference: <subsection>", …"""
    macros: tuple[str, ...]
    """LaTeX command names, operator names or Unicode characters this entry covers."""


@dataclass(frozen=True)
class GreekLetter:
    """One Greek letter (or variant form) with its common meanings in ML papers."""

    name: str
    """English name, e.g. "epsilon", "Sigma", "varphi"."""
    latex: str
    """The LaTeX command, e.g. `\\epsilon`."""
    unicode: str
    """The Unicode character, e.g. "ε"."""
    case: str
    """"lower" or "upper"."""
    variant_of: str | None
    """For variant forms (\\varepsilon, \\varphi, …), the base letter's name."""
    also_unicode: tuple[str, ...]
    """Other Unicode characters for the same letter (e.g. the lunate ϵ)."""
    meanings: tuple[str, ...]
    """Common meanings in ML papers, most common first."""
    warning: str | None
    """Set when the letter's common meanings are easily confused."""
    note: str | None
    """Typesetting remarks (which glyph LaTeX prints)."""


def _data_text(name: str) -> str:
    try:
        return resources.files("papermath").joinpath("data", name).read_text(encoding="utf-8")
    except OSError as error:
        raise PapermathError(f"papermath/data/{name}: cannot read the bundled data file: {error}") from error


def _load_json(name: str) -> dict:
    try:
        return json.loads(_data_text(name))
    except json.JSONDecodeError as error:
        raise PapermathError(f"papermath/data/{name}:{error.lineno}:{error.colno}: {error.msg}") from error


@lru_cache(maxsize=1)
def load_notation() -> tuple[NotationEntry, ...]:
    """Every dictionary entry, in file order (the order decides which entry a shared macro names first)."""
    entries = []
    for raw in _load_json("notation.json")["entries"]:
        try:
            entries.append(NotationEntry(raw["id"], raw["pattern"], raw["reading"], raw["code"],
                                         raw.get("warning"), raw["source"], tuple(raw["macros"])))
        except KeyError as error:
            raise PapermathError(f"papermath/data/notation.json: entry {raw.get('id', '?')!r} lacks "
                                 f"field {error.args[0]!r}") from error
    return tuple(entries)


# `\operatorname{softmax}`, `\mathrm{KL}`, `\text{softmax}` and `\operatorname*{…}` all name the operator inside.
_WRAPPED = re.compile(r"^\\(?:operatorname\*?|mathrm|text|textrm|mathit)\s*\{(.+)\}$")
# `\mathbb E` → `\mathbb{E}`: one-token arguments of font commands get braces.
_FONT_ARG = re.compile(r"\\(mathbb|mathcal|mathbf|mathrm|boldsymbol|bm)\s+([A-Za-z0-9])")


def _lookup_keys(name: str) -> list[str]:
    """The forms a name is tried under, most specific first."""
    name = _FONT_ARG.sub(r"\\\1{\2}", name.strip())
    keys = [name]
    wrapped = _WRAPPED.match(name)
    if wrapped:
        keys.append(wrapped.group(1).strip())
    if re.fullmatch(r"\\[A-Za-z]+", name):  # \log → log
        keys.append(name[1:])
    elif re.fullmatch(r"[A-Za-z]+", name):  # log → \log
        keys.append("\\" + name)
    return keys


@lru_cache(maxsize=1)
def _macro_index() -> dict[str, NotationEntry]:
    index: dict[str, NotationEntry] = {}
    for entry in load_notation():
        for macro in entry.macros:
            index.setdefault(macro, entry)
    return index


def conventional_meaning(name: str) -> NotationEntry | None:
    """The dictionary entry for a LaTeX command or operator name: "\\log", "log", "\\nabla", "softmax", "σ", …"""
    index = _macro_index()
    for key in _lookup_keys(name):
        if key in index:
            return index[key]
    return None


def _squash(latex: str) -> str:
    return re.sub(r"\s+", "", latex)


def entries_matching(pattern: str) -> tuple[NotationEntry, ...]:
    """Entries whose example form is `pattern`, ignoring whitespace."""
    wanted = _squash(pattern)
    return tuple(entry for entry in load_notation() if _squash(entry.pattern) == wanted)


def notation_entry(entry_id: str) -> NotationEntry:
    """The entry with this id; a `UsageError` names the unknown id."""
    for entry in load_notation():
        if entry.id == entry_id:
            return entry
    raise UsageError(f"no notation entry with id {entry_id!r}")


@lru_cache(maxsize=1)
def load_greek() -> tuple[GreekLetter, ...]:
    """The Greek-letter reference: 24 lowercase letters, the LaTeX capitals, and variant forms."""
    letters = []
    for raw in _load_json("greek.json")["letters"]:
        letters.append(GreekLetter(raw["name"], raw["latex"], raw["unicode"], raw["case"], raw.get("variant_of"),
                                   tuple(raw.get("also_unicode", ())), tuple(raw["meanings"]),
                                   raw.get("warning"), raw.get("note")))
    return tuple(letters)


@lru_cache(maxsize=1)
def _greek_index() -> dict[str, GreekLetter]:
    index: dict[str, GreekLetter] = {}
    letters = load_greek()
    # Base letters claim their keys before variant forms that print the same glyph (ε for \varepsilon).
    for letter in sorted(letters, key=lambda item: item.variant_of is not None):
        for key in (letter.name, letter.latex, letter.unicode, *letter.also_unicode):
            index.setdefault(key, letter)
    return index


def greek_letter(key: str) -> GreekLetter:
    """Look a letter up by name ("epsilon"), LaTeX ("\\epsilon") or Unicode ("ε")."""
    key = key.strip()
    index = _greek_index()
    for candidate in (key, "\\" + key, key.lower()):
        if candidate in index:
            return index[candidate]
    raise UsageError(f"{key!r} is not a Greek letter papermath knows; try a name (epsilon), "
                     f"a LaTeX command (\\epsilon) or the character (ε)")
