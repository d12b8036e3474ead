"""Every typed error of showcause, each with its own documented code, and the one table of exit statuses.

The hierarchy (a code in parentheses is inherited, not a code of its own)::

    ShowcauseError                      INTERNAL_ERROR
     ├── InputError                     INVALID_INPUT
     │    ├── ModelRequired             MODEL_REQUIRED
     │    ├── NothingToReview           NOTHING_TO_REVIEW
     │    └── QuorumConfigError         QUORUM_CONFIG_INVALID
     ├── ToolArgumentError              TOOL_ARGUMENT_REFUSED
     ├── SandboxUnavailable             SANDBOX_UNAVAILABLE
     ├── ProbeUnrunnable                PROBE_UNRUNNABLE
     ├── BudgetExceeded                 BUDGET_EXCEEDED
     ├── BlindnessLeak                  BLINDNESS_LEAK
     ├── DuplicateName                  DUPLICATE_NAME        also a ValueError
     ├── GithubApiError                 GITHUB_API_ERROR
     ├── PeerAborted                    ABORTED
     ├── ReviewTimeout                  TIMEOUT
     │    └── ProviderTimeoutError      (TIMEOUT)             also a ProviderError
     ├── ToolchainUnavailable           TOOLCHAIN_UNAVAILABLE
     ├── ServerBusy                     BUSY
     └── ProviderError                  PROVIDER_ERROR
          ├── ConfigError               CONFIG_ERROR
          ├── ProviderHTTPError         PROVIDER_HTTP_ERROR
          │    └── RateLimitedError     RATE_LIMITED
          ├── ProviderNetworkError      PROVIDER_NETWORK_ERROR
          ├── ProviderTimeoutError      (TIMEOUT)
          ├── OutputTruncatedError      OUTPUT_TRUNCATED
          └── MalformedResponseError    MALFORMED_RESPONSE
               └── MalformedAnswer      (MALFORMED_RESPONSE)

    Interrupted (a BaseException)       no code: SIGINT/SIGTERM, exit 128 + the signal
     └── Cancelled                      no code: the MCP client cancelled the call

`EXIT_STATUS` maps every code to what the command exits with when that error stops it before a result
exists (`exit_status` applies it); a review result that carries an error code is INCONCLUSIVE, exit 3,
whatever the code. docs/modes.md ("Error codes") lists the same codes; tests/test_errors.py keeps them in
step. No provider error ever carries a key.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from showcause.core.meta import JudgeMeta

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_INCONCLUSIVE",
    "EXIT_STATUS",
    "BlindnessLeak",
    "BudgetExceeded",
    "Cancelled",
    "ConfigError",
    "DuplicateName",
    "GithubApiError",
    "InputError",
    "Interrupted",
    "MalformedAnswer",
    "MalformedResponseError",
    "ModelRequired",
    "NothingToReview",
    "OutputTruncatedError",
    "PeerAborted",
    "ProbeUnrunnable",
    "ProviderError",
    "ProviderHTTPError",
    "ProviderNetworkError",
    "ProviderTimeoutError",
    "QuorumConfigError",
    "RateLimitedError",
    "ReviewTimeout",
    "SandboxUnavailable",
    "ServerBusy",
    "ShowcauseError",
    "ToolArgumentError",
    "ToolchainUnavailable",
    "exit_status",
]

EXIT_BAD_INPUT = 2
EXIT_INCONCLUSIVE = 3


class ShowcauseError(Exception):
    """Base class; `code` is the documented error code (see `EXIT_STATUS` for the exit status)."""

    code = "INTERNAL_ERROR"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.meta = JudgeMeta()   # what the failed step still reports (added to a review's meta)


class InputError(ShowcauseError):
    """Bad input or usage: a patch that does not apply, an unknown ref, a missing file."""

    code = "INVALID_INPUT"


class ModelRequired(InputError):
    """A mode that needs a model was chosen with none configured (no `--model`).

    Usage, not a failed review: it is refused before anything runs, wherever the mode is chosen (a review of
    a change or of a decision, the bench, a caller of the library), with this one code and exit 2.
    """

    code = "MODEL_REQUIRED"


class NothingToReview(InputError):
    """The two trees are the same (a clean working tree against its base): nothing was compared, so the review
    says so instead of a KEEP that would read as "checked"."""

    code = "NOTHING_TO_REVIEW"


class ToolArgumentError(ShowcauseError):
    """A tool argument was refused (confinement, type, allowlist). Shown to the caller, never fatal."""

    code = "TOOL_ARGUMENT_REFUSED"


class SandboxUnavailable(ShowcauseError):
    """No isolation level that hides the host works here: repository code is not run at all.

    The message names the cause (bubblewrap missing, user namespaces refused, not root …) and the fix.
    """

    code = "SANDBOX_UNAVAILABLE"


class ProbeUnrunnable(ShowcauseError):
    """The tests or the type checker could not run to an outcome: no evidence, so never a pass.

    Tests that exist but gave no passed or failed result on the base tree (a module missing from both
    trees, the runner not installed, every test erroring), a project whose scripts.test runs jest, vitest or
    mocha where no test file was found, or a type checker that failed. The message names the first error and the
    fix.
    """

    code = "PROBE_UNRUNNABLE"


class BudgetExceeded(ShowcauseError):
    """A review's token or turn budget cannot fit the next model call (the call is not made)."""

    code = "BUDGET_EXCEEDED"


class BlindnessLeak(ShowcauseError):
    """The proposal's text is in what the blind phase would see: refused before any model call."""

    code = "BLINDNESS_LEAK"


class ReviewTimeout(ShowcauseError):
    """A deadline passed: the review's wall clock, or (as ProviderTimeoutError) one model call's."""

    code = "TIMEOUT"


