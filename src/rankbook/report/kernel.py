"""The kernel the chapters run in: local IPC sockets where the system has them, a quiet shutdown.

Two lines that are not the chapter's own used to reach a rerun's terminal, both from the kernel's
log (its stderr is the pipeline's):

* ``Kernel is running over TCP without encryption`` (ipykernel 7), for a kernel on TCP without
  CurveZMQ keys. On Linux and macOS the pipeline starts the kernel on Unix-domain sockets
  instead (jupyter_client's ``transport = "ipc"``): nothing leaves the machine and the warning
  is not printed. Windows has no IPC transport in jupyter_client, so there the kernel stays on
  TCP (bound to 127.0.0.1) and the warning can still show.
* ``[IPKernelApp] ERROR | KeyboardInterrupt caught in kernel.``: jupyter_client's graceful
  shutdown *interrupts* the kernel (SIGINT) before it sends the shutdown request, and a kernel
  still inside a message handler at that moment (a late flush of the last cell, under load)
  logs the interrupt as an error. When a chapter has finished there is nothing to interrupt, so
  the pipeline's manager skips that interrupt during a shutdown and goes straight to the
  shutdown request (the kernel is still killed if it does not exit in time). An interrupt asked
  for while the kernel runs (``interrupt_kernel``) is sent as before.

Where ``RANKBOOK_KERNEL_SERVER`` names a kernel server, the kernel is forked from it, with the
chapters' stack already imported (:mod:`rankbook.report.preloaded_kernel`); without one, or where
the server cannot serve the kernel as a fresh process, ``ipykernel_launcher`` starts it.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from rankbook.report.preloaded_kernel import SERVER_ENV, client_command

__all__ = ["kernel_manager_class", "uses_ipc"]


def uses_ipc(os_name: str = os.name) -> bool:
    """Whether the kernel runs on IPC sockets on this system (not on Windows)."""
    return os_name != "nt"


def kernel_manager_class(os_name: str = os.name) -> type:
    """An ``AsyncKernelManager`` that does not interrupt a kernel it shuts down, on IPC transport
    (TCP on Windows)."""
    from jupyter_client.manager import AsyncKernelManager  # jupyter's own, heavy

    class ChapterKernelManager(AsyncKernelManager):
        """jupyter_client's kernel manager, on IPC sockets where the system has them, whose
        shutdown sends no interrupt first."""

        if uses_ipc(os_name):
            transport = "ipc"

        def __init__(self, **kwargs: object) -> None:
            super().__init__(**kwargs)
            self._socket_dir = ""
            if self.transport == "ipc" and "ip" not in kwargs:
                # The sockets go to a private folder, never into the chapters' folder (the
                # kernel's working directory), where a killed run would leave them behind and
                # two runs at once could race for the same names.
                self._socket_dir = tempfile.mkdtemp(prefix="rankbook-kernel-")
                self.ip = os.path.join(self._socket_dir, "kernel-ipc")

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            await super()._async_cleanup_resources(restart=restart)
            if not restart and self._socket_dir:
                shutil.rmtree(self._socket_dir, ignore_errors=True)

        def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
            """The kernel's command; through a kernel server where ``RANKBOOK_KERNEL_SERVER``
            names one (:mod:`rankbook.report.preloaded_kernel`)."""
            cmd = super().format_kernel_cmd(extra_arguments)
            launcher = ["-m", "ipykernel_launcher"]
            if os.environ.get(SERVER_ENV) and cmd[1:3] == launcher:
                return [*client_command(cmd[0]), *cmd[3:]]
            return cmd

        async def _async_interrupt_kernel(self) -> None:
            if self.shutting_down:  # called by the shutdown itself: the chapter has finished
                return
            await super()._async_interrupt_kernel()

    return ChapterKernelManager
