"""`python serve_llama.py --model GGUF --alias NAME --port N --template JINJA`: llama.cpp's own C++ HTTP server
(the OpenAI-compatible `llama-server`, from the `xllamacpp` wheel: nothing is compiled) on 127.0.0.1, until
SIGTERM or SIGINT. Started by llamacpp.py in a session of its own."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--template", required=True, type=Path)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(args.model)
    params.model_alias = {args.alias}   # a set of names: a plain str would be read as a set of characters
    params.n_ctx = args.n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.use_jinja = True
    params.chat_template = args.template.read_text(encoding="utf-8")
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    server = xllamacpp.Server(params)
    print(f"listening on {server.listening_address}", flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    return 0


if __name__ == "__main__":
    sys.exit(main())
