"""Data: loaders for real public formats, embedded defaults and documented simulators."""

from rankaudit.data.source import DataSource

__all__ = ["DataSource"]
