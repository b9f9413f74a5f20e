"""The notation dictionary (`data/notation.json`) and the Greek-letter reference (`data/greek.json`).

The lists below were extracted by reading guide 000's "A small dictionary" table and every subsection of
guide 002's "Notation reference"; each example is written in the LaTeX form the dictionary uses.
"""
from __future__ import annotations

import json
import re

import pytest

from papermath.cli import main
from papermath.errors import UsageError
from papermath.notation import (conventional_meaning, entries_matching, greek_letter, load_greek, load_notation,
                                notation_entry)

GUIDE_000 = "guide 000 dictionary"

# Guide 000, "A small dictionary": its 12 rows (row 5, "sum_i / prod_i", is two notations).
GUIDE_000_ROWS = [
    ("E_{x ~ p}[f(x)]: average of f(x) over x drawn from p", r"\mathbb{E}_{x\sim p}[f(x)]"),
    ("argmax_x f(x): the x that makes f largest", r"\arg\max_x f(x)"),
    ("nabla_theta L: gradient of L w.r.t. parameters", r"\nabla_\theta\mathcal{L}"),
    ("KL(p || q): how different q is from p", r"\mathrm{KL}(p\,\|\,q)"),
    ("sum_i: add up over i", r"\sum_i x_i"),
    ("prod_i: multiply together over i", r"\prod_i x_i"),
    ("x ~ p: x is drawn from p", r"x\sim p"),
    ("|| x ||: length of the vector x", r"\|x\|"),
    ("x . y or x^T y: dot product", r"x^\top y"),
    ("1[condition]: 1 if the condition holds", r"\mathbf{1}[C]"),
    ("theta / phi: parameters being learned", r"\theta,\ \phi"),
    ("hat{y}: a predicted value", r"\hat{y}"),
    ("log p(x): log probability", r"\log p(x)"),
]

# Guide 002, "Notation reference": (subsection, topic, example) for every entry of every subsection.
S1, S2, S3 = ("Subscripts, marks and relation signs", "Sums, counts, intervals and logarithms",
              "Conditional probability and the probability of text")
S4, S5, S6 = ("Expectations and where the samples come from", "Densities, variance and error bars",
              "Cross-entropy and KL divergence")
