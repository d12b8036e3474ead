"""The ledger: every tool call of a review, numbered T1, T2, … with exactly what it showed."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from showcause.analysis.retired import Retirement, dangling_artifacts
from showcause.core import jsonsafe
from showcause.core.errors import ProbeUnrunnable, SandboxUnavailable, ToolArgumentError
from showcause.core.progress import report
from showcause.core.records import ToolCall
from showcause.core.threads import ContextPool
from showcause.evidence.renumber import Renumbering
from showcause.tools.base import ToolContext, ToolOutput, kept_text
from showcause.tools.registry import get_tool

__all__ = ["UNRUNNABLE", "Ledger"]

UNRUNNABLE = "could not run: "    # what a call that raised PROBE_UNRUNNABLE says before the reason


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        msg = "unknown argument" if err["type"] == "extra_forbidden" else err["msg"]
        parts.append(f"{where}: {msg}")
    return "; ".join(parts)


def _shown(args: Any) -> dict[str, Any]:
    """The arguments as sent, for the record: the object, else the raw value; never one too deep to render."""
    if not isinstance(args, str):
        try:
            jsonsafe.check_depth(args)
        except jsonsafe.ParseLimitError as exc:
            return {"_raw": f"(not shown: {exc.msg})"}
    return args if isinstance(args, dict) else {"_raw": args}


def _arguments(args: Any) -> dict[str, Any]:
    """A call's arguments as an object within the caps of `jsonsafe`, or a ToolArgumentError saying why not."""
    try:
        if isinstance(args, str):
            try:
                args = jsonsafe.loads(args or "{}", max_bytes=jsonsafe.MAX_ARGS_BYTES)
            except json.JSONDecodeError as exc:
                raise ToolArgumentError(f"arguments are not valid JSON: {exc.msg}") from exc
        else:   # an object parsed elsewhere (a provider's body, a library caller): its depth still counts
            jsonsafe.check_depth(args)
    except jsonsafe.ParseLimitError as exc:
        raise ToolArgumentError(f"arguments {exc.msg}") from exc
    if not isinstance(args, dict):
        raise ToolArgumentError(f"arguments must be a JSON object, got {type(args).__name__}")
    return args


def _cut(out: ToolOutput, limit: int) -> tuple[str, bool]:
    if len(out.text) <= limit:
        return out.text, False
    kept = kept_text(out.text, limit)
    dropped = len(out.text) - len(kept)
    return f"{kept}… [output cut: {dropped} more characters not shown; {out.advice}]", True


