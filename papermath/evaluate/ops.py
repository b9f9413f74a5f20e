"""The numeric operations an equation compiles to: NumPy implementation, NumPy code and PyTorch code.

A table, not an if-chain: each entry is (function, numpy template, torch template). Templates take the
arguments' code as `{0}`, `{1}`. Every operation is stable by construction (guide 002): softmax subtracts
the maximum, log-sum-exp adds it back, log σ(z) is computed as -log(1 + e^{-z}) without overflow.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


class _LazySpecial:
    """`scipy.special`, imported when a function of it is first called: importing it costs ~0.2–0.4 s, and most
    commands that import the evaluator's tables (shapes, read through shapes) never evaluate anything."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            from scipy import special as module
            return getattr(module, name)(*args, **kwargs)
        call.__name__ = call.__qualname__ = name
        return call


special = _LazySpecial()


def _kl(p: Any, q: Any) -> Any:
    p, q = np.asarray(p, float), np.asarray(q, float)
    return np.sum(special.rel_entr(p, q), axis=-1)


def _entropy(p: Any) -> Any:
    return -np.sum(special.xlogy(p, p), axis=-1)


@dataclass(frozen=True)
class Op:
    """One operation."""

    function: Callable[..., Any]
    """NumPy implementation."""
    numpy: str
    """NumPy code template."""
    torch: str
    """PyTorch code template."""
    elementwise: bool = True
    """Acts entry by entry (the output has the input's shape)."""
    label: str = ""
    """Words for the trace."""