S7, S8, S9 = "Vectors and matrices", "Gradients and optimization", "Sets and constraints"
GUIDE_002_ENTRIES = [
    (S1, "subscripts are indices", r"x_i,\ h_t"),
    (S1, "parenthesised superscript is a layer label", r"h_t^{(\ell)}"),
    (S1, "superscript letters are labels", r"W^{DKV},\ k_t^C"),
    (S1, "transpose", r"W^\top"),
    (S1, "square", r"x^2"),
    (S1, "positions 1 through T, including T", r"x_{1:T}"),
    (S1, "every position before t", r"x_{<t}"),
    (S1, "row t, as in NumPy", r"X_{t,:}"),
    (S1, ":= (or ≜) defines a name", r"a:=b"),
    (S1, "approximation", r"a\approx b"),
    (S1, "proportional to, constant left out", r"p_i\propto e^{z_i}"),
    (S1, "much smaller than", r"d_c\ll d_h n_h"),
    (S1, "assignment in an update rule", r"\theta\leftarrow\theta-\eta\nabla_\theta\mathcal{L}"),
    (S2, "sum with limits 1..N", r"\sum_{i=1}^{N}x_i"),
    (S2, "product with limits 1..N", r"\prod_{i=1}^{N}x_i"),
    (S2, "the index belongs to the operator", r"y_i=\sum_{j=1}^{d}W_{ij}x_j"),
    (S2, "per-answer average (GRPO)", r"\frac{1}{G}\sum_{i=1}^{G}\frac{1}{|o_i|}\sum_{t=1}^{|o_i|}\ell_{i,t}"),
    (S2, "per-token average (DAPO)", r"\frac{1}{\sum_{i=1}^{G}|o_i|}\sum_{i=1}^{G}\sum_{t=1}^{|o_i|}\ell_{i,t}"),
    (S2, "number of tokens in answer i", r"|o_i|"),
    (S2, "indicator", r"\mathbf{1}[C]"),
    (S2, "a sum of indicators counts (accuracy)", r"\sum_i\mathbf{1}[\hat{y}_i=y_i]"),
    (S2, "binomial coefficient", r"\binom{n}{k}"),
    (S2, "factorial", r"n!"),
    (S2, "closed interval", r"[a,b]"),
    (S2, "open interval, or a pair", r"(a,b)"),
    (S2, "logarithm turns products into sums", r"\log(ab)=\log a+\log b"),
    (S2, "log-sum-exp, stably", r"\log\sum_i e^{z_i}=m+\log\sum_i e^{z_i-m}"),
    (S2, "the largest entry", r"m=\max_i z_i"),
    (S3, "model's conditional probability", r"p_\theta(y\mid x)"),
    (S3, "semicolon marks parameters", r"p(y\mid x;\theta)"),
    (S3, "a whole distribution", r"p_\theta(\cdot\mid x)"),
    (S3, "a policy", r"\pi_\theta(o\mid q)"),
    (S3, "conditional probability", r"P(A\mid B)=\frac{P(A\cap B)}{P(B)}"),
    (S3, "both events", r"P(A\cap B)"),
    (S3, "independence", r"P(A\cap B)=P(A)P(B)"),
    (S3, "Bayes' rule", r"P(A\mid B)=\frac{P(B\mid A)P(A)}{P(B)}"),
    (S3, "chain rule of a language model", r"p(y)=\prod_{t=1}^{T}p(y_t\mid y_{<t})"),
    (S3, "negative log-likelihood per token", r"-\frac{1}{T}\sum_{t=1}^{T}\log p(y_t\mid y_{<t})"),
    (S4, "expectation as a weighted average", r"\mathbb{E}_{x\sim p}[f(x)]=\sum_x p(x)f(x)"),
    (S4, "read E_{x~p}[f(x)]", r"\mathbb{E}_{x\sim p}[f(x)]"),
    (S4, "expectation of a random variable", r"\mathbb{E}[X]"),
    (S4, "expectation under a density", r"\int f(x)p(x)\,dx"),
    (S4, "Monte Carlo estimate", r"\mathbb{E}_{x\sim p}[f(x)]\approx\frac{1}{N}\sum_{i=1}^{N}f(x_i)"),
    (S4, "independent draws", r"x_i\overset{\text{iid}}{\sim}p"),
    (S4, "DPO samples saved examples", r"(x,y_w,y_l)\sim\mathcal{D}"),
    (S4, "sample a question", r"q\sim P(Q)"),
    (S4, "sample answers from the old policy", r"\{o_i\}_{i=1}^{G}\sim\pi_{\theta_{old}}(O\mid q)"),
    (S4, "Jensen: mean of log vs log of mean", r"\mathbb{E}[\log X]\leq\log\mathbb{E}[X]"),
    (S5, "probability or density", r"p(x)"),
    (S5, "probability of an interval as an area", r"P(a\leq X\leq b)=\int_a^b p(x)\,dx"),
    (S5, "variance", r"\operatorname{Var}(X)=\mathbb{E}[(X-\mu)^2]"),
    (S5, "Gaussian", r"\mathcal{N}(\mu,\sigma^2)"),
    (S5, "Gaussian with a covariance matrix", r"\mathcal{N}(\mu,\Sigma)"),
    (S5, "standard normal vector", r"\mathcal{N}(0,I)"),
    (S5, "standard error of the mean", r"\sigma/\sqrt{N}"),
    (S5, "mean ± spread in a benchmark table", r"82.3\pm0.4"),
    (S6, "loss on one outcome", r"-\log q_i"),
    (S6, "cross-entropy", r"H(p,q)=-\sum_i p_i\log q_i"),
    (S6, "entropy", r"H(p)=-\sum_i p_i\log p_i"),
    (S6, "KL divergence with the double bar", r"D_{\mathrm{KL}}(p\Vert q)=\sum_i p_i\log\frac{p_i}{q_i}"),
    (S7, "shape of a batch of hidden states", r"B\times T\times d"),
    (S7, "a vector of d reals", r"a\in\mathbb{R}^d"),
    (S7, "an m by n matrix", r"A\in\mathbb{R}^{m\times n}"),
    (S7, "dot product of columns", r"a^\top b"),
    (S7, "outer product", r"ab^\top"),
    (S7, "matrix product", r"AB"),
    (S7, "elementwise product", r"a\odot b"),
    (S7, "column-vector convention", r"Wh"),
    (S7, "bold letters", r"\mathbf{x}"),
    (S8, "partial derivative", r"\partial\mathcal{L}/\partial\theta_i"),
    (S8, "gradient", r"\nabla_\theta\mathcal{L}"),
    (S8, "gradient-descent step", r"\theta\leftarrow\theta-\eta\nabla_\theta\mathcal{L}"),
    (S8, "the score (gradient w.r.t. the input)", r"\nabla_x\log p_\theta(x)"),
    (S8, "Jacobian", r"J_{ij}=\partial y_i/\partial x_j"),
    (S8, "min vs argmin", r"\min_\theta f(\theta)\ \text{vs}\ \arg\min_\theta f(\theta)"),
    (S8, "stop-gradient", r"\operatorname{sg}(x)"),
    (S9, "a set", r"\{1,2,3\}"),
    (S9, "an ordered vector", r"(1,2,3)"),
    (S9, "membership", r"x\in A"),
    (S9, "union, intersection, difference, size", r"A\cup B,\ A\cap B,\ A\setminus B,\ |A|"),
    (S9, "shapes as sets", r"Q\in\mathbb{R}^{n\times d_k}"),
    (S9, "set-builder notation", r"\{x\in S\mid\text{condition}\}"),
]


