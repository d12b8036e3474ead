# pyright: strict
"""The sandbox and review policy as one typed model: sections, keys, defaults and a description of each.

The defaults are defined here only: `sandbox/policy.toml` and docs/configuration.md are generated from
this model (`make docs`, `showcause.policy.doc`). `Policy.merged` applies a policy document, key by
key in its own section; a key outside a section or under another one is an InputError naming its section.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, cast, get_args

from annotated_types import Ge, Le
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from showcause.core.errors import InputError
from showcause.core.globmatch import compile_glob

__all__ = ["LEVELS", "RENAMED", "SAFE_LEVELS", "SECTIONS", "AnalysisSection", "OutputSection", "PathsSection",
           "Policy", "ProcessSection", "ReviewSection", "SandboxSection", "SearchSection", "SymbolsSection",
           "TelemetrySection", "TestsSection", "Tighten", "choices", "tightening", "users_own"]

# The isolation levels `[process] isolation` may name; the sandbox (sandbox/levels.py) implements them.
SAFE_LEVELS = ("bwrap", "unshare")   # strongest first; both hide the host
LEVELS = ("auto", *SAFE_LEVELS, "none")

# How a repository's own config may change a key (`tighter_only`); "lower" unless the key says otherwise;
# "never": the key is the user's alone (it names host paths the sandbox shows).
Tighten = Literal["lower", "higher", "subset", "safe level", "any", "never"]


def _tighten(rule: Tighten, choices: tuple[str, ...] = (), *, why: str = "", instead: str = "") -> dict[str, Any]:
    """Field arguments: how a repository may change the key, and the values it may take (for the reference);
    for a "never" key, why it is the user's alone and what sets it instead of a file."""
    extra: dict[str, Any] = {"tighten": rule, **({"choices": list(choices)} if choices else {})}
    if why:
        extra.update(why=why, instead=instead)
    return {"json_schema_extra": extra}


def _extra(field: FieldInfo, name: str) -> object:
    """One of the field arguments `_tighten` gave a key, or None."""
    extra = field.json_schema_extra   # ours are dicts; pydantic also allows a callable
    return None if extra is None or callable(extra) else extra.get(name)


def users_own(field: FieldInfo) -> tuple[str, str]:
    """(why, what sets it instead) of a key only the user may set."""
    why, instead = _extra(field, "why"), _extra(field, "instead")
    return (why if isinstance(why, str) and why else "it chooses which host directories are bound into the sandbox",
            instead if isinstance(instead, str) and instead else "`--python`")


def tightening(field: FieldInfo) -> Tighten:
    """The way a repository's config may move `field`: lower it, raise it, drop names, name a level, anything."""
    rule = _extra(field, "tighten")
    return next((r for r in get_args(Tighten) if r == rule), "lower")


def choices(field: FieldInfo) -> list[str]:
    """The values a key may take, where the model lists them (for the reference); else none."""
    found = _extra(field, "choices")
    return [str(c) for c in cast("list[object]", found)] if isinstance(found, list) else []


class _Section(BaseModel):
    # strict: an integer key refuses 2.5 and true, a string key refuses 3 (TOML gives each its own type).
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


class PathsSection(_Section):
    """What read_file reads and returns."""

    max_file_bytes: int = Field(default=2_000_000, gt=0, description="read_file refuses larger files.")
    max_read_lines: int = Field(default=200, gt=0, description="Lines returned per read_file call.")
    max_line_chars: int = Field(default=400, gt=0, description=(
        "Longer lines are cut, and say so (read_file, search, find_symbol)."))


class OutputSection(_Section):
    """How much of a tool's output a model is shown."""

    max_chars: int = Field(default=6000, gt=0, description=(
        "Characters of one tool output shown to a model; the rest is cut, with advice to narrow."))
    max_search_hits: int = Field(default=40, gt=0, description=(
        "Hits one search call returns (the total is still counted)."))
    max_list_files: int = Field(default=200, gt=0, description="Paths one list_files call returns.")
    max_symbol_hits: int = Field(default=60, gt=0, description="Hits one find_symbol call returns.")


