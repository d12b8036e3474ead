"""`showcause ci github` against a loopback GitHub API and a real git repository with a PR-like event."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builders import git_repo
from github_server import FakeGithub
from showcause.ci import GithubCiOptions, run_github
from showcause.ci.github_api import GithubClient
from showcause.ci.sticky import MARKER, MAX_COMMENT_CHARS, CommentOutcome, comment_body, upsert_comment
from showcause.ci.workflow import MAX_PER_LEVEL, cap_annotations, summary_text
from showcause.core.errors import GithubApiError, InputError
from showcause.snapshot.baseref import merge_base

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py

ROOT = Path(__file__).resolve().parents[1]
SHOWCAUSE = [str(Path(sys.executable).parent / "showcause")]
TOKEN = "ghs_loopbackSecretToken0123456789"

_OPS = "def add(a: int, b: int) -> int:\n    return a {op} b\n"
_TEST = "from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
BASE = {"pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n', "src/calc/__init__.py": "",
        "src/calc/ops.py": _OPS.format(op="+"), "tests/test_ops.py": _TEST}


def _sha(repo: Path, ref: str) -> str:
    return subprocess.run(["git", "rev-parse", ref], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """main: base; the pull request: a commit breaking add() (MODIFY), then one mending it (KEEP)."""
    root = git_repo(tmp_path_factory.mktemp("ci") / "widgets",
                    [BASE, {"src/calc/ops.py": _OPS.format(op="-")},
                     {"src/calc/ops.py": "# adds\n" + _OPS.format(op="+")}])
    return {"path": root, "base": _sha(root, "HEAD~2"), "bad": _sha(root, "HEAD~1"), "good": _sha(root, "HEAD")}


def _event(tmp: Path, base: str, head: str, *, event: str = "pull_request") -> Path:
    if event == "merge_group":
        doc: dict[str, Any] = {"action": "checks_requested", "merge_group": {
            "base_sha": base, "head_sha": head, "base_ref": "refs/heads/main",
            "head_ref": "refs/heads/gh-readonly-queue/main/pr-7-" + base}}
    else:
        doc = {"action": "synchronize", "number": 7, "pull_request": {
            "number": 7, "base": {"sha": base, "ref": "main", "repo": {"full_name": "octo/widgets"}},
            "head": {"sha": head, "ref": "feature", "repo": {"full_name": "octo/widgets"}}}}
    path = tmp / f"event-{head[:7]}-{event}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _run(tmp: Path, repo: Path, api: str, event: Path, *args: str, name: str = "pull_request",
         drop: tuple[str, ...] = (), inputs: dict[str, str] | None = None,
         ) -> tuple[subprocess.CompletedProcess[str], dict[str, str], str]:
    """The command as a job step runs it; with ``inputs``, through the Action's own review step (action/review.sh,
    the inputs as its INPUT_* variables)."""
    summary, output = tmp / "summary.md", tmp / "output.txt"
    summary.write_text("", encoding="utf-8")
    output.write_text("", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env.update({"GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": name, "GITHUB_REPOSITORY": "octo/widgets",
                "GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": api, "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_OUTPUT": str(output), "GITHUB_WORKSPACE": str(repo)})
    for key in drop:
        env.pop(key)
    argv = [*SHOWCAUSE, "ci", "github", "--sarif", str(tmp / "showcause.sarif"), *args]
    if inputs is not None:
        argv = ["bash", str(ROOT / "action" / "review.sh")]
        env.update({f"INPUT_{k.upper().replace('-', '_')}": v for k, v in inputs.items()}, RUNNER_TEMP=str(tmp))
        env["PATH"] = f"{Path(SHOWCAUSE[0]).parent}:{env['PATH']}"
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp, timeout=300)
    for text in (proc.stdout, proc.stderr, summary.read_text(), output.read_text()):
        assert TOKEN not in text
    return proc, _outputs(output.read_text()), summary.read_text()


def _outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT's delimited entries (name<<DELIM, value, DELIM)."""
    found, lines = {}, text.splitlines()
    i = 0
    while i < len(lines):
        name, delimiter = lines[i].split("<<", 1)
        found[name] = lines[i + 1]
        assert lines[i + 2] == delimiter
        i += 3
    return found