@pytest.mark.parametrize("topic, example", GUIDE_000_ROWS, ids=[t for t, _ in GUIDE_000_ROWS])
def test_every_guide_000_dictionary_row_has_an_entry(topic, example):
    matches = entries_matching(example)
    assert matches, f"no entry for guide 000 row {topic!r}"
    assert any(entry.source == GUIDE_000 for entry in matches)
    assert all(entry.reading and entry.code for entry in matches)


@pytest.mark.parametrize("subsection, topic, example", GUIDE_002_ENTRIES,
                         ids=[f"{s[:12]}: {t}" for s, t, _ in GUIDE_002_ENTRIES])
def test_every_guide_002_notation_reference_entry_has_an_entry(subsection, topic, example):
    matches = entries_matching(example)
    assert matches, f"no entry for guide 002 {subsection!r}: {topic!r}"
    assert all(entry.reading and entry.code for entry in matches)


def test_every_guide_002_subsection_is_cited_as_a_source():
    sources = {entry.source for entry in load_notation()}
    for subsection in (S1, S2, S3, S4, S5, S6, S7, S8, S9):
        assert f"guide 002 notation reference: {subsection}" in sources


# The ambiguity warnings issue 7 lists: (how to find the entry, words its warning must contain).
AMBIGUITIES = [
    (r"\sigma", ("sigmoid", "standard deviation")),
    (r"h_t^{(\ell)}", ("label", "not a power")),
    (r"x_{1:T}", ("includes T", "Python slice")),
    (r"\Vert", ("KL", "conditional")),
    (r"D_{\mathrm{KL}}(p\Vert q)=\sum_i p_i\log\frac{p_i}{q_i}", ("conditional bar", "norm")),
    (r"\mid", ("KL", "norm")),
    (r"p_\theta(\cdot\mid x)", ("whole distribution",)),
    (r"\propto", ("constant",)),
    (r":=", ("defines",)),
    (r"y_i=\sum_{j=1}^{d}W_{ij}x_j", ("scope", "index")),
    (r"(a,b)", ("interval", "pair")),
    (r"\cdot", ("dot product", "placeholder")),
]


