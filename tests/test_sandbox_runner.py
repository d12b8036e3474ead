"""The process runner itself, at each isolation level.

Each test of a level that hides the host runs at every such level; where a level does not work on this
host, the test asserts instead that the runner refuses to run anything at it (never a weaker level).
"""

from __future__ import annotations

import ast
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from showcause.core.errors import SandboxUnavailable
from showcause.policy import SAFE_LEVELS, load_policy
from showcause.sandbox import runner
from showcause.sandbox.levels import probe
from showcause.sandbox.mounts import ro_prefixes
from showcause.sandbox.runner import available_isolation, run_sandboxed

pytestmark = pytest.mark.isolation   # tests/support/isolation_audit.py


def _run(tmp_path: Path, code: str, isolation: str = "auto", **kw):
    ws, out = tmp_path / "ws", tmp_path / "out"
    ws.mkdir(exist_ok=True)
    out.mkdir(exist_ok=True)
    (ws / "probe.py").write_text(code)
    policy = load_policy({"process": {"isolation": isolation}})
    return run_sandboxed([sys.executable, "probe.py"], workspace=ws, out_dir=out, policy=policy, memory_mb=1024, **kw)


@pytest.fixture()
def secret_env(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-runner-canary")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-runner-canary")


LEVELS = list(SAFE_LEVELS)
WORKING = [lv for lv in SAFE_LEVELS if probe(lv).ok]
CGROUPS = os.access("/sys/fs/cgroup/pids", os.W_OK)