class SearchSection(_Section):
    """ripgrep, run on the host for search, list_files and the check of retired names."""

    timeout_s: float = Field(default=10.0, gt=0, description="Wall clock per ripgrep call, in seconds.")
    max_pattern_chars: int = Field(default=1000, gt=0, description="search refuses a longer pattern.")


class AnalysisSection(_Section):
    """showcause itself reads the trees on the host: comments and strings blanked, names counted, sources
    parsed by tree-sitter (linear scanners; each parse has a time limit). What these caps leave out, when it
    could hide evidence, is a WARNING claim of the review, never a silent gap."""

    max_analysis_bytes: int = Field(default=4_000_000, gt=0, description=(
        "A larger file is not analysed: hand-written code and config is far smaller."))
    analysis_budget_s: float = Field(default=30.0, gt=0, description=(
        "Seconds of host-side analysis per review; what is left when it runs out is skipped."))


class ProcessSection(_Section):
    """Processes that run the repository's code (tests, type checkers), each in the sandbox."""

    timeout_s: float = Field(default=60.0, gt=0, description=(
        "Wall clock per process call (tests, type checkers), in seconds."))
    kill_grace_s: float = Field(default=2.0, gt=0, description=(
        "Accepted for older configs; it has no effect: a process past its time is killed at once (SIGKILL to "
        "its process group)."))
    cpu_s: int = Field(default=120, gt=0, description="CPU seconds per process (RLIMIT_CPU).")
    test_memory_mb: int = Field(default=2048, gt=0, description=(
        "Address space of a test runner, in MiB (RLIMIT_AS)."))
    typecheck_memory_mb: int = Field(default=4096, gt=0, description=(
        "Address space of a type checker, in MiB: pyright's node needs about 4 GiB."))
    file_size_mb: int = Field(default=64, gt=0, description=(
        "Largest file a process may write, in MiB (RLIMIT_FSIZE)."))
    tmpfs_mb: int = Field(default=256, ge=8, description=(
        "Memory-backed files one sandboxed process may hold in all, in MiB: its /tmp (three quarters), /dev/shm "
        "and home (an eighth each) are tmpfs mounts of those sizes and the rest of its root is read-only, so a "
        "write past them fails with ENOSPC inside the sandbox and nothing on the host grows, with or without a "
        "memory cgroup."))
    open_files: int = Field(default=1024, gt=0, description="Open files per process (RLIMIT_NOFILE).")
    max_processes: int = Field(default=256, gt=0, description=(
        "Processes at once, in a pids cgroup where the host allows one (RLIMIT_NPROC does not bind root)."))
    max_output_bytes: int = Field(default=1_000_000, gt=0, description=(
        "Bytes kept per output stream; the rest is read and discarded."))
    test_timeout_s: int = Field(default=30, gt=0, description=(
        "Seconds per test (pytest-timeout, node --test-timeout)."))
    env_allow: tuple[str, ...] = Field(
        default=("LANG", "LC_ALL", "TZ", "TERM"), strict=False, **_tighten("subset"),
        description="Variables passed through to sandboxed processes; everything else is dropped.")
    typecheck_needs_setup: bool = Field(default=True, description=(
        "The mechanical judge's differential typecheck checks Python only where the project has a type-checking "
        "set-up (pyrightconfig.json, `[tool.pyright]`/`[tool.mypy]`, mypy.ini, setup.cfg `[mypy]`, `py.typed` or "
        "`.pyi`), and the review says when it did not; off, every project's Python is checked. A repository's "
        "config may only turn it off."))
    isolation: str = Field(default="auto", **_tighten("safe level", LEVELS), description=(
        "`auto`: the first level that hides the host, bubblewrap, else unshare (user, mount, PID and network "
        "namespaces and a minimal root); where neither works, nothing of the repository runs "
        "(SANDBOX_UNAVAILABLE). `bwrap` or `unshare` insist on one level; `none` (no isolation at all) only "
        "from --isolation or the user's --config."))

    @field_validator("isolation")
    @classmethod
    def _a_level(cls, value: str) -> str:
        if value not in LEVELS:
            raise ValueError(f"must be {', '.join(LEVELS[:-1])} or {LEVELS[-1]}")
        return value


