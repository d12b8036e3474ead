"""Snapshots: a base tree, a head tree and the real diff between them."""

from showcause.snapshot.baseref import default_base
from showcause.snapshot.case import CaseInput, load_case_input
from showcause.snapshot.diff import Diff, FileChange, diff_trees, parse_unified_diff
from showcause.snapshot.snapshot import Snapshot, from_case, from_dir, from_git

__all__ = ["CaseInput", "Diff", "FileChange", "Snapshot", "default_base", "diff_trees", "from_case", "from_dir",
           "from_git", "load_case_input", "parse_unified_diff"]
