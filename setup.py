"""The optional C modules (issue 37: npjax/_core/_hostpath*.c, the host route; issue 35:
npjax/_core/_aligned.c, NumPy memory XLA's CPU backend reads in place; issue 33:
npjax/_runtime/_finite.c, the finiteness screen of a result in host memory): built by
``pip install -e .`` where a C compiler is present; without one the install goes on and npjax
runs its pure-Python members (``npjax/_core/_array_base.py``) and NumPy's own allocator."""

from setuptools import Extension, setup

# The host route's module is one extension of several C files (``_hostpath.c`` lists them).
HOSTPATH = ["_hostpath.c", "_hostpath_helpers.c", "_hostpath_operators.c", "_hostpath_access.c",
            "_hostpath_calls.c", "_hostpath_ufuncs.c"]
modules = [Extension("npjax._core._hostpath", [f"npjax/_core/{name}" for name in HOSTPATH],
                     depends=["npjax/_core/_hostpath.h"], optional=True),
           Extension("npjax._runtime._finite", ["npjax/_runtime/_finite.c"], optional=True)]
try:
    import numpy
except ImportError:  # (no NumPy headers: the aligned allocator is left out)
    numpy = None
if numpy is not None:
    modules.append(Extension("npjax._core._aligned", ["npjax/_core/_aligned.c"],
                             include_dirs=[numpy.get_include()], optional=True))

setup(ext_modules=modules)
