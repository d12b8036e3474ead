"""pytest plugin loaded inside the sandbox: unittest's `load_tests` protocol, which pytest ignores.

A test module that defines `load_tests` may add tests that `python -m unittest` runs and pytest never
collects, most often its doctests (`tests.addTests(doctest.DocTestSuite(module))`). For each collected
module that defines it, this plugin adds a collector named `load_tests` that calls
`load_tests(loader, <empty suite>, None)` and holds one item per test it returns that is not a method of
the module's own TestCase classes (pytest collects those itself), named by the test's unittest id: so
`tests/test_x.py::load_tests::pkg.mod.func` can be run on its own. Each item runs its unittest test case
and fails, errors or skips as unittest says. A `load_tests` that raises is the collector's error.
"""

import unittest

import pytest


class LoadTestsFailure(Exception):
    """What unittest reported for the case (its traceback text)."""


class LoadTestsItem(pytest.Item):
    def __init__(self, *, case, **kwargs):
        super().__init__(**kwargs)
        self._case = case

    def runtest(self):
        result = unittest.TestResult()
        self._case.run(result)
        problems = result.failures + result.errors + [(t, "unexpected success") for t in result.unexpectedSuccesses]
        if problems:
            raise LoadTestsFailure(problems[0][1])
        if result.skipped:
            pytest.skip(result.skipped[0][1])

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, LoadTestsFailure):
            lines = [ln for ln in str(excinfo.value).strip().splitlines() if ln.strip()]
            return "\n".join([*lines[-20:], _summary(lines)])   # the report's message is the last line
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, self.name


def _summary(lines):
    """One line: a doctest's example with what it expected and got, else the exception's last line."""
    if "Failed example:" in lines:
        at = lines.index("Failed example:")
        example = lines[at + 1].strip() if at + 1 < len(lines) else ""
        parts = {"Expected:": [], "Got:": []}
        current = None
        for line in lines[at + 2 :]:
            if line.strip() in parts:
                current = parts[line.strip()]
            elif current is not None:
                current.append(line.strip())
        got = " ".join(parts["Got:"]) or "nothing"
        return f"{example}: expected {' '.join(parts['Expected:']) or 'nothing'}, got {got}"[:300]
    return lines[-1] if lines else "failed"


def _tests(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from _tests(test)
        else:
            yield test


class LoadTests(pytest.Collector):
    def collect(self):
        module = getattr(self.parent, "obj", None)
        if module is None:
            return []
        extra = [t for t in _tests(module.load_tests(unittest.TestLoader(), unittest.TestSuite(), None))
                 if type(t).__module__ != module.__name__]
        items = {}
        for test in extra:
            items.setdefault(test.id(), LoadTestsItem.from_parent(self, name=test.id(), case=test))
        return list(items.values())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if not isinstance(collector, pytest.Module) or report.outcome != "passed":
        return
    module = getattr(collector, "obj", None)
    if callable(getattr(module, "load_tests", None)):
        report.result.append(LoadTests.from_parent(collector, name="load_tests"))