@pytest.mark.parametrize("key, words", AMBIGUITIES, ids=[k for k, _ in AMBIGUITIES])
def test_ambiguity_warnings(key, words):
    entry = conventional_meaning(key) or entries_matching(key)[0]
    assert entry.warning, f"{entry.id} has no warning"
    for word in words:
        assert word in entry.warning, f"{entry.id}: {word!r} not in {entry.warning!r}"


@pytest.mark.parametrize("name, entry_id", [
    (r"\log", "log-probability"), ("log", "log-probability"), (r"\exp", "exp"), ("exp", "exp"),
    ("softmax", "softmax"), (r"\operatorname{softmax}", "softmax"), (r"\mathrm{softmax}", "softmax"),
    (r"\nabla", "gradient"), ("∇", "gradient"), (r"\mathbb{E}", "expectation"), (r"\mathbb E", "expectation"),
    ("𝔼", "expectation"), ("E", "expectation"), ("KL", "kl-divergence"), (r"\mathrm{KL}", "kl-divergence"),
    (r"\odot", "hadamard"), ("⊙", "hadamard"), (r"\top", "transpose"), ("T", "transpose"), ("ᵀ", "transpose"),
    (r"\sigma", "sigmoid-or-sd"), ("σ", "sigmoid-or-sd"), ("sigmoid", "sigmoid-or-sd"),
    (r"\arg\max", "argmax"), ("argmax", "argmax"), (r"\operatorname*{arg\,max}", "argmax"),
    (r"\arg\min", "min-vs-argmin"), (r"\max", "max"), (r"\mathbf{1}", "indicator"), ("𝟙", "indicator"),
    (r"\sim", "sample"), ("~", "sample"), (r"\|", "norm"), ("‖", "norm"), ("sg", "stop-gradient"),
    (r"\operatorname{sg}", "stop-gradient"), (r"\binom", "binomial"), ("!", "factorial"),
    (r"\cap", "intersection"), ("∩", "intersection"), (r"\in", "membership"), ("∈", "membership"),
    (r"\mathbb{R}", "vector-space"), ("ℝ", "vector-space"), ("Var", "variance"), (r"\operatorname{Var}", "variance"),
    (r"\mathcal{N}", "gaussian"), ("𝒩", "gaussian"), (r"\approx", "approx"), ("≈", "approx"),
    (r"\ll", "much-less"), ("≪", "much-less"), (r"\leftarrow", "assignment"), ("←", "assignment"),
    (":=", "definition"), (r"\triangleq", "definition"), ("≜", "definition"), (r"\propto", "proportional"),
    ("∝", "proportional"), (r"\mid", "conditional-model"), (r"\sum", "sum"), ("∑", "sum"), (r"\prod", "product"),
    (r"\partial", "partial-derivative"), (r"\int", "expectation-integral"), (r"\pm", "pm"), ("±", "pm"),
    (r"\hat", "hat"), (r"\tilde", "mark-tilde"), (r"\bar", "mark-bar"), (r"\Vert", "norm"),
    (r"\setminus", "set-operations"), ("logsumexp", "logsumexp"), ("H", "entropy"), (r"\sqrt", "standard-error"),
])
def test_conventional_meaning_lookup(name, entry_id):
    entry = conventional_meaning(name)
    assert entry is not None, name
    assert entry.id == entry_id


@pytest.mark.parametrize("name", [r"\frobnicate", "frobnicate", "", "zzz"])
def test_conventional_meaning_unknown(name):
    assert conventional_meaning(name) is None


