from collections.abc import Callable
from typing import Any

Handler = Callable[[dict[str, Any]], None]


class RetryableError(Exception):
    """A transient failure: the message should be delivered again later."""


def make_thumbnail(body: dict[str, Any]) -> None:
    width, height = int(body["width"]), int(body["height"])
    if width <= 0 or height <= 0:
        raise ValueError("image has no pixels")
    scale = min(256 / width, 256 / height, 1.0)
    body["thumb"] = (round(width * scale), round(height * scale))


def send_webhook(body: dict[str, Any]) -> None:
    if body.get("status") == 503:
        raise RetryableError("endpoint unavailable")
    body["delivered"] = True


HANDLERS: dict[str, Handler] = {"thumbnail": make_thumbnail, "webhook": send_webhook}
