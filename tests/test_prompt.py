"""`papermath prompt`: guide 002's five-step prompt filled in from the clean source, and guide 004's three tasks."""
from __future__ import annotations

import dataclasses
import json

import pytest

from papermath.cli import main
from papermath.errors import UsageError
from papermath.latex import load_document
from papermath.prompt import FIVE_STEPS, TASKS, equation_prompt, paper_line, task_prompt

from conftest import EXAMPLE, corpus_paper

GUIDE_002_STEPS = [  # the prompt's five steps, as guide 002 prints them (line breaks joined)
    "1. Make a table with one row per symbol: shape or type, meaning, and whether it is input data, a trained "
    "weight, a frozen model, a fixed setting or a random sample. Quote the sentence that defines it.",
    "2. List every symbol the pasted text does not define. Do not guess them.",
    "3. For every sum, mean, softmax, min or expectation, name the index or the distribution it runs over.",
    "4. Work through the equation with the smallest numbers that use every term.",
    "5. Say which kind of statement it is: a computation, definition, objective, update rule, constraint, bound, "
    "estimator or empirical fit.",
]


@pytest.fixture(scope="module")
def note():
    return load_document(str(EXAMPLE))


def test_steps_are_guide_002s_words():
    assert [f"{k}. {s}" for k, s in enumerate(FIVE_STEPS, 1)] == GUIDE_002_STEPS


@pytest.mark.corpus
def test_deepseek_v3_equation_15(capsys):
    paper = corpus_paper("deepseek-v3-2412.19437")
    assert main(["prompt", str(paper), "--eq", "15"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == ("Below is equation (15) (§2.1.2) from DeepSeek-V3 Technical Report, version: not recorded "
                        "(local source), followed by")
    assert "s_{i,t} & = \\operatorname{Sigmoid} \\left( {\\mathbf{u}_{t}}^{T} \\mathbf{e}_{i} \\right)," in lines
    # the "where" paragraph that defines its symbols, and the paragraph before (u_t)
    assert any(line.startswith("where $N_{s}$ and $N_r$ denote the numbers of shared experts") and
               "$s_{i,t}$ is the token-to-expert affinity" in line and
               "$\\mathbf{e}_{i}$ is the centroid vector of the $i$-th routed expert" in line for line in lines)
    assert any("Let $\\mathbf{u}_{t}$ denote the FFN input of the $t$-th token" in line for line in lines)
    assert "[§2.1.2 › Basic Architecture of DeepSeekMoE, main.tex:348]" in lines
    for step in GUIDE_002_STEPS:
        assert step in lines
    assert "PDF" not in out and "\\citep{deepseekmoe}" in out  # taken from the LaTeX source


@pytest.mark.corpus
def test_attention_equation_1_includes_footnote():
    doc = load_document(str(corpus_paper("attention-1706.03762")))
    prompt = equation_prompt(doc, "1")
    assert "We suspect that for large values of $d_k$" in prompt.text
    assert "Footnote 4: To illustrate why the dot products get large" in prompt.text  # as printed (guide 002: "footnote 4")
    # the paragraph defining d_k, the one before the display (Q, K, V), the one after (the hedge)
    assert prompt.paragraphs == ("p:15", "p:16", "p:17") and prompt.equation == "eq:1"


def test_pinned_version_with_an_arxiv_id(note):
    pinned = dataclasses.replace(note, paper=dataclasses.replace(note.paper, arxiv_id="2412.19437", version="v2"))
    assert paper_line(pinned) == "A Small Note on Attention and Routing, arXiv:2412.19437v2"
    assert "from A Small Note on Attention and Routing, arXiv:2412.19437v2, followed by" in \
        equation_prompt(pinned, "1").text
    unversioned = dataclasses.replace(note, paper=dataclasses.replace(note.paper, arxiv_id="2412.19437"))
    assert paper_line(unversioned).endswith("arXiv:2412.19437 (version not recorded)")


def test_example_prompt_has_equation_and_defining_paragraphs(note):
    prompt = equation_prompt(note, "2")
    assert prompt.task == "read" and prompt.paper.endswith("version: not recorded (local source)")
    assert "s_{i,t} &= \\sigma\\left(\\mathbf{u}_t^{\\top} \\mathbf{e}_i\\right)," in prompt.text
    assert "Let $\\mathbf{u}_t \\in \\mathbb{R}^{d}$ denote the input of the $t$-th token." in prompt.text
    assert "where $s_{i,t}$ is the token-to-expert affinity" in prompt.text
    assert "Footnote 2: We never tune $\\beta$; it stays at $10^{-3}$." in prompt.text
    assert prompt.text.index("```latex") < prompt.text.index("1. Make a table")


def test_answer_format_is_checkable(note):
    from papermath.check import parse_reading
    prompt = equation_prompt(note, "1", answer_format=True)
    assert "| symbol | shape or type | meaning | role | quote |" in prompt.text
    layout = prompt.text[prompt.text.index("## Equation 1 (eq:1)"):]
    assert parse_reading(layout).equations[0].id == "eq:1"


@pytest.mark.parametrize("task", sorted(TASKS))
def test_guide_004_tasks_for_an_equation(note, task):
    prompt = task_prompt(note, task, eq="1")
    assert prompt.task == task and TASKS[task].split(".")[0][:40] in prompt.text
    assert "\\mathrm{Attention}(Q, K, V)" in prompt.text
    assert prompt.text.startswith("The material below is equation (1) from A Small Note on Attention and Routing")


def test_task_for_a_section_and_the_whole_paper(note, capsys):
    assert main(["prompt", str(EXAMPLE), "--task", "derivations", "--section", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The material below is §3 Routing from")
    assert "Equation (2):" in out and "Equation (4):" in out
    assert "5–10 step-by-step derivation exercises" in out
    story = task_prompt(note, "story")
    assert "Abstract: We restate scaled dot-product attention" in story.text
    assert "the entire paper (here: the paper)" in story.text


def test_json_output(capsys):
    assert main(["prompt", str(EXAMPLE), "--eq", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "papermath.prompt/1" and data["equation"] == "eq:1"
    assert data["paragraphs"] and data["prompt"].startswith("Below is equation (1)")


@pytest.mark.parametrize("argv, message", [
    (["prompt", str(EXAMPLE)], "give the equation: --eq N"),
    (["prompt", str(EXAMPLE), "--eq", "99"], "no equation '99'"),
    (["prompt", str(EXAMPLE), "--task", "problems", "--section", "9.9"], "no section '9.9'"),
])
def test_bad_requests(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_unknown_task_is_refused(note):
    with pytest.raises(UsageError):
        task_prompt(note, "poem", eq="1")