OPS: dict[str, Op] = {
    "exp": Op(np.exp, "np.exp({0})", "torch.exp({0})", label="exponential"),
    "log": Op(np.log, "np.log({0})", "torch.log({0})", label="natural log"),
    "log2": Op(np.log2, "np.log2({0})", "torch.log2({0})", label="log to base 2"),
    "log10": Op(np.log10, "np.log10({0})", "torch.log10({0})", label="log to base 10"),
    "sqrt": Op(np.sqrt, "np.sqrt({0})", "torch.sqrt({0})"),
    "sigmoid": Op(special.expit, "expit({0})", "torch.sigmoid({0})", label="sigmoid 1/(1+e^-z)"),
    "logsigmoid": Op(special.log_expit, "log_expit({0})", "F.logsigmoid({0})",
                     label="log-sigmoid, computed without overflow"),
    "tanh": Op(np.tanh, "np.tanh({0})", "torch.tanh({0})"),
    "relu": Op(lambda x: np.maximum(x, 0.0), "np.maximum({0}, 0.0)", "torch.relu({0})"),
    "softplus": Op(lambda x: np.logaddexp(0.0, x), "np.logaddexp(0.0, {0})", "F.softplus({0})"),
    "silu": Op(lambda x: x * special.expit(x), "{0} * expit({0})", "F.silu({0})"),
    "gelu": Op(lambda x: 0.5 * x * (1 + special.erf(x / np.sqrt(2))), "0.5 * {0} * (1 + erf({0} / np.sqrt(2)))",
               "F.gelu({0})"),
    "sin": Op(np.sin, "np.sin({0})", "torch.sin({0})"),
    "cos": Op(np.cos, "np.cos({0})", "torch.cos({0})"),
    "abs": Op(np.abs, "np.abs({0})", "torch.abs({0})"),
    "sign": Op(np.sign, "np.sign({0})", "torch.sign({0})"),
    "floor": Op(np.floor, "np.floor({0})", "torch.floor({0})"),
    "ceil": Op(np.ceil, "np.ceil({0})", "torch.ceil({0})"),
    "neg": Op(np.negative, "-{0}", "-{0}"),
    "not": Op(lambda x: 1.0 - np.asarray(x, float), "1.0 - {0}", "1.0 - {0}"),
    "softmax": Op(lambda x: special.softmax(x, axis=-1), "softmax({0}, axis=-1)", "F.softmax({0}, dim=-1)",
                  elementwise=False, label="softmax over the last axis (max subtracted first)"),
    "log_softmax": Op(lambda x: special.log_softmax(x, axis=-1), "log_softmax({0}, axis=-1)",
                      "F.log_softmax({0}, dim=-1)", elementwise=False),
    "logsumexp": Op(lambda x: special.logsumexp(x, axis=0), "logsumexp({0}, axis=0)",
                    "torch.logsumexp({0}, dim=0)", elementwise=False,
                    label="log-sum-exp: max taken out, exponentials never exceed 1"),
    "mean": Op(lambda x: np.mean(x, axis=0), "np.mean({0}, axis=0)", "{0}.mean(0)", elementwise=False),
    "sum": Op(lambda x: np.sum(x, axis=0), "np.sum({0}, axis=0)", "{0}.sum(0)", elementwise=False),
    "var": Op(lambda x: np.var(x, axis=0), "np.var({0}, axis=0)", "{0}.var(0, unbiased=False)", elementwise=False),
    "std": Op(lambda x: np.std(x, axis=0), "np.std({0}, axis=0)", "{0}.std(0, unbiased=False)", elementwise=False),
    "norm": Op(lambda x: np.linalg.norm(x), "np.linalg.norm({0})", "torch.linalg.norm({0})", elementwise=False),
    "trace": Op(np.trace, "np.trace({0})", "torch.trace({0})", elementwise=False),
    "det": Op(np.linalg.det, "np.linalg.det({0})", "torch.linalg.det({0})", elementwise=False),
    "diag": Op(np.diag, "np.diag({0})", "torch.diag({0})", elementwise=False),
    "inverse": Op(np.linalg.inv, "np.linalg.inv({0})", "torch.linalg.inv({0})", elementwise=False),
    "transpose": Op(lambda x: np.swapaxes(x, -1, -2), "{0}.T", "{0}.T", elementwise=False),
    "kl": Op(_kl, "np.sum(rel_entr({0}, {1}), axis=-1)", "torch.sum(torch.special.xlogy({0}, {0}) - {0} * torch.log({1}), -1)",
             elementwise=False, label="KL divergence, 0 log 0 = 0"),
    "entropy": Op(_entropy, "-np.sum(xlogy({0}, {0}), axis=-1)", "-torch.sum(torch.special.xlogy({0}, {0}), -1)",
                  elementwise=False),
    "max2": Op(np.maximum, "np.maximum({0}, {1})", "torch.maximum({0}, {1})", label="entrywise max"),
    "min2": Op(np.minimum, "np.minimum({0}, {1})", "torch.minimum({0}, {1})", label="entrywise min"),
    "clip": Op(np.clip, "np.clip({0}, {1}, {2})", "torch.clamp({0}, {1}, {2})"),
    "identity": Op(lambda x: np.asarray(x, float), "{0}", "{0}", label="the identity (given with --fn)"),
    "cosine_similarity": Op(lambda a, b: np.sum(a * b, axis=-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)),
                            "np.sum({0} * {1}, axis=-1) / (np.linalg.norm({0}, axis=-1) * np.linalg.norm({1}, axis=-1))",
                            "F.cosine_similarity({0}, {1}, dim=-1, eps=0.0)", elementwise=False,
                            label="cosine similarity along the last axis"),
    "layer_norm": Op(lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5),
                     "({0} - np.mean({0}, axis=-1, keepdims=True)) / np.sqrt(np.var({0}, axis=-1, keepdims=True) + 1e-5)",
                     "F.layer_norm({0}, {0}.shape[-1:], eps=1e-5)", elementwise=False,
                     label="layer norm over the last axis (eps 1e-5, no learned scale or shift)"),
    "rmsnorm": Op(lambda x: x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + 1e-5),
                  "{0} / np.sqrt(np.mean({0} ** 2, axis=-1, keepdims=True) + 1e-5)",
                  "{0} / torch.sqrt(torch.mean({0} ** 2, dim=-1, keepdim=True) + 1e-5)", elementwise=False,
                  label="RMS norm over the last axis (eps 1e-5, scale 1)"),
    "l2_normalize": Op(lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True),
                       "{0} / np.linalg.norm({0}, axis=-1, keepdims=True)", "F.normalize({0}, dim=-1, eps=0.0)",
                       elementwise=False, label="unit length along the last axis"),
    "median": Op(lambda x: np.median(x, axis=0), "np.median({0}, axis=0)",
                 "torch.quantile(torch.as_tensor({0}, dtype=torch.float64), 0.5, dim=0)", elementwise=False,
                 label="median (the mean of the two middle entries when their number is even)"),
    "topk": Op(lambda x, k: np.sort(np.asarray(x, float), axis=-1)[..., ::-1][..., :int(k)],
               "np.sort({0}, axis=-1)[..., ::-1][..., :int({1})]",
               "torch.topk(torch.as_tensor({0}, dtype=torch.float64), int({1}), dim=-1).values", elementwise=False,
               label="the k largest members, largest first"),
}
"""Operation name → Op."""

