"""The session's llama.cpp server (see llamacpp.py); started once, killed with its process group at the end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from llamacpp import OUTCOMES, LlamaServer, start_server, stop_server


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    server = start_server(tmp_path_factory.mktemp("llama-server") / "server.log")
    try:
        yield server
    finally:
        stop_server(server)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if OUTCOMES:
        terminalreporter.write_sep("-", "reviews against the llama.cpp server")
        for line in OUTCOMES:
            terminalreporter.write_line(line)