def test_two_runs_keep_one_comment_and_a_keep_after_a_modify_edits_it(repo: dict[str, Any], tmp_path: Path):
    with FakeGithub() as gh:
        for i in range(3):   # other people's comments first: the sticky one is on the second page
            gh.add_comment(7, f"looks fine {i}")
        event = _event(tmp_path, repo["base"], repo["bad"])
        first, outputs, summary = _run(tmp_path, repo["path"], gh.url, event)
        assert first.returncode == 1, first.stderr
        assert outputs == {"verdict": "MODIFY", "exit-code": "1", "sarif-file": str(tmp_path / "showcause.sarif")}
        assert "::error file=tests/test_ops.py" in first.stdout or "::error file=" in first.stdout
        assert "**MODIFY**" in summary and "comment: posted" in summary
        sarif = json.loads((tmp_path / "showcause.sarif").read_text())
        assert sarif["runs"][0]["automationDetails"] == {"id": "showcause/"}
        assert sarif["runs"][0]["results"][0]["ruleId"] == "test_regression"

        again, outputs, summary = _run(tmp_path, repo["path"], gh.url, event)
        assert again.returncode == 1 and outputs["verdict"] == "MODIFY"
        assert "comment: updated (was MODIFY)" in summary
        ours = [c for c in gh.comments[7] if MARKER in c["body"]]
        assert len(gh.comments[7]) == 4 and len(ours) == 1
        assert [w["method"] for w in gh.writes()] == ["POST", "PATCH"]
        assert "showcause: MODIFY" in ours[0]["body"]
        # Every page was read, with the token only in the header.
        pages = [r["path"] for r in gh.requests if r["method"] == "GET"]
        assert any("page=2" in p for p in pages)
        assert {r["authorization"] for r in gh.requests} == {f"Bearer {TOKEN}"}

        mended, outputs, summary = _run(tmp_path, repo["path"], gh.url, _event(tmp_path, repo["base"], repo["good"]))
        assert mended.returncode == 0, mended.stderr
        assert outputs["verdict"] == "KEEP" and outputs["exit-code"] == "0"
        assert len([c for c in gh.comments[7] if MARKER in c["body"]]) == 1
        body = ours[0]["body"]
        assert "showcause: KEEP" in body and "said **MODIFY**" in body and repo["good"][:12] in body
        assert [w["method"] for w in gh.writes()] == ["POST", "PATCH", "PATCH"]


def test_a_fork_gets_no_comment_a_notice_and_the_review_exit_code(repo: dict[str, Any], tmp_path: Path):
    with FakeGithub(read_only=True) as gh:
        proc, outputs, summary = _run(tmp_path, repo["path"], gh.url, _event(tmp_path, repo["base"], repo["bad"]))
    assert proc.returncode == 1, proc.stderr
    assert outputs["verdict"] == "MODIFY" and outputs["exit-code"] == "1"
    notices = [line for line in proc.stdout.splitlines() if line.startswith("::notice")]
    assert any("could not comment on pull request #7" in n and "HTTP 403" in n for n in notices), proc.stdout
    assert gh.comments == {} and "comment: not posted" in summary


def test_a_merge_group_through_the_actions_step_reviews_its_commits_and_posts_nothing(repo: dict[str, Any],
                                                                                     tmp_path: Path):
    with FakeGithub() as gh:
        event = _event(tmp_path, repo["base"], repo["good"], event="merge_group")
        proc, outputs, summary = _run(tmp_path, repo["path"], gh.url, event, name="merge_group",
                                      drop=("GITHUB_TOKEN",), inputs={"fail-on": "WARNING", "sarif": "false",
                                                                       "annotations": "false", "comment": "true"})
    assert proc.returncode == 0, proc.stderr
    assert outputs == {"verdict": "KEEP", "exit-code": "0", "sarif-file": ""}
    assert proc.stdout == "" and not (tmp_path / "showcause.sarif").exists()
    assert "merge group has no conversation" in summary and "(merge_group)" in summary
    assert "exit code 0 (fail on WARNING)" in summary
    assert gh.requests == []


