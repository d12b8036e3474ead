"""Model-driven review modes: evidence_gate (tools + probes + gate) and the no-tool baselines."""

from __future__ import annotations

from typing import ClassVar

from showcause.evidence.ledger import Ledger
from showcause.judges.base import JudgeAnswer, ReviewRequest
from showcause.judges.loop import Budget, LoopResult, ask_for_answer, run_tool_loop
from showcause.judges.mechanical import run_probes
from showcause.judges.prompting import change_text, load_prompt
from showcause.providers.base import Message, Provider
from showcause.providers.errors import ConfigError
from showcause.providers.registry import get_provider

__all__ = ["EvidenceGateJudge", "MaterialOnlyJudge", "ProposalFirst2PassJudge", "ProposalFirstJudge"]


def _provider(request: ReviewRequest) -> Provider:
    if not request.model:
        raise ConfigError("this mode needs a model: --model provider:model (e.g. openai:gpt-5-mini)")
    return get_provider(request.model, base_url=request.base_url)


def _budget(ledger: Ledger) -> Budget:
    """The budget from the policy's `[review]` keys (policy.toml, the base tree's .showcause.toml, --config)."""
    return Budget.from_policy(ledger.ctx.policy)


def _answer(result: LoopResult, provider: Provider, prompts: dict[str, str]) -> JudgeAnswer:
    return JudgeAnswer(result.answer, model=result.model or provider.name, usage=result.usage,
                       cost_usd=result.cost_usd, prompts=prompts)


class EvidenceGateJudge:
    name: ClassVar[str] = "evidence_gate"
    description: ClassVar[str] = ("A model with the six tools, starting from the mechanical probes' findings; "
                                  "its claims go through the gate.")
    needs_model: ClassVar[bool] = True

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        provider = _provider(request)
        probes = run_probes(ledger)
        system, digest = load_prompt(self.name)
        messages = [Message("system", system),
                    Message("user", change_text(ledger.ctx.snapshot, request, probes.all_calls))]
        return _answer(run_tool_loop(provider, ledger, messages, _budget(ledger)), provider, {self.name: digest})


class _OnePass:
    name: ClassVar[str]
    description: ClassVar[str]
    needs_model: ClassVar[bool] = True
    prompt: ClassVar[str]

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        provider = _provider(request)
        system, digest = load_prompt(self.prompt)
        messages = [Message("system", system), Message("user", change_text(ledger.ctx.snapshot, request))]
        return _answer(ask_for_answer(provider, messages, _budget(ledger)), provider, {self.prompt: digest})


class MaterialOnlyJudge(_OnePass):
    name: ClassVar[str] = "decision_judge"
    description: ClassVar[str] = "Baseline: one pass, no tools, told to intervene only for a material problem."
    prompt: ClassVar[str] = "decision_judge"


class ProposalFirstJudge(_OnePass):
    name: ClassVar[str] = "proposal_first"
    description: ClassVar[str] = "Baseline: a plain critique of the change, one pass, no tools."
    prompt: ClassVar[str] = "proposal_first"


class ProposalFirst2PassJudge:
    name: ClassVar[str] = "proposal_first_2pass"
    description: ClassVar[str] = "Compute-matched control: two passes, the proposal visible in both."
    needs_model: ClassVar[bool] = True

    def judge(self, request: ReviewRequest, ledger: Ledger) -> JudgeAnswer:
        provider = _provider(request)
        system, digest = load_prompt("proposal_first")
        messages = [Message("system", system), Message("user", change_text(ledger.ctx.snapshot, request))]
        budget = _budget(ledger)
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
