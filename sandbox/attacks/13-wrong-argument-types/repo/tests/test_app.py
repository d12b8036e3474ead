from pathlib import Path


def test_app():
    assert Path('src/app.py').is_file()
