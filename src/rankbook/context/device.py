"""Where the sequence encoders run: CUDA when present, else the CPU, and a line saying which."""

from __future__ import annotations

from rankaudit._optional import require

torch = require("torch", purpose="rankbook.context.device")

__all__ = ["default_device", "device_description", "resolve_device"]


def default_device() -> torch.device:
    """CUDA when available, else CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def resolve_device(device: str | torch.device | None) -> torch.device:
    """``None``/``"auto"`` -> :func:`default_device`; ``"cuda"`` without a GPU -> ValueError."""
    if device is None or device == "auto":
        return default_device()
    device = torch.device(device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device='cuda' requested but torch.cuda.is_available() is False")
    return device


def device_description(device: str | torch.device | None = None) -> str:
    """What trains the encoders, e.g. ``CPU (Intel Xeon ..., 1 torch thread), torch 2.13.0``."""
    import platform

    device = resolve_device(device)
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        return f"GPU {name} (CUDA {torch.version.cuda}), torch {torch.__version__}"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    n = torch.get_num_threads()
    return f"CPU {cpu} ({n} torch thread{'s' if n != 1 else ''}), torch {torch.__version__}"