def test_a_first_keep_posts_nothing_and_a_pasted_marker_is_not_taken_for_ours():
    with FakeGithub() as gh, GithubClient(gh.url, "octo/widgets", TOKEN) as api:
        assert upsert_comment(api, 7, "✅ KEEP\n", "KEEP", "b" * 40) == CommentOutcome("skipped")
        gh.add_comment(7, f"quoting the bot: {MARKER}")           # a person pasted the marker
        gh.add_comment(7, "unrelated")
        gh.add_comment(7, f"{MARKER}\n<!-- showcause:verdict=WARNING -->\nold", user_type="Bot")
        outcome = upsert_comment(api, 7, "✅ KEEP\n", "KEEP", "b" * 40)
        assert outcome == CommentOutcome("updated", gh.comments[7][2]["id"], "WARNING")
        assert gh.comments[7][0]["body"] == f"quoting the bot: {MARKER}"
        assert "said **WARNING**" in gh.comments[7][2]["body"]
        assert [w["method"] for w in gh.writes()] == ["PATCH"]


@pytest.mark.parametrize(("change", "message"), [
    ({"drop": "GITHUB_EVENT_PATH"}, "GITHUB_EVENT_PATH is not set"),
    ({"drop": "GITHUB_REPOSITORY"}, "GITHUB_REPOSITORY is not set"),
    ({"drop": "GITHUB_TOKEN"}, "GITHUB_TOKEN is not set"),
    ({"name": "push"}, "GITHUB_EVENT_NAME 'push'"),
    ({"event": "{not json"}, "not valid JSON"),
    ({"event": '{"pull_request": {"number": 7, "base": {"sha": "abc", "ref": "main"}}}'}, "is not a commit sha"),
    ({"event": '{"pull_request": {"number": 7}}'}, "has no `pull_request.base.sha`"),
    ({"api": "ftp://example.invalid"}, "is not an http(s) URL"),
])
def test_a_bad_environment_or_event_is_refused_before_any_review(repo: dict[str, Any], tmp_path: Path,
                                                                 change: dict[str, str], message: str):
    event = _event(tmp_path, repo["base"], repo["bad"])
    if "event" in change:
        event.write_text(change["event"], encoding="utf-8")
    env = {"GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": change.get("name", "pull_request"),
           "GITHUB_REPOSITORY": "octo/widgets", "GITHUB_TOKEN": TOKEN,
           "GITHUB_API_URL": change.get("api", "http://127.0.0.1:9"), "GITHUB_WORKSPACE": str(repo["path"])}
    env.pop(change.get("drop", ""), None)
    printed: list[str] = []
    with pytest.raises(InputError) as caught:
        run_github(GithubCiOptions(sarif=tmp_path / "s.sarif"), env, emit=printed.append)
    assert message in caught.value.message and TOKEN not in caught.value.message
    assert printed == [] and not (tmp_path / "s.sarif").exists()


def test_the_command_says_a_bad_environment_in_one_line_and_exits_2(repo: dict[str, Any], tmp_path: Path):
    proc, outputs, _summary = _run(tmp_path, repo["path"], "http://127.0.0.1:9",
                                   _event(tmp_path, repo["base"], repo["bad"]), name="push")
    assert proc.returncode == 2 and outputs == {} and proc.stdout == ""
    assert proc.stderr.startswith("showcause: error: GITHUB_EVENT_NAME 'push'") and proc.stderr.count("\n") == 1


