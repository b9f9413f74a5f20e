"""Cue tables: the words and notation that decide a symbol's role, a statement's kind, and a shape from the text.

Tables, not if-chains: each row is (what it decides, the pattern that decides it). The first row that
matches wins, so the order of rows is the priority.
"""
from __future__ import annotations

import re
from functools import lru_cache

from ..math import operators as O

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
    ("definition", O.kinded(O.RELATION, "definition"), "{op} (is defined as)"),
    ("update rule", O.kinded(O.RELATION, "update rule"), "{op} (assignment)"),
)
OBJECTIVE_WORDS = re.compile(r"\b(?:loss|objective|minimi[sz]e|maximi[sz]e|optimi[sz]ation problem|"
                             r"training objective|reward)\b", re.I)
BOUND_WORDS = re.compile(r"\b(?:bound|bounded|upper bound|lower bound|inequality|at most|at least)\b", re.I)
ESTIMATOR_WORDS = re.compile(r"\b(?:estimat\w*|unbiased|monte carlo|approximat\w*)\b", re.I)
FIT_WORDS = re.compile(r"\b(?:fit|fitted|empirical(?:ly)?|scaling law|regression|power law)\b", re.I)
MEMBERSHIP_OPS = O.kinded(O.RELATION, "constraint")
CONSTRAINT_OPS = O.kinded(O.RELATION, "bound or constraint") | MEMBERSHIP_OPS
ESTIMATE_OPS = O.kinded(O.RELATION, "estimator")
"""Relations by the kind of statement they make, from the operator spec (`papermath.math.operators`): an
inequality is a bound or a constraint, a membership a constraint, ≈ an estimate."""
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
# "a $d \times d$ square matrix", "$D\times D$ symmetric positive definite matrices": the size written before the noun
MATRIX_SIZE = re.compile(r"\$\s*([^$]+?)\s*\\times\s*([^$]+?)\s*\$(?:[\s-]+[A-Za-z-]+){0,4}?\s+matri(?:x|ces)\b")