class ReviewSection(_Section):
    """The budget of a model-driven review (evidence_gate, the one-pass baselines, decisions; `blind_*` for
    blind_first on a repository change) and the thresholds of the blindness check of blind modes."""

    max_tool_calls: int = Field(default=10, gt=0, description=(
        "Tool calls per review; then one forced final turn with tools disabled (its tool calls are refused, "
        "not run)."))
    max_review_tokens: int = Field(default=60_000, gt=0, description=(
        "Prompt and completion tokens of all calls, hard: a call whose prompt estimate plus its completion "
        "limit cannot fit is not made (BUDGET_EXCEEDED)."))
    max_completion_tokens: int = Field(default=8_000, gt=0, description=(
        "Completion tokens per call; an answer cut there is OUTPUT_TRUNCATED."))
    review_timeout_s: float = Field(default=300.0, gt=0, description=(
        "Wall clock per review, in seconds, also bounding the processes tools start (TIMEOUT)."))
    max_turns: int = Field(default=16, gt=0, description="Model calls per review (BUDGET_EXCEEDED).")
    blind_max_review_tokens: int = Field(default=100_000, gt=0, description=(
        "blind_first on a repository change: the tokens its two phases share (phase 1 at most 40%)."))
    blind_review_timeout_s: float = Field(default=420.0, gt=0, description=(
        "blind_first on a repository change: the wall clock its two phases share, in seconds."))
    blind_max_turns: int = Field(default=24, gt=0, description=(
        "blind_first on a repository change: the model calls its two phases share."))
    blindness_warn: float = Field(default=0.15, ge=0, le=1, description=(
        "Share of the proposal's word 5-grams found in the fields a blind phase sees at which the result "
        "carries a warning (lower is stricter)."))
    blindness_leak: float = Field(default=0.5, gt=0, le=1, description=(
        "The share at which a blind review is refused (BLINDNESS_LEAK; lower is stricter)."))


class SymbolsSection(_Section):
    """The symbol index (find_symbol, the import graph)."""

    symbol_worker_min_files: int = Field(default=500, ge=0, **_tighten("higher"), description=(
        "Files of a symbol-index load extracted in showcause's own process before worker processes share the "
        "rest; workers also start only on cores that were idle meanwhile. 0: a worker for every load, on any "
        "host (tests force them so). A repository's config may only raise it."))


