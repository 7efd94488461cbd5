"""A few lines shared by the python ctests: checks that count, and a closing line ctest reads.

Each test file is a plain script run by the virtual environment's Python (scripts/setup.sh makes
it) with LD_LIBRARY_PATH naming vmgpu's libcuda, so NVIDIA's cuda-bindings load vmgpu as their
driver exactly as they would load NVIDIA's. Every check prints one line; the last line is
"N passed, N failed", and the exit status is nonzero when anything failed.
"""
import sys
import traceback

_passed = 0
_failed = 0


def check(what, cond, detail=""):
    global _passed, _failed
    if cond:
        _passed += 1
        print("ok   %s" % what)
    else:
        _failed += 1
        print("FAIL %s %s" % (what, detail))
    return cond


def expect(what, result, want):
    """result: what a cuda.bindings call returned (a tuple whose first item is a CUresult)."""
    err = result[0] if isinstance(result, tuple) else result
    return check("%s -> %s" % (what, getattr(want, "name", want)), err == want,
                 "(got %s)" % getattr(err, "name", err))


def ok(result, what="call"):
    """The values of a successful call (the tuple after its CUresult); raises otherwise."""
    from cuda.bindings import driver as cu
    if not isinstance(result, tuple):
        result = (result,)
    if result[0] != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError("%s failed: %s" % (what, result[0]))
    rest = result[1:]
    return rest[0] if len(rest) == 1 else rest


def run(cases):
    """Runs each case (a function); an exception counts as one failure."""
    for case in cases:
        print("# %s" % case.__name__)
        try:
            case()
        except Exception:
            check(case.__name__ + " ran to the end", False)
            traceback.print_exc(file=sys.stdout)
    print("%d passed, %d failed" % (_passed, _failed))
    sys.exit(1 if _failed else 0)
