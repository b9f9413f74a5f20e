"""A syntax tree (`papermath parse`) as indented terminal text, and the decisions its parse recorded."""
from __future__ import annotations

from typing import Any

from ..math import ast as A


def format_tree(node, indent: str = "") -> list[str]:
    """The tree as indented lines: `Type field=value [start:end]`, children below."""
    scalars = []
    kids: list[tuple[str, Any]] = []
    for name in A._child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, A.Node) or (isinstance(value, tuple) and value
                                         and any(isinstance(v, (A.Node, tuple)) for v in value)):
            kids.append((name, value))
        elif value not in (None, (), False, 0, "") or (name == "value"):
            scalars.append(f"{name}={value!r}" if not isinstance(value, tuple) else f"{name}={list(value)!r}")
    head = f"{indent}{type(node).__name__.rstrip('_')}"
    if scalars:
        head += " " + " ".join(scalars)
    head += f"  [{node.span[0]}:{node.span[1]}]"
    lines = [head]
    for name, value in kids:
        if isinstance(value, A.Node):
            sub = format_tree(value, indent + "    ")
            lines.append(f"{indent}  {name}:")
            lines.extend(sub)
        else:
            lines.append(f"{indent}  {name}:")
            for item in value:
                if isinstance(item, A.Node):
                    lines.extend(format_tree(item, indent + "    "))
                elif isinstance(item, tuple):
                    lines.append(f"{indent}    -")
                    for sub in item:
                        if isinstance(sub, A.Node):
                            lines.extend(format_tree(sub, indent + "      "))
                        else:
                            lines.append(f"{indent}      None")
    return lines


def format_decisions(result) -> list[str]:
    """What syntax could not decide, what was decided and on what evidence, one block per place."""
    lines = []
    for d in result.decisions:
        head = f"{d.question} at {d.span[0]}:{d.span[1]} `{d.subject}`: "
        if d.status == "ambiguous":
            head += "AMBIGUOUS (nothing decides; both readings stay possible)"
        else:
            head += f"{d.reading} ({d.strength} evidence)"
        lines.append(head)
        for e in d.evidence:
            where = f" [{e.where}]" if e.where else ""
            lines.append(f"    {e.reading:12} {e.strength:10} {e.kind}: {e.text}{where}")
    return lines
