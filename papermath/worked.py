"""The code of the guides' worked readings: about ten lines of NumPy each, with shape comments.

Each worked reading (`papermath/data/readings/*.json`) names one of these functions; `papermath reading NAME`
prints its source, and the tests run it on the guide's hand-worked numbers. They are our code, kept short
enough to read next to the equation — not a library API.
"""
from __future__ import annotations

import math

import numpy as np


def attention(q, k, v, allowed=None):
    """One head. q: [n, dk], k: [m, dk], v: [m, dv], allowed: bool [n, m]."""
    scores = q @ k.T / np.sqrt(q.shape[1])  # [n, m]
    if allowed is not None:
        if not allowed.any(axis=1).all():
            raise ValueError("every query needs at least one allowed key")
        scores = np.where(allowed, scores, -np.inf)
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1, keepdims=True)  # rows sum to 1
    return weights @ v, weights  # [n, dv], [n, m]


def softmax_logsumexp(z):
    """z: [m] scores. Softmax weights and log-sum-exp, both with the largest score subtracted first."""
    m = z.max()                       # the largest score
    shifted = np.exp(z - m)           # every entry <= 1: no overflow
    weights = shifted / shifted.sum()  # [m], sums to 1; the shift cancels
    lse = m + np.log(shifted.sum())   # the shift is added back
    return weights, lse


def sequence_nll(token_probs):
    """token_probs: [T] conditional probabilities p(y_t | y_<t). Chain rule and per-token NLL."""
    log_probs = np.log(token_probs)   # [T]
    log_p = log_probs.sum()           # log of the product = sum of the logs
    p = np.exp(log_p)                 # p(y): the product of the factors
    nll = -log_probs.mean()           # -(1/T) sum_t log p(y_t | y_<t)
    return p, log_p, nll


def cross_entropy_entropy(p, q):
    """p, q: [K] distributions over the same outcomes (p the target). H(p, q), H(p) and their gap."""
    cross = -(p * np.log(q)).sum()                                 # H(p, q)
    nonzero = p > 0                                                # 0 log 0 = 0
    ent = -(p[nonzero] * np.log(p[nonzero])).sum()                 # H(p)
    return cross, ent, cross - ent                                 # the gap is KL(p || q)


def kl_forward_reverse(p, q):
    """p (target), q (model): [K]. Forward KL(p || q) and reverse KL(q || p); infinite where one misses."""
    def kl(a, b):
        terms = np.zeros_like(a)
        on = a > 0                                                 # 0 log 0 = 0
        with np.errstate(divide="ignore"):
            terms[on] = a[on] * (np.log(a[on]) - np.log(b[on]))   # a_i > 0, b_i = 0 gives +inf
        return terms.sum()
    return kl(p, q), kl(q, p)


def dpo_loss(pi_w, pi_l, ref_w, ref_l, beta=0.1):
    """All log probabilities, shape [batch]. DPO: -mean log sigmoid(beta * (chosen - rejected log-ratio))."""
    margin = beta * ((pi_w - ref_w) - (pi_l - ref_l))  # [batch]
    loss = np.logaddexp(0.0, -margin).mean()          # -log sigmoid(m) = log(1 + e^-m), computed stably
    return margin, loss


def grpo_ppo_advantages(rewards, values):
    """rewards: [G] for G answers to one question; values: [G] a value model's predictions (PPO).
    GRPO normalizes within the group; np.std divides by n, torch.std by n - 1."""
    centered = rewards - rewards.mean()
    grpo_n = centered / rewards.std()               # np.std: divides by n (ddof=0)
    grpo_n_minus_1 = centered / rewards.std(ddof=1)  # torch.std: divides by n - 1
    ppo = rewards - values                          # reward minus the value model's baseline
    return grpo_n, grpo_n_minus_1, ppo


def answer_vs_token_average(losses):
    """losses: a list of G per-token arrays, one per answer (lengths differ). GRPO vs DAPO averaging."""
    per_answer = np.mean([l.mean() for l in losses])   # (1/G) sum_i (1/|o_i|) sum_t l_it
    per_token = np.concatenate(losses).mean()         # (1 / sum_i |o_i|) sum_i sum_t l_it
    answer_weights = np.array([1 / (len(losses) * len(l)) for l in losses])  # each token's weight
    token_weight = 1 / sum(len(l) for l in losses)
    return per_answer, per_token, answer_weights, token_weight


def pass_at_k(n, c, k):
    """n samples, c correct: 1 - C(n-c, k) / C(n, k), as a product that never forms the binomials."""
    if n - c < k:
        return 1.0                     # every set of k samples contains a correct one
    return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))


def log_mean_vs_mean_log(probs):
    """probs: [N] probabilities of the correct outputs. Mean of the logs vs log of the mean (Jensen)."""
    mean_log = np.log(probs).mean()    # the usual: log each, then average
    log_mean = np.log(probs.mean())    # average first, then log
    return -mean_log, -log_mean        # as losses: 1.20 vs 0.69 for (0.9, 0.1)


def gradient_descent_step(theta, eta):
    """theta: [2]. One step on L(theta) = theta_1^2 + 3 theta_2^2."""
    def loss(t):
        return t[0] ** 2 + 3 * t[1] ** 2
    grad = np.array([2 * theta[0], 6 * theta[1]])  # [dL/dtheta_1, dL/dtheta_2]
    new = theta - eta * grad                       # theta <- theta - eta * grad
    return grad, new, loss(theta), loss(new)


def conditional_probability(n, n_a, n_b, n_ab):
    """Counts out of n: A, B, and both. P(A|B), P(B|A), and the independence test P(A)P(B) vs P(A and B)."""
    p_a, p_b, p_ab = n_a / n, n_b / n, n_ab / n
    a_given_b = p_ab / p_b             # among the B cases, the share that are A
    b_given_a = p_ab / p_a             # swapping event and condition: a different number
    bayes = b_given_a * p_a / p_b      # Bayes' rule gives P(A|B) back
    return a_given_b, b_given_a, bayes, p_ab, p_a * p_b


def accuracy_by_indicators(pred, label):
    """pred, label: [N] class names. The indicators 1[y_hat_i = y_i], their sum (a count) and mean."""
    hits = (pred == label).astype(float)  # [N] booleans used as numbers
    return hits, hits.sum(), hits.mean()


def binomial_coefficient(n, k):
    """n choose k, directly and as n! / (k! (n-k)!)."""
    by_factorials = math.factorial(n) // (math.factorial(k) * math.factorial(n - k))
    return math.comb(n, k), by_factorials


def uniform_density(low, high, a, b):
    """X uniform on [low, high]: its density, P(a <= X <= b) as an area, the log density, the total area."""
    density = 1.0 / (high - low)                      # probability per unit of x
    prob = density * (min(b, high) - max(a, low))     # height times width
    return density, prob, np.log(density), density * (high - low)


def moe_balance_loss(scores, k_r, alpha):
    """scores: [N_r, T] affinities s_{i,t} (bias excluded). DeepSeek-V3's sequence-wise balance loss."""
    n_r, t = scores.shape
    top = np.argsort(-scores, axis=0)[:k_r]                         # [K_r, T] the top-K_r experts per token
    chosen = np.zeros_like(scores)
    np.put_along_axis(chosen, top, 1.0, axis=0)                     # 1(s_{i,t} in Topk)
    f = n_r / (k_r * t) * chosen.sum(axis=1)                        # [N_r]
    p = (scores / scores.sum(axis=0, keepdims=True)).mean(axis=1)   # [N_r] mean normalized score s'
    return f, p, alpha * (f * p).sum()