def test_annotations_are_capped_per_level_and_the_rest_goes_to_the_summary():
    lines = [f"::error file=a.py,line={i}::error {i}" for i in range(15)]
    lines += [f"::warning title=showcause::warning {i}%0Amore" for i in range(12)]
    lines.append("::error title=showcause::showcause: MODIFY — the verdict")
    capped = cap_annotations(lines, {"notice": 1})
    errors = [line for line in capped.shown if line.startswith("::error")]
    warnings = [line for line in capped.shown if line.startswith("::warning")]
    assert len(errors) == MAX_PER_LEVEL and len(warnings) == MAX_PER_LEVEL
    assert capped.shown[-1] == lines[-1]          # the verdict line always shows
    assert errors[:9] == lines[:9]
    assert [m for _, m in capped.left_out] == [f"error {i}" for i in range(9, 15)] + \
        ["warning 10 more", "warning 11 more"]
    summary = summary_text("report", capped.left_out, ["verdict: MODIFY"])
    assert "- **error**: error 14" in summary and "- **warning**: warning 11 more" in summary


def test_the_comment_stays_under_githubs_limit_with_its_fences_closed():
    huge = "⛔ **showcause: MODIFY**\n\n<details><summary>Evidence</summary>\n\n```text\n" + "x" * 200 + "\n"
    huge = huge + ("y" * 150 + "\n") * 1000
    body = comment_body(huge, "MODIFY", "a" * 40, None)
    assert len(body) < MAX_COMMENT_CHARS < 65_536 and body.startswith(MARKER)
    assert body.count("```") % 2 == 0 and body.count("<details>") == body.count("</details>")
    assert "cut to fit GitHub's comment limit" in body


def test_a_missing_commit_says_to_fetch_the_history(repo: dict[str, Any], tmp_path: Path):
    event = _event(tmp_path, repo["base"], "f" * 40)
    output = tmp_path / "out.txt"
    env = {"GITHUB_EVENT_PATH": str(event), "GITHUB_EVENT_NAME": "pull_request_target",
           "GITHUB_REPOSITORY": "octo/widgets", "GITHUB_TOKEN": TOKEN, "GITHUB_OUTPUT": str(output),
           "GITHUB_WORKSPACE": str(repo["path"])}
    with pytest.raises(InputError, match=r"unknown git ref .*fetch-depth: 0"):
        run_github(GithubCiOptions(sarif=None), env)
    assert _outputs(output.read_text()) == {"verdict": "", "exit-code": "2", "sarif-file": ""}


def test_a_pull_request_is_reviewed_from_where_it_left_its_base_branch(tmp_path: Path):
    root = git_repo(tmp_path / "moved", [BASE])
    fork_point = _sha(root, "HEAD")
    subprocess.run(["git", "checkout", "-q", "-b", "feature"], cwd=root, check=True)
    git_repo(root, [{"src/calc/ops.py": _OPS.format(op="-")}])   # the pull request's commit
    head = _sha(root, "HEAD")
    subprocess.run(["git", "checkout", "-q", "main"], cwd=root, check=True)
    git_repo(root, [{"docs/later.md": "main moved on\n"}])      # main after the branch left it
    assert merge_base(root, _sha(root, "main"), head) == fork_point
    assert merge_base(root, _sha(root, "main"), "0" * 40) is None


def test_pages_are_followed_by_relative_links_but_the_token_never_leaves_the_api_host():
    with FakeGithub(link_origin="") as gh, GithubClient(gh.url, "octo/widgets", TOKEN) as api:
        for i in range(5):
            gh.add_comment(7, f"c{i}")
        assert [c["body"] for c in api.list_comments(7)] == [f"c{i}" for i in range(5)]
    with FakeGithub(link_origin="http://127.0.0.2:9") as gh, GithubClient(gh.url, "octo/widgets", TOKEN) as api:
        for i in range(3):
            gh.add_comment(7, f"c{i}")
        with pytest.raises(GithubApiError, match=r"refused to send the token to '127\.0\.0\.2:9'") as caught:
            api.list_comments(7)
        assert TOKEN not in str(caught.value) and len(gh.requests) == 1
