import os
import subprocess
import time

M = "@@MARKER@@"
QUIET = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


def test_leave_processes_behind():
    subprocess.Popen(["sh", "-c", "sleep 300; :", M + "-setsid"], start_new_session=True, **QUIET)
    subprocess.Popen(["nohup", "sh", "-c", "sleep 300; :", M + "-nohup"], process_group=0, **QUIET)
    subprocess.Popen(["sh", "-c", "trap '' HUP TERM INT; sleep 300; :", M + "-trap"], start_new_session=True)
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sh", ["sh", "-c", "sleep 300; :", M + "-daemon"])
        os._exit(0)
    os.waitpid(pid, 0)
    time.sleep(0.5)
