import os


def test_trap():
    # Read-only directories whose entries are links to host files: a cleanup that chmods what it cannot
    # unlink, following the link, would make the host files world-writable.
    for name, target in (("a", "@@CANARY_FILE@@"), ("b", "@@HOME_CANARY@@"), ("c", "/etc/passwd")):
        os.makedirs(f"trap/{name}", exist_ok=True)
        os.symlink(target, f"trap/{name}/link")
        os.chmod(f"trap/{name}", 0o555)
    os.makedirs("trap/deep/er", exist_ok=True)
    os.symlink("@@CANARY_FILE@@", "trap/deep/er/link")
    os.chmod("trap/deep/er", 0o000)
    os.chmod("trap/deep", 0o500)
    os.chmod("trap", 0o500)
    assert False, "LEAK-ATTEMPT traps set"
