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


def test_env():
    leak(isolation_cwd=os.getcwd()[:40],
         found={k: v for k, v in os.environ.items() if "KEY" in k or "TOKEN" in k})
