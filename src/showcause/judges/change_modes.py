"""Model-driven review modes: evidence_gate (tools + probes + gate) and the no-tool baselines."""

from __future__ import annotations

from typing import ClassVar

from showcause.evidence.ledger import Ledger
from showcause.judges.base import JudgeAnswer, ReviewRequest
from showcause.judges.budget import Budget
from showcause.judges.contract import ModeSpec, model_budget, require_model
from showcause.judges.loop import LoopResult, ask_for_answer, run_tool_loop
from showcause.judges.mechanical import MODEL_FAILURES, probe_claims, probes_after_model_failure, run_probes
from showcause.judges.prompting import change_text, load_prompt
from showcause.providers.base import Message, Provider
from showcause.providers.registry import get_provider
from showcause.tools.registry import REVIEW_TOOLS

__all__ = ["EvidenceGateJudge", "MaterialOnlyJudge", "ProposalFirst2PassJudge", "ProposalFirstJudge"]


def _provider(spec: ModeSpec, request: ReviewRequest) -> Provider:
    return get_provider(require_model(spec, request.model), base_url=request.base_url)


def _budget(spec: ModeSpec, ledger: Ledger) -> Budget:
    return model_budget(spec, ledger.ctx.policy)


def _answer(result: LoopResult, provider: Provider, prompts: dict[str, str]) -> JudgeAnswer:
    return JudgeAnswer(result.answer, model=result.model or provider.name, usage=result.usage,
                       cost_usd=result.cost_usd, prompts=prompts)


class EvidenceGateJudge:
    spec: ClassVar[ModeSpec] = ModeSpec(
        name="evidence_gate", tools=REVIEW_TOOLS, default_for="with_model",
        description="A model with the six tools, starting from the mechanical probes' findings (their calls are "
                    "in the ledger, citable as T1…); its claims go through the gate, beside the probes' own.")

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        provider = _provider(self.spec, request)
        probes = run_probes(ledger)
        system, digest = load_prompt(self.spec.name)
        messages = [Message("system", system),
                    Message("user", change_text(ledger.ctx.snapshot, request, probes.all_calls))]
        try:
            result = run_tool_loop(provider, ledger, messages, _budget(self.spec, ledger))
        except MODEL_FAILURES as exc:
            return probes_after_model_failure(exc, probes)
        answer = _answer(result, provider, {self.spec.name: digest})
        answer.probe_claims = probe_claims(probes)
        return answer


class _OnePass:
    spec: ClassVar[ModeSpec]
    prompt: ClassVar[str]

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        provider = _provider(self.spec, request)
        system, digest = load_prompt(self.prompt)
        messages = [Message("system", system), Message("user", change_text(ledger.ctx.snapshot, request))]
        return _answer(ask_for_answer(provider, messages, _budget(self.spec, ledger)), provider, {self.prompt: digest})


class MaterialOnlyJudge(_OnePass):
    spec: ClassVar[ModeSpec] = ModeSpec(
        name="decision_judge",
        description="Baseline: one pass over task, plan and diff, no tools, told to intervene only for a material "
                    "problem.")
    prompt: ClassVar[str] = "decision_judge"


class ProposalFirstJudge(_OnePass):
    spec: ClassVar[ModeSpec] = ModeSpec(
        name="proposal_first", description="Baseline: a plain critique of the change, one pass, no tools.")
    prompt: ClassVar[str] = "proposal_first"


class ProposalFirst2PassJudge:
    spec: ClassVar[ModeSpec] = ModeSpec(
        name="proposal_first_2pass", passes=2,   # each pass may spend the whole budget
        description="Compute-matched control: two passes, no tools, the proposal visible in both.")

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        provider = _provider(self.spec, request)
        system, digest = load_prompt("proposal_first")
        messages = [Message("system", system), Message("user", change_text(ledger.ctx.snapshot, request))]
        budget = _budget(self.spec, ledger)
        first = ask_for_answer(provider, messages, budget)
        messages += [Message("assistant", first.answer.model_dump_json()),
                     Message("user", "Review your answer once more against the change: keep what holds, drop "
                                     "what does not, and reply with the final JSON again.")]
        second = ask_for_answer(provider, messages, budget)
        usage = {k: first.usage.get(k, 0) + second.usage.get(k, 0) for k in ("prompt_tokens", "completion_tokens")}
        cost = None if first.cost_usd is None and second.cost_usd is None else \
            (first.cost_usd or 0.0) + (second.cost_usd or 0.0)
        return JudgeAnswer(second.answer, model=second.model or provider.name, usage=usage, cost_usd=cost,
                           prompts={"proposal_first": digest})
