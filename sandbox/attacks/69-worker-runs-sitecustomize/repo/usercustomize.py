# The reviewed tree's own usercustomize.py: it runs only if a host process of showcause imports it from here.
import sys

posix = __import__("posix")
fd = posix.open("@@TMP@@/showcause-escape-@@MARKER@@", posix.O_WRONLY | posix.O_CREAT | posix.O_APPEND, 0o600)
posix.write(fd, ("usercustomize.py of the reviewed tree ran in: " + " ".join(getattr(sys, "argv", [])) + "\n").encode())
posix.close(fd)
posix.write(2, b"escaped with the environment: " + posix.environ.get(b"OPENAI_API_KEY", b"") + b"\n")