def test_dictionary_integrity():
    entries = load_notation()
    assert load_notation() is entries  # cached
    ids = [entry.id for entry in entries]
    assert len(ids) == len(set(ids))
    assert len(entries) >= len(GUIDE_000_ROWS) + len(GUIDE_002_ENTRIES) - 5  # a few rows share an entry
    for entry in entries:
        assert re.fullmatch(r"[a-z0-9-]+", entry.id)
        assert entry.pattern.strip() and entry.reading.strip() and entry.code.strip()
        assert entry.macros and all(isinstance(m, str) and m for m in entry.macros)
        assert entry.warning is None or entry.warning.strip()
        assert entry.source.startswith(("guide 000", "guide 002", "papermath convention"))
    assert notation_entry("expectation").code == "f(x).mean()  # over a batch of x drawn from p"
    with pytest.raises(UsageError):
        notation_entry("no-such-entry")


# ---- the Greek-letter reference ----

LOWERCASE = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
             "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"]


def test_greek_covers_24_lowercase_letters_capitals_and_variants():
    letters = load_greek()
    base_lower = [g.name for g in letters if g.case == "lower" and g.variant_of is None]
    assert base_lower == LOWERCASE
    capitals = {g.unicode for g in letters if g.case == "upper"}
    assert {"Σ", "Π", "Δ", "Φ", "Ω", "Γ", "Λ", "Θ"} <= capitals
    variants = {g.name: g.variant_of for g in letters if g.variant_of}
    assert {"varepsilon": "epsilon", "varphi": "phi", "vartheta": "theta"}.items() <= variants.items()
    assert all(g.meanings for g in letters)


@pytest.mark.parametrize("name", LOWERCASE)
def test_greek_lookup_by_name_latex_and_unicode(name):
    letter = greek_letter(name)
    assert letter.name == name
    assert greek_letter(letter.latex) == letter
    assert greek_letter(letter.unicode) == letter


@pytest.mark.parametrize("key, name", [
    ("ε", "epsilon"), ("ϵ", "epsilon"), (r"\epsilon", "epsilon"), (r"\varepsilon", "varepsilon"),
    ("φ", "phi"), ("ϕ", "phi"), (r"\varphi", "varphi"), ("ϑ", "vartheta"), ("Σ", "Sigma"), (r"\Sigma", "Sigma"),
    ("Sigma", "Sigma"), ("sigma", "sigma"), ("SIGMA", "sigma"), ("Δ", "Delta"), ("lambda", "lambda"),
])
def test_greek_lookup_specific(key, name):
    assert greek_letter(key).name == name


@pytest.mark.parametrize("name, words", [
    ("alpha", ("learning rate", "balance factor", "coefficient")),
    ("beta", ("DPO", "Adam")),
    ("gamma", ("discount", "scale", "bias update speed")),
    ("eta", ("learning rate",)),
    ("theta", ("parameters",)),
    ("phi", ("parameters",)),
    ("sigma", ("sigmoid", "standard deviation")),
    ("mu", ("mean",)),
    ("epsilon", ("small constant", "noise")),
    ("lambda", ("weight of a loss",)),
    ("pi", ("policy", "constant")),
    ("tau", ("temperature",)),
    ("Sigma", ("covariance", "sum")),
])
def test_greek_meanings(name, words):
    text = " ".join(greek_letter(name).meanings)
    for word in words:
        assert word in text, (name, word)


def test_greek_sigma_warns():
    warning = greek_letter("σ").warning
    assert "sigmoid" in warning and "standard deviation" in warning


@pytest.mark.parametrize("key", ["", "aleph", r"\foo", "x"])
def test_greek_unknown(key):
    with pytest.raises(UsageError):
        greek_letter(key)


def test_cli_greek(capsys):
    assert main(["greek", "sigma"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("σ  sigma  \\sigma")
    assert "warning:" in out and "sigmoid" in out
    assert main(["greek"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sum(1 for line in lines if line[:1] in "αβγδεζηθικλμνξοπρστυφχψω" and line[:1]) >= 24
    assert main(["greek", "\\eta", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "eta" and data["unicode"] == "η"
    assert main(["greek", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(load_greek())
    assert main(["greek", "aleph"]) == 2
    assert "not a Greek letter" in capsys.readouterr().err
