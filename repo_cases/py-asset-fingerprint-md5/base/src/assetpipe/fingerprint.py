from pathlib import Path


def fingerprint(path: Path) -> str:
    return format(int(path.stat().st_mtime), "x")[-8:]


def hashed_name(path: Path, digest: str) -> str:
    stem, dot, suffix = path.name.partition(".")
    return f"{stem}.{digest}{dot}{suffix}" if dot else f"{stem}.{digest}"
