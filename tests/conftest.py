"""Shared test fixtures: where the example paper and the ../shared corpus live."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "attention-note"
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus" / "papers"


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"../shared is absent ({CORPUS} not found): the real-paper corpus exists in CI and dev sessions only")
    return CORPUS


def corpus_paper(name: str) -> Path:
    path = CORPUS / name
    if not path.is_dir():
        pytest.skip(f"../shared is absent ({path} not found): the real-paper corpus exists in CI and dev sessions only")
    return path


_READINGS: dict[tuple[str, str], object] = {}


def corpus_equation(paper: str, key: str):
    """The reading of one equation of a corpus paper (`read_document` with that key), read once per test session."""
    if (paper, key) not in _READINGS:
        from papermath.analysis.read import read_document
        from papermath.latex import load_document
        _READINGS[(paper, key)] = read_document(load_document(str(corpus_paper(paper))), [key]).equations[0]
    return _READINGS[(paper, key)]


def symbol_row(eq, latex: str):
    """The row of a reading's equation for `latex` (compared in canonical form), or an AssertionError naming the
    rows there are."""
    from papermath.check.symbols import canonical
    want = canonical(latex)
    for s in eq.symbols:
        if canonical(s.latex) == want or s.latex == latex:
            return s
    raise AssertionError(f"no row {latex} in {[s.latex for s in eq.symbols]}")


def corpus_evaluation(paper: str, label: str):
    """The evaluation `numbers --eq` makes of one equation of a corpus paper: the shapes its context declares, the
    paper's operators as functions, no value set."""
    import argparse

    from papermath.analysis.shapes import shapes_in_context
    from papermath.commands.numbers import evaluation_inputs
    from papermath.evaluate import evaluate
    from papermath.latex import load_document

    doc = load_document(corpus_paper(paper))
    functions = frozenset(getattr(doc, "operators", {}))
    equation = next(e for e in doc.equations if e.id == label)
    declared, _, _ = shapes_in_context(doc, equation)
    target = argparse.Namespace(declared=declared, latex=equation.latex, functions=functions, label=equation.id)
    _, shapes = evaluation_inputs(argparse.Namespace(set=[]), target)
    return evaluate(equation.latex, {}, declared_shapes=shapes, functions=functions)


def generated_functions(ev, module: str):
    """The NumPy and torch functions papermath generates for an evaluation, executed (our generated code, not a
    paper's)."""
    from papermath.codegen import Citation, generate

    code = generate(ev, Citation("test", None, None), module=module)
    out = []
    for text, suffix in ((code.numpy, ""), (code.torch, "_torch")):
        namespace: dict = {"__name__": "generated"}
        exec(compile(text, f"{module}{suffix}.py", "exec"), namespace)
        out.append(namespace[code.function])
    return out
