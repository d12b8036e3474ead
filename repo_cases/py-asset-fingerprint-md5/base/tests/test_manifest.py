import json
from pathlib import Path

from assetpipe.manifest import build_manifest, write_manifest


def make_tree(root: Path) -> None:
    (root / "css").mkdir()
    (root / "css" / "app.css").write_text("body{}")
    (root / "css" / "app.css.map").write_text("{}")
    (root / "logo.svg").write_text("<svg/>")


def test_manifest_skips_maps(tmp_path: Path) -> None:
    make_tree(tmp_path)
    manifest = build_manifest(tmp_path)
    assert sorted(manifest) == ["css/app.css", "logo.svg"]
    assert manifest["css/app.css"].startswith("css/app.")


def test_write_manifest(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    make_tree(src)
    out = tmp_path / "manifest.json"
    manifest = write_manifest(src, out)
    assert json.loads(out.read_text()) == manifest
