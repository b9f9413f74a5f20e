"""The reading of an equation: the contract `papermath read` produces and later stages consume.

Frozen dataclasses; JSON comes from them (docs/json-schema.md). Ids: `eq:15`, `eq:15/sym:s_{i,t}`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import Diagnostic
from ..latex.document import PaperInfo

ROLES = ("input data", "trained weight", "frozen model", "fixed setting", "random sample", "index",
         "function", "defined here", "computed", "unknown")
"""Roles a symbol can have: "defined here" is the quantity on the left-hand side of this equation, "computed"
one that another equation's left-hand side defines, "unknown" when no words in the paper decide it."""

KINDS = ("computation", "definition", "objective", "update rule", "constraint", "bound", "estimator",
         "empirical fit")
"""Guide 002's kinds of statement."""


@dataclass(frozen=True)
class Definition:
    """A sentence of the paper that defines a symbol, quoted verbatim."""

    quote: str
    """The defining clause or sentence (LaTeX, macros expanded, whitespace collapsed)."""
    section: str | None
    """Printed number of the section it stands in (or its title when unnumbered)."""
    file: str
    """File it stands in."""
    line: int
    """Line it starts on."""
    pattern: str
    """What made it a definition: where, let, denote, is, in-set, appositive, parenthesis, called, footnote."""
    paragraph: str | None = None
    """Id of the paragraph (`p:17`)."""
    strength: str = "defines"
    """"defines" when the sentence names the symbol (a definition pattern with the symbol as its subject, or
    the symbol inside a formula the sentence defines), "mentions" when it only uses it."""


@dataclass(frozen=True)
class SymbolReading:
    """One distinct symbol of an equation, with what the paper says about it."""

    id: str
    """Stable id: `eq:15/sym:s_{i,t}`."""
    latex: str
    """The symbol as first written in the equation, normalized (`s_{i,t}`, `\\mathbf{u}_{t}`, `W^{UK}`)."""
    symbol: str
    """The symbol without its indices (`s`, `\\mathbf{u}`, `W^{UK}`): `x_i` and `x_j` share it."""
    indices: tuple[str, ...]
    """Indices it carries in this equation (`("i", "t")`)."""
    kind: str
    """symbol, function, operator or index."""
    role: str
    """One of ROLES."""
    role_cue: str | None
    """The words (or notation) that decided the role."""
    shape: tuple[str, ...] | None
    """Shape from the text as dimensions (`("d_c", "d")`; `()` a scalar), None when the text gives none."""
    shape_cue: str | None
    """The text that gave the shape (`W^{DKV} \\in \\mathbb{R}^{d_c \\times d}`, "scalar", …)."""
    conventional: str | None
    """For standard notation the paper uses without defining: its conventional meaning (not a definition)."""
    definition: Definition | None
    """The first defining text in the paper, or None (then the symbol is listed as undefined)."""
    redefinitions: tuple[Definition, ...] = ()
    """The next candidates, best first: other defining sentences, then mentions."""
    defined_by: str | None = None
    """Id of the display whose left side defines the symbol (this equation for its left side): its lead-in and
    its "where" paragraph are the symbol's own context."""
    also_written: tuple[str, ...] = ()
    """The other forms this equation writes the symbol in (`x^{k}_{j}` beside `x^{k}_{i}`, `\\mathbf{x}_{0}` beside
    `\\mathbf{x}_{t}`): one symbol with other indices, read in this one row."""
    bound_by: str | None = None
    """For an index a reduction of the equation runs over (`\\sum_{h=1}^{H}`: h): that reduction's operator (sum,
    prod, int); None for a free index and for every other row."""


@dataclass(frozen=True)
class ReductionReading:
    """A sum, product, mean, softmax, max/min/argmax, expectation or integral, and what it runs over."""

    op: str
    """sum, prod, max, min, argmax, argmin, E, int, softmax, lim, …"""
    over: tuple[str, ...]
    """Bound variables (`("j",)`, `("x", "y_w", "y_l")`)."""
    lower: str | None
    """Lower limit (`1`)."""
    upper: str | None
    """Upper limit (`N_r`)."""
    condition: str | None
    """Condition or domain (`v' \\in \\mathcal{V}_{min}`)."""
    distribution: str | None
    """For expectations: the distribution sampled (`\\mathcal{D}`)."""
    latex: str
    """The reduction as written (normalized), for display."""


@dataclass(frozen=True)
class EquationReading:
    """The reading of one display equation."""

    id: str
    """`eq:15`."""
    number: str | None
    """Printed number."""
    section: str | None
    """Printed section number."""
    latex: str
    """The formula (macros expanded)."""
    kind: str
    """One of KINDS."""
    kind_cue: str
    """What decided the kind (`:=`, `\\leftarrow`, "loss", `\\min_\\theta`, …)."""
    symbols: tuple[SymbolReading, ...]
    """Distinct symbols, functions and free indices (bound indices are in `reductions`)."""
    reductions: tuple[ReductionReading, ...]
    """Every reduction and what it runs over."""
    undefined: tuple[str, ...]
    """Symbols the paper never writes in its prose and no equation defines: not defined in the paper; do not
    guess."""
    uses: tuple[str, ...]
    """Ids of later equations that use what this one defines."""
    defines: tuple[str, ...]
    """Symbols this equation defines (its left-hand side)."""
    context_before: str | None
    """The paragraph before the display."""
    context_after: str | None
    """The paragraph after it (often the "where …" clause)."""
    file: str
    """File of the display."""
    line: int
    """Line of the display."""
    warnings: tuple[str, ...] = ()
    """What the parser or linker could not settle."""
    mentioned: tuple[str, ...] = ()
    """Symbols the paper writes in its prose but never defines: mentioned, not defined (the mention is the
    symbol's quote, with strength "mentions")."""


@dataclass(frozen=True)
class PaperReading:
    """Readings of a paper's display equations."""

    paper: PaperInfo
    """Which paper and version."""
    equations: tuple[EquationReading, ...]
    """One reading per display equation (or the ones asked for)."""
    diagnostics: tuple[Diagnostic, ...]
    """Problems found on the way (a formula that does not parse is one, not a crash)."""