NAMED_FUNCTIONS: dict[str, str] = {
    "identity": "identity", "relu": "relu", "sigmoid": "sigmoid", "logistic": "sigmoid", "tanh": "tanh",
    "softmax": "softmax", "log_softmax": "log_softmax", "exp": "exp", "log": "log", "softplus": "softplus",
    "gelu": "gelu", "silu": "silu", "swish": "silu", "log_sigmoid": "logsigmoid", "cosine_similarity": "cosine_similarity",
    "cosine": "cosine_similarity", "layer_norm": "layer_norm", "layernorm": "layer_norm", "rmsnorm": "rmsnorm",
    "rms_norm": "rmsnorm", "l2_normalize": "l2_normalize", "normalize": "l2_normalize", "abs": "abs",
}
"""`--fn NAME=KIND`: the kinds a person can give a function the equation applies (KIND → operation)."""

FUNCTION_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("logsigmoid", ("log-sigmoid", "log sigmoid", "logsigmoid")),
    ("sigmoid", ("sigmoid", "logistic function", "logistic sigmoid")),
    ("rmsnorm", ("rmsnorm", "rms norm", "root mean square norm")),
    ("layer_norm", ("layernorm", "layer norm", "layer normalization", "layer normalisation")),
    ("cosine_similarity", ("cosine similarit",)),
    ("log_softmax", ("log-softmax", "log softmax")),
    ("softmax", ("softmax",)),
    ("relu", ("relu", "rectified linear", "max(0,", "max(0 ,", "max(0")),
    ("gelu", ("gelu",)),
    ("silu", ("silu", "swish")),
    ("softplus", ("softplus",)),
    ("tanh", ("tanh", "hyperbolic tangent")),
    ("identity", ("identity function", "identity map")),
)
"""Words that name one of these functions in prose ("here we set it to be a ReLU", "sim computes the cosine
similarities"): first match wins, longer names first."""


def _clause_of(text: str, symbol: str) -> str | None:
    """The words of `text` from `symbol`'s first mention to the next `,`, `;` or full stop."""
    import re

    bare = re.sub(r"\\(?:operatorname|mathrm|text|mathit|mathbf|bm)\{([^{}]*)\}", r"\1", symbol).lstrip("\\")
    for needle in (symbol, bare):
        if not needle:
            continue
        position = text.find(needle)
        if position >= 0:
            rest = text[position + len(needle):]
            end = re.search(r"[,;]|\.(\s|$)", rest)
            return rest[:end.start()] if end else rest
    return None


@dataclass(frozen=True)
class EquationFunction:
    """A function another equation of the paper defines (`--fn 'DiffAttn=eq:1'`): computed from that equation,
    its parameters bound to the call's arguments."""

    label: str
    """The equation, as the paper numbers it (`(1)`)."""
    latex: str
    """Its LaTeX."""
    functions: frozenset[str] = frozenset()
    """Names the paper declares as operators (for parsing it)."""


def function_from_words(text: str, symbol: str | None = None) -> str | None:
    """The operation a sentence names for a function (`"φ is a ReLU"` → relu), or None. With `symbol`, only the
    words from the symbol's mention to the end of its clause count (a sentence that defines LN and Concat names
    RMSNorm for LN only); a sentence that does not mention the symbol names nothing for it."""
    if symbol is not None:
        text = _clause_of(text, symbol)
        if text is None:
            return None
    lowered = text.lower().replace(" ", " ")
    compact = lowered.replace(" ", "")
    for op, words in FUNCTION_WORDS:
        if any(word in lowered or word.replace(" ", "") in compact for word in words):
            return op
    return None

FUNCTION_NAMES: dict[str, str] = {
    "exp": "exp", "log": "log", "ln": "log", "lg": "log2", "sqrt": "sqrt", "sigma": "sigmoid",
    "sigmoid": "sigmoid", "sigm": "sigmoid", "tanh": "tanh", "relu": "relu", "ReLU": "relu", "softplus": "softplus",
    "SiLU": "silu", "silu": "silu", "Swish": "silu", "swish": "silu", "GELU": "gelu", "gelu": "gelu", "sin": "sin",
    "cos": "cos", "abs": "abs", "sign": "sign", "sgn": "sign", "softmax": "softmax", "Softmax": "softmax",
    "SoftMax": "softmax", "logsumexp": "logsumexp", "LSE": "logsumexp", "LogSumExp": "logsumexp",
    "mean": "mean", "Mean": "mean", "avg": "mean", "var": "var", "Var": "var", "std": "std", "Std": "std",
    "tr": "trace", "Tr": "trace", "trace": "trace", "det": "det", "diag": "diag", "Diag": "diag",
    "max": "max2", "min": "min2", "clip": "clip", "KL": "kl", "D_{KL}": "kl",
    "floor": "floor", "ceil": "ceil", "med": "median", "median": "median", "Median": "median",
    "Topk": "topk", "TopK": "topk", "topk": "topk", "Top-k": "topk",
}
"""A function's name as papers write it (macro or \\mathrm name, no backslash) → operation."""