# --- roles from the words attached to the symbol -------------------------------------------------------------
# What the sentence says the symbol undergoes ("are set by the schedule", "is sampled from", "predicted by a
# network") decides before what it is called: "the parameters γ_t and σ_t are set by the variance schedule" is a
# fixed setting although "parameters" alone would name trained weights.
PREDICATE_ROLES: tuple[tuple[str, re.Pattern], ...] = tuple((role, re.compile(pattern, re.I)) for role, pattern in (
    ("frozen model", r"\b(?:frozen|kept fixed during training|not (?:updated|trained))\b"),
    ("fixed setting", r"\b(?:(?:is|are|was|were|be)\s+(?:set|fixed|chosen)\b|set\s+(?:to|by|as)\b|"
                      r"(?:pre-?)?specified|pre-?defined|determined by the (?:\w+\s+)?schedule|hyper-?parameters?|"
                      r"(?:does|do)\s+not\s+change|remains?\s+(?:fixed|constant|unchanged)|kept\s+(?:fixed|constant))\b"),
    ("random sample", r"\b(?:(?:is|are)\s+)?(?:sampled|drawn|randomly\s+(?:chosen|selected|initiali[sz]ed))\b"),
    # the data as a preprocessing step encodes it ("the latent tokens obtained by inputting the image to the
    # VQ-encoder"): still the data the method starts from, though a fixed encoder produced it
    ("input data", r"\b(?:obtained|produced|extracted)\s+by\s+(?:inputting|feeding|passing|encoding|tokeni[sz]ing)\s+"
                   r"(?:the\s+|an?\s+|each\s+)?(?:input\s+|raw\s+)?(?:images?|data|inputs?|texts?|sentences?|videos?|"
                   r"audio)\b"),
    ("computed", r"\b(?:predicted|produced|output|computed|obtained|generated|estimated)\s+by\b|"
                 r"\bresults?\s+(?:of|after)\s+applying\b|"
                 r"\b(?:derived|calculated|computed|estimated)\s+(?:from|using|via)\b|"
                 r"\b(?:the\s+)?outputs?\s+of\b"),
    ("trained weight", r"\b(?:learn(?:ed|t|able)|trainable|optimi[sz]ed|trained|updated by gradient)\b"),
))
# The head of the symbol's own noun phrase ("a momentum parameter", "the step size", "a fixed dataset"):
# (role, words that may precede the head, head nouns). Earlier rows win.
HEAD_ROLES: tuple[tuple[str, re.Pattern], ...] = tuple((role, re.compile(pattern, re.I)) for role, pattern in (
    ("frozen model", r"\b(?:reference|pre-?trained|frozen|teacher|old|target|base)\s+(?:\w+\s+)?(?:model|network|"
                     r"policy|encoder|decoder|denoiser|checkpoint)s?\b"),
    # a count ("the number of layers", "the number of timesteps") or the end of the steps ("the final time step")
    # is a setting, whatever is counted, though a time step alone is an index or a layer a function; first, and with
    # what is counted, since "number of" alone would end the match before the head noun
    ("fixed setting", r"\b(?:numbers?\s+of(?:\s+[\w-]+){1,4}|"
                      r"(?:total|final|last|maximum|max|terminal)\s+(?:\w+\s+)?time\s*-?\s*steps?|"
                      # the step a run stops at ("the optimization stopping step", "the stopping time"): a horizon
                      r"stopping\s+(?:time\s*-?\s*)?(?:steps?|times?|iterations?)|"
                      r"(?:null|empty|mask|masked|padding|special)\s+(?:conditions?|tokens?|embeddings?|inputs?|"
                      r"labels?|states?)|"
                      r"(?:momentum|learning\s+rate|step\s*-?\s*size|temperature)\s+(?:parameters?|coefficients?|"
                      r"terms?|values?|weights?)|weights?\s+terms?|weighting\s+terms?|schedul(?:e|es|ing)\s+functions?|hyper-?parameters?|momentum|learning\s+rates?|step\s*-?\s*sizes?|stepsizes?|"
                      r"temperatures?|coefficients?|(?:balance|balancing|scaling|scale|weighting|discount|decay|"
                      r"trade-?off|interpolation|guidance|regulari[sz]ation)\s+(?:factors?|parameters?|terms?|"
                      r"weights?|coefficients?|scales?|strengths?)|thresholds?|margins?|constants?|"
                      r"(?:loss\s+)?weights?\s+(?:of|put\s+(?:into|on))\s+the\s+(?:[\w-]+\s+){1,3}loss|"
                      r"dimensions?|dimensionality|"
                      r"numbers?\s+of|budgets?|horizons?|schedules?|warm-?up|(?:linear\s+)?decay|"
                      r"guidance\s+scale|scales?|widths?|depths?|lengths?|batch\s+sizes?|ranks?|radius|"
                      r"(?:noise\s+)?levels?|variances?\s+schedule|vocabular(?:y|ies))\b"),
    ("random sample", r"\b(?:noises?|gaussian\s+noise|random\s+(?:variables?|samples?|vectors?|noise|"
                      r"perturbations?|masks?)|perturbations?|samples?\s+from|draws?|"
                      r"(?:noisy|noised|random|generated|fresh|monte\s+carlo|sampled)\s+samples?|"
                      r"nois(?:y|ed)\s+(?:data|versions?|images?|inputs?|latents?|tokens?|observations?)|"
                      # the states a diffusion runs through ("a sequence of data in the diffusion process"): noised
                      r"(?:data|samples?|states?|latents?|variables?)\s+(?:in|of|along)\s+the\s+(?:\w+\s+)?"
                      r"(?:diffusion|forward|noising|reverse|denoising)\s+process(?:es)?)\b"),
    ("trained weight", r"\b(?:matri(?:x|ces)\s+(?:used\s+)?to\s+(?:produce|project|compute|map|transform)|"
                       r"(?:learnable|trainable|learned|model|network|actor|critic|policy)\s+"
                       r"(?:\w+\s+)?(?:parameters?|weights?)|parameters?|weights?|weight\s+matri(?:x|ces)|"
                       r"(?:projection|embedding)\s+(?:matri(?:x|ces)|layers?)|(?:up|down)-projection|"
                       r"projections?|kernels?|bias(?:es)?|gains?|centroids?|codebooks?)\b"),
    ("input data", r"\b(?:data(?:sets?|\s+points?|\s+samples?)?|datapoints?|inputs?|observations?|images?|"
                   r"prompts?|documents?|corpus|corpora|sentences?|questions?|labels?|ground[- ]truth|"
                   r"(?:training|test|testing|validation|held-?out|unlearning|forget|retain|calibration|evaluation)\s+"
                   r"(?:sets?|splits?|examples?)|examples?|conditions?|condition\s+signals?|tokens?|"
                   r"trajector(?:y|ies)|states?|actions?|(?:self-)?position|locations?)\b(?![-])"),
    # a time the process runs through ("two arbitrary timesteps", "a continuous time variable"): an index, unless
    # the predicate or the display draws it ("we sample a time step $t$", `t \\sim U[0, 1]`)
    ("index", r"\b(?:time\s*-?\s*steps?|time\s+variables?|time\s+ind(?:ex|ices))\b"),
    ("computed", r"\b(?:(?:(?:first|second)[- ]order\s+)?(?:partial\s+)?derivatives?|gradients?|"
                 r"normali[sz]ation\s+(?:factors?|constants?|terms?)|normali[sz]ers?|partition\s+functions?|"
                 r"signal-to-noise\s+ratios?|scores?)\b"),
    ("function", r"\b(?:functions?|networks?|models?|operators?|operations?|maps?|mappings?|distributions?|"
                 r"densit(?:y|ies)|pdfs?|polic(?:y|ies)|encoders?|decoders?|transformations?|layers?|"
                 r"nonlinearit(?:y|ies)|activations?|kernels?\s+functions?|estimators?|predictors?|"
                 r"processes|process)\b"),
))
_HEAD_END = re.compile(r"\s(?:of|for|that|which|who|with|in|on|to|from|by|at|when|where|while|used|"
                       r"such|between|over|under|via|as|and\s+the)\b|[,;:(]", re.I)


