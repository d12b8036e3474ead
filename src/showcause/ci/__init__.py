"""Front ends for CI services: `showcause ci github` reviews a pull request inside a GitHub Actions job."""

from showcause.ci.github_run import SARIF_CATEGORY, GithubCiOptions, run_github

__all__ = ["SARIF_CATEGORY", "GithubCiOptions", "run_github"]
