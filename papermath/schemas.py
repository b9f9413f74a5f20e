"""The JSON Schema of every `--json` output (`docs/schemas/NAME.json`, shipped in `papermath/data/schemas/`).

One schema file per command: the CLI's `--json`, the MCP tools' `outputSchema` and the tests all read these
files, so the documented shape and the printed one cannot drift apart. `error.json` is what any command prints
with `--json` when it fails.
"""
from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["errors", "names", "schema", "validate"]


def _folder():
    return resources.files("papermath") / "data" / "schemas"


def names() -> list[str]:
    """The names of the schema files (`read`, `skim`, …, `error`)."""
    return sorted(p.name[:-5] for p in _folder().iterdir() if p.name.endswith(".json"))


@cache
def schema(name: str) -> dict[str, Any]:
    """The schema of `papermath NAME --json` (a fresh parse once per process; do not mutate it)."""
    return json.loads((_folder() / f"{name}.json").read_text(encoding="utf-8"))


@cache
def _validator(name: str):
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    registry = Registry().with_resources(
        (schema(n)["$id"], Resource.from_contents(schema(n))) for n in names())
    return Draft202012Validator(schema(name), registry=registry)


def errors(name: str, data: Any) -> list[str]:
    """Every way `data` departs from schema `name`, as 'path: message' lines (empty when it validates)."""
    found = sorted(_validator(name).iter_errors(data), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}" for e in found]


def validate(name: str, data: Any) -> None:
    """Raise `jsonschema.ValidationError` (the first error) unless `data` validates against schema `name`."""
    _validator(name).validate(data)