# A statistic of something ("the standard deviation of the logits", "the mean of the mixture"): computed from it.
_STATISTIC = (r"(?:standard\s+deviations?|means?|averages?|sums?|norms?|variances?|medians?|maxim(?:um|a)|"
              r"minim(?:um|a)|quantiles?(?:\s+ranges?)?|logarithms?|log|ratios?|differences?|products?)")
# "the mean and variance of the input" (two statistics of one thing, the symbols named in order) counts too.
STATISTIC_OF = re.compile(r"^\s*(?:the|a|an|its|their)?\s*(?:empirical\s+|sample\s+|running\s+|total\s+)?"
                          + _STATISTIC + r"(?:\s*(?:,|and|or)\s*(?:the\s+)?" + _STATISTIC + r")*\s+of\b", re.I)


@lru_cache(maxsize=8192)  # pure; a reading asks it of the same descriptions again and again
def role_from_description(description: str | None, clause: str = "") -> tuple[str, str, str] | None:
    """The role the words attached to a symbol give it: the predicate first, then the head of its noun phrase,
    then the rest of its description. `description` is the definiens; `clause` the predicate that follows the
    symbol ("are set by the variance schedule"). Returns (role, cue, "predicate" or "head")."""
    text = re.sub(r"\$[^$]*\$", " ", description or "")
    rest = re.sub(r"\$[^$]*\$", " ", clause or "")
    for role, pattern in PREDICATE_ROLES:
        m = pattern.search(rest) or pattern.search(text)
        if m:
            return role, m.group(0).strip(), "predicate"
    statistic = STATISTIC_OF.match(text)
    if statistic:
        return "computed", statistic.group(0).strip(), "head"
    cut = _HEAD_END.search(text)
    head = text[:cut.start()] if cut else text
    # The head noun is the last word of the phrase before its complements ("noise scheduling function" is a
    # function, "two weight terms" settings): of the rows that match there, the one that reaches furthest right
    # wins; on a tie (a compound both rows know: "momentum parameter") the earlier row.
    best: tuple[int, int, str, str] | None = None
    for rank, (role, pattern) in enumerate(HEAD_ROLES):
        for m in pattern.finditer(head):
            key = (m.end(), -rank)
            if best is None or key > best[:2]:
                best = (m.end(), -rank, role, m.group(0).strip())
    if best is not None and best[2] == "input data" and _CONDITION_OF_A_TIME.search(text):
        # "the condition for the forward process timestep": what conditions the model here is the time step, an
        # index (the condition's complement names what it is)
        return "index", _CONDITION_OF_A_TIME.search(text).group(0).strip(), "head"  # type: ignore[union-attr]
    if best is not None:
        return best[2], best[3], "head"
    # Then the whole description: a count or a size ("the number of tokens": a count, whatever it counts); a row
    # that starts at the head noun ("the matrix used to produce the key"); what a container or a part is made of
    # ("a pair of a partial point cloud and its ground-truth", "two patches from the images"). The complement of
    # any other head belongs to another thing ("the fraction of T-shirts observed from sampling images" is no
    # image): no role from it.
    container = _CONTAINER_HEAD.search(head.strip())
    for role, pattern in HEAD_ROLES:
        m = pattern.search(text)
        if m and (role == "fixed setting" or container is not None or m.start() < len(head.rstrip())):
            return role, m.group(0).strip(), "head"
    return None


_CONDITION_OF_A_TIME = re.compile(r"\bconditions?\s+(?:for|of|on)\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?"
                                 r"(?:time\s*-?\s*steps?|time\s+variables?|noise\s+levels?)\b", re.I)
_CONTAINER_HEAD = re.compile(r"\b(?:pairs?|triplets?|tuples?|sets?|subsets?|collections?|batch(?:es)?|groups?|lists?|"
                             r"sequences?|series|patch(?:es)?|crops?|parts?|pieces?|segments?|chunks?|windows?|"
                             r"regions?|portions?|copies|copy|versions?|kinds?|types?)$", re.I)
