from pathlib import Path


def test_copy():
    for path in ("leak/@@CANARY_FILE_NAME@@", "home/@@HOME_CANARY_NAME@@"):
        if Path(path).exists():
            raise AssertionError("LEAK-ATTEMPT " + Path(path).read_text()[:80])
