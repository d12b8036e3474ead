"""`sitecustomize` of a sandboxed pytest run (its directory is on PYTHONPATH; copied there as sitecustomize.py).

It appends a directory of links to showcause's pytest, pytest-timeout and the packages they import to the
END of sys.path: a project whose environment has its own pytest (or its own pluggy, iniconfig, packaging …)
imports those, and only what it lacks comes from showcause. Nothing is installed into its environment.
Then the environment's own sitecustomize, if it has one, runs as it would have.
"""

import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(_HERE, "_showcause_pytest"))


def _chain():
    others = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


_chain()