class _Numbering:
    """The next call id of one review, shared by its views: handed out under a lock, so calls that run at
    the same time (an MCP client's, the probes') never share an id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._issued = 0

    def reserve(self, count: int) -> int:
        """The first of `count` consecutive ids (numbers) now reserved."""
        with self._lock:
            first = self._issued + 1
            self._issued += count
            return first

    @property
    def issued(self) -> int:
        with self._lock:
            return self._issued


class Ledger:
    """Runs tools through the registry, validates arguments, caps output, records everything."""

    def __init__(self, ctx: ToolContext, tools: Iterable[str] | None = None) -> None:
        self.ctx = ctx
        self.calls: list[ToolCall] = []            # in id order
        self.tools = frozenset(tools) if tools is not None else None   # None: every registered tool
        self._numbering = _Numbering()
        self._base = 0                             # a fork: the last id it started with (`fork`)
        self._record_lock = threading.Lock()
        # Facts about what the review could not check (no tests found), said in every output format.
        self.notes: list[str] = []

    def view(self, side: str, tools: Iterable[str]) -> Ledger:
        """A ledger over another tree of the same snapshot, limited to `tools`, that shares this record.

        Its calls get the next ids of this review and are recorded with `tree=side`.
        """
        return self._sharing(replace(self.ctx, side=side), tools)

    def within(self, timeout_s: float) -> Ledger:
        """This ledger, same tools and same record, with the processes its tools start bounded by `timeout_s`
        (a review's deadline). A new context and policy carry the bound: this ledger's are left as they are."""
        bounded = self.ctx.policy.merged({"process": {"timeout_s": timeout_s}}, "the review deadline")
        return self._sharing(replace(self.ctx, policy=bounded), self.tools)

    def _sharing(self, ctx: ToolContext, tools: Iterable[str] | None) -> Ledger:
        other = Ledger(ctx, tools)
        other.calls, other._numbering, other._record_lock = self.calls, self._numbering, self._record_lock
        other.notes, other._base = self.notes, self._base
        return other

    def fork(self) -> Ledger:
        """A private ledger for one of several models working at the same time: it starts with this ledger's
        calls (shared notes, same context and tools) and numbers its own calls after them, as if its model
        were alone. `adopt` brings its calls back under ids that do not depend on which model was faster."""
        child = Ledger(self.ctx, self.tools)
        with self._record_lock:
            child.calls = list(self.calls)
        child._numbering._issued = child._base = self._numbering.issued
        child.notes = self.notes
        return child

    def adopt(self, fork: Ledger) -> Renumbering:
        """Record `fork`'s own calls here under this ledger's next ids, in the fork's order; the renumbering
        also rewrites what its model said (`Renumbering.answer`)."""
        own = [c for c in fork.calls if int(c.id[1:]) > fork._base]
        first = self._numbering.reserve(len(own))
        renumbering = Renumbering(fork._base, {c.id: f"T{first + i}" for i, c in enumerate(own)})
        self._record([renumbering.call(c) for c in own])
        return renumbering

    def retirement(self) -> Retirement:
        """The names this change retired (computed once per review, shared by every call)."""
        found = self.ctx.cache.get("retirement")
        if not isinstance(found, Retirement):
            policy = self.ctx.policy
            found = Retirement(self.ctx.snapshot, timeout=policy.search.timeout_s,
                               worker_min_files=policy.symbols.symbol_worker_min_files, budget=self.ctx.analysis)
            self.ctx.cache["retirement"] = found
        return found

    def _record(self, done: list[ToolCall]) -> None:
        with self._record_lock:
            self.calls.extend(done)
            self.calls.sort(key=lambda c: int(c.id[1:]))

    def call(self, name: str, args: Any) -> ToolCall:
        call = self._execute(f"T{self._numbering.reserve(1)}", name, args)
        self._record([call])
        return call

    def call_many(self, requests: list[tuple[str, Any]], workers: int = 2) -> list[ToolCall]:
        """Run several calls concurrently; ids follow the order of `requests`, as if run one by one."""
        first = self._numbering.reserve(len(requests))
        with ContextPool(max_workers=max(1, workers)) as pool:
            futures = [pool.submit(self._execute, f"T{first + i}", name, args)
                       for i, (name, args) in enumerate(requests)]
            done = [f.result() for f in futures]
        self._record(done)
        return done

    def _execute(self, call_id: str, name: str, args: Any) -> ToolCall:
        report(f"{call_id} {name} on {self.ctx.side}: started")
        call = self._run_one(call_id, name, args)
        report(f"{call_id} {name} on {self.ctx.side}: {'done' if call.ok else 'did not run to an outcome'} "
               f"({call.ms} ms)")
        return call

    def _run_one(self, call_id: str, name: str, args: Any) -> ToolCall:
        started = time.monotonic()
        error: str | None = None
        shown_args = _shown(args)
        tool = get_tool(name) if isinstance(name, str) else None
        try:
            if tool is None:
                raise ToolArgumentError(f"unknown tool {name!r}")
            if self.tools is not None and name not in self.tools:
                raise ToolArgumentError(f"{name} is not available here; use {', '.join(sorted(self.tools))}")
            args = _arguments(args)
            shown_args = args
            try:
                parsed = tool.Arguments.model_validate(args)
            except ValidationError as exc:
                raise ToolArgumentError(f"invalid arguments: {_explain(exc)}") from exc
            out = tool.run(self.ctx, parsed)
            if out.ok and out.shown and self.ctx.side == "head":
                out.artifacts += dangling_artifacts(self.retirement(), out.shown)
        except ToolArgumentError as exc:
            out = ToolOutput(text=f"{name}: refused: {exc.message}", ok=False)
        except SandboxUnavailable as exc:
            # No sandbox that hides the host: the call runs nothing, and says why and how to fix it.
            out = ToolOutput(text=f"{name}: refused: {exc.message}", ok=False)
            error = exc.code
        except ProbeUnrunnable as exc:
            # The tests or the checker could not run to any outcome: a failed call that says why and the fix
            # (the probes of a review turn it into an INCONCLUSIVE result).
            out = ToolOutput(text=f"{name}: {UNRUNNABLE}{exc.message}", ok=False)
            error = exc.code
        except (OSError, RuntimeError, ValueError) as exc:
            # A tool that fails is a failed call in the ledger, not a failed review.
            out = ToolOutput(text=f"{name}: failed: {type(exc).__name__}: {exc}", ok=False)
        text, _ = _cut(out, self.ctx.policy.output.max_chars)
        # Only what was actually shown counts: anything cut away can never be cited. Lines are what `_cut`
        # keeps whole: split at \n only (str.splitlines would also split a shown line at U+2028, \f …).
        lines = set(text.split("\n"))
        artifacts = [replace(a, tool_call=call_id)
                     for a in out.artifacts if a.line_text in lines]
        shown = [s for s in out.shown if s.line_text in lines]
        if self.ctx.side != "head":
            # What a call showed on another tree is not in the change: it can never be cited as evidence.
            artifacts, shown = [], []
        return ToolCall(id=call_id, tool=str(name), args=shown_args, ok=out.ok, output=f"{call_id} {text}",
                        ms=int((time.monotonic() - started) * 1000), artifacts=artifacts, shown=shown,
                        isolation=out.isolation, results=out.results, tree=self.ctx.side, error=error)
