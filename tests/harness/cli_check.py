"""Helpers of the scripts that run the parley program as a user does (tests/*/cli_*_check.py):
collected failures and their report, an environment without the provider variables, and
`parley fake-server` started and stopped."""
import os
import selectors
import signal
import subprocess
import time

failures = []
TIMEOUT = 60  # seconds, for every wait on a program


def check(condition, what):
    if not condition:
        failures.append(what)


def report(name, started):
    """Prints how long the script `name` took since `started` (time.monotonic()) and the first 40
    failures; returns its exit status (1 when anything failed)."""
    print(f"{name}: {time.monotonic() - started:.1f} s")
    if failures:
        for f in failures[:40]:
            print("FAIL:", f)
        print(f"{len(failures)} failures")
        return 1
    print("1 passed, 0 failed")
    return 0


def clean_env(**extra):
    """The environment without the provider and proxy variables, plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_API_KEY", "GOOGLE_GEMINI_", "AZURE_OPENAI_",
                                "OLLAMA_", "PARLEY_MODEL"))
           and k.lower() not in
           ("http_proxy", "https_proxy", "all_proxy")}
    env.update(extra)
    return env


def start_fake_server(program, script_path, log_path, record_path=None):
    """Starts `parley fake-server --script SCRIPT --log` (and `--record RECORD`); returns the process
    and its base URL."""
    extra = ["--record", record_path] if record_path else []
    server = subprocess.Popen([program, "fake-server", "--script", script_path, "--log", *extra],
                              stdout=subprocess.PIPE, stderr=open(log_path, "w"), text=True)
    selector = selectors.DefaultSelector()
    selector.register(server.stdout, selectors.EVENT_READ)
    if not selector.select(timeout=TIMEOUT):
        server.kill()
        raise RuntimeError("fake-server printed nothing")
    line = server.stdout.readline().strip()
    base = line.rsplit(" ", 1)[-1]
    check(base.startswith("http://127.0.0.1:"), f"first line of fake-server: {line!r}")
    return server, base


def stop_fake_server(server):
    """Stops the server with SIGTERM (a failure when it does not stop)."""
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        server.kill()
        failures.append("fake-server did not stop on SIGTERM")
