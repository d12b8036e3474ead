import os


def _write(path):
    try:
        with open(path, "w") as fh:
            fh.write("escaped from the sandbox")
        return "WROTE"
    except Exception as exc:
        return type(exc).__name__


def test_poison():
    # A later review would read a forged base outcome from the cache; a .pth in the venv would run inside the
    # next showcause process, with the user's keys.
    try:
        os.makedirs("@@CACHE_DIR@@/base", exist_ok=True)
        made = "made"
    except OSError as exc:
        made = type(exc).__name__
    found = {"cache": _write("@@CACHE_DIR@@/base/showcause-escape-@@MARKER@@.json"), "mkdir": made,
             "pth": _write("@@SITE_PACKAGES@@/showcause-escape-@@MARKER@@.pth"),
             "sitecustomize": _write("@@SITE_PACKAGES@@/sitecustomize.py")}
    raise AssertionError("LEAK-ATTEMPT " + " ".join(f"{k}={v}" for k, v in found.items()))
