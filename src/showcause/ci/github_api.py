"""The few GitHub REST calls `showcause ci github` makes: list, create and update a pull request's comments.

Every failure is a GithubApiError with the HTTP status (403 is what a fork's read-only token gets). The
token goes only into the Authorization header of requests to the API's own origin: a pagination link that
points elsewhere is not followed, and no message carries the token.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from showcause.core import jsonsafe
from showcause.core.errors import GithubApiError

__all__ = ["GithubClient"]

MAX_PAGES = 50                  # 5,000 comments: a conversation longer than that is not searched further
MAX_BODY_BYTES = 16_000_000     # one API response
_RETRIED = (502, 503, 504)


class GithubClient:
    """A client for one repository. ``transport`` is httpx's (tests may pass one; the default is the network)."""

    def __init__(self, api_url: str, repository: str, token: str, *, timeout_s: float = 30.0,
                 transport: httpx.BaseTransport | None = None) -> None:
        self._base = api_url.rstrip("/")
        self._origin = urlsplit(self._base)[:2]
        self._repo = repository
        self._http = httpx.Client(timeout=timeout_s, transport=transport, follow_redirects=False, headers={
            "Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "showcause-ci", "Authorization": f"Bearer {token}"})

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GithubClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _send(self, method: str, url: str, body: dict[str, Any] | None = None) -> httpx.Response:
        if urlsplit(url)[:2] != self._origin:
            raise GithubApiError(f"refused to send the token to {urlsplit(url).netloc!r} (not GITHUB_API_URL)")
        for attempt in (1, 2):   # one more try for a gateway hiccup or a dropped connection
            try:
                response = self._http.request(method, url, json=body)
            except httpx.HTTPError as exc:
                if attempt == 2:
                    raise GithubApiError(f"{method} {urlsplit(url).path}: {type(exc).__name__}: {exc}") from None
                continue
            if response.status_code in _RETRIED and attempt == 1:
                continue
            if response.status_code >= 400:
                raise GithubApiError(f"{method} {urlsplit(url).path}: HTTP {response.status_code}: "
                                     f"{_message(response)}", status=response.status_code)
            return response
        raise AssertionError("unreachable")

    def _json(self, response: httpx.Response) -> Any:
        try:
            return jsonsafe.loads(response.content, max_bytes=MAX_BODY_BYTES)
        except ValueError as exc:
            raise GithubApiError(f"{urlsplit(str(response.url)).path}: not a JSON answer: {exc}",
                                 status=response.status_code) from None

    def list_comments(self, number: int) -> list[dict[str, Any]]:
        """Every comment of issue/pull request ``number``, following the Link header's `next` pages."""
        url: str | None = f"{self._base}/repos/{self._repo}/issues/{number}/comments?per_page=100"
        found: list[dict[str, Any]] = []
        for _ in range(MAX_PAGES):
            if url is None:
                break
            response = self._send("GET", url)
            page = self._json(response)
            if not isinstance(page, list):
                raise GithubApiError("the comment list is not a JSON array", status=response.status_code)
            found += [c for c in page if isinstance(c, dict)]
            nxt = response.links.get("next", {}).get("url")
            url = urljoin(str(response.url), nxt) if nxt else None   # GitHub's are absolute; a relative one too
        return found

    def create_comment(self, number: int, body: str) -> dict[str, Any]:
        response = self._send("POST", f"{self._base}/repos/{self._repo}/issues/{number}/comments", {"body": body})
        return _object(self._json(response))

    def update_comment(self, comment_id: int, body: str) -> dict[str, Any]:
        response = self._send("PATCH", f"{self._base}/repos/{self._repo}/issues/comments/{comment_id}",
                              {"body": body})
        return _object(self._json(response))


def _object(doc: Any) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise GithubApiError("the answer is not a JSON object")
    return doc


def _message(response: httpx.Response) -> str:
    """GitHub's own error message, one short line (its JSON `message`, else the start of the body)."""
    try:
        doc = jsonsafe.loads(response.content, max_bytes=MAX_BODY_BYTES)
        text = str(doc.get("message", "")) if isinstance(doc, dict) else ""
    except ValueError:
        text = response.text[:200]
    return " ".join(text.split())[:300] or response.reason_phrase
