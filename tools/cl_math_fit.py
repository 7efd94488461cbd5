#!/usr/bin/env python3
"""Fits the polynomials of the OpenCL C math library's erf, erfc and tgamma
(sw/opencl/vmgpu_cl_builtins.h) and prints them as C float literals.

Each is Chebyshev interpolation of a smooth function on an interval (near-minimax for these
degrees), turned into a polynomial in (x - mid) for Horner's rule with fused multiply-adds; the
reference values are the host's double-precision libm (math.erf, math.erfc, math.gamma). The
printed worst relative error is that of the polynomial with its coefficients rounded to float,
evaluated exactly: the rounding of the float evaluation comes on top. Run it to check or refit:

    python3 tools/cl_math_fit.py
    python3 tools/cl_math_fit.py --check sw/opencl/vmgpu_cl_builtins.h   # ctest cl_math_fit_fresh

--check fails (exit 1) when a table in the header differs from what the fit gives now.
"""
import math
import struct


def f32(v):
    return struct.unpack('f', struct.pack('f', v))[0]


def c_float(v):
    """a float as a C hexadecimal float literal"""
    mant, exp = v.hex().split('p')
    return f'{mant[:mant.index(".") + 7]}p{exp}f'


def cheb_fit(f, a, b, n):
    """degree-n interpolant of f at the Chebyshev points of [a, b], as monomials in x - mid"""
    npts = n + 1
    nodes = [math.cos(math.pi * (k + 0.5) / npts) for k in range(npts)]
    fx = [f((b - a) / 2 * s + (a + b) / 2) for s in nodes]
    c = [2.0 / npts * sum(fx[k] * math.cos(math.pi * j * (k + 0.5) / npts) for k in range(npts))
         for j in range(npts)]
    c[0] /= 2
    cheb = [[1.0], [0.0, 1.0]]
    for j in range(2, npts):
        t = [0.0] * (j + 1)
        for i, v in enumerate(cheb[j - 1]):
            t[i + 1] += 2 * v
        for i, v in enumerate(cheb[j - 2]):
            t[i] -= v
        cheb.append(t)
    mono = [0.0] * npts
    for j in range(npts):
        for i, v in enumerate(cheb[j]):
            mono[i] += c[j] * v
    half = (b - a) / 2
    return [f32(mono[i] / half ** i) for i in range(npts)], (a + b) / 2


def worst_rel(f, co, mid, a, b, scale=None):
    worst = 0.0
    for i in range(4001):
        x = a + (b - a) * i / 4000
        p = sum(c * (x - mid) ** k for k, c in enumerate(co))
        ref = f(x)
        worst = max(worst, abs(p - ref) / abs(scale(x) if scale else ref))
    return worst


def erf_p1(z):
    """erf(x)/x - 1 as a function of z = x^2"""
    if z == 0:
        return 2 / math.sqrt(math.pi) - 1
    x = math.sqrt(z)
    return math.erf(x) / x - 1


def erfc_scaled(x):
    """erfc(x) e^(x^2): smooth, about 1/(x sqrt(pi)) for large x"""
    return math.erfc(x) * math.exp(x * x)


def lgamma_near(c):
    """lgamma(c + t) / t (c = 1 or 2, where lgamma is 0), a smooth function of t"""
    def f(t):
        if abs(t) < 1e-9:   # the limit: the digamma function at c
            return -0.5772156649015329 + (c - 1)
        return math.lgamma(c + t) / t
    return f


FITS = [
    # name (the header's table is __vmcl_<name>), function, interval, degree, error scale
    ('erf0', erf_p1, (0.0, 0.5625), 5, lambda z: 1 + erf_p1(z)),
    ('erfc_a', erfc_scaled, (0.75, 1.75), 8, None),
    ('erfc_b', erfc_scaled, (1.75, 3.0), 9, None),
    ('erfc_c', erfc_scaled, (3.0, 5.0), 8, None),
    ('erfc_d', erfc_scaled, (5.0, 10.1), 9, None),
    ('gamma12', lambda t: math.gamma(1 + t), (0.0, 1.0), 10, None),
    ('lgamma1', lgamma_near(1), (-0.5, 0.5), 15, None),
    ('lgamma2', lgamma_near(2), (-0.5, 0.5), 9, None),
]


def check(header):
    """1 when a table __vmcl_<name> of the header is missing or differs from the fit"""
    import re
    text = open(header).read()
    bad = 0
    for name, f, (a, b), n, scale in FITS:
        co, _ = cheb_fit(f, a, b, n)
        m = re.search(r'__vmcl_' + name + r'\[\d+\] = \{([^}]*)\}', text)
        have = [float.fromhex(v.strip().rstrip('f')) for v in m.group(1).split(',')] if m else None
        # one float ulp of slack: another libm may round a node's value differently
        if have is None or len(have) != len(co) or any(abs(h - c) > abs(c) * 2.0 ** -23
                                                        for h, c in zip(have, co)):
            print(f'{header}: __vmcl_{name} differs from the fit (run tools/cl_math_fit.py)')
            bad = 1
    return bad


def main():
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == '--check':
        sys.exit(check(sys.argv[2]))
    for name, f, (a, b), n, scale in FITS:
        co, mid = cheb_fit(f, a, b, n)
        w = worst_rel(f, co, mid, a, b, scale)
        print(f'/* __vmcl_{name}: [{a}, {b}], degree {n}, about {mid}; worst relative error {w:.2e} */')
        print(', '.join(c_float(c) for c in co))


if __name__ == '__main__':
    main()