class TestsSection(_Section):
    """Which tests run_test may run when a case does not list its tests, how often a suspected regression
    is re-run, and how run_probe runs a probe."""

    discover: tuple[str, ...] = Field(
        default=("tests/test_*.py", "tests/**/test_*.py", "test/*.test.js", "test/**/*.test.js", "test/*.test.mjs"),
        strict=False, **_tighten("any"), description=(
            "Globs of the allowlist discovery, relative to the root, for runners with no collection of their own "
            "(node --test). Python tests are the files pytest itself collects; the `.py` globs here stand in only "
            "where pytest's collection fails as a whole."))

    @field_validator("discover")
    @classmethod
    def _readable_globs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unread = [g for g in value if compile_glob(g) is None]
        if unread:
            raise ValueError(f"cannot read the glob {unread[0]!r} (at most 300 characters, 64 brace or extglob "
                             "variants, no `!(…)` or `{a..b}`)")
        return value

    pytest_args: tuple[str, ...] = Field(default=(), strict=False, max_length=32, **_tighten("any"), description=(
        "Options given to every pytest run, collection included, as the project's CI passes them on its command "
        "line (for example `[\"--doctest-modules\"]`): options only, since which files run is collection's "
        "and selection's. Its pytest config's own `addopts` apply without this."))

    @field_validator("pytest_args")
    @classmethod
    def _options_only(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [a for a in value if not a.startswith("-") or a == "--" or len(a) > 300 or "\x00" in a]
        if bad:
            raise ValueError(f"{bad[0]!r} is not an option (each starts with '-', at most 300 characters; `--` and "
                             "file arguments are not taken)")
        return value

    reuse_collection: bool = Field(default=True, description=(
        "Take head's pytest collection from base's cached one when the change cannot alter it (no config file "
        "but a pyproject.toml with the same pytest settings, no conftest.py or plugin pytest loaded from the "
        "tree, no added .py file, no file pytest found no test in on base), so a warm review starts no "
        "collection process on head. Off for a repository whose hooks "
        "decide what to collect from other modules' code or content. A repository's config may only turn it "
        "off."))

    test_reruns: int = Field(default=2, ge=0, description=(
        "Re-runs, on each tree, of a test that failed on head and passed on base, before it can block: it is a "
        "regression only if it failed every run on head and passed every run on base; a test whose outcome "
        "differs between runs of one tree is flaky (a WARNING). With 2, a test failing half the time at random "
        "blocks at most 1 review in 64: 3 failures on head and 3 passes on base, (1/2)^6. 0: one run each. A "
        "repository's config may only lower it."))

    probe_runs: int = Field(default=3, gt=0, description=(
        "Runs, on each tree, of a probe (`run_probe`: a test file the judge writes, added to throw-away copies "
        "of base and head): enough for a flaky probe to show differing outcomes. A repository's config may only "
        "lower it."))

    probe_max_bytes: int = Field(default=20_000, gt=0, description=(
        "The largest probe `run_probe` takes, in bytes of its UTF-8 text."))


class SandboxSection(_Section):
    """The project's own environment the sandboxed processes use (docs/sandbox.md)."""

    python: str = Field(default="", **_tighten("never"), description=(
        "The interpreter (or virtualenv directory) tests and pyright run with, an absolute path; it and its "
        "installation are bound read-only into the sandbox. `--python` wins over it. Empty: the active "
        "VIRTUAL_ENV, else the repository's `.venv` or `venv` when it holds `bin/python`, else showcause's own. "
        "Only the user's `--config` may set it, never a repository: it names host directories the sandbox "
        "shows."))

    @field_validator("python")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if value and not value.startswith(("/", "~/")):
            raise ValueError("must be an absolute path (or start with ~/)")
        return value


class TelemetrySection(_Section):
    """Decision telemetry (docs/telemetry.md): opt-in, a local JSON Lines file of what each review was (mode,
    verdict, tokens, latency; never its content), and the outcomes recorded for it later."""

    path: str = Field(default="", **_tighten("never", why="it names a host file showcause appends to",
                                             instead="`SHOWCAUSE_TELEMETRY`"), description=(
        "The log file; a relative path is resolved against the config file that sets it. Empty: the "
        "`SHOWCAUSE_TELEMETRY` environment variable, else no telemetry. Only the user's `--config` may set it, "
        "never a repository."))


class Policy(BaseModel):
    """Every section, in the order of `sandbox/policy.toml`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    paths: PathsSection = Field(default_factory=PathsSection, description=PathsSection.__doc__)
    output: OutputSection = Field(default_factory=OutputSection, description=OutputSection.__doc__)
    search: SearchSection = Field(default_factory=SearchSection, description=SearchSection.__doc__)
    analysis: AnalysisSection = Field(default_factory=AnalysisSection, description=AnalysisSection.__doc__)
    process: ProcessSection = Field(default_factory=ProcessSection, description=ProcessSection.__doc__)
    review: ReviewSection = Field(default_factory=ReviewSection, description=ReviewSection.__doc__)
    symbols: SymbolsSection = Field(default_factory=SymbolsSection, description=SymbolsSection.__doc__)
    tests: TestsSection = Field(default_factory=TestsSection, description=TestsSection.__doc__)
    sandbox: SandboxSection = Field(default_factory=SandboxSection, description=SandboxSection.__doc__)
    telemetry: TelemetrySection = Field(default_factory=TelemetrySection, description=TelemetrySection.__doc__)

    def merged(self, doc: Mapping[str, Any], origin: str, *, table: str = "") -> Policy:
        """A copy with the sections of a policy document applied, e.g. `{"process": {"timeout_s": 30.0}}`.

        `table`: the table of the file the document was read from (`sandbox`), to name sections in messages.
        """
        data = self.model_dump()
        for section, body in doc.items():
            keys = _keys(section, body, origin, table)   # first: an unknown section is not in `data`
            data[section].update(keys)
        try:
            return Policy.model_validate(data)
        except ValidationError as exc:
            raise InputError(f"{origin}: {_problem(exc.errors()[0], table)}") from None


def _sections() -> dict[str, type[_Section]]:
    out: dict[str, type[_Section]] = {}
    for name, field in Policy.model_fields.items():
        model = field.annotation
        assert isinstance(model, type) and issubclass(model, _Section)
        out[name] = model
    return out


# Section name -> its model, in file order.
SECTIONS = _sections()
# Keys of the flat policy of old that now have another name in their section: old name -> (section, key).
RENAMED = {"search_timeout_s": ("search", "timeout_s")}
_KINDS: dict[object, str] = {int: "an integer", float: "a number", str: "a string",
                             tuple[str, ...]: "a list of strings"}


def _tables(sections: list[str], table: str) -> str:
    return " or ".join(f"[{table}.{s}]" if table else f"[{s}]" for s in sections)


def _misplaced(key: str, table: str) -> str | None:
    """Where `key` goes, when some section has it (or had it under this name): for the message refusing it."""
    if key in RENAMED:
        section, name = RENAMED[key]
        return f"{key} is now {name} under {_tables([section], table)}"
    homes = [s for s, model in SECTIONS.items() if key in model.model_fields]
    return f"{key} belongs under {_tables(homes, table)}" if homes else None


def _keys(section: str, body: object, origin: str, table: str) -> dict[str, object]:
    """The keys of one section of a document, or an InputError naming the section a misplaced key belongs
    under. A key only ever sets the key of its own section: sections used to be flattened, so that
    `[search] timeout_s` set the process timeout."""
    model = SECTIONS.get(section)
    where = _tables([section], table)
    if model is None:
        if home := _misplaced(section, table):
            raise InputError(f"{origin}: {home}, not outside a section")
        noun = "section" if isinstance(body, dict) else "key"
        raise InputError(f"{origin}: unknown sandbox policy {noun} {section!r} (the sections: {', '.join(SECTIONS)})")
    if not isinstance(body, dict):
        raise InputError(f"{origin}: {where} must be a table of keys")
    keys = cast("dict[str, object]", body)   # a TOML table's keys are strings
    for key in keys:
        if key not in model.model_fields:
            home = _misplaced(key, table)
            raise InputError(f"{origin}: {home}, not {where}" if home else
                             f"{origin}: unknown sandbox policy key {key!r} in {where}")
    return dict(keys)


def _problem(err: ErrorDetails, table: str) -> str:
    """A validation error in the words of the policy file: `[paths] max_read_lines must be positive`."""
    if len(err["loc"]) < 2:
        return err["msg"]
    section, key = str(err["loc"][0]), str(err["loc"][1])
    field = SECTIONS[section].model_fields[key]
    where = f"{_tables([section], table)} {key}"
    if err["type"] == "value_error":   # a check of the key's own (isolation)
        return f"{where} {err.get('ctx', {}).get('error', err['msg'])}"
    if err["type"] in ("greater_than", "greater_than_equal", "less_than_equal"):
        zero_ok = any(isinstance(m, Ge) for m in field.metadata)
        if any(isinstance(m, Le) for m in field.metadata):   # a share
            return f"{where} must be {'0' if zero_ok else 'above 0'} and at most 1, got {err['input']:g}"
        return f"{where} must be {'0 or more' if zero_ok else 'positive'}"
    return f"{where} must be {_KINDS.get(field.annotation, 'of its kind')}"
