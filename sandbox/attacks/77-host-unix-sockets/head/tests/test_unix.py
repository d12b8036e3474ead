import socket


def _unix(address):
    """CONNECTED (+ what the peer says) or the error that stopped the connection."""
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(address)
    except Exception as exc:
        return type(exc).__name__
    out = "CONNECTED"
    try:
        out += " " + s.recv(300).decode("utf-8", "replace").strip().splitlines()[-1][:60]
    except Exception:
        pass
    s.close()
    return out


def test_unix():
    found = {"file": _unix("@@UNIX_SOCKET@@"), "abstract": _unix("\0@@ABSTRACT_SOCKET@@"),
             "docker": _unix("/var/run/docker.sock"), "dbus": _unix("/run/dbus/system_bus_socket")}
    raise AssertionError("LEAK-ATTEMPT " + " ".join(f"{k}={v}" for k, v in found.items()))
