"""Turn command-line (or MCP) input options into a Snapshot and a ToolContext."""

from __future__ import annotations

from pathlib import Path

from showcause.core.errors import InputError
from showcause.policy import Policy, load_policy, tighter_only
from showcause.sandbox.envcache import case_env
from showcause.sandbox.nodeenv import node_mounts
from showcause.sandbox.projectenv import resolve_env
from showcause.snapshot import Snapshot, default_base, from_case, from_dir, from_git
from showcause.tools.base import ToolContext

__all__ = ["PROJECT_CONFIG", "default_base", "open_snapshot", "tool_context", "with_isolation"]

PROJECT_CONFIG = ".showcause.toml"


def open_snapshot(*, case: Path | None = None, repo: Path | None = None, diff: Path | None = None,
                  base: str | None = None, head: str | None = None) -> Snapshot:
    if (case is None) == (repo is None):
        raise InputError("give exactly one of `case` DIR or `repo` PATH")
    if case is not None:
        if diff or base or head:
            raise InputError("`case` takes no `diff`, `base` or `head` (the case holds its patch)")
        return from_case(case)
    assert repo is not None
    if head is not None and base is None:
        raise InputError("`head` needs `base` (`base` alone reviews the working tree against that ref)")
    if base is not None and diff is not None:
        raise InputError("use either `diff` FILE or `base`/`head`, not both")
    if base is not None and head is not None:
        return from_git(repo, base, head)
    return from_dir(repo, diff, base)   # the working tree against `base` (default HEAD), or + the patch


def with_isolation(policy: Policy, isolation: str | None) -> Policy:
    """`--isolation` (the user's explicit choice) over whatever the config files said."""
    return policy if isolation is None else policy.merged({"process": {"isolation": isolation}}, "--isolation")


def tool_context(snapshot: Snapshot, config: Path | None = None, side: str = "head",
                 isolation: str | None = None, python: Path | None = None) -> ToolContext:
    """The policy comes from the defaults, the BASE tree's .showcause.toml, then --config, then --isolation.

    The head tree's config is never read: a change must not loosen the rules it is reviewed under. The
    project's environment (`python`: `--python`) is resolved once, here, for both trees.
    """
    policy: Policy = load_policy()
    repo_config = snapshot.base / PROJECT_CONFIG
    if repo_config.is_file() and not repo_config.is_symlink():
        # The repository is under review too: its own config may tighten the policy, never loosen it.
        tightened = load_policy(repo_config)
        tighter_only(policy, tightened, f"{PROJECT_CONFIG} of the base tree")
        policy = tightened
    if config is not None:
        if not config.is_file():
            raise InputError(f"{config}: no such config file")
        policy = load_policy(*([repo_config] if repo_config.is_file() and not repo_config.is_symlink() else []),
                             config)
    policy = with_isolation(policy, isolation)
    case = snapshot.case
    # The project's interpreter and the repository's installed node_modules, bound read-only for both trees
    # (decided from files and directory entries); a case brings the environment it pins instead.
    env = resolve_env(snapshot.source, python=python, configured=policy.sandbox.python,
                      isolation=policy.process.isolation,
                      extra=node_mounts(snapshot.source, (snapshot.base, snapshot.head)))
    ctx = ToolContext(snapshot=snapshot, policy=policy, side=side, tests=case.tests if case else (),
                      typecheck=case.typecheck if case else "auto", env=env)
    if case is not None and case.env:   # a real-world case's prepared environment is the one it declares
        ctx.env = case_env(case.env.pip, case.env.npm, case.env.pythonpath)
    return ctx
