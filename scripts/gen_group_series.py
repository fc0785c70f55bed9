#!/usr/bin/env python3
"""Taylor coefficients of the scalar functions in src/groups/so3.hpp (series branches).

Each function f(t) of the rotation angle t = |u| is even in t, so it is evaluated as
sum_k c_k (t^2)^k by Horner's rule for t < kSeriesThreshold. The coefficients are exact
rationals (sympy Bernoulli numbers, factorials), printed as correctly rounded doubles.
Run:  python3 scripts/gen_group_series.py   (needs sympy); paste the output into so3.hpp.
The tests (tests/unit/test_groups_so3.cpp) check every function against an independent
long-double evaluation on both sides of the threshold.
"""
from fractions import Fraction as F
from math import factorial

import sympy
import sys
if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):  # the docstring is the usage
    print(__doc__.strip())
    sys.exit(0)


def bernoulli(n):
    b = sympy.bernoulli(n)
    if n == 1:  # sympy >= 1.12 returns +1/2; liebench uses B_1 = -1/2
        b = sympy.Rational(-1, 2)
    return F(int(b.p), int(b.q))


def fmt(x):
    return repr(float(x))


def table(name, coeffs, doc):
    print(f"/// {doc}")
    print(f"inline constexpr std::array<double, {len(coeffs)}> {name} = {{")
    for c in coeffs:
        print(f"    {fmt(c)},")
    print("};")


N_ENTIRE = 13  # terms of the sin/cos series (|t| < 2.5: truncation < 1e-17 relative)
N_COT = 22     # terms of the cot series (radius 2 pi; |t| < 2.5: truncation < 1e-17 relative)

table("kTMinusSinOverT3", [F((-1) ** k, factorial(2 * k + 3)) for k in range(N_ENTIRE)],
      "(t - sin t)/t^3 = sum_k (-1)^k t^(2k) / (2k+3)!")
table("kDexpG1Tilde", [F((-1) ** k * 2 * k, factorial(2 * k + 2)) for k in range(1, N_ENTIRE + 1)],
      "g1'(t)/t for g1 = (1 - cos t)/t^2:  sum_{k>=1} (-1)^k 2k t^(2k-2) / (2k+2)!")
table("kDexpG2Tilde", [F((-1) ** k * 2 * k, factorial(2 * k + 3)) for k in range(1, N_ENTIRE + 1)],
      "g2'(t)/t for g2 = (t - sin t)/t^3:  sum_{k>=1} (-1)^k 2k t^(2k-2) / (2k+3)!")
N_SHORT = 8    # terms of the short series below t = 0.25 (truncation < 1e-22 relative)
table("kSincShort", [F((-1) ** k, factorial(2 * k + 1)) for k in range(N_SHORT)],
      "sin(t)/t = sum_k (-1)^k t^(2k) / (2k+1)!, the first 8 terms (t < 0.25 only: exp_coefficients)")
table("kOneMinusCosOverT2Short", [F((-1) ** k, factorial(2 * k + 2)) for k in range(N_SHORT)],
      "(1 - cos t)/t^2 = sum_k (-1)^k t^(2k) / (2k+2)!, the first 8 terms (t < 0.25 only)")
c = [(-1) ** (k + 1) * bernoulli(2 * k) / factorial(2 * k) for k in range(1, N_COT + 2)]
table("kDexpinvG2", c[:N_COT],
      "(1 - (t/2)cot(t/2))/t^2 = sum_{k>=1} (-1)^(k+1) B_2k/(2k)! t^(2k-2)")
table("kDexpinvG2Tilde", [c[k - 1] * (2 * k - 2) for k in range(2, N_COT + 2)],
      "g2'(t)/t for the g2 above:  sum_{k>=2} (-1)^(k+1) B_2k/(2k)! (2k-2) t^(2k-4)")
print("/// B_k / k! for k = 0..16 (bernoulli.hpp)")
print(", ".join(fmt(bernoulli(k) / factorial(k)) for k in range(17)))
