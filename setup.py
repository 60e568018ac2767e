"""Build hook: compiles the hot core of the engine with mypyc.

The engine, its events and the default row choice are plain, strictly typed
Python; mypyc turns them into C extensions, about twice as fast, with the
same behaviour (the test suite runs against the compiled build). Set
``NIMMT_PURE=1`` to install the pure-Python package instead.
"""

from __future__ import annotations

import os

from setuptools import setup

COMPILED = ["src/nimmt/events.py", "src/nimmt/engine.py", "src/nimmt/defaults.py"]

ext_modules = []
if os.environ.get("NIMMT_PURE") != "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED, opt_level="3")

setup(ext_modules=ext_modules)
