"""Fetch the embedded default data: real MovieLens-100K from the ``recbole==1.2.1`` wheel.

The GroupLens licence forbids redistribution, so the data is never committed: this
module downloads the RecBole wheel from the package index (``pip download --no-deps``),
extracts ``recbole/dataset_example/ml-100k/`` into ``data/external/ml-100k/`` and checks
each file's SHA-256. Re-running it when the files are present and valid does nothing.

Run it with ``python -m rankbook.data.fetch`` (``make data`` does).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from rankaudit.runs.inputs import file_sha256
from rankbook.paths import default_data_root

__all__ = ["ML100K_FILES", "fetch_ml100k", "default_data_root", "ml100k_is_valid"]

RECBOLE_SPEC = "recbole==1.2.1"
ML100K_MEMBER_DIR = "recbole/dataset_example/ml-100k/"
#: SHA-256 of each file we use, as shipped in the recbole 1.2.1 wheel.
ML100K_FILES = {
    "ml-100k.inter": "4edb74e2a81178c2ba9ff381495f754f996c4aea351b1272ca36b43da0935eff",
    "ml-100k.item": "51d7cdf777ce5c0f5b32c1d947a4a81fe07d75e78abbe761e0cd4d0756064532",
    "ml-100k.user": "4f670007d9cfbeb9807e757209af1555b9bcc186bde25e767f67cb67c6dd5972",
}


def ml100k_is_valid(directory: Path) -> bool:
    return all(
        (directory / name).is_file() and file_sha256(directory / name) == digest
        for name, digest in ML100K_FILES.items()
    )


def fetch_ml100k(root: Path | None = None, *, quiet: bool = False) -> Path:
    """Ensure real ML-100K is in ``root/ml-100k`` with the expected checksums; return that path."""
    target = (root or default_data_root()) / "ml-100k"
    if ml100k_is_valid(target):
        if not quiet:
            print(f"ML-100K already present and verified in {target}")
        return target
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, RECBOLE_SPEC]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wheels = sorted(Path(tmp).glob("recbole-*.whl"))
        if proc.returncode != 0 or not wheels:
            errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("ERROR")]
            detail = "\n".join(errors) or proc.stderr.strip()[-800:]
            raise RuntimeError(
                f"Could not download {RECBOLE_SPEC} to obtain MovieLens-100K "
                f"(`{' '.join(cmd)}` exited {proc.returncode}):\n{detail}\n"
                "Check access to the Python package index, or place the RecBole ml-100k files "
                f"({', '.join(ML100K_FILES)}) in {target} yourself."
            )
        target.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheels[0]) as wheel:
            for name in ML100K_FILES:
                member = ML100K_MEMBER_DIR + name
                try:
                    data = wheel.read(member)
                except KeyError:
                    raise RuntimeError(f"{wheels[0].name} has no member {member}.") from None
                (target / name).write_bytes(data)
    bad = [n for n, d in ML100K_FILES.items() if file_sha256(target / n) != d]
    if bad:
        raise RuntimeError(
            f"SHA-256 mismatch for {bad} in {target}: the download is not the "
            "expected recbole 1.2.1 MovieLens-100K."
        )
    if not quiet:
        print(f"ML-100K fetched from {RECBOLE_SPEC} and verified in {target}")
    return target


def main() -> int:
    try:
        fetch_ml100k()
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
