"""`cases prepare`: what a real-world case needs before it can be reviewed offline, fetched once.

Its releases (two per package, from PyPI or npm, digest-checked) and the environment its tests need (`checks.env`)
go into the cache; reviews then only read them. `cases verify` and `bench` prepare their cases first.
"""

from __future__ import annotations

from pathlib import Path

from showcause.sandbox.envcache import node_env_dir, python_env_dir
from showcause.snapshot import load_case_input
from showcause.snapshot.release import release_tree

__all__ = ["prepare_case"]


def prepare_case(case_dir: Path) -> list[str]:
    """Download and build what the case needs (nothing for a case that holds its trees); what it holds,
    one line each. Raises InputError when a release or an environment cannot be had."""
    case = load_case_input(Path(case_dir))
    done: list[str] = []
    if case.release is not None:
        registry = case.release.registry
        for part in case.release.parts:
            for version in dict.fromkeys((part.base, part.head)):
                release_tree(registry, part.package, version, fetch=True)
                done.append(f"{registry} {part.package} {version}" + (f" at {part.dir}/" if part.dir else ""))
    if case.env.pip:
        done.append(f"python env {python_env_dir(case.env.pip, fetch=True)}")
    if case.env.npm:
        done.append(f"node_modules {node_env_dir(case.env.npm, fetch=True) / 'node_modules'}")
    return done
