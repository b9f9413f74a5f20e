"""Terminal tables (rich): numbered steps, cells that wrap instead of being cut, colour only on a terminal.

The width is `--width` when given, else the terminal's (COLUMNS is honoured), else 100 when the output is not a
terminal. Colour follows rich: on a TTY only, always with FORCE_COLOR; NO_COLOR turns off every escape code. Long
LaTeX is folded onto the next line of its cell, never cut: two different steps never print the same label.
"""
from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from typing import IO, Any

DEFAULT_WIDTH = 100


def terminal_width(width: int | None = None) -> int:
    """`width` if given, else COLUMNS or the terminal's width, else 100."""
    if width:
        return max(int(width), 40)
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), 40)
    if sys.stdout.isatty():
        return max(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, 40)
    return DEFAULT_WIDTH


def console(width: int | None = None, file: IO[str] | None = None, color: bool | None = None):
    """A rich Console writing to `file` (stdout) at `width`; colour as rich decides (TTY, NO_COLOR, FORCE_COLOR)
    unless `color` says."""
    from rich.console import Console

    out = file if file is not None else sys.stdout
    kwargs: dict[str, Any] = {"width": terminal_width(width), "highlight": False, "soft_wrap": False,
                              "emoji": False, "markup": False}
    if color is False or (color is None and os.environ.get("NO_COLOR")):
        # NO_COLOR: no escape codes at all (rich alone would still print bold and dim)
        kwargs.update(color_system=None, no_color=True)
    elif color is True:
        kwargs.update(force_terminal=True, color_system="standard")
    return Console(file=out, **kwargs)


def steps_table(title: str | None, header: Sequence[str], rows: Iterable[Sequence[str]],
                styles: Sequence[str | None] = (), numbered: bool = True, width: int | None = None,
                main_share: float = 0.5):
    """A table of steps: a `#` column (1, 2, …) when `numbered`, then one column per `header` entry. Every
    cell wraps (long LaTeX folds onto the next line of its cell); the first column (the formula) keeps at least
    `main_share` of the width when its cells need it, so a sub-expression reads as one piece."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  header_style="bold", expand=False, title_style="bold")
    if numbered:
        table.add_column("#", justify="right", style="dim", no_wrap=True)
    texts = [tuple(str(c) for c in row) for row in rows]
    caps = _caps(header, texts, terminal_width(width), main_share)
    for k, name in enumerate(header):
        table.add_column(name, overflow="fold", style=styles[k] if k < len(styles) else None,
                         max_width=caps.get(k))
    for n, row in enumerate(texts, 1):
        cells = [Text(c) for c in row]
        table.add_row(*([Text(str(n))] if numbered else []), *cells)
    return table


def _caps(header: Sequence[str], rows: list[tuple[str, ...]], width: int, main_share: float) -> dict[int, int]:
    """Widest each column after the first may be: they share what the first column leaves (it keeps its natural
    width up to `main_share` of the line), narrow ones taking only what they need (water-filling), so the
    formula column gives way last."""
    natural = {k: max([len(header[k])] + [len(r[k]) for r in rows if k < len(r)]) for k in range(len(header))}
    first = min(natural.pop(0), int(width * main_share))
    budget = width - first - 2 * len(natural) - 5  # the # column and the padding between columns
    caps: dict[int, int] = {}
    for n, k in enumerate(sorted(natural, key=natural.__getitem__)):
        share = max(budget // (len(natural) - n), 8)
        caps[k] = min(natural[k], share)
        budget -= caps[k]
    return caps


def print_table(table, width: int | None = None, file: IO[str] | None = None) -> None:
    """Print one table on a console of `width`, without the padding rich leaves at the end of each line."""
    out = file if file is not None else sys.stdout
    shown = console(width, out)
    with shown.capture() as captured:
        shown.print(table)
    out.write("\n".join(line.rstrip() for line in captured.get().splitlines()) + "\n")


def render(table, width: int = DEFAULT_WIDTH) -> str:
    """The table as plain text at a fixed width (no colour): what tests compare."""
    import io

    buffer = io.StringIO()
    shown = console(width, buffer, color=False)
    with shown.capture() as captured:
        shown.print(table)
    return "\n".join(line.rstrip() for line in captured.get().splitlines()) + "\n"
