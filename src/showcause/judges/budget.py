"""A model review's budget: its limits (`Budget`), the one token estimate its checks use, and the
accountant that charges every model call against it (`Accountant`), for the tool loop, `blind_first` and
the decision modes alike.

Tokens per review are a hard cap: a call whose prompt estimate plus `MIN_COMPLETION` cannot fit is not
made (BUDGET_EXCEEDED). The estimate errs high (about 3.5 characters a token, 16 tokens a message) because
a call that does not fit must never be sent; what a provider leaves out of its usage is estimated
separately (providers.base.estimate_tokens), as a best guess flagged `estimated`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from showcause.core.errors import BudgetExceeded, ReviewTimeout
from showcause.policy import Policy, ReviewSection
from showcause.providers.base import CompletionOptions, Message, ModelTurn, Provider, ToolSpec, message_chars, send

__all__ = ["CALL_TIMEOUT_S", "MIN_COMPLETION", "Accountant", "Budget", "estimate_completion", "estimate_prompt"]

MIN_COMPLETION = 256        # a call that cannot leave the model this many tokens to answer in is not made
CALL_TIMEOUT_S = 180.0      # one model call's timeout, when the review's deadline is further away


def estimate_prompt(messages: Sequence[Message]) -> int:
    """Prompt tokens `messages` may cost, erring high."""
    return int(message_chars(messages) / 3.5) + 16 * len(messages)


def estimate_completion(text: str) -> int:
    """Completion tokens an answer cost, when the provider did not say (at least one)."""
    return max(1, int(len(text) / 3.5))


# The defaults are the policy model's (`[review]` of sandbox/policy.toml), defined there only.
_REVIEW = ReviewSection()


@dataclass(frozen=True)
class Budget:
    """The limits of one review (docs/modes.md): tool calls, tokens, completion tokens a call, seconds, turns."""

    tool_calls: int = _REVIEW.max_tool_calls
    tokens: int = _REVIEW.max_review_tokens
    completion_tokens: int = _REVIEW.max_completion_tokens
    seconds: float = _REVIEW.review_timeout_s
    turns: int = _REVIEW.max_turns

    @classmethod
    def from_policy(cls, p: Policy) -> Budget:
        """The policy's `[review]` keys (policy.toml, the base tree's .showcause.toml, --config)."""
        r = p.review
        return cls(tool_calls=r.max_tool_calls, tokens=r.max_review_tokens, completion_tokens=r.max_completion_tokens,
                   seconds=r.review_timeout_s, turns=r.max_turns)

    @classmethod
    def blind_from_policy(cls, p: Policy) -> Budget:
        """blind_first on a repository change: the `blind_*` keys, with the same tool calls and completions."""
        r = p.review
        return replace(cls.from_policy(p), tokens=r.blind_max_review_tokens, seconds=r.blind_review_timeout_s,
                       turns=r.blind_max_turns)


class Accountant:
    """Model calls under one budget: each is checked before it is made (turns, deadline, tokens) and charged
    after (the provider's counts, else estimates, which flag the usage as estimated).

    `awaiting` names what the calls are for, in the message of a turn limit reached.
    """

    def __init__(self, provider: Provider, budget: Budget, *, awaiting: str = "a final answer") -> None:
        self.provider = provider
        self.budget = budget
        self.awaiting = awaiting
        self.started = time.monotonic()
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost: float | None = None
        self.estimated = False
        self.turns = 0
        self.model: str | None = None

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def tokens_left(self) -> int:
        return self.budget.tokens - self.tokens

    def seconds_left(self) -> float:
        return self.budget.seconds - (time.monotonic() - self.started)

    def room(self, messages: Sequence[Message], cap: int | None = None) -> tuple[int, int, float]:
        """(prompt estimate, max_tokens, timeout) for the next call; BUDGET_EXCEEDED or TIMEOUT when none fits.
        `cap`: a lower ceiling for this call's completion."""
        if self.turns >= self.budget.turns:
            raise BudgetExceeded(f"turn limit of {self.budget.turns} reached without {self.awaiting}")
        left = self.seconds_left()
        if left <= 1:
            raise ReviewTimeout(f"the review deadline of {self.budget.seconds:g} s passed")
        prompt = estimate_prompt(messages)
        completion = self.budget.completion_tokens
        max_tokens = min(completion, cap or completion, self.tokens_left() - prompt)
        if max_tokens < MIN_COMPLETION:
            raise BudgetExceeded(f"the next call needs about {prompt + MIN_COMPLETION} tokens; "
                                 f"{self.tokens_left()} of {self.budget.tokens} are left")
        return prompt, max_tokens, min(left, CALL_TIMEOUT_S)

    def charge(self, turn: ModelTurn, prompt: int) -> None:
        """Count one call: the reported tokens, else `prompt` (the estimate it was made with) and an estimate
        of the answer."""
        usage = turn.usage
        self.turns += 1
        self.prompt_tokens += usage.prompt_tokens or prompt
        self.completion_tokens += usage.completion_tokens or estimate_completion(turn.content)
        if usage.cost_usd is not None:
            self.cost = (self.cost or 0.0) + usage.cost_usd
        self.estimated = self.estimated or usage.estimated or not usage.prompt_tokens
        self.model = turn.model or self.model

    def ask(self, messages: Sequence[Message], *, tools: Sequence[ToolSpec] = (),
            schema: Mapping[str, Any] | None = None, cap: int | None = None) -> ModelTurn:
        """One call within the budget: with `tools` offered ("auto"), else none at all and the answer's
        `schema`, if any."""
        prompt, max_tokens, timeout_s = self.room(messages, cap)
        options = CompletionOptions(tools=tuple(tools), tool_choice="auto" if tools else "none",
                                    max_tokens=max_tokens, timeout_s=timeout_s,
                                    response_schema=None if tools else schema)
        turn = send(self.provider, messages, options)
        self.charge(turn, prompt)
        return turn

    def usage(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "turns": self.turns, "cost_estimated": self.estimated}
