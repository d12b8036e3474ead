"""API keys: from an environment variable, or from a key command whose output is cached with a TTL."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from typing import Protocol

from showcause.core.errors import ConfigError
from showcause.core.hostproc import HOST_CWD, safe_path, which

__all__ = ["CommandKey", "EnvKey", "KeySource", "NoKey", "key_source"]


class KeySource(Protocol):
    """Where a provider's key comes from. `secrets()` lists every value ever handed out, for redaction."""

    def get(self) -> str | None: ...

    def remint(self) -> str | None:
        """A fresh key after a 401, or None when this source cannot mint a new one."""
        ...

    def secrets(self) -> tuple[str, ...]: ...


class NoKey:
    """No key at all (local servers such as Ollama)."""

    def get(self) -> str | None:
        return None

    def remint(self) -> str | None:
        return None

    def secrets(self) -> tuple[str, ...]:
        return ()

    def __repr__(self) -> str:
        return "NoKey()"


class EnvKey:
    """A key read from `env_var`. With `required`, a missing or empty variable is a CONFIG_ERROR naming it."""

    def __init__(self, env_var: str, *, required: bool = True) -> None:
        self.env_var = env_var
        self.required = required
        self._seen: set[str] = set()
        self.get()  # fail at construction, before any request, when the key is missing

    def get(self) -> str | None:
        value = os.environ.get(self.env_var, "").strip()
        if not value:
            if self.required:
                raise ConfigError(f"no API key: set the environment variable {self.env_var}")
            return None
        self._seen.add(value)
        return value

    def remint(self) -> str | None:
        return None  # an environment variable cannot be re-minted

    def secrets(self) -> tuple[str, ...]:
        return tuple(self._seen)

    def __repr__(self) -> str:
        return f"EnvKey(env_var={self.env_var!r})"


class CommandKey:
    """A key printed by `sh -c COMMAND` (first non-empty output line), cached for `ttl_s` seconds."""

    def __init__(self, command: str, *, ttl_s: float = 300.0, timeout_s: float = 30.0) -> None:
        if not command.strip():
            raise ConfigError("key command is empty")
        self._command = command
        self.ttl_s = ttl_s
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._value: str | None = None
        self._minted_at = 0.0
        self._seen: set[str] = set()
        self.mints = 0

    def get(self) -> str | None:
        with self._lock:
            if self._value is None or time.monotonic() - self._minted_at >= self.ttl_s:
                self._mint()
            return self._value

    def remint(self) -> str | None:
        with self._lock:
            self._mint()
            return self._value

    def secrets(self) -> tuple[str, ...]:
        return tuple(self._seen)

    def _mint(self) -> None:
        # The user's own command, which may need their credentials and agents: it keeps their environment,
        # but runs from / with only absolute PATH entries, so nothing it names resolves in a reviewed tree.
        try:
            done = subprocess.run(
                [which("sh") or "/bin/sh", "-c", self._command],
                cwd=HOST_CWD,
                env={**os.environ, "PATH": safe_path()},
                capture_output=True,
                text=True,
                timeout=self.timeout_s,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ConfigError(f"key command did not finish within {self.timeout_s:g}s") from None
        except OSError as exc:
            raise ConfigError(f"key command could not start: {exc.strerror}") from None
        if done.returncode != 0:
            # stderr is not shown: a key helper may print the secret in its diagnostics.
            raise ConfigError(f"key command exited with status {done.returncode}")
        lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
        if not lines:
            raise ConfigError("key command printed no key")
        self._value = lines[0]
        self._seen.add(lines[0])
        self._minted_at = time.monotonic()
        self.mints += 1

    def __repr__(self) -> str:
        return f"CommandKey(ttl_s={self.ttl_s!r}, mints={self.mints})"


def key_source(
    *, key_command: str | None, key_ttl_s: float, api_key_env: str | None, default_env: str | None, required: bool
) -> KeySource:
    """The configured key command, else the configured or preset env var, else no key."""
    if key_command:
        return CommandKey(key_command, ttl_s=key_ttl_s)
    env = api_key_env or default_env
    if env is None:
        return NoKey()
    return EnvKey(env, required=required)
