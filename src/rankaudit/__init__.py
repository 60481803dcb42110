"""rankaudit: tie-aware ranking evaluation and contextual search ranking."""

__version__ = "0.1.0"
