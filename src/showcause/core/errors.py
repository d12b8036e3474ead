"""Errors with a stable code and the process exit status they map to."""

from __future__ import annotations

from typing import Any

__all__ = ["EXIT_BAD_INPUT", "EXIT_INCONCLUSIVE", "InputError", "Interrupted", "ModelRequired", "SandboxUnavailable",
           "ShowcauseError", "ToolArgumentError"]

EXIT_BAD_INPUT = 2
EXIT_INCONCLUSIVE = 3


class ShowcauseError(Exception):
    """Base class; `code` is the documented error code, `exit_code` what the CLI exits with."""

    code = "INTERNAL_ERROR"
    exit_code = EXIT_INCONCLUSIVE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.meta: dict[str, Any] = {}   # what the failed step still reports (merged into a result's meta)


class InputError(ShowcauseError):
    """Bad input or usage: a patch that does not apply, an unknown ref, a missing file."""

    code = "INVALID_INPUT"
    exit_code = EXIT_BAD_INPUT


class ModelRequired(InputError):
    """A mode that needs a model was chosen with none configured (no `--model`).

    Usage, not a failed review: it is refused before anything runs, wherever the mode is chosen (a review of
    a change or of a decision, the bench, a caller of the library), with this one code and exit 2.
    """

    code = "MODEL_REQUIRED"
    exit_code = EXIT_BAD_INPUT


class ToolArgumentError(ShowcauseError):
    """A tool argument was refused (confinement, type, allowlist). Shown to the caller, never fatal."""

    code = "TOOL_ARGUMENT_REFUSED"
    exit_code = EXIT_BAD_INPUT


class SandboxUnavailable(ShowcauseError):
    """No isolation level that hides the host works here: repository code is not run at all.

    The message names the cause (bubblewrap missing, user namespaces refused, not root …) and the fix.
    """

    code = "SANDBOX_UNAVAILABLE"
    exit_code = EXIT_INCONCLUSIVE


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: every sandboxed process is already killed; unwind and exit 128 + signal.

    A BaseException, like KeyboardInterrupt, so that no `except Exception` on the way swallows it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by signal {signum}")
        self.signum = signum
