"""Small real projects (Python + pytest + pyright, JavaScript + node:test + tsc) used by tool tests."""

from __future__ import annotations

PY_BASE: dict[str, str | bytes] = {
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "src/calc/__init__.py": "",
    "src/calc/ops.py": (
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
        "\n"
        "\n"
        "def scale(items: list[int], k: int) -> list[int]:\n"
        "    return [i * k for i in items]\n"
        "\n"
        "\n"
        "BROKEN: int = 'already wrong'\n"
    ),
    "tests/test_ops.py": (
        "from calc.ops import add, scale\n"
        "\n"
        "\n"
        "def test_add():\n"
        "    assert add(2, 3) == 5\n"
        "\n"
        "\n"
        "def test_scale():\n"
        "    assert scale([1, 2], 3) == [3, 6]\n"
    ),
    "tests/test_red.py": "def test_red_on_base():\n    assert 1 == 2, 'red before the change'\n",
    "docs/notes.md": "add() adds two numbers.\n",
}

# Breaks add() (a test regression), adds a type error, adds a new failing test, leaves the red test red.
PY_HEAD: dict[str, str | bytes | None] = {
    "src/calc/ops.py": (
        "# a header comment shifts every line down\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a - b\n"
        "\n"
        "\n"
        "def scale(items: list[int], k: int) -> str:\n"
        "    return [i * k for i in items]\n"
        "\n"
        "\n"
        "BROKEN: int = 'already wrong'\n"
    ),
    "tests/test_new.py": "def test_new_and_red():\n    assert [] == [1]\n",
}

JS_BASE: dict[str, str | bytes] = {
    "package.json": '{"name": "m", "type": "module", "private": true}\n',
    "tsconfig.json": ('{"compilerOptions": {"allowJs": true, "checkJs": true, "noEmit": true, "strict": true,\n'
                      '  "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022",'
                      ' "skipLibCheck": true},\n "include": ["src/**/*.js", "test/**/*.js"]}\n'),
    "src/math.js": (
        "// @ts-check\n"
        "/** @param {number} a @param {number} b @returns {number} */\n"
        "export function mul(a, b) {\n"
        "  return a * b;\n"
        "}\n"
        "\n"
        "/** @type {string} */\n"
        "export const label = 'math';\n"
    ),
    "test/math.test.js": (
        "import test from 'node:test';\n"
        "import assert from 'node:assert/strict';\n"
        "import { mul } from '../src/math.js';\n"
        "\n"
        "test('mul multiplies', () => {\n"
        "  assert.equal(mul(3, 4), 12);\n"
        "});\n"
        "\n"
        "test('mul by zero', () => {\n"
        "  assert.equal(mul(3, 0), 0);\n"
        "});\n"
    ),
}

JS_HEAD: dict[str, str | bytes | None] = {
    "src/math.js": (
        "// @ts-check\n"
        "/** @param {number} a @param {number} b @returns {number} */\n"
        "export function mul(a, b) {\n"
        "  return a * b + 1;\n"
        "}\n"
        "\n"
        "/** @type {string} */\n"
        "export const label = 42;\n"
    ),
}
