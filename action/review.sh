#!/usr/bin/env bash
# The Action's review step: the inputs as `showcause ci github` options; exits with the review's code.
# Environment: INPUT_BASE, INPUT_MODE, INPUT_MODEL, INPUT_FAIL_ON, INPUT_CONFIG, INPUT_PYTHON,
# INPUT_COMMENT, INPUT_SARIF, INPUT_ANNOTATIONS (true/false), RUNNER_TEMP.
set -uo pipefail

flag() {   # flag VALUE NAME: --NAME for true, --no-NAME for false, anything else is a usage error
  case "$1" in
    true) echo "--$2" ;;
    false) echo "--no-$2" ;;
    *) echo "::error title=showcause::input $2 must be true or false, not '$1'" >&2; exit 2 ;;
  esac
}

args=(ci github --fail-on "${INPUT_FAIL_ON:-MODIFY}")
for pair in "base:${INPUT_BASE:-}" "mode:${INPUT_MODE:-}" "model:${INPUT_MODEL:-}" \
            "config:${INPUT_CONFIG:-}" "python:${INPUT_PYTHON:-}"; do
  name="${pair%%:*}" value="${pair#*:}"
  if [ -n "$value" ]; then args+=("--$name" "$value"); fi
done
args+=("$(flag "${INPUT_COMMENT:-true}" comment)") || exit 2
args+=("$(flag "${INPUT_ANNOTATIONS:-true}" annotations)") || exit 2
case "$(flag "${INPUT_SARIF:-true}" sarif)" in
  --sarif) args+=(--sarif "${RUNNER_TEMP:-/tmp}/showcause.sarif") ;;
  --no-sarif) args+=(--no-sarif) ;;
  *) exit 2 ;;
esac

showcause "${args[@]}"
