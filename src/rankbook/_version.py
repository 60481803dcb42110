"""The compendium's version (``src/pyproject.toml`` reads it from here).

Both packages are released from one checkout with one version: ``tests/test_packaging.py``
holds this equal to :data:`rankaudit._version.__version__`.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
