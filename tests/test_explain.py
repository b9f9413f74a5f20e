"""`explain`: every notation of guide 000's dictionary and guide 002's notation reference reads as the dictionary
says; other formulas read through the templates; the ambiguity warnings fire; the DPO loss reads correctly."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papermath.analysis.explain import TEMPLATES, explain, normalize
from papermath.cli import main
from papermath.errors import MathParseError
from papermath.math import parse, to_latex
from papermath.notation import entries_matching, load_notation, notation_entry
from test_notation import GUIDE_000_ROWS, GUIDE_002_ENTRIES  # the guides' tables, extracted once

DPO = (r"\mathcal{L}_{\mathrm{DPO}} = -\mathbb{E}_{(x, y_w, y_l)\sim\mathcal{D}}\left[\log \sigma\left(\beta \log "
       r"\frac{\pi_\theta(y_w\mid x)}{\pi_{\mathrm{ref}}(y_w\mid x)} - \beta \log \frac{\pi_\theta(y_l\mid x)}"
       r"{\pi_{\mathrm{ref}}(y_l\mid x)}\right)\right]")

GUIDE_EXAMPLES = [(f"000: {topic}", example) for topic, example in GUIDE_000_ROWS] + \
                 [(f"002 {sub[:12]}: {topic}", example) for sub, topic, example in GUIDE_002_ENTRIES]


@pytest.mark.parametrize("topic, example", GUIDE_EXAMPLES, ids=[t for t, _ in GUIDE_EXAMPLES])
def test_every_guide_notation_reads_as_the_dictionary_says(topic, example):
    explanation = explain(example)
    whole = explanation.steps[-1]
    assert whole.latex == to_latex(normalize(parse(example).tree))
    entries = entries_matching(example)
    assert entries, topic
    readings = {whole.reading, *whole.also}
    for entry in entries:
        assert entry.reading in readings, (topic, entry.id)
        assert entry.id in whole.notation
    assert whole.code == entries[0].code
    for entry in entries:  # the dictionary's warning is reported for the notation it concerns
        if entry.warning:
            assert any(w.notation == entry.id and w.message == entry.warning for w in explanation.warnings)


# Formulas that are *not* a dictionary example: the templates instantiate the entry with the formula's parts.
GENERAL = [
    (r"\mathbb E_{z\sim q}[g(z)]", "expectation",
     "the average of g(z) when z is drawn from q — a mean over samples", "g(z).mean()"),
    (r"\mathbb{E}[Y]", "expectation-plain", "the average of Y over its own distribution", "Y.mean()"),
    (r"\arg\max_a Q(a)", "argmax", "the a that makes Q(a) largest — the best choice, not the largest value",
     "a[np.argmax(Q(a))]"),
    (r"\nabla_\phi J", "gradient", "the gradient of J with respect to φ", "J.backward(); phi.grad"),
    (r"\mathrm{KL}(\pi\,\|\,\rho)", "kl-divergence", "how different ρ is from π, averaged over outcomes drawn from π",
     "(pi * (np.log(pi) - np.log(rho))).sum()"),
    (r"\sum_k a_k", "sum", "add up a_k over the index k", "a[k].sum()"),
    (r"\sum_{n=1}^{M} b_n", "sum-limits", "add b_n for n from 1 through M (both limits included)",
     "sum(b[n] for n in range(1, M + 1))"),
    (r"\prod_{t=1}^{T} q_t", "prod-limits", "multiply q_t for t from 1 through T", "np.prod([q[t] for t"),
    (r"\sum_{v\in V} c_v", "sum", "add up c_v for every v in V", "sum(c[v] for v in V)"),
    (r"\|u\|", "norm", "the length (Euclidean norm) of u", "np.linalg.norm(u)"),
    (r"u^\top v", "dot-product-columns", "the dot product of u and v", "u @ v"),
    (r"u v^\top", "outer-product", "the outer product of u and v", "np.outer(u, v)"),
    (r"QK^\top", "matrix-product", "the matrix product Q Kᵀ", "Q @ K.T"),
    (r"\mathbf{1}[s > 0]", "indicator", "1 if s > 0 holds, else 0", "(s > 0).astype(float)"),
    (r"\sum_j\mathbf{1}[a_j=b_j]", "count-indicators", "count the j for which a_j = b_j holds", "(a[j] == b[j]).sum()"),
    (r"\log q(z)", "log-probability", "the (natural) log of the probability q(z)", "np.log(q[z])"),
    (r"\log(a/b)", "natural-log", "the natural log of a / b", "np.log(a / b)"),
    (r"\log\frac{p}{q}", "natural-log", "the log of the ratio p / q: log p − log q", "np.log(p) - np.log(q)"),
    (r"\log\sum_j e^{s_j}", "logsumexp", "log-sum-exp of s_j over j", "scipy.special.logsumexp(s)"),
    (r"\sigma(w^\top x)", "sigmoid-or-sd", "the sigmoid 1/(1 + e^(−z)) of z = wᵀ x", "torch.sigmoid(w @ x)"),
    (r"\log\sigma(z)", "sigmoid-or-sd", "the log of the sigmoid of z", "F.logsigmoid(z)"),
    (r"\mathrm{softmax}(s)", "softmax", "the softmax of s", "scipy.special.softmax(s, axis=-1)"),
    (r"y_{1:L}", "range-subscript", "y at positions 1 through L, including L", "y[0:L]"),
    (r"s_{<n}", "prefix-subscript", "every position of s before n", "s[:n]"),
    (r"A_{k,:}", "row-slice", "row k of A: all columns", "A[k, :]"),
    (r"\mathcal{J}:=\sum_t r_t", "definition", "J is defined as Σ_t r_t: a new name for an expression", "J = "),
    (r"v\approx w", "approx", "v is approximately w", "v = w  # an approximation of v"),
    (r"q_j\propto\exp(s_j)", "proportional", "q_j is proportional to exp(s_j): equal up to a normalizing constant",
     "q_j = q_j / q_j.sum()"),
    (r"w\leftarrow w-\alpha\nabla_w L", "gradient-descent", "a gradient-descent step: w is replaced by w − α ∇_w L",
     "w = w - alpha * w.grad"),
    (r"m\leftarrow m+1", "assignment", "m gets the new value m + 1", "m = m + 1"),
    (r"h_i=\sum_{k=1}^{n}A_{ik}v_k", "index-scope", "one equation per i", "for every i"),
    (r"z\sim\mathcal{N}(0,I)", "sample", "z is drawn from the distribution 𝒩(0, I)" if False else "z is drawn from",
     "z = "),
    (r"\mathcal{N}(m,s^2)", "gaussian", "the Gaussian with mean m and variance s^2", "rng.normal(m, np.sqrt(s ** 2))"),
    (r"(a, b, c)\sim\mathcal{B}", "sample-from-data", "(a, b, c) is a saved example drawn from the dataset B",
     "for a, b, c in B"),
    (r"\alpha_t\in(0,1)", "open-interval-or-pair", "α_t lies in the interval (0, 1)", "0 < alpha_t < 1"),
    (r"(u, v)", "open-interval-or-pair", "the pair (u, v) — or, if something is said to belong to it", "(u, v)"),
    (r"[0, 1]", "closed-interval", "the interval from 0 to 1, including both ends", "0 <= x <= 1"),
    (r"W\in\mathbb{R}^{d\times k}", "vector-space", "W is a real array of shape [d, k]", "W.shape == (d, k,)"),
    (r"\binom{N}{2}", "binomial", "N choose 2", "math.comb(N, 2)"),
    (r"m!", "factorial", "m factorial", "math.factorial(m)"),
    (r"u\odot v", "hadamard", "the elementwise (Hadamard) product of u and v", "u * v"),
    (r"|S|", "length-bars", "the number of items in S", "len(S)"),
    (r"p(a\mid b;\phi)", "semicolon-parameters", "the semicolon marks parameters", "p_phi(b)[a]"),
    (r"\pi(\cdot\mid s)", "whole-distribution", "the whole distribution over outputs of π given s", "pi(s).softmax(-1)"),
    (r"\pi_\phi(a\mid s)", "policy", "the probability that the model (the policy) π_φ writes a given s",
     "pi_phi(s).softmax(-1)[a]"),
    (r"q(z\mid x)", "conditional-model", "the probability that the model q assigns to output z given input x",
     "q(x).softmax(-1)[z]"),
    (r"P(E\mid F)", "conditional-probability", "the probability of E among the cases where F holds",
     "(E & F).sum() / F.sum()"),
    (r"H(r,s)", "cross-entropy", "the cross-entropy of s against the target r", "-(r * np.log(s)).sum()"),
    (r"H(r)", "entropy", "the entropy of r", "-(r * np.log(r)).sum()"),
    (r"\operatorname{sg}(h)", "stop-gradient", "stop-gradient of h", "h.detach()"),
    (r"\operatorname{Var}(Z)", "variance", "the variance of Z", "Z.var()"),
    (r"\frac{\partial J}{\partial w}", "partial-derivative", "the partial derivative of J with respect to w",
     "torch.autograd.grad(J, w)"),
    (r"\nabla_x \log q(x)", "score", "with respect to the input x, not the parameters", "torch.autograd.grad"),
    (r"\min_w f(w)", "max", "the smallest value of f(w) over w", "f(w).min()"),
    (r"\arg\min_w f(w)", "min-vs-argmin", "the w that makes f(w) smallest", "w[np.argmin(f(w))]"),
    (r"\int_0^1 g(u)\,du", "integral-interval", "the area under g(u) for u from 0 to 1",
     "scipy.integrate.quad(lambda u: g(u), 0, 1)[0]"),
    (r"\{a, b\}", "set-braces", "the set {a, b}", "{a, b}"),
    (r"\{i\in I\mid s_i>0\}", "set-builder", "the members i ∈ I that satisfy s_i > 0", "if s[i] > 0" if False else "{x for x in S if"),
    (r"e^{-x}", "exp", "e to the power −x", "np.exp(-x)"),
    (r"M^\top", "transpose", "M transposed: rows and columns exchanged", "M.T"),
    (r"z^3", "power", "z to the power 3", "z ** 3"),
    (r"7.1\pm0.3", "pm", "7.1 ± 0.3: a value with a measure of variation", "papermath compare '7.1±0.3'"),
    (r"\frac{1}{N}\sum_{n=1}^{N}g_n", None, "the mean of g_n over n from 1 to N", "/ N"),
    (r"\mathrm{clip}(\rho, 0.8, 1.2)", "clip", "ρ limited to the range [0.8, 1.2]", "np.clip(rho, 0.8, 1.2)"),
    (r"\operatorname{TopK}(u, k)", "topk", "the set of the k highest scores among u", "np.argsort(-np.array(u))[:k]"),
]


@pytest.mark.parametrize("latex, entry_id, reading, code", GENERAL, ids=[g[0] for g in GENERAL])
def test_templates_read_other_formulas(latex, entry_id, reading, code):
    assert not any(entry.pattern == latex for entry in load_notation()), "use a formula that is not an example"
    whole = explain(latex).steps[-1]
    assert reading in whole.reading, whole.reading
    assert code in whole.code, whole.code
    if entry_id is not None:
        assert entry_id in whole.notation, whole.notation


# The ambiguity list, on formulas that are not dictionary examples: (formula, entry, words in the warning).
AMBIGUITIES = [
    (r"\log\sigma(\beta m)", "sigmoid-or-sd", ("sigmoid", "standard deviation")),
    (r"\mathcal{N}(0,\sigma^2)", "sigmoid-or-sd", ("standard deviation",)),
    (r"W^{(2)} h", "superscript-label", ("label", "not a power")),
    (r"y_{1:L}", "range-subscript", ("includes T", "Python slice")),
    (r"\mathrm{KL}(\pi_\theta\,\|\,\pi_{\mathrm{ref}})", "kl-divergence", ("conditional bar", "norm")),
    (r"q(z\mid x)", "conditional-model", ("KL separator", "norm")),
    (r"\|v\|_2", "norm", ("KL", "conditional bar")),
    (r"\pi(\cdot\mid s)", "whole-distribution", ("whole distribution",)),
    (r"q_j\propto\exp(s_j)", "proportional", ("constant",)),
    (r"\mathcal{J}:=\sum_t r_t", "definition", ("defines a name",)),
    (r"h_i=\sum_{k=1}^{n}A_{ik}v_k", "index-scope", ("scope", "index")),
    (r"\sum_k a_k", "sum", ("loop variable",)),
    (r"(u, v)", "open-interval-or-pair", ("interval", "pair")),
    (r"\beta_t\in(0,1)", "open-interval-or-pair", ("interval", "pair")),
]


@pytest.mark.parametrize("latex, entry_id, words", AMBIGUITIES, ids=[a[0] for a in AMBIGUITIES])
def test_ambiguity_warnings_fire(latex, entry_id, words):
    warnings = {w.notation: w for w in explain(latex).warnings}
    assert entry_id in warnings, sorted(warnings)
    assert warnings[entry_id].message == notation_entry(entry_id).warning
    for word in words:
        assert word in warnings[entry_id].message


def test_dpo_loss_reads_correctly_with_the_sigma_warning():
    explanation = explain(DPO)
    lines = {step.text: (step.reading, step.code) for step in explanation.steps}
    assert lines["π_θ(y_w | x)"][0] == "the probability that the model (the policy) π_θ writes y_w given x"
    assert lines["π_ref(y_l | x)"][0] == "the probability that the model (the policy) π_ref writes y_l given x"
    assert lines["log(π_θ(y_w | x) / π_ref(y_w | x))"] == (
        "the log of the ratio π_θ(y_w | x) / π_ref(y_w | x): log π_θ(y_w | x) − log π_ref(y_w | x), "
        "a difference of logs", "np.log([1]) - np.log([2])")
    assert lines["β log [3] − β log [8]"] == ("β log [3] minus β log [8]", "beta * [4] - beta * [9]")
    assert lines["σ(β log [3] − β log [8])"][0] == \
        "the sigmoid 1/(1 + e^(−z)) of z = β log [3] − β log [8]: it squashes z into (0, 1)"
    assert lines["log σ(β log [3] − β log [8])"][1].startswith("F.logsigmoid(beta * [4] - beta * [9])")
    assert lines["E_{(x, y_w, y_l)∼D}[log σ(β log [3] − β log [8])]"] == (
        "the average of log σ(β log [3] − β log [8]) when (x, y_w, y_l) is drawn from D — a mean over samples",
        "[13].mean()  # over a batch of (x, y_w, y_l) drawn from D")
    assert lines["(x, y_w, y_l) ∼ D"][0] == \
        "a saved example drawn from the dataset D (DPO: a prompt, a preferred answer and a rejected answer)"
    assert explanation.steps[-1].text == "L_DPO = −[15]"
    assert explanation.steps[-1].code == "L_DPO = -[13].mean()"
    assert len(explanation.steps) == 17
    sigma = next(w for w in explanation.warnings if w.notation == "sigmoid-or-sd")
    assert "standard deviation" in sigma.message and "DPO" in sigma.message
    assert sigma.where == "σ(β log [3] − β log [8])"
    symbols = {note.text: note for note in explanation.symbols}
    assert "DPO" in symbols["β"].meaning and symbols["β"].source == "Greek-letter reference"
    assert symbols["D"].notation == ("sample-from-data",)
    assert symbols["L_DPO"].notation == ("loss-symbol",)
    assert {"policy", "conditional-model", "natural-log", "sigmoid-or-sd", "expectation", "sample-from-data",
            "loss-symbol", "parameters"} <= set(explanation.notation_ids)


def test_repeated_subexpressions_share_one_step():
    explanation = explain(r"\frac{1}{G}\sum_{i=1}^{G}\frac{1}{|o_i|}\sum_{t=1}^{|o_i|}\ell_{i,t}")
    assert [step.text for step in explanation.steps].count("|o_i|") == 1
    mean = next(step for step in explanation.steps if step.text.startswith("1/|o_i| Σ"))
    assert mean.reading.startswith("the mean of ℓ_it over t from 1 to |o_i|")


def test_dapo_normalizer_is_not_called_a_mean():
    step = explain(r"\frac{1}{\sum_{i=1}^{G}|y_i|}\sum_{i=1}^{G}\sum_{t=1}^{|y_i|}r_{i,t}").steps[-1]
    assert "mean" not in step.reading and step.reading.startswith("the sum")


def test_every_template_names_a_dictionary_entry_that_exists():
    ids = {entry.id for entry in load_notation()}
    for key, (entry_id, reading, code) in TEMPLATES.items():
        assert entry_id is None or entry_id in ids, key
        assert reading and code, key


@pytest.mark.parametrize("bad", [r"\frac{a}", "x^", "}", "", "   ", "{}"])
def test_bad_formulas_fail_cleanly(bad):
    with pytest.raises(MathParseError):
        explain(bad)


def test_cli_explain(capsys):
    assert main(["explain", "--width", "100", r"\mathbb{E}_{x\sim p}[f(x)]"]) == 0
    out = capsys.readouterr().out
    assert out == (
        "formula  \\mathbb{E}_{x\\sim p}[f(x)]\n"
        "aloud    the expectation over x drawn from p of f of x\n"
        "\n"
        "inside out ([n] is the result of step n):\n"
        "  [1] f(x)\n"
        "      f applied to x (or f times x: the paper says which): `f(x)`\n"
        "  [2] E_{x∼p}[f(x)]\n"
        "      the average of f(x) when x is drawn from p — a mean over samples: `f(x).mean()  # over a batch\n"
        "        of x drawn from p`\n"
        "\n"
        "warnings:\n"
        "  ! E_{x∼p}[f(x)]: the subscript names the distribution the samples come from; a batch mean\n"
        "    estimates it only if the batch is drawn from that distribution [expectation]\n")
    assert main(["explain", "--json", DPO]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["latex"] == DPO and len(data["steps"]) == 17
    assert any(w["notation"] == "sigmoid-or-sd" for w in data["warnings"])
    assert main(["explain", r"\frac{a}"]) == 2
    assert "missing argument" in capsys.readouterr().err


def test_cli_explain_dpo_prints_the_sigma_warning(capsys):
    assert main(["explain", "--width", "120", DPO]) == 0
    out = capsys.readouterr().out
    assert "  ! σ(β log [3] − β log [8]): σ has two common meanings: the sigmoid function or a standard deviation" in out
    assert "the average of log σ(β log [3] − β log [8]) when (x, y_w, y_l) is drawn from D — a mean over samples" in out


# Property: any formula built from the dictionary's examples reads without error, one step per operator, and the
# last step is the whole formula.
EXAMPLES = [entry.pattern for entry in load_notation() if "," not in entry.pattern and "=" not in entry.pattern]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(EXAMPLES), min_size=1, max_size=3),
       st.sampled_from(["{} + {}", r"\log\left({}\right) - {}", r"\frac{{{}}}{{{}}}", r"\sum_{{k=1}}^{{K}} {} {}"]))
def test_compositions_of_dictionary_examples_read(parts, shape):
    latex = parts[0]
    for part in parts[1:]:
        latex = shape.format(latex, part)
    try:
        tree = parse(latex).tree
    except MathParseError:
        return  # the parser's business, not explain's
    explanation = explain(latex)
    assert explanation.steps
    assert all(step.reading and step.code for step in explanation.steps)
    assert explanation.steps[-1].latex == to_latex(normalize(tree))


def test_code_analogs_keep_python_precedence():
    steps = {s.text: s.code for s in explain(r"\hat{A}_{i}=\frac{r_i-\mathrm{mean}(\mathbf{r})}{\mathrm{std}(\mathbf{r})}").steps}
    assert steps["(r_i − mean(r)) / std(r)"] == "(r[i] - r.mean()) / r.std()" or \
        steps["(r_i − mean(r)) / std(r)"] == "(r_i - r.mean()) / r.std()"
    last = explain(r"\mathbb{E}_{t}\left[\|\epsilon-\epsilon_\theta(x_t)\|^2\right]").steps[-1]
    assert last.code.startswith("(np.linalg.norm([2]) ** 2).mean()")
    assert explain(r"a/(b c)").steps[-1].code == "a / (b * c)"
    assert explain(r"a-(b+c)").steps[-1].code == "a - (b + c)"


def test_std_warns_about_n_and_n_minus_1():
    warnings = {w.notation: w.message for w in explain(r"\frac{r-\mathrm{mean}(r)}{\mathrm{std}(r)}").warnings}
    assert "n − 1" in warnings["variance"]


def test_real_formulas_never_crash(corpus):
    # Every 4th of 1,200 arXiv formulas (im2latex, MIT; the whole list takes ~15 s): explain reads every one the
    # parser can parse.
    formulas = corpus.parent.parent / "benchmarks" / "formulas" / "im2latex_sample_harvardnlp" / "formulas.lst"
    if not formulas.exists():
        pytest.skip(f"{formulas} not found")
    read = failed = 0
    for latex in formulas.read_text(encoding="utf-8", errors="replace").splitlines()[::4]:
        try:
            explanation = explain(latex)
        except MathParseError:
            failed += 1
            continue
        assert explanation.steps and all(step.reading and step.code for step in explanation.steps), latex
        read += 1
    assert read >= 275, (read, failed)


def test_grpo_objective_reads_its_sampling_and_averaging():
    latex = (r"\mathcal{J}(\theta)=\mathbb{E}_{q\sim P(Q),\{o_i\}_{i=1}^{G}\sim\pi_{\theta_{old}}(O\mid q)}"
             r"\frac{1}{G}\sum_{i=1}^{G}\frac{1}{|o_i|}\sum_{t=1}^{|o_i|}\frac{\pi_\theta(o_{i,t}\mid q,o_{i,<t})}"
             r"{\pi_{\theta_{old}}(o_{i,t}\mid q,o_{i,<t})}\hat{A}_{i,t}")
    explanation = explain(latex)
    readings = [step.reading for step in explanation.steps]
    assert notation_entry("sample-question").reading in readings  # q ∼ P(Q), from the dictionary
    assert notation_entry("sample-group").reading in readings     # {o_i} ∼ π_θold(O | q)
    expectation = next(s for s in explanation.steps if s.text.startswith("E_"))
    assert "when q is drawn from P(Q) and {o_i}_{i = 1}^G from π_θ_old(O | q)" in expectation.reading
    prefix = next(s for s in explanation.steps if s.text == "o_{i,<t}")
    assert prefix.code == "o[i, :t]" and prefix.reading == "every position of o_i before t"
    assert any(s.reading.startswith("the mean of") and "over t from 1 to |o_i|" in s.reading for s in explanation.steps)


def test_juxtaposed_scalars_and_matrices_get_the_right_operator():
    assert explain(r"h = W_0 x + \frac{\alpha}{r} B A x").steps[-2].code == "W[0] @ x + alpha / r * B @ A @ x"
