"""Chapter kernels forked from a process that has already imported the chapters' stack.

Every chapter starts a fresh IPython kernel, and its first cells import the same stack (NumPy,
pandas, SciPy, Matplotlib, seaborn, the library and the compendium): about 3.5 CPU-seconds a
kernel on the 2-core machine, of a smoke chapter's 5 to 10. A test run executes about 45
chapters (the smoke book, the exercise sheets' reruns, the grader's), so the imports alone cost
some 150 CPU-seconds. A *kernel server* pays them once: it imports :data:`PRELOAD`, then forks a
kernel for every chapter that asks. The forked kernel is the same ``ipykernel`` application
``ipykernel_launcher`` starts, on the connection file jupyter_client wrote; its imports of the
stack find the modules loaded.

How a chapter's kernel reaches the server: where ``RANKBOOK_KERNEL_SERVER`` names a server's
socket, :class:`rankbook.report.kernel.kernel_manager_class` starts this file as the kernel
(``python preloaded_kernel.py -f CONNECTION_FILE``, the *client*) instead of
``ipykernel_launcher``. The client (standard library only, so it starts in milliseconds) sends
the server its arguments, working directory, environment and standard streams, and stands in
for the kernel: it forwards the signals jupyter_client sends (an interrupt, a kill) to the
forked kernel's process group and exits with the kernel's status. When the server cannot serve
it as a fresh process would be served (no server, another working directory, an environment
that differs in anything but the per-launch names of :data:`PER_LAUNCH` and the names only
libraries it has not imported read, :data:`UNIMPORTED_NAMES`), the client replaces
itself with ``ipykernel_launcher``: the chapter runs exactly as without a server, only slower.

What a fork keeps is what a fresh kernel would have computed the same way: the server imports
in the chapters' working directory (Matplotlib reads ``notebooks/matplotlibrc`` at import) with
``MPLBACKEND`` set as ``ipykernel`` sets it, ``get_ipython()`` and ``sys.stdout.encoding``
answering as in a kernel (pandas picks its display defaults by them at import), imports
nothing that starts a thread pool of its own (torch, LightGBM and the encoders stay with the
chapters that use them) nor ``ipykernel``'s application (it reads ``JPY_PARENT_PID`` when
imported; each kernel imports it once its environment is set), and the forked kernel reseeds
Python's and NumPy's global generators from the OS, as a new process would. A test compares
what a forked kernel and one from ``ipykernel_launcher`` hold after the chapters' imports
(pandas' options, Matplotlib's rc and backend, NumPy's print and error settings, seaborn's
style, the warning filters, the path and flags, the signal handlers, the progress bar class:
``tests/report/test_preloaded_kernel.py``), and the test suite runs every chapter through it.

POSIX only (``fork`` and descriptor passing over Unix sockets); elsewhere nothing starts one.

Usage: ``python preloaded_kernel.py serve SOCKET`` (the server; prints ``ready`` once it
listens), ``python preloaded_kernel.py -f CONNECTION_FILE`` (the client).
"""

from __future__ import annotations

import builtins
import importlib
import io
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import traceback
from pathlib import Path

__all__ = [
    "NOT_PRELOADED",
    "PER_LAUNCH",
    "PRELOAD",
    "SERVER_ENV",
    "UNIMPORTED_NAMES",
    "client_command",
    "refusal",
    "serve",
    "start_server",
]

