import os
import socket


def _try(fn, n=60):
    try:
        return repr(fn())[:n]
    except Exception as exc:  # the attack reports what stopped it
        return type(exc).__name__


def _net(host, port, family=socket.AF_INET, send=b""):
    """CONNECTED (+ whatever the peer says first) or the error that stopped the connection."""
    try:
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect((host, port))
    except Exception as exc:
        return type(exc).__name__
    out = "CONNECTED"
    try:
        if send:
            s.sendall(send)
        out += " " + s.recv(300).decode("utf-8", "replace").strip().splitlines()[-1][:60]
    except Exception:
        pass
    s.close()
    return out


def _write(path):
    try:
        with open(path, "w") as fh:
            fh.write("escaped from the sandbox")
        return "WROTE"
    except Exception as exc:
        return type(exc).__name__


def leak(**items):
    """Fail with everything found on ONE short line: that line is what run_test shows a model."""
    raise AssertionError(("LEAK-ATTEMPT " + " ".join(f"{k}={v}" for k, v in items.items()))[:230])


def test_truth():
    found, scanned, seen = [], 0, set()
    skip = {"/proc", "/sys", "/dev", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/snap", "/boot"}
    for top in ("/tmp", "/work", "/root", "/home", "/srv", "/opt", "/"):
        for dirpath, dirnames, filenames in os.walk(top):
            if dirpath in seen or scanned > 30000:
                dirnames[:] = []
                continue
            seen.add(dirpath)
            scanned += 1
            dirnames[:] = [n for n in dirnames if os.path.join(dirpath, n) not in skip and dirpath.count("/") < 9
                           and n not in ("node_modules", "site-packages", ".git", "__pycache__")]
            if "case.json" in filenames:
                path = os.path.join(dirpath, "case.json")
                text = _try(lambda p=path: open(p).read(), 100000)
                if '"truth"' in text:
                    found.append(text[text.find('"issue"'):][:70])
    leak(found=found[:2], links=[_try(lambda n=n: open(n).read()) for n in ("truth_rel.json", "truth_abs.json")],
         scanned=scanned)
