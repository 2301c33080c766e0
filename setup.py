"""The optional C module of the host route (npjax/_core/_hostpath.c, issue 37): built by
``pip install -e .`` where a C compiler is present; without one the install goes on and npjax
runs its pure-Python members (``npjax/_core/_array_base.py``)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("npjax._core._hostpath", ["npjax/_core/_hostpath.c"],
                             optional=True)])
