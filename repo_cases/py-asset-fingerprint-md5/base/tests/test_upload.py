from pathlib import Path

from assetpipe.upload import content_type, plan_upload


def test_plan_skips_existing_keys() -> None:
    plan = plan_upload({"a.css": "a.1.css", "b.js": "b.2.js"}, {"a.1.css", "old.0.css"})
    assert plan.upload == ["b.2.js"]
    assert plan.unchanged == ["a.1.css"]


def test_content_type() -> None:
    assert content_type(Path("x.woff2")) == "font/woff2"
    assert content_type(Path("x.bin")) == "application/octet-stream"
