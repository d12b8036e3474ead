import json
from pathlib import Path

from assetpipe.fingerprint import fingerprint, hashed_name

SKIP_SUFFIXES = (".map", ".DS_Store")


def collect(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.name.endswith(SKIP_SUFFIXES))


def build_manifest(root: Path) -> dict[str, str]:
    """Logical path -> fingerprinted path, both relative to root."""
    manifest: dict[str, str] = {}
    for path in collect(root):
        rel = path.relative_to(root)
        manifest[rel.as_posix()] = (rel.parent / hashed_name(path, fingerprint(path))).as_posix()
    return manifest


def write_manifest(root: Path, out: Path) -> dict[str, str]:
    manifest = build_manifest(root)
    out.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest
