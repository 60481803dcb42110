"""The kernel the chapters run in: local IPC sockets where the system has them.

A kernel started over TCP without CurveZMQ keys logs "Kernel is running over TCP without
encryption" (ipykernel 7) into every rerun's output. On Linux and macOS the pipeline starts the
kernel on Unix-domain sockets instead (jupyter_client's ``transport = "ipc"``): nothing leaves
the machine and the warning is not printed. Windows has no IPC transport in jupyter_client, so
there the kernel stays on TCP (bound to 127.0.0.1) and the warning can still show.
"""

from __future__ import annotations

import os

__all__ = ["kernel_manager_class", "uses_ipc"]


def uses_ipc(os_name: str = os.name) -> bool:
    """Whether the kernel runs on IPC sockets on this system (not on Windows)."""
    return os_name != "nt"


def kernel_manager_class(os_name: str = os.name) -> type | None:
    """An ``AsyncKernelManager`` on IPC transport, or ``None`` (papermill's default) on Windows."""
    if not uses_ipc(os_name):
        return None
    from jupyter_client.manager import AsyncKernelManager  # jupyter's own, heavy

    class IpcKernelManager(AsyncKernelManager):
        """jupyter_client's kernel manager with ``transport = "ipc"``."""

        transport = "ipc"

    return IpcKernelManager
