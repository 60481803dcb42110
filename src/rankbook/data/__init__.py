"""Data: loaders for real public formats, embedded defaults and documented simulators."""

from rankbook.data.source import DataSource

__all__ = ["DataSource"]