class ProviderError(ShowcauseError):
    """Base of every provider failure (a plugin's own failures included). `status`: the HTTP status, if any."""

    code = "PROVIDER_ERROR"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r})"


class DuplicateName(ShowcauseError, ValueError):
    """A name registered twice in a registry: two plugins, or a plugin and a built-in, want the same name."""

    code = "DUPLICATE_NAME"


class ConfigError(ProviderError):
    """Bad `--model` spec, unknown provider prefix, missing key, unreadable scripted file."""

    code = "CONFIG_ERROR"


class ProviderHTTPError(ProviderError):
    """The server answered with an error status we do not (or no longer) retry."""

    code = "PROVIDER_HTTP_ERROR"


class RateLimitedError(ProviderHTTPError):
    """429 persisted through every retry (or the server asked us to wait longer than we may)."""

    code = "RATE_LIMITED"


class ProviderNetworkError(ProviderError):
    """Connection refused/reset/closed, DNS failure: persisted through every retry."""

    code = "PROVIDER_NETWORK_ERROR"


class ProviderTimeoutError(ReviewTimeout, ProviderError):
    """One call exceeded its per-call timeout (ReviewTimeout first: its code is the one inherited)."""


class OutputTruncatedError(ProviderError):
    """The answer hit the token cap. Providers report it in the turn; the caller decides to raise this."""

    code = "OUTPUT_TRUNCATED"


class MalformedResponseError(ProviderError):
    """A body we cannot parse, a response without the expected fields, or a scripted run out of turns."""

    code = "MALFORMED_RESPONSE"


class GithubApiError(ShowcauseError):
    """The GitHub REST API refused or failed a call of `showcause ci github` (`status`: the HTTP status, if
    any). The command degrades (a notice, no comment) and still exits with the review's code."""

    code = "GITHUB_API_ERROR"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class MalformedAnswer(MalformedResponseError):
    """The model's answer text is not the JSON asked for; the message is fit for the one repair turn."""


# ---- the weighted quorum (showcause.quorum)

class QuorumConfigError(InputError):
    """A quorum configuration (`--quorum FILE`, `[quorum]` of `--config`) that cannot work; the message
    names the field (`sources[2].apiKeyEnv`, `thresholds.tier3`, `deadlineMs` …) and what is wrong with it."""

    code = "QUORUM_CONFIG_INVALID"


class PeerAborted(ShowcauseError):
    """A peer request cancelled on purpose: the quorum was reached without it (its socket is shut at once)."""

    code = "ABORTED"


# -- installing the toolchain (`showcause setup`) -------------------------------------------------------
class ServerBusy(ShowcauseError):
    """The MCP server already runs and queues as many repository calls as it takes; this one was not started."""

    code = "BUSY"


class ToolchainUnavailable(ShowcauseError):
    """`showcause setup` could not install the pinned toolchain (no npm, offline, or npm failed)."""

    code = "TOOLCHAIN_UNAVAILABLE"


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: every sandboxed process is already killed; unwind and exit 128 + signal.

    A BaseException, like KeyboardInterrupt, so that no `except Exception` on the way swallows it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by signal {signum}")
        self.signum = signum


class Cancelled(Interrupted):
    """The client cancelled this call (an MCP `notifications/cancelled`): the call's own sandboxed processes
    are already killed; unwind it. Other calls of the same server go on."""

    def __init__(self) -> None:
        BaseException.__init__(self, "cancelled by the client")
        self.signum = 0


# The one table from error code to exit status: bad input or usage is 2; every other failure is 3
# (INCONCLUSIVE: never read as a pass, and never as a block, which is 1).
EXIT_STATUS: Mapping[str, int] = MappingProxyType({
    ShowcauseError.code: EXIT_INCONCLUSIVE,
    InputError.code: EXIT_BAD_INPUT,
    ModelRequired.code: EXIT_BAD_INPUT,
    NothingToReview.code: EXIT_BAD_INPUT,
    ToolArgumentError.code: EXIT_BAD_INPUT,
    SandboxUnavailable.code: EXIT_INCONCLUSIVE,
    ProbeUnrunnable.code: EXIT_INCONCLUSIVE,
    BudgetExceeded.code: EXIT_INCONCLUSIVE,
    BlindnessLeak.code: EXIT_INCONCLUSIVE,
    DuplicateName.code: EXIT_INCONCLUSIVE,
    ReviewTimeout.code: EXIT_INCONCLUSIVE,
    ProviderError.code: EXIT_INCONCLUSIVE,
    ConfigError.code: EXIT_INCONCLUSIVE,
    ProviderHTTPError.code: EXIT_INCONCLUSIVE,
    RateLimitedError.code: EXIT_INCONCLUSIVE,
    ProviderNetworkError.code: EXIT_INCONCLUSIVE,
    OutputTruncatedError.code: EXIT_INCONCLUSIVE,
    MalformedResponseError.code: EXIT_INCONCLUSIVE,
    GithubApiError.code: EXIT_INCONCLUSIVE,
    QuorumConfigError.code: EXIT_BAD_INPUT,
    PeerAborted.code: EXIT_INCONCLUSIVE,
    ToolchainUnavailable.code: EXIT_INCONCLUSIVE,
    ServerBusy.code: EXIT_INCONCLUSIVE,
})


def exit_status(error: BaseException) -> int:
    """What the command exits with when `error` stops it: Interrupted, 128 + the signal; a ShowcauseError,
    its code's entry in EXIT_STATUS (3 for a code a plugin made up); anything else is an internal error, 3."""
    if isinstance(error, Interrupted):
        return 128 + error.signum
    code = error.code if isinstance(error, ShowcauseError) else ShowcauseError.code
    return EXIT_STATUS.get(code, EXIT_INCONCLUSIVE)