#: the environment variable naming the server's socket
SERVER_ENV = "RANKBOOK_KERNEL_SERVER"
#: what the server imports before it forks: the stack every chapter imports (and ipykernel's
#: own dependencies), nothing that starts threads of its own at import
PRELOAD = (
    "numpy",
    "pandas",
    "scipy.stats",
    "matplotlib",
    "matplotlib.pyplot",
    "seaborn",
    "IPython",
    "zmq",
    "tornado.ioloop",
    "jupyter_client.session",
    "rankaudit",
    "rankbook.report",
    "rankbook.report.checks",
    "rankbook.report.decision",
    "rankbook.report.figures",
    "rankbook.report.prose",
    "rankbook.report.prose_limits",
    "rankbook.report.prose_rules",
    "rankbook.report.tables",
    "rankbook.data",
    "rankbook.audit",
)
#: environment names only libraries the server does not import read (it checks that it has not
#: imported them), by prefix: a worker that imported torch or the encoders has them set, and a
#: kernel whose environment differs from the server's in these alone is served as it would
#: be started
UNIMPORTED_NAMES = {
    "HF_": "huggingface_hub",
    "HUGGINGFACE_": "huggingface_hub",
    "TRANSFORMERS_": "transformers",
    "SENTENCE_TRANSFORMERS_": "sentence_transformers",
    "TORCH": "torch",
    "PYTORCH_": "torch",
    "KMP_": "torch",
}
#: what the server must not have imported: ipykernel's application reads ``JPY_PARENT_PID``
#: when it is imported (the kernel imports it after its environment is set), torch and LightGBM
#: start thread pools, and the libraries of :data:`UNIMPORTED_NAMES`
NOT_PRELOADED = ("ipykernel.kernelapp", "lightgbm", *sorted(set(UNIMPORTED_NAMES.values())))
#: environment names that differ between launches without changing what an import does:
#: jupyter_client's and pytest's per-launch values, the results folder a chapter's run sets
PER_LAUNCH = ("JPY_", "PYTEST_CURRENT_TEST", "RANKAUDIT_RESULTS_DIR", SERVER_ENV)
_INLINE = "module://matplotlib_inline.backend_inline"  # the backend ipykernel sets
_KERNEL_ENCODING = "UTF-8"  # the encoding of ipykernel's sys.stdout
_STREAMS = (0, 1, 2)


def client_command(python: str = sys.executable) -> list[str]:
    """The command that starts a kernel through the server (add ``-f CONNECTION_FILE``): this
    file, run with ``-P`` (its folder is not put on the path)."""
    return [python, "-P", str(Path(__file__).resolve())]


def refusal(request: dict, env: dict[str, str], cwd: str) -> str | None:
    """Why a server whose imports ran in ``cwd`` with ``env`` cannot serve ``request`` as a
    fresh kernel would be served (another working directory, or an environment name that
    differs, other than those of :data:`PER_LAUNCH` and :data:`UNIMPORTED_NAMES`); None when it
    can."""
    if request.get("cwd") != cwd:
        return f"working directory {request.get('cwd')!r}, not {cwd!r}"
    asked = request.get("env", {})
    free = (*PER_LAUNCH, *UNIMPORTED_NAMES)
    names = {name for name in set(asked) | set(env) if not name.startswith(free)}
    differ = sorted(name for name in names if asked.get(name) != env.get(name))
    return f"environment differs in {differ}" if differ else None


def _send(sock: socket.socket, message: dict, fds: list[int] | None = None) -> None:
    body = json.dumps(message).encode()
    data = struct.pack("!I", len(body)) + body
    if fds:
        socket.send_fds(sock, [data], fds)
    else:
        sock.sendall(data)


def _receive(sock: socket.socket, n_fds: int = 0) -> tuple[dict | None, list[int]]:
    """One message (None at end of stream) and the descriptors that came with it."""
    head, fds, _, _ = socket.recv_fds(sock, 4, n_fds) if n_fds else (sock.recv(4), [], 0, None)
    if len(head) < 4:
        return None, list(fds)
    (size,) = struct.unpack("!I", head)
    body = b""
    while len(body) < size:
        chunk = sock.recv(size - len(body))
        if not chunk:
            return None, list(fds)
        body += chunk
    return json.loads(body), list(fds)


def serve(path: str) -> None:
    """Import :data:`PRELOAD` in this working directory, listen on ``path`` and fork a kernel
    for every request the server can serve (:func:`refusal` says which), until killed."""
    if sys.path and sys.path[0] == str(Path(__file__).resolve().parent):
        del sys.path[0]  # started as a script (not with -P, a flag its kernels would inherit)
    env, cwd = dict(os.environ), os.getcwd()
    if not os.environ.get("MPLBACKEND"):
        os.environ["MPLBACKEND"] = _INLINE
    # what the preloaded modules ask at import, answered as inside a kernel
    builtins.get_ipython = _InsideAKernel
    stdout, sys.stdout = sys.stdout, io.TextIOWrapper(io.BytesIO(), encoding=_KERNEL_ENCODING)
    try:
        for name in PRELOAD:
            importlib.import_module(name)
    finally:
        del builtins.get_ipython
        sys.stdout = stdout
    loaded = [name for name in NOT_PRELOADED if name in sys.modules]
    if loaded:
        raise RuntimeError(f"the kernel server imported {loaded}, which it must not")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    listener.settimeout(1.0)
    print("ready", flush=True)
    while True:
        _reap()
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        conn.settimeout(None)
        request, fds = _receive(conn, len(_STREAMS))
        reason = "no request" if request is None else refusal(request, env, cwd)
        if reason is None and len(fds) != len(_STREAMS):
            reason = "no standard streams"
        if reason is None:
            if os.fork() == 0:
                listener.close()
                _kernel(conn, request, fds)  # never returns
            print(f"served {request['argv']}", file=sys.stderr, flush=True)
        else:
            _send(conn, {"refused": reason})
            print(f"refused: {reason}", file=sys.stderr, flush=True)
        for fd in fds:
            os.close(fd)
        conn.close()


