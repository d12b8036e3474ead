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


def _dns():
    try:
        return "RESOLVED " + socket.getaddrinfo("example.com", 80)[0][4][0]
    except Exception as exc:
        return type(exc).__name__


def _udp():
    try:
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.sendto(b"exfil", ("8.8.8.8", 53))
        return "SENT"
    except Exception as exc:
        return type(exc).__name__


def test_outbound():
    leak(tcp=_net("1.1.1.1", 80, send=b"GET / HTTP/1.0\r\n\r\n"), dns=_dns(), udp=_udp(),
         v6=_net("2606:4700:4700::1111", 80, socket.AF_INET6))
