"""pytest plugin loaded inside the sandbox: one JSON line per test outcome, written as tests finish.

Written line by line (not at session end) so that a run killed by the timeout still reports what ran. Test
ids are made relative to the copy's root (``SHOWCAUSE_ROOT``), whatever directory pytest took as its rootdir
(a monorepo package's own). With ``SHOWCAUSE_COLLECTED`` set, the files pytest collected are written there,
every file pytest made a collector for (a module with no tests included) to ``considered.jsonl`` beside it,
and the plugins it loaded from the tree (conftests, ``pytest_plugins``, ``-p``) to ``plugins.jsonl``;
``pytest.json`` beside the report says which pytest ran and whether it was showcause's (appended to sys.path
by the run's sitecustomize) or the project's own. ``shadowed.json`` beside it names the tree's own top-level
modules that the run imported from outside the tree (an installed copy of the project): then the tests did
not test the tree.
"""

import json
import os
import platform
import sys

_PATH = os.environ.get("SHOWCAUSE_REPORT", "")
_ROOT = os.environ.get("SHOWCAUSE_ROOT", "")
_COLLECTED = os.environ.get("SHOWCAUSE_COLLECTED", "")
_seen = {}
_prefix = [""]


def _emit(nodeid, outcome, message):
    if not _PATH:
        return
    if nodeid and not nodeid.startswith("<"):
        nodeid = _prefix[0] + nodeid
    with open(_PATH, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": nodeid, "outcome": outcome, "message": message[:400]}) + "\n")


def _message(report):
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    if crash is not None and getattr(crash, "message", ""):
        return crash.message.strip().splitlines()[0]
    text = getattr(report, "longreprtext", "") or ""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def _relative(path):
    rel = os.path.relpath(str(path), _ROOT) if _ROOT else str(path)
    return "" if rel == "." or rel.startswith("..") else rel.replace(os.sep, "/")


def pytest_load_initial_conftests(early_config, parser, args):
    # pytest-timeout, the project's own when its environment has it (loaded by its entry point), else the
    # module the run's sitecustomize makes importable: registered before the command line is parsed, so
    # `--timeout` is known.
    manager = early_config.pluginmanager
    if not (manager.has_plugin("timeout") or manager.has_plugin("pytest_timeout")):
        manager.import_plugin("pytest_timeout")


def pytest_configure(config):
    root = getattr(config, "rootpath", None) or getattr(config, "rootdir", "")
    rel = _relative(root)
    _prefix[0] = rel + "/" if rel else ""
    if not _PATH:
        return
    import pytest

    mine = os.path.join(os.path.dirname(os.path.abspath(_PATH)), "_showcause_pytest") + os.sep
    info = {"pytest": str(getattr(pytest, "__version__", "?")), "python": platform.python_version(),
            "injected": os.path.abspath(pytest.__file__).startswith(mine)}
    with open(os.path.join(os.path.dirname(_PATH), "pytest.json"), "w", encoding="utf-8") as fh:
        json.dump(info, fh)


def pytest_collection_finish(session):
    if not _COLLECTED:
        return
    files = {_relative(getattr(item, "path", None) or item.fspath) for item in session.items}
    with open(_COLLECTED, "a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(f) + "\n" for f in sorted(files) if f)
    plugins = {_relative(getattr(p, "__file__", None) or "..") for p in session.config.pluginmanager.get_plugins()}
    with open(os.path.join(os.path.dirname(_COLLECTED), "plugins.jsonl"), "a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(f) + "\n" for f in sorted(plugins) if f)


def pytest_collectstart(collector):
    # A file collector of any kind (Module, DoctestModule, a plugin's): the files whose content decides what
    # they hold, as opposed to files pytest never looked into.
    if not _COLLECTED:
        return
    import pytest

    if isinstance(collector, pytest.File):
        rel = _relative(collector.path)
        if rel:
            with open(os.path.join(os.path.dirname(_COLLECTED), "considered.jsonl"), "a", encoding="utf-8") as fh:
                fh.write(json.dumps(rel) + "\n")


def pytest_collectreport(report):
    if report.failed:
        _emit(report.nodeid or "<collection>", "error", _message(report))
    elif report.skipped and report.nodeid:   # a module skipped as a whole still reports, as skipped
        _emit(report.nodeid, "skipped", _message(report))


def pytest_runtest_logreport(report):
    nodeid = report.nodeid
    if report.when == "setup" and report.failed:
        _seen[nodeid] = "error"
        _emit(nodeid, "error", _message(report))
    elif report.when == "setup" and report.skipped:
        _seen[nodeid] = "skipped"
        _emit(nodeid, "skipped", _message(report))
    elif report.when == "call":
        outcome = "failed" if report.failed else "skipped" if report.skipped else "passed"
        if _seen.get(nodeid) == "failed":   # a subtest of it failed (`self.subTest`, pytest's subtests): so did it
            return
        _seen[nodeid] = outcome
        _emit(nodeid, outcome, _message(report) if report.failed else "")
    elif report.when == "teardown" and report.failed and _seen.get(nodeid) == "passed":
        _emit(nodeid, "error", _message(report))


def _tree_names():
    """The top-level modules and packages of the tree's import roots (its root, ``src``, and every entry of
    sys.path inside it), by name; the standard library's always win, in the project's own runs too."""
    root = os.path.realpath(_ROOT)
    places = {root, os.path.join(root, "src")}
    places.update(os.path.realpath(p) for p in sys.path if p and _inside(os.path.realpath(p), root))
    names = set()
    for place in places:
        try:
            entries = os.listdir(place)
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(".py") and entry[:-3].isidentifier():
                names.add(entry[:-3])
            elif entry.isidentifier() and os.path.isfile(os.path.join(place, entry, "__init__.py")):
                names.add(entry)
    return names - set(getattr(sys, "stdlib_module_names", ()))


def _inside(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def pytest_sessionfinish(session):
    if not (_PATH and _ROOT):
        return
    root = os.path.realpath(_ROOT)
    shadowed = []
    for name in sorted(_tree_names()):
        found = getattr(sys.modules.get(name), "__file__", None)
        if found and not _inside(os.path.realpath(found), root):
            shadowed.append({"module": name, "file": found})
    if shadowed:
        with open(os.path.join(os.path.dirname(_PATH), "shadowed.json"), "w", encoding="utf-8") as fh:
            json.dump(shadowed, fh)
