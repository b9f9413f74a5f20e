"""A formula's text split at separators that stand outside every bracket (`a_{i,j}, b` → `a_{i,j}`, `b`)."""
from __future__ import annotations

_DEPTH = {"{": 1, "(": 1, "[": 1, "}": -1, ")": -1, "]": -1}


def split_top_level(text: str, separators: str = ",") -> list[str]:
    """The pieces of `text` between separators at bracket depth 0, each stripped (empty pieces kept: callers decide
    whether `a,,b` or a trailing comma means anything)."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += _DEPTH.get(ch, 0)
        if ch in separators and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    parts.append(current.strip())
    return parts
