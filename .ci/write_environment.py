"""Write environment.yml from requirements/lock.txt so the two never drift (run by `make lock`)."""
import sys
pins = [l.strip() for l in open("requirements/lock.txt") if l.strip() and not l.startswith("#")]
out = ["# Conda environment for rankaudit. The pip section mirrors requirements/lock.txt exactly", "# (tests/test_environment.py checks it); regenerate both with `make lock`.", "name: rankaudit", "channels:", "  - conda-forge", "dependencies:", "  - python=3.11", "  - pip", "  - pip:"]
out += [f"      - {p}" for p in pins]
out.append("      - -e .")
open("environment.yml", "w").write("\n".join(out) + "\n")
