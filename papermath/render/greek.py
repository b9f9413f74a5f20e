"""The Greek-letter reference as terminal text (`papermath greek`)."""
from __future__ import annotations

from ..notation import GreekLetter


def render_letter(letter: GreekLetter) -> str:
    """One letter: its heading (character, name, LaTeX), every common meaning, its warning and note."""
    heading = f"{letter.unicode}  {letter.name}  {letter.latex}"
    if letter.variant_of:
        heading += f"  (variant form of {letter.variant_of})"
    lines = [heading]
    lines += [f"  - {meaning}" for meaning in letter.meanings]
    if letter.warning:
        lines.append(f"  warning: {letter.warning}")
    if letter.note:
        lines.append(f"  note: {letter.note}")
    return "\n".join(lines)


def render_table(letters: tuple[GreekLetter, ...]) -> str:
    """Every letter on one line with its first meaning; `!` marks letters with several common meanings."""
    rows = [(letter.unicode, letter.name, letter.latex,
             ("!" if letter.warning else " ") + " " + letter.meanings[0]) for letter in letters]
    name_width = max(len(r[1]) for r in rows)
    latex_width = max(len(r[2]) for r in rows)
    lines = [f"{u}  {name:<{name_width}}  {latex:<{latex_width}} {meaning}" for u, name, latex, meaning in rows]
    lines += ["", "! = several common meanings; `papermath greek NAME` shows them all"]
    return "\n".join(lines)
