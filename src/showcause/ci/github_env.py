"""What a GitHub Actions job hands `showcause ci github`: its environment variables and the event payload.

Everything is checked before any work: a missing variable, an event of another kind or a payload without
the two commits is an InputError (exit 2) that names the variable or field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from showcause.core import jsonsafe
from showcause.core.errors import InputError

__all__ = ["EVENTS", "GithubContext", "read_context"]

EVENTS = ("pull_request", "pull_request_target", "merge_group")
MAX_EVENT_BYTES = 25_000_000       # GitHub's own cap on a webhook payload
_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_SHA = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")


@dataclass(frozen=True)
class GithubContext:
    """One job's view of GitHub. ``number`` is the pull request's (None for a merge group, which has no
    conversation to comment on); ``token`` is never printed: it goes only into the Authorization header."""

    event: str
    repository: str
    api_url: str
    base_sha: str
    head_sha: str
    base_ref: str
    number: int | None
    token: str | None
    summary_path: Path | None
    output_path: Path | None

    def __repr__(self) -> str:   # a context printed while debugging never shows the token
        return (f"GithubContext(event={self.event!r}, repository={self.repository!r}, number={self.number!r}, "
                f"base_sha={self.base_sha!r}, head_sha={self.head_sha!r})")


def _required(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "").strip()
    if not value:
        raise InputError(f"{name} is not set: `showcause ci github` runs inside a GitHub Actions job "
                         "(set it by hand to run it elsewhere)")
    return value


def _field(doc: Any, path: str) -> Any:
    """``doc``'s value at the dotted ``path``; a missing field is an InputError naming it."""
    here = doc
    for key in path.split("."):
        if not isinstance(here, dict) or key not in here:
            raise InputError(f"the event payload has no `{path}`")
        here = here[key]
    return here


def _sha(doc: Any, path: str) -> str:
    value = _field(doc, path)
    if not isinstance(value, str) or not _SHA.match(value):
        raise InputError(f"the event payload's `{path}` is not a commit sha: {str(value)[:80]!r}")
    return value


def _load_event(env: Mapping[str, str]) -> Any:
    path = Path(_required(env, "GITHUB_EVENT_PATH"))
    try:
        text = jsonsafe.read_capped(path, MAX_EVENT_BYTES)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read GITHUB_EVENT_PATH {path}: {exc}") from None
    doc = jsonsafe.loads_input(text, max_bytes=MAX_EVENT_BYTES, label=f"GITHUB_EVENT_PATH {path}")
    if not isinstance(doc, dict):
        raise InputError(f"GITHUB_EVENT_PATH {path}: the payload is not a JSON object")
    return doc


def _event_name(env: Mapping[str, str], doc: dict[str, Any]) -> str:
    # GitHub always sets GITHUB_EVENT_NAME; by hand the payload's own shape tells.
    name = env.get("GITHUB_EVENT_NAME", "").strip() or ("merge_group" if "merge_group" in doc else "pull_request")
    if name not in EVENTS:
        raise InputError(f"GITHUB_EVENT_NAME {name!r}: `showcause ci github` reviews {', '.join(EVENTS)} events "
                         "(on push, run `showcause review --base REF --head REF`)")
    return name


def _optional_path(env: Mapping[str, str], name: str) -> Path | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    path = Path(value)
    if not path.parent.is_dir():
        raise InputError(f"{name} {value}: its directory does not exist")
    return path


def read_context(env: Mapping[str, str]) -> GithubContext:
    """The job's context from ``env`` (os.environ in a job). Raises InputError on anything missing or bad."""
    repository = _required(env, "GITHUB_REPOSITORY")
    if not _REPOSITORY.match(repository):
        raise InputError(f"GITHUB_REPOSITORY {repository[:100]!r} is not OWNER/NAME")
    api_url = (env.get("GITHUB_API_URL", "").strip() or "https://api.github.com").rstrip("/")
    if not api_url.startswith(("https://", "http://")):
        raise InputError(f"GITHUB_API_URL {api_url[:100]!r} is not an http(s) URL")
    doc = _load_event(env)
    event = _event_name(env, doc)
    if event == "merge_group":
        base, head = _sha(doc, "merge_group.base_sha"), _sha(doc, "merge_group.head_sha")
        base_ref, number = str(doc["merge_group"].get("base_ref") or ""), None
    else:
        base, head = _sha(doc, "pull_request.base.sha"), _sha(doc, "pull_request.head.sha")
        base_ref = str(doc["pull_request"]["base"].get("ref") or "")
        # The pull request's own number; the payload's top-level `number` is the same one.
        number = doc["pull_request"].get("number", doc.get("number"))
        if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
            raise InputError(f"the event payload's `pull_request.number` is not a number: {str(number)[:40]!r}")
    return GithubContext(event=event, repository=repository, api_url=api_url, base_sha=base, head_sha=head,
                         base_ref=base_ref, number=number, token=env.get("GITHUB_TOKEN", "").strip() or None,
                         summary_path=_optional_path(env, "GITHUB_STEP_SUMMARY"),
                         output_path=_optional_path(env, "GITHUB_OUTPUT"))
