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
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not f.name.startswith("_")}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


def dumps(value: Any) -> str:
    return json.dumps(to_jsonable(value), ensure_ascii=False, indent=2)
