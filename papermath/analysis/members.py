"""A member at a fixed position that the paper defines on its own is a symbol of its own.

A formula that writes `x_t` and `x_0` keeps one row for the letter x with its first indices: the prose's `x_t`
sentence then speaks for `x_0` as well. Where the paper defines the member by itself ("where $x_0 \\sim p_0$ are
i.i.d. samples from real data distribution"), `x_0` is the data and `x_t` the noised sample: two quantities, two
rows, each quoting its own sentence. A member the paper never defines alone (`W_1` beside `W_i`) stays an entry of
its family's row.
"""
from __future__ import annotations

import re
from dataclasses import replace

from .candidates import key_family
from .symbols import SymbolUse

_FIXED_INDEX = re.compile(r"_\{?\s*(\d)\s*\}?$")
"""A form written with one numeric index at its end (`x_0`, `\\mathbf{x}_{1}`)."""
_STRONG = 2
"""The pattern strength of a sentence that defines the member (an appositive, a draw, a copula)."""


def _member_key(use: SymbolUse, form: str) -> tuple[str, str] | None:
    """(the key of `form` as a sentence writing it alone is keyed (`\\mathbf{x}_{0}`), its position `0`), when it is
    `use`'s letter at a fixed position; None otherwise."""
    found = _FIXED_INDEX.search(form)
    if found is None or len(use.all_indices) < 2:
        return None
    return f"{use.key}_{{{found.group(1)}}}", found.group(1)


def _defined_alone(index, key: str) -> bool:
    """Some sentence defines the member as its own subject."""
    mentions = index.mentions
    for candidate in dict.fromkeys((key, f"{key_family(key[:key.rindex('_')])}{key[key.rindex('_'):]}")):
        for i in index.by_key.get(candidate, ()):
            m = mentions[i]
            if m.strength >= _STRONG and candidate in m.keys:
                return True
    return False


def split_defined_members(index, uses: tuple[SymbolUse, ...]) -> tuple[SymbolUse, ...]:
    """`uses` with each member at a fixed position that the paper defines alone (`_defined_alone`) as a use of its
    own, after its family's; the family keeps its other forms. The member is never the first form written (that
    one names the family's row) and never the left side."""
    out: list[SymbolUse] = []
    for use in uses:
        out.append(use)
        if use.kind != "symbol" or len(use.written) < 2:
            continue
        if _FIXED_INDEX.search(use.written[0]) is not None:
            # the first form written names the family's row; when it is a member the paper defines alone (the data
            # x_0 of `E_{x_0, x_t}`), the running forms after it (the noised x_t) are the family's own row
            out[-1:] = _family_after_its_member(index, use)
            continue
        members = []
        for form in use.written[1:]:
            member = _member_key(use, form)
            if member is not None and _defined_alone(index, member[0]):
                members.append((form, member[1]))
        if not members:
            continue
        taken = {form for form, _ in members}
        out[-1] = replace(use, written=[f for f in use.written if f not in taken])
        for form, position in members:
            out.append(replace(use, indices=[position], written=[form], first_written=form, lhs=False,
                               clause_lhs=False, all_indices={position}))
    return tuple(out)


_RUNNING_FORM = re.compile(r"_\{?\s*([A-Za-z])\s*\}?$")
"""A form written with one running index at its end (`x_t`, `\\mathbf{x}_{t}`)."""


def _family_after_its_member(index, use: SymbolUse) -> list[SymbolUse]:
    """A use whose first form is a member defined alone (`x_0`), as two: the member, then the family at the first
    running index written after it (`x_t`, with the other running forms); unchanged when the member is not defined
    alone or no running form follows."""
    member = _member_key(use, use.written[0])
    running = [f for f in use.written[1:] if _RUNNING_FORM.search(f)]
    if member is None or not running or not _defined_alone(index, member[0]):
        return [use]
    letter = _RUNNING_FORM.search(running[0]).group(1)  # type: ignore[union-attr]
    rest = [f for f in use.written[1:] if f not in running and _FIXED_INDEX.search(f) is None]
    return [replace(use, written=[use.written[0]], all_indices={member[1]}),
            replace(use, indices=[letter], written=running + rest, first_written=running[0], lhs=False,
                    clause_lhs=False, all_indices=use.all_indices - {member[1]})]