@pytest.fixture(params=LEVELS)
def level(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A level that hides the host; where it does not work here, the refusal is the test."""
    name: str = request.param
    if name not in WORKING:
        with pytest.raises(SandboxUnavailable, match="repository code is not run"):
            _run(tmp_path, "open('/tmp/ran', 'w')\n", name)
        assert not (tmp_path / "ws" / "ran").exists()
        pytest.xfail(f"{name} does not work on this host ({probe(name).detail}): asserted that nothing runs at it")
    return name


def test_auto_picks_the_first_working_level():
    if WORKING:
        assert available_isolation(load_policy()) == WORKING[0]
    else:
        with pytest.raises(SandboxUnavailable):
            available_isolation(load_policy())
    assert available_isolation(load_policy({"process": {"isolation": "none"}})) == "none"


def test_environment_is_scrubbed(tmp_path: Path, secret_env: None, level: str):
    r = _run(tmp_path, "import os\nprint(sorted(os.environ))\nprint(open('/proc/self/environ','rb').read())\n"
             "print(open('/proc/1/environ','rb').read())\n", level)
    assert r.isolation == level and r.returncode == 0, r.stderr
    assert "canary" not in r.stdout and "OPENAI" not in r.stdout and "GITHUB" not in r.stdout
    # Exactly the variables isolation and a fair comparison need, and the user's allowed ones: none of ours
    # that change what a project's tests do (CI, NO_COLOR).
    names = set(ast.literal_eval(r.stdout.splitlines()[0]))
    allowed = {"LANG", "LC_ALL", "TZ", "TERM"} & set(os.environ)
    ours = {"HOME", "LANG", "PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "TMPDIR"}
    assert names - allowed - {"PWD"} == ours - allowed   # PWD: the shell of the level says where it started


def test_no_network(tmp_path: Path, level: str):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    server.settimeout(0.2)
    accepted: list[bool] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                accepted.append(bool(server.accept()))
            except TimeoutError:
                continue

    listener = threading.Thread(target=accept, daemon=True)
    listener.start()
    r = _run(tmp_path, f"import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
             "    print('CONNECTED')\nexcept OSError as e:\n    print('blocked', e)\n", level)
    done.set()
    listener.join()
    server.close()
    assert "blocked" in r.stdout and "CONNECTED" not in r.stdout and not accepted


def test_hides_home_tmp_and_harness(tmp_path: Path, level: str):
    canary = Path("/tmp") / f"showcause-runner-canary-{os.getpid()}"
    canary.write_text("tmp-canary")
    try:
        here = Path(__file__).resolve()
        r = _run(tmp_path, "import os\n"
                 f"for p in ['{canary}', '{here}', os.path.expanduser('~root/.bashrc'), '/root/.bashrc']:\n"
                 "    print(p, os.path.exists(p))\n"
                 "print(os.getcwd(), sorted(os.listdir('/tmp')))\n", level)
    finally:
        canary.unlink()
    assert r.stdout.count(" False") == 4, r.stdout
    # /tmp is private: only HOME, plus the interpreter's own folder when the checkout lives under /tmp.
    bound = sorted({"home"} | {p.split("/")[2] for p in ro_prefixes() if p.startswith("/tmp/")})
    assert f"/ws {bound}" in r.stdout


def _timeout_kills_the_tree(tmp_path: Path, level: str) -> None:
    marker = f"sc-runner-{level}-{os.getpid()}"
    started = time.monotonic()
    code = f"import subprocess, time\nsubprocess.Popen(['setsid', 'sh', '-c', 'sleep 60; :', '{marker}'])\n"
    r = _run(tmp_path, code + "time.sleep(60)\n", level, timeout_s=2)
    assert r.timed_out and r.returncode is None
    assert time.monotonic() - started < 10
    escapees_die = not (level == "none" and not CGROUPS)
    alive = _alive(marker) if not escapees_die else _alive_after(marker, 5.0)
    if not escapees_die:
        # Without a PID namespace or a pids cgroup a setsid escapee survives the group kill.
        for pid in alive:
            os.kill(int(pid), 9)
    else:
        assert alive == []


def test_timeout_kills_the_process_tree(tmp_path: Path, level: str):
    _timeout_kills_the_tree(tmp_path, level)


def test_timeout_kills_the_process_tree_at_none(tmp_path: Path):
    _timeout_kills_the_tree(tmp_path, "none")


def _alive(marker: str) -> list[str]:
    return [p for p in os.listdir("/proc") if p.isdigit() and marker in _cmdline(p)]


def _alive_after(marker: str, within_s: float) -> list[str]:
    """The processes named by `marker` still alive once they are all gone, or `within_s` has passed (a killed
    process leaves /proc as soon as its parent reaps it: polled, never a fixed sleep)."""
    deadline = time.monotonic() + within_s
    while (alive := _alive(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return alive


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_leftover_process_dies_when_the_call_ends(tmp_path: Path, level: str):
    marker = f"sc-left-{level}-{os.getpid()}"
    r = _run(tmp_path, f"import subprocess\nsubprocess.Popen(['setsid', 'sh', '-c', 'sleep 60; :', '{marker}'],"
             " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nprint('parent done')\n", level)
    assert r.returncode == 0 and "parent done" in r.stdout
    assert _alive_after(marker, 5.0) == []


def test_output_is_capped_while_read(tmp_path: Path):
    r = _run(tmp_path, "import sys\nchunk = 'x' * 65536\nfor _ in range(5000):\n    sys.stdout.write(chunk)\n")
    assert r.truncated and len(r.stdout) == 1_000_000 and r.returncode == 0


def test_memory_limit(tmp_path: Path):
    r = _run(tmp_path, "try:\n    b = bytearray(3 * 1024**3)\n    print('ALLOCATED')\nexcept MemoryError:\n"
             "    print('MemoryError')\n")
    assert r.stdout.strip() == "MemoryError"   # RLIMIT_AS refuses the allocation before the OOM killer acts


@pytest.mark.skipif(not CGROUPS, reason="needs a writable memory cgroup (root on a cgroup-v1 host)")
def test_tmpfs_files_count_against_memory(tmp_path: Path, level: str):
    r = _run(tmp_path, "import os\nfor i in range(40):\n    open(f'/tmp/f{i}', 'wb').write(os.urandom(32 * 1024**2))\n"
             "print('WROTE ALL')\n", level)
    assert "WROTE ALL" not in r.stdout


def test_file_size_limit(tmp_path: Path):
    r = _run(tmp_path, "try:\n    open('big', 'wb').write(b'x' * (80 * 1024 * 1024))\n    print('WROTE')\n"
             "except OSError as e:\n    print('refused', e.errno)\n")
    assert r.stdout.strip() == "refused 27"


@pytest.mark.skipif(not CGROUPS, reason="needs a writable pids cgroup (root on a cgroup-v1 host)")
def test_process_count_is_capped(tmp_path: Path, level: str):
    r = _run(tmp_path, "import subprocess\nok = 0\nfor _ in range(400):\n    try:\n"
             "        subprocess.Popen(['sleep', '30'])\n        ok += 1\n    except OSError:\n        break\n"
             "print('started', ok)\n", level, timeout_s=20)
    started = int(r.stdout.split()[-1])
    assert 100 < started < 256, r.stdout


def test_runs_unprivileged_without_capabilities(tmp_path: Path, level: str):
    r = _run(tmp_path, "import os\nst = open('/proc/self/status').read()\n"
             "print(os.getuid(), os.getgid(), *(st.split(k + ':')[1].split()[0] for k in ('CapEff', 'CapPrm', 'CapBnd',"
             " 'CapInh', 'CapAmb', 'NoNewPrivs')))\nopen('w.txt', 'w').write('writable')\n", level)
    assert r.stdout.split() == ["65534", "65534", *["0000000000000000"] * 5, "1"], r.stdout + r.stderr


def _overlap(spans: list[tuple[float, float]]) -> int:
    """The most spans open at one instant."""
    edges = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda x: (x[0], x[1]))
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


@pytest.mark.parametrize("slots", [1, 2])
def test_sandboxed_processes_take_turns_beyond_the_slots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slots: int):
    monkeypatch.setenv("SHOWCAUSE_PROCESSES", str(slots))
    runner._slots.cache_clear()
    spans: list[tuple[float, float]] = []

    def one(i: int) -> None:
        (tmp_path / str(i)).mkdir()
        proc = _run(tmp_path / str(i), "import time; a = time.time(); time.sleep(0.4); print(a, time.time())")
        start, end = map(float, proc.stdout.split())
        spans.append((start, end))

    try:
        threads = [threading.Thread(target=one, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        runner._slots.cache_clear()
    assert len(spans) == 3
    assert _overlap(spans) <= slots
    if slots == 1:
        assert _overlap(spans) == 1


@pytest.mark.parametrize("raw", ["0", "-1", "two", "1.5"])
def test_a_bad_process_count_is_refused_before_any_work(tmp_path: Path, raw: str):
    env = {**os.environ, "SHOWCAUSE_PROCESSES": raw}
    proc = subprocess.run([str(Path(sys.executable).with_name("showcause")), "review", "--case",
                           "repo_cases/py-crm-column-rename", "--output", str(tmp_path / "r.json")],
                          capture_output=True, text=True, env=env, cwd=Path(__file__).parents[1])
    assert proc.returncode == 2
    assert f"SHOWCAUSE_PROCESSES must be a whole number of at least 1, not {raw!r}" in proc.stderr
    assert not (tmp_path / "r.json").exists()
