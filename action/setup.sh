#!/usr/bin/env bash
# The Action's set-up step: showcause in its own virtualenv, bubblewrap, and user namespaces that the
# sandbox can use. It never weakens the sandbox: where no isolation level that hides the host works, the
# review itself ends INCONCLUSIVE (SANDBOX_UNAVAILABLE, exit 3) and no repository code runs.
# Environment: ACTION_PATH (the action's checkout), SHOWCAUSE_VERSION (empty: that checkout), RUNNER_TEMP.
set -euo pipefail

venv="${RUNNER_TEMP:-/tmp}/showcause-venv"
py="$(command -v python3 || true)"
if [ -z "$py" ] || ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "::error title=showcause::showcause needs Python 3.11 or newer on the runner: add actions/setup-python before this step"
  exit 2
fi

# Root, or a sudo that asks for no password (GitHub-hosted runners): what may change the host.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif sudo -n true 2>/dev/null; then sudo -n "$@"; else return 1; fi
}

"$py" -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
if [ -z "${SHOWCAUSE_VERSION:-}" ]; then
  # Editable: the checkout's toolchain/ (the pinned TypeScript compiler) is where showcause looks for it.
  "$venv/bin/pip" install --quiet -e "$ACTION_PATH"
  if command -v npm >/dev/null 2>&1 && [ -f "$ACTION_PATH/toolchain/package-lock.json" ]; then
    (cd "$ACTION_PATH/toolchain" && npm ci --no-audit --no-fund --loglevel=error) \
      || echo "::warning title=showcause::npm ci in the action's toolchain failed: JavaScript type checks may not run"
  fi
elif [[ "$SHOWCAUSE_VERSION" =~ ^[0-9][0-9A-Za-z.+-]*$ ]]; then
  "$venv/bin/pip" install --quiet "showcause==$SHOWCAUSE_VERSION"
else
  "$venv/bin/pip" install --quiet "$SHOWCAUSE_VERSION"    # a pip requirement: a git URL, a wheel
fi
echo "$venv/bin" >> "$GITHUB_PATH"

if ! command -v bwrap >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && as_root apt-get update -qq \
      && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; then
    echo "showcause: bubblewrap installed"
  else
    echo "::notice title=showcause::bubblewrap could not be installed; showcause uses its unshare level where user namespaces work"
  fi
fi

# Ubuntu 23.10+ (ubuntu-24.04 runners): AppArmor refuses unprivileged user namespaces, so neither bubblewrap
# nor unshare can start. Lifting that restriction for this throw-away runner is what lets the sandbox work.
knob=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
if [ "$(cat "$knob" 2>/dev/null || echo 0)" = 1 ]; then
  if as_root sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0; then
    echo "showcause: kernel.apparmor_restrict_unprivileged_userns set to 0 for the sandbox"
  else
    echo "::warning title=showcause::AppArmor restricts user namespaces and there is no root or sudo to lift it: the review will be INCONCLUSIVE (SANDBOX_UNAVAILABLE)"
  fi
fi

# Which isolation level the review gets (exit 3 when none: the review then says SANDBOX_UNAVAILABLE).
"$venv/bin/showcause" sandbox || true
