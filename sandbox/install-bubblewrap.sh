#!/bin/sh
# `make setup`: install bubblewrap where it is missing and this can (root with apt-get); idempotent.
# Otherwise say what to install. showcause also runs at its `unshare` level where user namespaces work;
# `showcause sandbox` tells which level a review will get.
if command -v bwrap >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing bubblewrap (apt-get install bubblewrap)"
  if apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null 2>&1; then
    echo "setup: bubblewrap $(bwrap --version 2>/dev/null | cut -d' ' -f2) installed"
  else
    echo "setup: bubblewrap could not be installed; install it yourself (apt-get install bubblewrap)" >&2
  fi
  exit 0
fi
echo "setup: bubblewrap is not installed. Install it for the strongest sandbox:" >&2
echo "setup:   Debian/Ubuntu: sudo apt-get install bubblewrap   Fedora: sudo dnf install bubblewrap" >&2
exit 0
