"""A JavaScript test the change renamed or deleted is removed, never a failure (real node --test in the sandbox,
the mechanical judge): tests are known by their title paths as tree-sitter reads them — describe blocks,
node:test subtests, and the suites under which titles are made at run time."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders import make_case
from showcause.service.inputs import open_snapshot, tool_context
from showcause.service.review import run_review

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py


NODE_SUM = {"package.json": '{"type": "module"}\n', "src/sum.js": "export function sum(a, b) {\n  return a + b;\n}\n"}
NODE_TESTS = ("import { describe, test } from 'node:test';\nimport assert from 'node:assert';\n"
              "import { sum } from '../src/sum.js';\n\ndescribe('sum', () => {\n"
              "  test('adds', () => {\n    assert.equal(sum(1, 2), 3);\n  });\n"
              "  test('adds zero', () => {\n    assert.equal(sum(0, 2), 2);\n  });\n});\n")


# node:test subtests: `t.test(…)` on the context of the test that holds them (remark's tests are written so).
SUBTESTS = ("import { test } from 'node:test';\nimport assert from 'node:assert';\n"
            "import { sum } from '../src/sum.js';\n\ntest('sum', async (t) => {\n"
            "  await t.test('adds', () => {\n    assert.equal(sum(1, 2), 3);\n  });\n"
            "  await t.test('adds zero', () => {\n    assert.equal(sum(0, 2), 2);\n  });\n});\n")
# Tests made in a loop in another describe block (flat's primitives): they cannot stand for `sum > adds`.
LOOPED = NODE_TESTS + ("\ndescribe('generated', () => {\n  for (const n of [1, 2]) {\n"
                       "    test(`n${n}`, () => assert.equal(sum(n, 0), n));\n  }\n});\n")
TWICE = NODE_TESTS + ("\ndescribe('sum again', () => {\n  test('adds', () => {\n"
                      "    assert.equal(sum(2, 2), 4);\n  });\n});\n")


@pytest.mark.parametrize(("before", "head"), [
    (NODE_TESTS, NODE_TESTS.replace("test('adds', ", "test('adds (renamed)', ")),
    (NODE_TESTS, NODE_TESTS.replace("describe('sum', ", "describe('sum of two', ")),
    (NODE_TESTS, NODE_TESTS.replace("  test('adds', () => {\n    assert.equal(sum(1, 2), 3);\n  });\n", "")),
    (TWICE, TWICE.replace("test('adds', ", "test('adds (renamed)', ", 1)),
    (SUBTESTS, SUBTESTS.replace("test('sum', ", "test('sum of two', ")),
    (SUBTESTS, SUBTESTS.replace("t.test('adds', ", "t.test('adds up', ")),
    (LOOPED, LOOPED.replace("test('adds', ", "test('adds (renamed)', ")),
], ids=["test-renamed", "describe-renamed", "test-deleted", "title-lives-on-in-another-describe",
        "parent-of-subtests-renamed", "subtest-renamed", "renamed-beside-a-loop-of-tests"])
def test_a_javascript_test_renamed_or_deleted_is_not_a_failure(tmp_path: Path, before: str, head: str):
    """A JavaScript test is known by its title path as tree-sitter reads it: `sum > adds` is not still defined
    because head has `sum > adds (renamed)`, `sum > adds zero` or `sum again > adds` (object-path and
    fastify in the oracle)."""
    base = {**NODE_SUM, "test/sum.test.js": before}
    changed = {"src/sum.js": "// Sums.\n" + NODE_SUM["src/sum.js"], "test/sum.test.js": head}
    case = make_case(tmp_path / "node", base, changed, checks={"tests": [], "typecheck": "none"})
    with open_snapshot(case=case) as snap:
        result = run_review(tool_context(snap), "mechanical")
    assert (result.verdict, result.claims) == ("KEEP", [])


def test_subtests_are_tests_under_their_parent_and_a_parent_is_a_suite():
    from showcause.tools.jstitles import title_paths

    source = (b"test('p', async (t: TestContext) => {\n  await t.test('a', () => {});\n"
              b"  await t.test('b', async (u) => { await u.test('deep', () => {}); });\n});\n"
              b"test('leaf', () => { expect(pattern.test(value)).toBe(true); });\n")
    assert title_paths("x.test.ts", source) == {("p", "a"), ("p", "b", "deep"), ("leaf",)}
    made = b"test('p', async (t) => { for (const n of [1, 2]) await t.test(`n${n}`, () => {}); });\n"
    assert title_paths("x.test.js", made) is None   # titles made at run time: the file cannot say
