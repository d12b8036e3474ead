from dataclasses import dataclass
from pathlib import Path

CACHE_CONTROL = "public, max-age=31536000, immutable"


@dataclass(frozen=True)
class UploadPlan:
    upload: list[str]
    unchanged: list[str]


def plan_upload(manifest: dict[str, str], remote_keys: set[str]) -> UploadPlan:
    """Fingerprinted names are immutable: anything already in the bucket can be skipped."""
    upload = sorted(v for v in manifest.values() if v not in remote_keys)
    unchanged = sorted(v for v in manifest.values() if v in remote_keys)
    return UploadPlan(upload, unchanged)


def content_type(path: Path) -> str:
    return {
        ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml", ".png": "image/png",
        ".woff2": "font/woff2", ".json": "application/json",
    }.get(path.suffix, "application/octet-stream")
