"""Write environment.yml from requirements/lock.txt so the two never drift (run by `make lock`)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = [
    "# Conda environment for rankaudit. The pip section mirrors requirements/lock.txt exactly",
    "# (tests/test_environment.py checks it); regenerate both with `make lock`.",
    "name: rankaudit",
    "channels:",
    "  - conda-forge",
    "dependencies:",
    "  - python=3.11",
    "  - pip",
    "  - pip:",
]


def main() -> None:
    lines = (ROOT / "requirements" / "lock.txt").read_text().splitlines()
    pins = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    body = HEADER + [f"      - {pin}" for pin in pins] + ["      - -e ."]
    (ROOT / "environment.yml").write_text("\n".join(body) + "\n")


if __name__ == "__main__":
    main()
