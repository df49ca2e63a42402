"""A tool-using math environment: the policy may call `calculator` with an arithmetic
expression and reads the result; a turn without a tool call is its final answer, which the
task's verifier (math) scores.

The expression is evaluated from its syntax tree (numbers, + - * / // % **, parentheses), never
with eval: the policy's text is untrusted. Powers are bounded so `9**9**9` cannot hold a worker.
"""

from __future__ import annotations

import ast
import operator

from payload.envs.base import ToolEnvironment, Step
from payload.envs.tool_calls import MalformedToolCall, first_tool_call, tool_message

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
MAX_EXPONENT = 256
MAX_EXPRESSION_CHARS = 512


class CalculatorError(ValueError):
    pass


def evaluate(expression: str) -> int | float:
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise CalculatorError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise CalculatorError(f"not an arithmetic expression: {expression!r}") from None

    def value(node: ast.AST) -> int | float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](value(node.operand))
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = value(node.left), value(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
                raise CalculatorError(f"exponent {right} is larger than {MAX_EXPONENT}")
            try:
                return _BINARY[type(node.op)](left, right)
            except (ZeroDivisionError, OverflowError) as exc:
                raise CalculatorError(str(exc)) from None
        raise CalculatorError(f"unsupported syntax: {ast.unparse(node)!r}")

    return value(tree.body)


class CalculatorEnvironment(ToolEnvironment):
    name = "calculator"

    def step(self, action: str) -> Step:
        try:
            call = first_tool_call(action)
        except MalformedToolCall as exc:
            return Step([tool_message(f"error: {exc}")])
        if call is None:
            return Step(done=True)
        if call.name != "calculator":
            return Step([tool_message(f"error: unknown tool {call.name!r}; the only tool is calculator")])
        expression = call.arguments.get("expression")
        if not isinstance(expression, str):
            return Step([tool_message('error: calculator takes {"expression": "<arithmetic>"}')])
        try:
            return Step([tool_message(str(evaluate(expression)))])
        except CalculatorError as exc:
            return Step([tool_message(f"error: {exc}")])
