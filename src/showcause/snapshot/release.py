"""Published releases of real projects (a PyPI sdist, an npm tarball) as source trees for repo cases.

A real-world case names its trees by registry, package and version instead of holding them: `cases
prepare` (and `cases verify`, `bench`) download each release once, check its digest against the
registry's, and unpack it into the cache; a review of the case only reads the cache, so nothing is
downloaded during a review. Unpacking takes regular files and directories only (no links, devices or
paths outside the tree) and runs nothing from the release.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from showcause.core import jsonsafe
from showcause.core.cachedir import cache_root
from showcause.core.errors import InputError

__all__ = ["REGISTRIES", "release_tree"]

REGISTRIES = ("pypi", "npm")
_NAME = re.compile(r"^(?:@[a-z0-9][a-z0-9._-]*/)?[A-Za-z0-9][A-Za-z0-9._-]*$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
_MAX_ARCHIVE = 64 * 1024 * 1024
_MAX_MEMBERS = 20_000
_TIMEOUT_S = 60


def _index(kind: str) -> str:
    """The registry's address: `SHOWCAUSE_PYPI_URL` / `SHOWCAUSE_NPM_URL` name a mirror (or a test's server)."""
    if kind == "pypi":
        return os.environ.get("SHOWCAUSE_PYPI_URL", "https://pypi.org/simple").rstrip("/")
    return os.environ.get("SHOWCAUSE_NPM_URL", "https://registry.npmjs.org").rstrip("/")


def _folder(registry: str, package: str, version: str) -> Path:
    return cache_root() / "releases" / registry / package.replace("/", "__") / version


def _get(url: str, max_bytes: int, accept: str = "*/*") -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "showcause"})
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as resp:
            data = resp.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot download {url}: {exc}") from exc
    if len(data) > max_bytes:
        raise InputError(f"{url}: larger than {max_bytes} bytes")
    return data


def _metadata(url: str, accept: str = "application/json") -> dict[str, Any]:
    try:
        doc = jsonsafe.loads(_get(url, jsonsafe.MAX_TOOL_JSON_BYTES, accept).decode("utf-8", "replace"),
                             max_bytes=jsonsafe.MAX_TOOL_JSON_BYTES)
    except ValueError as exc:
        raise InputError(f"{url}: not the registry's JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise InputError(f"{url}: not the registry's JSON")
    return doc


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pypi(package: str, version: str) -> tuple[str, str, str]:
    """(sdist URL, digest kind, expected digest) from PyPI's JSON simple index (PEP 691)."""
    doc = _metadata(f"{_index('pypi')}/{_normalized(package)}/", "application/vnd.pypi.simple.v1+json")
    for entry in doc.get("files") or []:
        if not isinstance(entry, dict):
            continue
        name = str(entry.get("filename", ""))
        stem = name.removesuffix(".tar.gz") if name.endswith(".tar.gz") else name.removesuffix(".zip")
        if stem == name or "-" not in stem:
            continue   # a wheel or something else: only the source distribution is the project's tree
        project, _, ver = stem.rpartition("-")
        if _normalized(project) == _normalized(package) and ver == version:
            return str(entry["url"]), "sha256", str((entry.get("hashes") or {}).get("sha256", ""))
    raise InputError(f"pypi {package} {version}: no source distribution is published")


def _npm(package: str, version: str) -> tuple[str, str, str]:
    doc = _metadata(f"{_index('npm')}/{package}/{version}")
    raw = doc.get("dist")
    dist: dict[str, Any] = raw if isinstance(raw, dict) else {}
    integrity = str(dist.get("integrity") or "")
    if not integrity.startswith("sha512-") or not dist.get("tarball"):
        raise InputError(f"npm {package}@{version}: the registry gives no tarball with a sha512 integrity")
    return str(dist["tarball"]), "sha512", base64.b64decode(integrity.removeprefix("sha512-")).hex()


def _members(data: bytes, url: str) -> list[tuple[str, bytes | None, int]]:
    """(path, content or None for a directory, mode) of every regular file and directory of the archive."""
    out: list[tuple[str, bytes | None, int]] = []
    if url.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for info in zf.infolist()[:_MAX_MEMBERS]:
                out.append((info.filename, None if info.is_dir() else zf.read(info), 0o644))
        return out
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tf:
        for member in tf.getmembers()[:_MAX_MEMBERS]:
            if member.isdir():
                out.append((member.name, None, 0o755))
            elif member.isfile():
                body = tf.extractfile(member)
                out.append((member.name, body.read() if body else b"", 0o755 if member.mode & 0o111 else 0o644))
    return out


def _unpack(data: bytes, url: str, dst: Path) -> None:
    """Into `dst`, the archive's single top directory stripped; a path that would leave `dst` is refused."""
    members = _members(data, url)
    tops = {m[0].lstrip("./").split("/", 1)[0] for m in members if m[0].strip("./")}
    strip = len(tops) == 1
    for name, body, mode in members:
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if strip:
            parts = parts[1:]
        if not parts:
            continue
        if any(p == ".." for p in parts) or name.startswith("/"):
            raise InputError(f"{url}: unsafe path {name!r} in the archive")
        target = dst.joinpath(*parts)
        if body is None:
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        os.chmod(target, mode)


def _download(registry: str, package: str, version: str, folder: Path) -> None:
    url, kind, expected = (_pypi if registry == "pypi" else _npm)(package, version)
    index = urllib.parse.urlsplit(_index(registry))
    if not url.startswith(("https://", f"{index.scheme}://{index.netloc}/")):
        raise InputError(f"{registry} {package} {version}: not an https download ({url})")
    data = _get(url, _MAX_ARCHIVE)
    if not expected or hashlib.new(kind, data).hexdigest() != expected:
        raise InputError(f"{url}: its {kind} digest does not match the registry's")
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".unpack-"))
    try:
        _unpack(data, url, tmp / "tree")
        (tmp / "source.url").write_text(url + "\n", encoding="utf-8")
        os.replace(tmp, folder)   # whole or not at all: a cut download never looks prepared
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def release_tree(registry: str, package: str, version: str, *, fetch: bool = False) -> Path:
    """The unpacked tree of a release. Without `fetch`, a release not in the cache is an InputError saying
    how to prepare it; with it, the release is downloaded first."""
    if registry not in REGISTRIES:
        raise InputError(f"unknown registry {registry!r} (one of {', '.join(REGISTRIES)})")
    if not _NAME.match(package) or not _VERSION.match(version):
        raise InputError(f"invalid package or version: {package!r} {version!r}")
    folder = _folder(registry, package, version)
    if not (folder / "tree").is_dir():
        if not fetch:
            raise InputError(f"{registry} {package} {version} is not prepared: run `showcause cases prepare` on "
                             "the case folder first (it downloads the releases and builds the environments)")
        _download(registry, package, version, folder)
    return folder / "tree"
