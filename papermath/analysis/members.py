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

from ..latex.groups import split_top_level
from .candidates import key_family
from .symbols import SymbolUse, braceless

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
            # the first form written names the family's row; where the paper defines that member alone (`x_0`,
            # "the clean image"), the forms at running positions (`x_t`) are another quantity: a row of their own
            out[-1:] = _split_running_members(index, use)
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


def about_another_member(index, use: SymbolUse, keys: tuple[str, ...], shown: frozenset[str]) -> bool:
    """A sentence whose formulas write other members of `use`'s letter at fixed positions, each defined alone and
    written in the same display (`shown`: its forms, braces and spaces dropped), and else only other letters, as
    `x_0` in "a data point $x_0$" for the use `x_t` of `q(x_t | x_0)`: it speaks of those members, which are rows
    of their own there, not of this one. (A member the display does not write, "$z_1 = x_1$ is the initial
    point", still speaks of the sequence.)"""
    if not use.indices or all(i.strip().isdigit() for i in use.indices) or not keys:
        return False
    own = braceless(f"{use.key}_{{{','.join(use.indices)}}}")
    members = 0
    for key in keys:
        plain = braceless(key)
        found = _FIXED_INDEX.search(key)
        if plain == own or braceless(use.key) == plain:
            return False  # the sentence writes this member, or the bare letter
        if found is None or key[:found.start()].strip() != use.key.strip():
            continue  # another letter's member ("data pairs $x^w_0, x^l_0$" for `x^w_t`)
        if plain not in shown or not _defined_alone(index, key):
            return False
        members += 1
    return members > 0


def _split_running_members(index, use: SymbolUse) -> list[SymbolUse]:
    """`use` (first written at a fixed position, `x_0`) and, when the paper defines that member alone, its forms at
    running positions (`x_t`, `x_{t-1}`) as one use of their own; `[use]` otherwise. A left side keeps its forms
    (`split_other_members` reads the right side's)."""
    first = _member_key(use, use.written[0])
    running = [form for form in use.written[1:] if _FIXED_INDEX.search(form) is None and _indices_of(use, form)]
    if use.lhs or use.clause_lhs or first is None or not running or not _defined_alone(index, first[0]):
        return [use]
    kept = [form for form in use.written if form not in running]
    return [replace(use, written=kept, all_indices=set(use.indices)),
            replace(use, indices=_indices_of(use, running[0]) or [], written=running, first_written=running[0],
                    all_indices={i for form in running for i in (_indices_of(use, form) or [])})]


def _indices_of(use: SymbolUse, form: str) -> list[str] | None:
    """The indices `form` writes the use's letter with (`x_{t}` → [t], `\\mathbf{z}_{i - 1, r_{j}}` → [i - 1,
    r_{j}]), split at the commas outside braces; None when `form` is not the letter with indices."""
    head = f"{use.key}_{{"
    if not form.startswith(head) or not form.endswith("}"):
        return None
    parts = split_top_level(form[len(head):-1])
    return parts if all(parts) else None


def split_other_members(uses: tuple[SymbolUse, ...],
                        left_forms: frozenset[str]) -> tuple[tuple[SymbolUse, str | None], ...]:
    """Each use, paired with None; after a left side that the right side writes again at other indices
    (`x_{t+1} = (1 - c_{t+1}) x_t + …`, `t_i = (t_1^{1/ρ} + …)^ρ`), the right side's forms as one use of their own,
    paired with the left side's form. The display defines its left side from those other members of the same
    sequence: they are what the same rule computes at another step (or the ends it starts from), not what this
    display defines, so they get their own row. `left_forms`: the forms the left side writes."""
    out: list[tuple[SymbolUse, str | None]] = []
    for use in uses:
        out.append((use, None))
        if use.kind != "symbol" or not use.lhs or len(use.written) < 2:
            continue
        indices = {form: _indices_of(use, form) for form in use.written}
        left = [form for form in use.written if form in left_forms]
        others = [form for form in use.written if form not in left_forms and indices[form] is not None]
        if not left or not others:
            continue
        kept = [f for f in use.written if f not in others]
        out[-1] = (replace(use, written=kept, all_indices=set(use.indices) | {
            i for f in kept for i in (indices[f] or [])}), None)
        out.append((replace(use, indices=indices[others[0]] or [], written=others, first_written=others[0], lhs=False,
                            clause_lhs=False, all_indices={i for f in others for i in (indices[f] or [])}),
                    left[0]))
    return tuple(out)
