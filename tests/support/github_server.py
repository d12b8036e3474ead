"""A loopback server speaking the GitHub REST shapes `showcause ci github` uses: list (Link-paginated),
create and update issue comments; `read_only` answers every write with GitHub's 403 for a fork's token."""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

__all__ = ["FakeGithub"]

_FORBIDDEN = {"message": "Resource not accessible by integration",
              "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment"}


class _Handler(BaseHTTPRequestHandler):
    app: FakeGithub

    def log_message(self, *_args: object) -> None:
        pass

    def _answer(self, status: int, doc: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")

    def do_GET(self) -> None:
        self.app.record(self, None)
        own = f"http://127.0.0.1:{self.server.server_address[1]}"
        status, doc, headers = self.app.get(self.path, own if self.app.link_origin is None else self.app.link_origin)
        self._answer(status, doc, headers)

    def do_POST(self) -> None:
        body = self._body()
        self.app.record(self, body)
        self._answer(*self.app.write("POST", self.path, body))

    def do_PATCH(self) -> None:
        body = self._body()
        self.app.record(self, body)
        self._answer(*self.app.write("PATCH", self.path, body))


@dataclass
class FakeGithub:
    repository: str = "octo/widgets"
    page_size: int = 2                 # small, so a few comments already span pages
    read_only: bool = False
    link_origin: str | None = None     # where `next` links point: None this server, "" relative, or another host
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._ids = itertools.count(1001)
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), type("H", (_Handler,), {"app": self}))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def add_comment(self, number: int, body: str, user_type: str = "User", login: str = "someone") -> None:
        with self._lock:
            self.comments.setdefault(number, []).append(
                {"id": next(self._ids), "body": body, "user": {"login": login, "type": user_type}})

    def record(self, handler: BaseHTTPRequestHandler, body: dict[str, Any] | None) -> None:
        with self._lock:
            self.requests.append({"method": handler.command, "path": handler.path, "body": body,
                                  "authorization": handler.headers.get("Authorization"),
                                  "api_version": handler.headers.get("X-GitHub-Api-Version")})

    def _number(self, path: str) -> int | None:
        parts = urlsplit(path).path.strip("/").split("/")
        prefix = ["repos", *self.repository.split("/"), "issues"]
        if parts[:4] == prefix and len(parts) == 6 and parts[5] == "comments" and parts[4].isdigit():
            return int(parts[4])
        return None

    def get(self, path: str, origin: str) -> tuple[int, Any, dict[str, str]]:
        number = self._number(path)
        if number is None:
            return 404, {"message": "Not Found"}, {}
        page = int(parse_qs(urlsplit(path).query).get("page", ["1"])[0])
        with self._lock:
            items = list(self.comments.get(number, []))
        chunk = items[(page - 1) * self.page_size: page * self.page_size]
        headers = {}
        if page * self.page_size < len(items):
            nxt = f"{origin}/repos/{self.repository}/issues/{number}/comments?per_page={self.page_size}&page={page + 1}"
            headers["Link"] = f'<{nxt}>; rel="next", <{origin}/last>; rel="last"'
        return 200, chunk, headers

    def write(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if self.read_only:
            return 403, _FORBIDDEN
        with self._lock:
            if method == "POST" and (number := self._number(path)) is not None:
                made = {"id": next(self._ids), "body": body["body"],
                        "user": {"login": "github-actions[bot]", "type": "Bot"}}
                self.comments.setdefault(number, []).append(made)
                return 201, made
            parts = urlsplit(path).path.strip("/").split("/")
            if method == "PATCH" and parts[:5] == ["repos", *self.repository.split("/"), "issues", "comments"]:
                for items in self.comments.values():
                    for c in items:
                        if str(c["id"]) == parts[5]:
                            c["body"] = body["body"]
                            return 200, c
        return 404, {"message": "Not Found"}

    def writes(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] in ("POST", "PATCH")]
