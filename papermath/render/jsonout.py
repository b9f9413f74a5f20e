"""JSON from the stages' frozen dataclasses. Spans become {file, line, column}; private fields are left out."""
from __future__ import annotations

import dataclasses
import json
from typing import Any

from ..errors import Diagnostic
from ..spans import Position, Span


def to_jsonable(value: Any) -> Any:
    """Plain JSON-ready data for dataclasses, tuples, dicts and scalars."""
    if isinstance(value, Span):
        return {"file": value.file, "line": value.line, "column": value.column}
    if isinstance(value, Position):
        return {"file": value.file, "line": value.line, "column": value.column}
    if isinstance(value, Diagnostic):
        out = {"severity": value.severity, "message": value.message}
        if value.position is not None:
            out.update(file=value.position.file, line=value.position.line, column=value.position.column)
        return out
    names = _PUBLIC_FIELDS.get(type(value), _UNSEEN)
    if names is _UNSEEN:
        names = _PUBLIC_FIELDS[type(value)] = _public_fields(type(value))
    if names is not None:
        return {name: to_jsonable(getattr(value, name)) for name in names}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


_UNSEEN: Any = object()
_PUBLIC_FIELDS: dict[type, tuple[str, ...] | None] = {}
"""A class → its dataclass fields that are not private, in order (None: not a dataclass); looked up once per
class, not with `dataclasses.fields` once per value (a read's JSON converts tens of thousands)."""


def _public_fields(cls: type) -> tuple[str, ...] | None:
    if not dataclasses.is_dataclass(cls):
        return None
    return tuple(f.name for f in dataclasses.fields(cls) if not f.name.startswith("_"))


def dumps(value: Any) -> str:
    return json.dumps(to_jsonable(value), ensure_ascii=False, indent=2)
