"""A kernel forked from the kernel server is the kernel ``ipykernel_launcher`` would start
(:mod:`rankbook.report.preloaded_kernel`): same state after the chapters' imports, same
outputs; refused or unreachable servers start a plain kernel; a killed kernel's fork ends."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import nbformat
import papermill as pm
import pytest

from rankbook.report.kernel import kernel_manager_class
from rankbook.report.preloaded_kernel import (
    NOT_PRELOADED,
    PER_LAUNCH,
    SERVER_ENV,
    UNIMPORTED_NAMES,
    client_command,
    refusal,
    start_server,
)
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the kernel server needs fork")

NOTEBOOKS = ROOT / "notebooks"

#: The chapters' imports, then what they leave behind that an import could have decided.
PROBE = [
    "import matplotlib\nimport matplotlib.pyplot as plt\nimport numpy as np\n"
    "import pandas as pd\nimport seaborn as sns\nimport rankaudit\nimport rankbook.report",
    "import json, locale, signal, sys, warnings\n"
    "from rankaudit._optional import tqdm\n"
    "state = {\n"
    "    'pandas': pd.describe_option('', _print_desc=False),\n"
    "    'rc': {k: repr(v) for k, v in matplotlib.rcParams.items()},\n"
    "    'backend': matplotlib.get_backend(),\n"
    "    'numpy': [repr(np.get_printoptions()), repr(np.geterr())],\n"
    "    'seaborn': [repr(sns.axes_style()), repr(sns.plotting_context())],\n"
    "    'warnings': [repr(f) for f in warnings.filters],\n"
    "    'path': sys.path, 'cwd': __import__('os').getcwd(), 'flags': repr(sys.flags),\n"
    "    'locale': repr(locale.getlocale()),\n"
    "    'signals': [repr(signal.getsignal(s)) for s in (signal.SIGINT, signal.SIGTERM,\n"
    "                signal.SIGCHLD, signal.SIGPIPE, signal.SIGHUP)],\n"
    "    'tqdm': tqdm.__module__ + '.' + tqdm.__qualname__,\n"
    "}\n"
    "print(json.dumps(state, sort_keys=True))",
]


def _notebook(folder: Path, cells: list[str]) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(code) for code in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    path = folder / "probe.ipynb"
    nbformat.write(nb, path)
    return path


def _run(path: Path, out: Path) -> nbformat.NotebookNode:
    pm.execute_notebook(
        str(path),
        str(out),
        kernel_name="python3",
        progress_bar=False,
        request_save_on_cell_execute=False,
        kernel_manager_class=kernel_manager_class(),
        cwd=str(NOTEBOOKS),
    )
    return nbformat.read(out, as_version=4)


def _printed(nb: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))


@pytest.fixture
def own_server(tmp_path_factory, monkeypatch):
    """A server of this test's own (not the session's), its socket named in the environment."""
    folder = Path(os.path.realpath(tmp_path_factory.mktemp("ks")))
    sock = folder / "k.sock"
    proc = start_server(sock, NOTEBOOKS)
    monkeypatch.setenv(SERVER_ENV, str(sock))
    yield sock
    proc.terminate()
    proc.wait(timeout=30)


def test_a_forked_kernel_holds_what_a_fresh_kernel_holds(tmp_path, own_server, monkeypatch):
    path = _notebook(tmp_path, PROBE)
    forked = json.loads(_printed(_run(path, tmp_path / "forked.ipynb")))
    log = Path(f"{own_server}.log").read_text(encoding="utf-8")
    assert log.count("served") == 1 and "refused" not in log, log  # the fork was used
    monkeypatch.delenv(SERVER_ENV)
    fresh = json.loads(_printed(_run(path, tmp_path / "fresh.ipynb")))
    assert forked.keys() == fresh.keys()
    for key in fresh.keys() - {"warnings"}:
        assert forked[key] == fresh[key], key
    # The one difference: the two filters ipykernel's application adds when it starts (a Trio
    # RuntimeWarning by its message, IPython's ProvisionalCompleterWarning) come before the
    # filters the imports added, where a fresh kernel's imports add theirs in front of them.
    # A warning meets another action in the fork only if it is that Trio RuntimeWarning or a
    # ProvisionalCompleterWarning and also carries a message another filter matches ("numpy.*
    # size changed", "the matrix subclass ...").
    kernel_app = [f for f in fresh["warnings"] if "Trio" in f or "ProvisionalCompleter" in f]
    assert len(kernel_app) == 2
    rest = [f for f in fresh["warnings"] if f not in kernel_app]
    assert forked["warnings"] == kernel_app + rest
    assert fresh["backend"].endswith("backend_inline") and "20" in fresh["pandas"]


def test_a_refused_or_missing_server_leaves_a_plain_kernel(tmp_path, own_server, monkeypatch):
    path = _notebook(tmp_path, ["print(6 * 7)"])
    monkeypatch.setenv("RANKBOOK_PROBE_ONLY_HERE", "1")  # not a per-launch name: refused
    assert _printed(_run(path, tmp_path / "a.ipynb")).strip() == "42"
    log = Path(f"{own_server}.log").read_text(encoding="utf-8")
    assert "refused: environment differs in ['RANKBOOK_PROBE_ONLY_HERE']" in log
    monkeypatch.setenv(SERVER_ENV, str(tmp_path / "nothing.sock"))
    assert _printed(_run(path, tmp_path / "b.ipynb")).strip() == "42"


def test_refusal_names_what_differs():
    env = {"HOME": "/root", "JPY_PARENT_PID": "1", "PYTEST_CURRENT_TEST": "a"}
    asked = {"cwd": "/nb", "env": {**env, "JPY_PARENT_PID": "2", "PYTEST_CURRENT_TEST": "b"}}
    assert refusal(asked, env, "/nb") is None  # per-launch names may differ
    assert "working directory" in refusal({**asked, "cwd": "/other"}, env, "/nb")
    home = {**asked, "env": {**asked["env"], "HOME": "/tmp"}}
    assert refusal(home, env, "/nb") == "environment differs in ['HOME']"
    extra = {**asked, "env": {**asked["env"], "OMP_NUM_THREADS": "1"}}
    assert refusal(extra, env, "/nb") == "environment differs in ['OMP_NUM_THREADS']"
    torch_set = {"KMP_INIT_AT_FORK": "FALSE", "HF_HUB_OFFLINE": "1", "TORCHINDUCTOR_X": "/c"}
    assert refusal({**asked, "env": {**asked["env"], **torch_set}}, env, "/nb") is None
    assert all(name.isupper() for name in (*PER_LAUNCH, *UNIMPORTED_NAMES))


def test_a_forked_kernel_starts_without_the_libraries_the_free_names_belong_to(
    tmp_path, own_server
):
    """The names :data:`UNIMPORTED_NAMES` frees are read only by libraries the server has not
    imported: a forked kernel starts without them (and without LightGBM)."""
    assert set(UNIMPORTED_NAMES.values()) <= set(NOT_PRELOADED)
    names = [name for name in NOT_PRELOADED if name != "ipykernel.kernelapp"]
    path = _notebook(tmp_path, [f"import sys\nprint([m for m in {names!r} if m in sys.modules])"])
    assert _printed(_run(path, tmp_path / "out.ipynb")).strip() == "[]"
    assert "served" in Path(f"{own_server}.log").read_text(encoding="utf-8")


def test_the_kernel_command_goes_through_the_server_only_where_one_is_named(monkeypatch):
    monkeypatch.delenv(SERVER_ENV, raising=False)
    km = kernel_manager_class()(kernel_name="python3")
    assert km.format_kernel_cmd()[1:3] == ["-m", "ipykernel_launcher"]
    monkeypatch.setenv(SERVER_ENV, "/tmp/some.sock")
    cmd = km.format_kernel_cmd()
    assert cmd[:3] == client_command(cmd[0]) and cmd[3] == "-f"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
        return stat.read().split(")")[-1].split()[0] != "Z"


async def _pid_then_kill() -> tuple[int, int]:
    """Start a kernel, ask its process id, kill it as jupyter_client does (``now=True``);
    the kernel's and the client's process ids."""
    km = kernel_manager_class()(kernel_name="python3")
    await km.start_kernel(cwd=str(NOTEBOOKS))
    client = km.client()
    client.start_channels()
    try:
        await client.wait_for_ready(timeout=60)
        msg_id = client.execute("import os; print(os.getpid())")
        text = ""
        while True:
            msg = await client.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                text += msg["content"]["text"]
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
    finally:
        client.stop_channels()
        client_pid = km.provisioner.process.pid
        await km.shutdown_kernel(now=True)
    return int(text), client_pid


def test_a_killed_kernel_takes_its_fork_with_it(own_server):
    pid, client_pid = asyncio.run(_pid_then_kill())
    assert pid != client_pid  # the kernel is the server's fork, not the client
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)
