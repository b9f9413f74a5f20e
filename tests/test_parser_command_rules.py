"""The parser's command rules: a table (`_COMMAND_RULES`) routes each command token to the rules that claim it, in
order; a rule may pass the token on. Each row: a formula whose first token is the command, the node it becomes
and the role the parser gives it."""
import pytest

from papermath.errors import MathParseError
from papermath.math import ast as A
from papermath.math import tables as T
from papermath.math.parser import _COMMAND_DISPATCH, _COMMAND_RULES, NULL_CLOSE, NULL_OPEN, Parser, \
    room_for_nesting


def _first(formula: str) -> tuple[A.Node, str]:
    parser = Parser(formula)
    with room_for_nesting():
        return parser._command()


@pytest.mark.parametrize("formula, node_type, role", [
    ("\\alpha", A.Symbol, "plain"),
    ("\\mathbf{x}", A.Symbol, "plain"),
    ("\\hat{x}", A.Symbol, "plain"),
    ("\\frac{a}{b}", A.Frac, "plain"),
    ("\\frac{d f}{d x}", A.Derivative, "plain"),
    ("\\binom{n}{k}", A.Binom, "plain"),
    ("\\sqrt[3]{x}", A.Root, "plain"),
    ("\\sum", A.Symbol, "bigop"),
    ("\\max", A.Symbol, "limop"),
    ("\\arg\\max", A.Symbol, "limop"),
    ("\\arg", A.Symbol, "func"),
    ("\\log", A.Symbol, "func"),
    ("\\cdots", A.Ellipsis_, "plain"),
    ("\\nabla", A.Symbol, "nabla"),
    ("\\partial x", A.Differential, "plain"),
    ("\\partial_x", A.Symbol, "plain"),
    ("\\mathop{\\sum}", A.Symbol, "bigop"),
    ("\\underbrace{x}_{a}", A.Annotated, "plain"),
    ("\\overset{a}{x}", A.Annotated, "plain"),
    ("\\neg", A.Symbol, "plain"),
    ("\\%", A.Symbol, "plain"),
    ("\\cup_{i}", A.Symbol, "bigop"),
    ("\\cdot", A.Symbol, "plain"),
    ("\\leq", A.Symbol, "plain"),
])
def test_each_command_rule_builds_its_node(formula, node_type, role):
    node, got_role = _first(formula)
    assert isinstance(node, node_type), node
    assert got_role == role


def test_a_rule_that_passes_hands_the_token_to_the_next():
    """`\\cup` with no script is not a big operator: the prefix rule passes it to the placeholder-operator rule."""
    node, role = _first("\\cup x")
    assert (type(node), role) == (A.Symbol, "plain")
    # `\\{` alone in a formula is the delimiter named in prose; followed by more, it opens a group.
    assert isinstance(_first("\\{")[0], A.Symbol)
    assert not isinstance(_first("\\{ a \\}")[0], A.Symbol)


@pytest.mark.parametrize("formula, message", [
    ("\\rangle x", "unexpected \\rangle"),
    ("\\over", "outside a { } group"),
    (NULL_CLOSE, "without \\left"),
])
def test_misplaced_commands_are_errors_with_their_name(formula, message):
    with pytest.raises(MathParseError, match=message.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")):
        _first(formula)


def test_every_table_the_rules_name_is_routed():
    """Every command a table names reaches the rule for that table (nothing falls through to 'unknown')."""
    routed = set(_COMMAND_DISPATCH)
    for names in (T.GREEK, T.FONTS, T.ACCENTS, T.FRACTIONS, T.BIG_OPERATORS, T.LIMIT_OPERATORS,
                  T.FUNCTION_MACROS, T.ELLIPSES, T.NABLA, T.STACK_MACROS, T.BRACES, T.INFIX_GENFRAC):
        assert {"\\" + name for name in names} <= routed
    assert {NULL_OPEN, NULL_CLOSE} <= routed
    # a token claimed by two tables keeps the table order: a Greek letter is a letter first
    assert _COMMAND_DISPATCH["\\alpha"][0] is _COMMAND_RULES[0][1]
