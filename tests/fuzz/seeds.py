"""Real formulas and papers to mutate: formulas written for this campaign in the style of ML papers, the
bundled example paper, and (when `../shared` exists) the corpus papers' own display equations."""
from __future__ import annotations

import functools
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "attention-note"
CORPUS = REPO.parent / "shared" / "corpus" / "papers"

SEED_FORMULAS: tuple[str, ...] = (
    r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right)V",
    r"y_i = \sum_{j=1}^{d} W_{ij} x_j + b_i",
    (r"\mathcal{L}_{\mathrm{DPO}} = -\mathbb{E}_{(x, y_w, y_l)\sim\mathcal{D}}\left[\log\sigma\left(\beta\log"
    r"\frac{\pi_\theta(y_w\mid x)}{\pi_{\mathrm{ref}}(y_w\mid x)} - \beta\log\frac{\pi_\theta(y_l\mid x)}"
    r"{\pi_{\mathrm{ref}}(y_l\mid x)}\right)\right]"),
    r"\theta_{t+1} = \theta_t - \eta \nabla_\theta \mathcal{L}(\theta_t)",
    r"h_t = \tanh(W_h h_{t-1} + W_x x_t + b)",
    r"p(x) = \frac{1}{\sqrt{2\pi\sigma^2}} \exp\left(-\frac{(x-\mu)^2}{2\sigma^2}\right)",
    r"D_{\mathrm{KL}}(p \,\|\, q) = \sum_{x} p(x) \log \frac{p(x)}{q(x)}",
    r"\hat{y} = \arg\max_{c \in \mathcal{C}} p(c \mid x)",
    r"\|x\|_2 = \sqrt{\sum_{i=1}^{n} x_i^2}",
    r"s_{i,t} = \sigma(u_t^\top e_i)",
    (r"g_{i,t} = \begin{cases} s_{i,t}, & s_{i,t} \in \mathrm{Topk}(\{s_{j,t} \mid 1 \le j \le N\}, K) \\ 0, "
    r"& \text{otherwise} \end{cases}"),
    r"\mathbf{c}_t^{KV} = W^{DKV} \mathbf{h}_t",
    r"\mathrm{LayerNorm}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta",
    r"\mathrm{DyT}(x) = \gamma * \tanh(\alpha x) + \beta",
    r"m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \quad v_t = \beta_2 v_{t-1} + (1-\beta_2) g_t^2",
    r"\hat{m}_t = \frac{m_t}{1 - \beta_1^t}",
    r"\mathcal{L} = \frac{1}{N}\sum_{n=1}^{N} \| \epsilon - \epsilon_\theta(x_t, t) \|_2^2",
    r"x_t = \sqrt{\bar\alpha_t} x_0 + \sqrt{1 - \bar\alpha_t}\, \epsilon, \quad \epsilon \sim \mathcal{N}(0, I)",
    r"\nabla_x \log p_t(x) \approx s_\theta(x, t)",
    r"\frac{\partial \mathcal{L}}{\partial w} = \sum_{i} (y_i - \hat{y}_i) x_i",
    r"\int_0^1 f(x)\, dx \le \max_{x \in [0,1]} f(x)",
    r"A = U \Sigma V^\top, \quad \Sigma = \mathrm{diag}(\sigma_1, \dots, \sigma_r)",
    r"\mathrm{MultiHead}(Q, K, V) = \mathrm{Concat}(\mathrm{head}_1, \ldots, \mathrm{head}_h) W^O",
    r"\mathrm{FFN}(x) = \max(0, x W_1 + b_1) W_2 + b_2",
    r"PE_{(pos, 2i)} = \sin(pos / 10000^{2i / d_{\mathrm{model}}})",
    r"\pi^* = \arg\max_\pi \mathbb{E}_{\tau \sim \pi}\left[\sum_{t=0}^{T} \gamma^t r_t\right]",
    r"Q(s, a) \leftarrow Q(s, a) + \alpha \left[ r + \gamma \max_{a'} Q(s', a') - Q(s, a) \right]",
    r"A_t = \frac{r_t - \mathrm{mean}(\mathbf{r})}{\mathrm{std}(\mathbf{r})}",
    r"\mathbb{1}[y = \hat{y}]",
    r"\lvert \mathcal{S} \rvert = \binom{n}{k}",
    r"\prod_{i=1}^{n} p(x_i \mid \theta)",
    r"\lim_{n \to \infty} \frac{1}{n} \sum_{i=1}^{n} X_i = \mu",
    r"\left\lfloor \frac{n}{2} \right\rfloor + \lceil \log_2 n \rceil",
    r"\underbrace{a + b}_{\text{sum}} = \overbrace{c}^{\text{total}}",
    r"z \overset{\text{iid}}{\sim} \mathcal{N}(0, 1)",
    (r"\begin{bmatrix} a & b \\ c & d \end{bmatrix}^{-1} = \frac{1}{ad - bc}\begin{pmatrix} d & -b \\ -c & a"
    r"\end{pmatrix}"),
    r"\{ x \in \mathbb{R}^d : \|x\| \le 1 \}",
    r"f'(x) = \lim_{h \to 0} \frac{f(x + h) - f(x)}{h}",
    r"\min_G \max_D V(D, G)",
    r"y &= W x \\ &= \sum_j W_{:, j} x_j",
    r"\mathrm{CE}(p, y) = -\sum_{c=1}^{C} y_c \log p_c",
    r"\tilde{x} = x + \delta, \; \|\delta\|_\infty \le \epsilon",
    r"e^{i\pi} + 1 = 0",
    r"n! = \Gamma(n + 1)",
    r"\langle u, v \rangle = u^\top v",
    r"\mathbf{x}^{(l+1)} = \mathbf{x}^{(l)} + \mathrm{MLP}(\mathrm{LN}(\mathbf{x}^{(l)}))",
    r"\sigma(z)_i = \frac{e^{z_i}}{\sum_{j=1}^{K} e^{z_j}}",
    r"J(\theta) = \mathbb{E}_{s \sim d^\pi, a \sim \pi_\theta}[\nabla_\theta \log \pi_\theta(a|s) A(s,a)]",
    r"\operatorname*{arg\,min}_{w} \frac{\lambda}{2}\|w\|^2 + \sum_i \max(0, 1 - y_i w^\top x_i)",
    r"1.5 \times 10^{-3}",
)
"""Formulas written for the campaign (not copied from any paper), covering every kind of node."""


def example_formulas() -> list[str]:
    from papermath.latex import load_document
    return [eq.latex for eq in load_document(str(EXAMPLE)).equations]


@functools.lru_cache(maxsize=1)
def corpus_formulas() -> tuple[str, ...]:
    """Every display equation of the corpus papers (empty when ../shared is absent)."""
    if not CORPUS.is_dir():
        return ()
    from papermath.errors import PapermathError
    from papermath.latex import load_document
    out: list[str] = []
    for paper in sorted(CORPUS.iterdir()):
        try:
            out.extend(eq.latex for eq in load_document(str(paper)).equations)
        except PapermathError:
            continue
    return tuple(dict.fromkeys(out))


def corpus_papers() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


def all_formulas() -> list[str]:
    return list(dict.fromkeys([*SEED_FORMULAS, *example_formulas(), *corpus_formulas()]))
