"""An explanation (`papermath explain`) as terminal text: steps inside out, symbols, warnings."""
from __future__ import annotations

import textwrap
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..analysis.explain import Explanation


def _display_width(text: str) -> int:
    """Columns `text` takes in a terminal: combining marks (the bar of ᾱ) take none."""
    return sum(not unicodedata.combining(char) for char in text)


def render_explanation(explanation: Explanation, width: int = 100) -> str:
    """The explanation as terminal text: steps inside out, then symbols, then warnings."""
    width = max(width, 40)

    def wrapped(text: str, first: str, rest: str) -> list[str]:
        return textwrap.wrap(text, width=width, initial_indent=first, subsequent_indent=rest,
                             break_long_words=False, break_on_hyphens=False) or [first.rstrip()]

    lines = wrapped(explanation.latex, "formula  ", " " * 9)
    lines += wrapped(explanation.summary, "aloud    ", " " * 9)
    lines += ["", "inside out ([n] is the result of step n):"]
    mark_width = len(str(len(explanation.steps))) + 2
    for number, step in enumerate(explanation.steps, start=1):
        mark = f"[{number}]".rjust(mark_width)
        indent = " " * (mark_width + 3)
        lines += wrapped(step.text, f"  {mark} ", indent)
        lines += wrapped(f"{step.reading}: `{step.code}`", indent, indent + "  ")
        for reading in step.also:
            lines += wrapped(f"also: {reading}", indent, indent + "  ")
    if explanation.symbols:
        lines += ["", "symbols (usual meanings in ML papers; the paper's own definition wins):"]
        name_width = min(max(_display_width(note.text) for note in explanation.symbols), 12)
        for note in explanation.symbols:
            pad = " " * max(name_width - _display_width(note.text), 0)
            lines += wrapped(note.meaning, f"  {note.text}{pad}  ", " " * (name_width + 4))
    if explanation.warnings:
        lines += ["", "warnings:"]
        for warning in explanation.warnings:
            lines += wrapped(f"{warning.where}: {warning.message} [{warning.notation}]", "  ! ", "    ")
    if explanation.parse_warnings:
        lines += ["", "parser:"] + [f"  {w}" for w in explanation.parse_warnings]
    return "\n".join(lines)
