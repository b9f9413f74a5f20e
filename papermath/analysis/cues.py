"""Cue tables: the words and notation that decide a symbol's role, a statement's kind, and a shape from the text.

Tables, not if-chains: each row is (what it decides, the pattern that decides it). The first row that
matches wins, so the order of rows is the priority.
"""
from __future__ import annotations

import re

# (role, cue pattern on the defining quote). Earlier rows win.
ROLE_CUES: tuple[tuple[str, re.Pattern], ...] = tuple((role, re.compile(pattern, re.I)) for role, pattern in (
    ("frozen model", r"\b(?:reference (?:model|policy)|frozen|teacher|pre-?trained (?:model|network)|old policy|"
                     r"fixed (?:model|network|policy)|target network)\b"),
    ("fixed setting", r"\b(?:hyper-?parameters?|constants?|temperature|coefficients?|(?:balance|scaling|scale|"
                      r"weighting|discount) factor|dimension(?:ality)?s?|numbers? of|learning rate|step size|"
                      r"threshold|margin|bias update speed|speed|rate|width|depth|size)\b"),
    ("random sample", r"\b(?:sampled|noise|random(?:ly)?|drawn|gaussian noise|perturbation)\b"),
    ("trained weight", r"\b(?:learnable|trainable|learned|learnt|parameters?|weights?|projection|"
                       r"embedding matrix|centroid|kernel|bias (?:term|vector)|gain)\b"),
    ("input data", r"\b(?:inputs?|tokens?|data(?:set)?|observations?|images?|prompts?|sequences?|sentences?|"
                   r"questions?|hidden states?|features?|activations?|labels?|targets?|quer(?:y|ies)|keys|values)\b(?![-])"),
))

# (kind, cue) decided from the relation operators.
RELATION_KINDS: tuple[tuple[str, frozenset[str], str], ...] = (
    ("definition", frozenset({":=", "\\triangleq", "\\coloneqq", "\\stackrel{def}{=}", "\\overset{def}{=}",
                              "\\doteq", "\\equiv"}), "{op} (is defined as)"),
    ("update rule", frozenset({"\\leftarrow", "\\gets", "\\mapsfrom"}), "{op} (assignment)"),
)
OBJECTIVE_WORDS = re.compile(r"\b(?:loss|objective|minimi[sz]e|maximi[sz]e|optimi[sz]ation problem|"
                             r"training objective|reward)\b", re.I)
BOUND_WORDS = re.compile(r"\b(?:bound|bounded|upper bound|lower bound|inequality|at most|at least)\b", re.I)
ESTIMATOR_WORDS = re.compile(r"\b(?:estimat\w*|unbiased|monte carlo|approximat\w*)\b", re.I)
FIT_WORDS = re.compile(r"\b(?:fit|fitted|empirical(?:ly)?|scaling law|regression|power law)\b", re.I)
CONSTRAINT_OPS = frozenset({"\\in", "\\le", "\\leq", "\\ge", "\\geq", "<", ">", "\\subset", "\\subseteq",
                            "\\notin", "\\ll", "\\gg", "\\leqslant", "\\geqslant", "\\neq", "\\ne"})
LOSS_NAME = re.compile(r"^(?:\\mathcal\{L\}|\\mathscr\{L\}|L|\\ell|J|\\mathcal\{J\}|\\mathcal\{R\})(?:_|\^|$)")

# Shape words in a defining quote: (pattern, shape).
SHAPE_WORDS: tuple[tuple[re.Pattern, tuple[str, ...]], ...] = (
    (re.compile(r"\bscalars?\b", re.I), ()),
    (re.compile(r"\bmatri(?:x|ces)\b", re.I), ("?", "?")),
    (re.compile(r"\bvectors?\b", re.I), ("?",)),
)
SHAPE_TUPLE = re.compile(r"\b(?:shape|size|dimensions?)\s*(?:of\s*)?\$?\s*[\[(]([^)\]$]+)[\])]", re.I)
OF_DIMENSION = re.compile(r"\b(?:of\s+)?(?:dimension|dimensionality|size|length)\s+\$([^$]+)\$", re.I)
D_DIMENSIONAL = re.compile(r"\$([^$]+)\$-dimensional", re.I)
