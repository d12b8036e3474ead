from pathlib import Path


def test_value():
    assert "original" in Path("src/app.py").read_text()
