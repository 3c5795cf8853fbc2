#!/usr/bin/env python3
"""The generator's evaluator on the cases the H200 runs taught it (tests/difftest/README.md):
programs without one answer on the GPU are rejected (and redrawn), and an inexact output is
bounded by the coarsest type its values were computed in."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tlgen  # noqa: E402


def evaluator():
    """An evaluator with no program: enough for one expression or one store's bookkeeping."""
    e = tlgen.Evaluator.__new__(tlgen.Evaluator)
    e.inexact, e.inexact_precision, e.sh = set(), {}, {}
    return e


def rejects(fn):
    try:
        fn()
    except tlgen.Reject:
        return True
    return False


def main():
    failures, checks = [], [0]

    def expect(condition, what):
        checks[0] += 1
        if not condition:
            failures.append(what)

    e = evaluator()
    # -(-32768) in int16: ptxas widens the negation, so Triton and tilec give +32768.
    env = {"x": tlgen.T((2,), "int16", [5, -32768])}
    expect(rejects(lambda: e.expr(("un", "-", "x", "int16"), env)),
           "unary minus of int16's minimum is not rejected")
    env = {"x": tlgen.T((2,), "int16", [5, -32767])}
    expect(e.expr(("un", "-", "x", "int16"), env).data == [-5, 32767],
           "unary minus of ordinary int16 values")
    env = {"x": tlgen.T((1,), "int32", [-2 ** 31])}
    expect(e.expr(("un", "-", "x", "int32"), env).data == [-2 ** 31],
           "unary minus of int32's minimum wraps (32-bit registers: no widening)")

    # int8 dots: Triton's mma saturates partial sums that leave int32, in the hardware's order.
    a = tlgen.T((1, 2), "int8", [100, 100])
    b = tlgen.T((2, 1), "int8", [100, 100])
    big = tlgen.T((1, 1), "int32", [2 ** 31 - 10000])
    small = tlgen.T((1, 1), "int32", [7])
    env = {"a": a, "b": b, "big": big, "small": small}
    expect(rejects(lambda: e.dot(("dot", "a", "b", "big", "int8", "int32", "ieee"), env)),
           "an int8 dot whose partial sums may overflow int32 is not rejected")
    expect(e.dot(("dot", "a", "b", "small", "int8", "int32", "ieee"), env).data == [20007],
           "an int8 dot within int32")

    # An fp32 value stored into an fp64 buffer keeps fp32's bound.
    e.mark_inexact("o", "float32")
    e.mark_inexact("o", "float64")
    expect(e.inexact_precision["o"] == "float32", "fp32 into fp64: bound of fp32")
    e.mark_inexact("p", "float64")
    e.mark_inexact("p", "bfloat16")
    expect(e.inexact_precision["p"] == "bfloat16", "the coarsest type wins")
    expect(e.inexact == {"o", "p"}, "inexact outputs recorded")

    # A sum whose lowest bit underflows fp64 is inexact (it divided by zero before).
    total, exact = tlgen.exact_sum([1e-300 * 1e-20, 1.0], "float64")
    expect(not exact and math.isclose(total, 1.0), "sum of a tiny fp64 value and 1.0")

    for failure in failures:
        print("FAIL:", failure)
    print(f"evaluator_test: {checks[0] - len(failures)} of {checks[0]} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
