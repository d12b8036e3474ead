import argparse
import sys
from typing import TextIO

from tabular.reader import InputError, read_rows, select
from tabular.render import render_table


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabular", description="Pretty-print CSV as an aligned table.")
    parser.add_argument("file", nargs="?", help="CSV file (default: standard input)")
    parser.add_argument("-d", "--delimiter", default=",")
    parser.add_argument("-c", "--columns", help="comma-separated column names to keep, in order")
    return parser


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = stdout or sys.stdout
    try:
        if args.file:
            with open(args.file, encoding="utf-8", newline="") as fh:
                text = fh.read()
        else:
            text = (stdin or sys.stdin).read()
        header, rows = read_rows(text, args.delimiter)
        if args.columns:
            header, rows = select(header, rows, [c.strip() for c in args.columns.split(",")])
    except (OSError, InputError) as exc:
        print(f"tabular: {exc}", file=sys.stderr)
        return 2
    out.write(render_table(header, rows))
    return 0
