"""What makes two benchmark sessions the same run (`run.json`), and the provenance every result carries.

A resumed run must share models, modes, runs, the policy config, the review budgets, every prompt's hash,
the server it talks to and the case set; anything else (concurrency, retries, cost limit, rate limit,
seed) may change between sessions because it cannot change a finished record.
"""

from __future__ import annotations

import dataclasses
import hashlib
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import showcause
from showcause.core.errors import InputError
from showcause.core.version import __version__
from showcause.judges.contract import BUDGET_GROUPS, mode_budget
from showcause.judges.prompting import load_prompt
from showcause.judges.registry import CHANGE_MODES
from showcause.policy import Policy
from showcause.snapshot.gitcmd import git

__all__ = ["budgets", "check_resume", "git_state", "prompt_hashes", "run_identity", "url_host"]


def git_state(path: Path | None = None) -> dict[str, Any]:
    """`{sha, dirty}` of the git checkout holding `path` (default: this package); nulls when not in one."""
    where = Path(path) if path is not None else Path(showcause.__file__).resolve().parent
    none: dict[str, Any] = {"sha": None, "dirty": None}
    if not where.is_dir():
        return none
    try:
        head = git(["rev-parse", "HEAD"], cwd=where, check=False, discover=True)
        # The package must be tracked there: an installed copy inside some other repository is not a checkout.
        tracked = git(["ls-files", "--error-unmatch", "--", "."], cwd=where, check=False, discover=True)
        if head.returncode != 0 or tracked.returncode != 0:
            return none
        status = git(["status", "--porcelain", "--untracked-files=no"], cwd=where, check=False, discover=True)
    except OSError:   # no git at all
        return none
    return {"sha": head.stdout.strip(), "dirty": bool(status.stdout.strip()) if status.returncode == 0 else None}


def url_host(url: str | None) -> str | None:
    """Host[:port] of a base URL: never the path, query or credentials, which may carry a key."""
    if not url:
        return None
    parts = urlsplit(url if "://" in url else f"http://{url}")
    host = parts.hostname or ""
    return f"{host}:{parts.port}" if parts.port else host or None


def _url_digest(url: str | None) -> str | None:
    return hashlib.sha256(url.encode()).hexdigest()[:16] if url else None


def prompt_hashes() -> dict[str, str]:
    """The hash of every prompt file (any change to any of them refuses a resume)."""
    folder = resources.files("showcause.judges") / "prompts"
    names = sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".txt"))
    return {name: load_prompt(name)[1] for name in names}


def budgets(policy: Policy) -> dict[str, Any]:
    """The per-review budgets under the bench's policy: the default (`review`) group's, and that of each
    change mode whose spec names another group."""
    own = {spec.name: dataclasses.asdict(budget) for spec in (m.spec for m in CHANGE_MODES.all())
           if spec.budget not in (None, "review")
           and (budget := mode_budget(spec, policy)) is not None}
    return {"default": dataclasses.asdict(BUDGET_GROUPS["review"].build(policy)), **own}


def run_identity(*, case_set: str, modes: list[str], models: list[str], runs: int, config: Path | None,
                 base_urls: dict[str, str | None], limits: Policy) -> dict[str, Any]:
    """`base_urls`: the server each model really talks to (flag, environment or the provider's default).
    Budgets and prompts matter only to model-driven modes: a run without a model does not depend on them."""
    cfg = config.read_text(encoding="utf-8") if config else ""
    return {"case_set": case_set, "modes": modes, "models": models, "runs": runs, "config": cfg,
            "budgets": budgets(limits) if models else {}, "prompt_hashes": prompt_hashes() if models else {},
            "base_url_hosts": {m: url_host(u) for m, u in base_urls.items()},
            "base_url_digests": {m: _url_digest(u) for m, u in base_urls.items()}, "version": __version__}


def check_resume(saved: dict[str, Any], identity: dict[str, Any]) -> None:
    # A key an older run.json lacks matches an empty value (a run without models has no prompts to pin).
    changed = [k for k in identity if saved.get(k) != identity[k] and (k in saved or identity[k])]
    if changed:
        raise InputError(f"--resume refused: {', '.join(changed)} changed since the run started")
