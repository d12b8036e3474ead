"""One quorum call: tiers fan out lowest first, the arbiter rates what has arrived, the call stops as soon
as the agreeing weight meets the target tier's threshold.

- The target tier is the request's `tier`, else the highest configured; its threshold is the one required
  weight of the call. Tiers up to it run in ascending order; a tier never entered is not reported.
- A tier's sources run in parallel. After each arrival (and every other one already in), the arbiter is
  asked mid-tier when some source is still pending, some answer is unrated, and the answers in hand weigh
  at least the required weight; and once at the end of the tier when answers are unrated. Each evaluation
  rates every answer so far (earlier tiers' included) against one consensus.
- Quorum reached: every request still in flight is aborted (its socket shut: no further billing).
- A source has its own timeout (retries included); the call has a deadline that returns what it has.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from showcause.core.errors import (
    ConfigError,
    InputError,
    MalformedAnswer,
    PeerAborted,
    ProviderHTTPError,
    ProviderTimeoutError,
    ShowcauseError,
)
from showcause.providers.base import Message
from showcause.quorum.arbiter import Evaluation, arbiter_messages, parse_reply, repair_messages
from showcause.quorum.config import Source
from showcause.quorum.limits import skip_local
from showcause.quorum.peers import Answer, Call, Peers, Turn, peer_messages
from showcause.quorum.result import AGREEMENT_BAR, QuorumResult, SourceReport, certainty

__all__ = ["MAX_TEXT", "Request", "run_quorum"]

MAX_TEXT = 100_000   # characters of a prompt or a caller's answer, as the predecessor allowed
_Sink = queue.Queue[tuple[Call, Answer | ShowcauseError]]


@dataclass(frozen=True)
class Request:
    prompt: str
    history: tuple[Turn, ...] = ()
    tier: int | None = None            # the highest tier it may escalate to; None: the highest configured
    caller_answer: str | None = None   # rated by the arbiter only; never shown to a peer
    caller_source: str | None = None   # the source the caller itself is: skipped for this request


def run_quorum(peers: Peers, request: Request, env: Mapping[str, str]) -> QuorumResult:
    return _Run(peers, request, env).run()


def _check(request: Request, tiers: Mapping[int, int]) -> int:
    if not 1 <= len(request.prompt) <= MAX_TEXT:
        raise InputError(f"prompt: must be 1 to {MAX_TEXT} characters")
    if request.caller_answer is not None and not 1 <= len(request.caller_answer) <= MAX_TEXT:
        raise InputError(f"callerAnswer: must be 1 to {MAX_TEXT} characters")
    for i, turn in enumerate(request.history):
        if turn.role not in ("user", "model"):
            raise InputError(f"history[{i}].role: must be \"user\" or \"model\"")
    target = request.tier if request.tier is not None else max(t for t in tiers)
    if target not in tiers:
        raise InputError(f"tier: no threshold is configured for tier {target}")
    return target


class _Run:
    def __init__(self, peers: Peers, request: Request, env: Mapping[str, str]) -> None:
        config = peers.config
        self.peers, self.request, self.config = peers, request, config
        self.target = _check(request, config.thresholds)
        self.required = config.thresholds[self.target]
        self.deadline = time.monotonic() + config.limits.deadline_s
        self.skip_local = skip_local(env)
        self.reports: list[SourceReport] = []
        self.successes: list[tuple[Source, Answer]] = []
        self.evaluated = 0
        self.last: Evaluation | None = None
        self.last_failed = False
        self.achieved = False
        self.agreeing = 0
        self.deadline_hit = False
        self.tier = self.target
        self.usages: list[Answer] = []
        self.arbiter_calls = 0
        self.warnings: list[str] = []
        if request.caller_source is not None and config.source(request.caller_source) is None:
            self.warnings.append(f"callerSource {request.caller_source!r} names no configured source: ignored")

    def run(self) -> QuorumResult:
        for tier in (t for t in self.config.tiers if t <= self.target):
            self.tier = tier
            self._tier(tier)
            if self.achieved or self.deadline_hit:
                break
        return self._assemble()

    # ---- one tier

    def _report(self, source: Source) -> SourceReport:
        report = SourceReport(name=source.name, model=source.model, weight=source.weight)
        self.reports.append(report)
        if source.name == self.request.caller_source or (self.skip_local and source.local):
            report.status = "skipped"
        elif not self.peers.available(source):
            report.status, report.error = "unavailable", ConfigError.code
        return report

    def _tier(self, tier: int) -> None:
        sink: _Sink = queue.Queue()
        messages = peer_messages(self.request.prompt, self.request.history)
        pending: dict[str, tuple[Call, float, SourceReport]] = {}
        for source in (s for s in self.config.sources if s.tier == tier):
            report = self._report(source)
            if report.status == "error":   # provisional until it answers
                call = self.peers.start(source, messages, self.peers.options(source, arbiter=False), sink)
                pending[source.name] = (call, time.monotonic() + source.timeout_s, report)
        while pending:
            if not self._wait(sink, pending):
                continue
            if time.monotonic() >= self.deadline:
                self._stop(pending, ProviderTimeoutError.code)
                self.deadline_hit = True
                return
            weight_in_hand = sum(s.weight for s, _ in self.successes)
            if (pending and not self.achieved and len(self.successes) > self.evaluated
                    and weight_in_hand >= self.required):
                self._evaluate()
                if self.achieved or self.deadline_hit:
                    self._stop(pending, PeerAborted.code if self.achieved else ProviderTimeoutError.code)
                    return
        if not self.achieved and not self.deadline_hit and len(self.successes) > self.evaluated:
            self._evaluate()

    def _wait(self, sink: _Sink, pending: dict[str, tuple[Call, float, SourceReport]]) -> bool:
        """Record the next arrival and every one already in; time sources out. False: nothing arrived."""
        now = time.monotonic()
        if now >= self.deadline:
            return True   # the caller sees the deadline and stops the tier
        for name, (call, due, report) in list(pending.items()):
            if now >= due:
                call.abort()
                report.error = ProviderTimeoutError.code
                del pending[name]
        if not pending:
            return False
        wait = min(self.deadline, *(due for _, due, _ in pending.values())) - now
        try:
            item = sink.get(timeout=max(0.0, wait))
        except queue.Empty:
            return False
        while True:
            self._record(item, pending)
            try:
                item = sink.get_nowait()
            except queue.Empty:
                return True

    def _record(self, item: tuple[Call, Answer | ShowcauseError],
                pending: dict[str, tuple[Call, float, SourceReport]]) -> None:
        call, outcome = item
        entry = pending.get(call.source.name)
        if entry is None or entry[0] is not call:
            return   # a call already timed out or aborted
        del pending[call.source.name]
        report = entry[2]
        if isinstance(outcome, Answer):
            report.status, report.error = "ok", None
            self.successes.append((call.source, outcome))
            self.usages.append(outcome)
            return
        auth = isinstance(outcome, ProviderHTTPError) and outcome.status in (401, 403)
        report.status = "unavailable" if isinstance(outcome, ConfigError) or auth else "error"
        report.error = outcome.code

    def _stop(self, pending: dict[str, tuple[Call, float, SourceReport]], code: str) -> None:
        for call, _, report in pending.values():
            call.abort()
            report.error = code
        pending.clear()

    # ---- the arbiter

    def _arbiter_turn(self, messages: Sequence[Message]) -> Answer | ShowcauseError:
        source = self.config.arbiter_source
        sink: _Sink = queue.Queue()
        options = self.peers.options(source, arbiter=True)
        call = self.peers.start(source, messages, options, sink, json_reply=source.json_mode)
        self.arbiter_calls += 1
        due = min(self.deadline, time.monotonic() + source.timeout_s)
        try:
            _, outcome = sink.get(timeout=max(0.0, due - time.monotonic()))
        except queue.Empty:
            call.abort()
            self.deadline_hit = time.monotonic() >= self.deadline
            return ProviderTimeoutError(f"{source.name}: the arbiter did not answer in time")
        if isinstance(outcome, Answer):
            self.usages.append(outcome)
        return outcome

    def _ask_arbiter(self) -> Evaluation | None:
        names = [s.name for s, _ in self.successes]
        messages = arbiter_messages(self.request.prompt, [(s.name, a.text) for s, a in self.successes],
                                    self.request.caller_answer)
        for attempt in range(2):   # the reply, then one repair
            outcome = self._arbiter_turn(messages)
            if not isinstance(outcome, Answer):
                return None
            try:
                return parse_reply(outcome.text, names, with_caller=self.request.caller_answer is not None)
            except MalformedAnswer as exc:
                if attempt == 0 and not self.deadline_hit:
                    messages = repair_messages(messages, exc.message)
        return None

    def _evaluate(self) -> None:
        evaluation = self._ask_arbiter()
        if evaluation is None:
            self.last_failed = True
            return
        self.last, self.last_failed = evaluation, False
        self.evaluated = len(self.successes)
        by_name = {r.name: r for r in self.reports}
        self.agreeing = 0
        for source, _ in self.successes:
            rating = evaluation.ratings.get(source.name)
            by_name[source.name].agreement = rating
            if rating is not None and rating >= AGREEMENT_BAR:
                self.agreeing += source.weight
        self.achieved = self.achieved or self.agreeing >= self.required

    # ---- the result

    def _assemble(self) -> QuorumResult:
        result = QuorumResult(
            response=None, certainty=0.0, achieved=self.achieved, tier=self.tier, required_weight=self.required,
            agreeing_weight=self.agreeing, sources=self.reports, caller_supplied=self.request.caller_answer is not None,
            deadline_exceeded=self.deadline_hit, arbiter_calls=self.arbiter_calls, warnings=self.warnings,
            prompt_tokens=sum(a.prompt_tokens for a in self.usages),
            completion_tokens=sum(a.completion_tokens for a in self.usages))
        costs = [a.usage.cost_usd for a in self.usages]
        result.cost_usd = None if not costs or None in costs else round(sum(c or 0.0 for c in costs), 8)
        if self.last is not None and not self.last_failed:
            agreeing = [r for r in self.last.ratings.values() if r >= AGREEMENT_BAR]
            result.response = self.last.consensus
            result.certainty = certainty(self.agreeing, self.required, agreeing)
            result.caller_agreement = self.last.caller
        elif self.successes:
            best = max(self.successes, key=lambda pair: pair[0].weight)   # ties: the first to arrive
            result.response = best[1].text
            result.arbiter_failed = self.last_failed
        return result
