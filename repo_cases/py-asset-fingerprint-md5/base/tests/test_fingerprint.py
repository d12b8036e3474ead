from pathlib import Path

from assetpipe.fingerprint import fingerprint, hashed_name


def test_hashed_name() -> None:
    assert hashed_name(Path("css/app.min.css"), "abc") == "app.abc.min.css"
    assert hashed_name(Path("LICENSE"), "abc") == "LICENSE.abc"


def test_fingerprint_is_short_hex(tmp_path: Path) -> None:
    p = tmp_path / "a.js"
    p.write_text("x")
    fp = fingerprint(p)
    assert 0 < len(fp) <= 12
    int(fp, 16)
