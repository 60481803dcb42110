"""Reruns print nothing that is not the chapter's own (:mod:`rankbook.report.kernel`).

No kernel log line ("Kernel is running over TCP without encryption", "[IPKernelApp] ERROR |
KeyboardInterrupt caught in kernel."), no library warning (tqdm's "IProgress not found") on the
pipeline's stdout or stderr or in the executed notebook, and no stray output cell: a bare repr
(a lone number, a quoted string, ``<Figure size ...>``, ``<... at 0x...>``) that a cell shows
without meaning to.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rankbook.report.kernel import kernel_manager_class, uses_ipc
from tests.conftest import ROOT
from tests.notebook_cells import chapter_stems

#: What only the kernel or a library writes, never a chapter.
KERNEL_WARNINGS = (
    "[IPKernelApp]",
    "KeyboardInterrupt",
    "IProgress not found",
    "without encryption",
)

_BARE_VALUE = re.compile(
    r"[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|nan|inf)"  # a lone number
    r"|True|False|None|'[^'\n]*'|\"[^\"\n]*\""  # a lone flag, None or quoted string
    r"|np\.\w+\([^()\n]*\)"  # a NumPy scalar: np.float64(0.5)
)
_OBJECT_REPR = re.compile(r"<Figure size [^>\n]*>|<[^<>\n]* at 0x[0-9a-fA-F]+>")


def kernel_warnings(text: str) -> list[str]:
    """The lines of ``text`` that only the kernel or a library writes."""
    return [line for line in text.splitlines() if any(w in line for w in KERNEL_WARNINGS)]


def _text(output: dict) -> str:
    text = output.get("text", output.get("data", {}).get("text/plain", ""))
    return "".join(text) if isinstance(text, list) else text


def stray_outputs(cells: list) -> list[str]:
    """``cell i: output`` for each output a cell shows without meaning to: a value displayed only
    as a bare repr (a lone number, flag or quoted string, an object's ``<... at 0x...>``, a
    figure's ``<Figure size ...>`` without its image), or such a repr printed on a line of its own.
    Tables, figures and printed sentences are meant to be seen."""
    found = []
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs", []):
            kind, text = output.get("output_type"), _text(output).strip()
            plain_only = set(output.get("data", {})) <= {"text/plain"}
            if kind in ("execute_result", "display_data") and plain_only:
                stray = bool(_BARE_VALUE.fullmatch(text) or _OBJECT_REPR.search(text))
            elif kind == "stream" and output.get("name") == "stdout":
                lines = text.splitlines()
                stray = any(_OBJECT_REPR.fullmatch(line.strip("[] ")) for line in lines)
            else:
                stray = False
            if stray:
                found.append(f"cell {i}: {text[:80]}")
    return found


def test_ipc_everywhere_but_windows():
    assert uses_ipc("posix") and not uses_ipc("nt")
    assert kernel_manager_class("nt")().transport == "tcp"
    assert kernel_manager_class("posix")().transport == "ipc"


def test_the_output_checks_can_fail():
    assert kernel_warnings("ok\n[IPKernelApp] ERROR | KeyboardInterrupt caught in kernel.\n")
    assert kernel_warnings("x.py:21: TqdmWarning: IProgress not found. Please update jupyter")
    assert not kernel_warnings("00_quickstart: executed in 9.1 s")

    def cell(output):
        return {"cell_type": "code", "outputs": [output]}

    def result(text, kind="execute_result", **more):
        return {"output_type": kind, "data": {"text/plain": text, **more}}

    def printed(text):
        return {"output_type": "stream", "name": "stdout", "text": text}

    figure = "<Figure size 640x480 with 1 Axes>"
    cells = [
        cell(result("10")),
        cell(result("np.float64(0.25)")),
        cell(result("'08_session_data.json'")),
        cell(result("[<matplotlib.lines.Line2D at 0x7f3a>]")),
        cell(result(figure, kind="display_data")),
        cell(printed(figure + "\n")),
        # meant to be seen: a table, a figure with its image, a printed line
        cell(result("   a\n0  1", **{"text/html": "<table/>"})),
        cell(result(figure, kind="display_data", **{"image/png": "iVBOR"})),
        cell(printed("00_quickstart.json\n")),
        {"cell_type": "markdown", "source": "10"},
    ]
    assert [s.split(":")[0] for s in stray_outputs(cells)] == [f"cell {i}" for i in range(6)]


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_a_shutdown_does_not_interrupt_the_kernel():
    """jupyter_client's graceful shutdown sends SIGINT before the shutdown request, which a kernel
    still inside a message handler logs as "KeyboardInterrupt caught in kernel."; ours does
    not, and an interrupt asked for while the kernel runs is still sent."""
    km = kernel_manager_class()(kernel_name="python3")
    sent: list[int] = []

    async def start_interrupt_shut_down() -> bool:
        await km.start_kernel()
        real = km._async_signal_kernel

        async def record(signum):
            sent.append(signum)
            await real(signum)

        km._async_signal_kernel = record
        await km.interrupt_kernel()
        asked = list(sent)
        sent.clear()
        await km.shutdown_kernel()
        return asked == [signal.SIGINT]

    assert asyncio.run(start_interrupt_shut_down()), "interrupt_kernel no longer interrupts"
    assert signal.SIGINT not in sent, sent
    assert not km.has_kernel


@pytest.mark.skipif(not uses_ipc(), reason="IPC sockets are POSIX only")
def test_ipc_sockets_live_in_a_private_folder_removed_at_shutdown(tmp_path, monkeypatch):
    """The kernel's sockets never land in its working directory (the chapters' folder), and
    their folder is gone once the kernel is shut down."""
    monkeypatch.chdir(tmp_path)
    km = kernel_manager_class()(kernel_name="python3")
    folder = Path(km.ip).parent
    assert folder != tmp_path and folder.is_dir()

    async def start_and_shut_down() -> list[str]:
        await km.start_kernel()
        for _ in range(300):  # the kernel binds its sockets as it starts: wait up to 30 s
            during = sorted(p.name for p in folder.iterdir())
            if during:
                break
            await asyncio.sleep(0.1)
        await km.shutdown_kernel()
        return during

    during = asyncio.run(start_and_shut_down())
    assert any(name.startswith("kernel-ipc-") for name in during), during
    assert not folder.exists()
    assert not list(tmp_path.iterdir())


def test_libraries_that_import_tqdm_auto_print_no_ipywidgets_warning(tmp_path):
    """sentence-transformers, transformers, cornac and others import ``tqdm.auto``, whose first
    import in a kernel without ipywidgets warns "IProgress not found"; after rankaudit's own
    import (every chapter's first cell imports it) that import is quiet."""
    import nbformat
    import papermill as pm

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import rankaudit._optional"),
        nbformat.v4.new_code_cell("import tqdm.auto"),
    ]
    nbformat.write(nb, tmp_path / "in.ipynb")
    pm.execute_notebook(
        str(tmp_path / "in.ipynb"),
        str(tmp_path / "out.ipynb"),
        kernel_name="python3",
        progress_bar=False,
        kernel_manager_class=kernel_manager_class(),
    )
    done = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    outputs = [_text(o) for c in done.cells for o in c.get("outputs", [])]
    assert not kernel_warnings("\n".join(outputs)), outputs


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="Windows kernels run over TCP")
def test_a_rerun_prints_no_kernel_warning_and_no_stray_output(tmp_path):
    import nbformat

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "rankbook.report.pipeline", "run", "00_quickstart", "--smoke",
           "--out", str(tmp_path / "q")]  # fmt: skip
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    output = proc.stdout + proc.stderr
    assert "00_quickstart: executed" in output  # the run's own output was captured
    assert not kernel_warnings(output), output[-2000:]
    nb = nbformat.read(tmp_path / "q" / "00_quickstart.ipynb", as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert outputs  # the check reads real outputs
    in_notebook = kernel_warnings("\n".join(_text(o) for o in outputs))
    assert not in_notebook, in_notebook
    assert not stray_outputs(nb.cells), stray_outputs(nb.cells)


@pytest.mark.slow
@pytest.mark.parametrize("stem", chapter_stems())
def test_no_kernel_warning_or_stray_output_in_an_executed_chapter(smoke_book, stem):
    """Every chapter, executed at its smoke parameters, as the rerun above."""
    import nbformat

    nb = nbformat.read(smoke_book.paths.executed / f"{stem}.ipynb", as_version=4)
    outputs = [_text(o) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    found = kernel_warnings("\n".join(outputs)) + stray_outputs(nb.cells)
    assert not found, f"{stem}: {found}"