class _InsideAKernel:
    """What ``get_ipython()`` answers while the server imports: a shell with a ``kernel``, as
    in a Jupyter kernel. pandas asks it when imported (``is_terminal``) and registers its
    notebook defaults then (``display.max_columns`` 20, not the terminal's 0); it reads
    ``sys.stdout.encoding`` then too (``display.encoding``), which the server also sets as
    ipykernel's."""

    kernel = True


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _kernel(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the forked child: become the kernel ``ipykernel_launcher`` would have started. It
    tells the client its process id (once it leads a process group of its own, which the client
    signals) and, at the end, its exit status."""
    code = 1
    try:
        os.setsid()
        _send(conn, {"pid": os.getpid()})
        for fd, target in zip(fds, _STREAMS, strict=True):
            os.dup2(fd, target)
            os.close(fd)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        if not os.environ.get("MPLBACKEND"):
            os.environ["MPLBACKEND"] = _INLINE
        random.seed()
        sys.modules["numpy"].random.seed()
        threading.Thread(target=_die_with_client, args=(conn,), daemon=True).start()
        sys.argv = ["ipykernel_launcher", *request["argv"]]
        importlib.import_module("ipykernel.kernelapp").launch_new_instance()
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            _send(conn, {"exit": code})
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)


def _die_with_client(conn: socket.socket) -> None:
    """End the kernel's process group when the client goes (jupyter_client killed it)."""
    try:
        while conn.recv(1):
            pass
    except OSError:
        pass
    os.killpg(0, signal.SIGKILL)


def _client(argv: list[str]) -> None:
    """Stand in for a kernel forked by the server, or become ``ipykernel_launcher``."""
    fallback = [sys.executable, "-m", "ipykernel_launcher", *argv]
    path = os.environ.get(SERVER_ENV, "")
    reply: dict | None = None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
        _send(sock, request, list(_STREAMS))
        reply, _ = _receive(sock)
    except OSError:
        reply = None
    if not reply or "pid" not in reply:
        sock.close()
        os.execv(sys.executable, fallback)
    group = int(reply["pid"])

    def forward(signum: int, _frame: object) -> None:
        try:
            os.killpg(group, signum)
        except ProcessLookupError:
            pass

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(signum, forward)
    status, _ = _receive(sock)
    os._exit(int(status["exit"]) if status and "exit" in status else 1)


def start_server(
    path: Path, cwd: Path, *, wait: bool = True, timeout: float = 120.0
) -> subprocess.Popen:
    """Start a server on socket ``path`` whose imports run in ``cwd``; with ``wait``, return
    once it listens (a server that has not said ``ready`` within ``timeout`` seconds is killed
    and RuntimeError raised); without, at once (a kernel asked for before it listens starts
    without it). It logs each request it served or refused, and why, to
    ``path.log``. Stop it with ``terminate()``; a kernel it forked ends when the kernel's
    client does (ipykernel also ends a kernel whose parent is gone)."""
    with open(f"{path}.log", "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "serve", str(path)],
            cwd=cwd,
            # what jupyter_client gives a kernel: os.environ, not the process's C environment,
            # to which readline (imported by IPython) adds COLUMNS and LINES
            env=dict(os.environ),
            stdout=subprocess.PIPE,
            stderr=log,
            stdin=subprocess.DEVNULL,
            text=True,
        )
    if not wait:
        return proc
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        line = proc.stdout.readline() if proc.stdout else ""
    finally:
        timer.cancel()
    if line.strip() != "ready":
        proc.kill()
        proc.wait()
        raise RuntimeError(f"the kernel server did not start within {timeout:.0f} s")
    return proc


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(sys.argv[2])
    else:
        _client(sys.argv[1:])
