"""The simulator's parameters: every number of the generative story in
:mod:`rankbook.data.sessions` is a field here, and so a chapter parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SessionConfig"]


@dataclass(frozen=True)
class SessionConfig:
    """Every knob of the simulator (see the module docstring for the story)."""

    n_products: int = 3000
    n_sessions: int = 6000
    n_days: int = 14
    n_users: int = 4000
    serp_size: int = 20
    max_queries: int = 12
    p_continue: float = 0.85
    p_continue_after_purchase: float = 0.35
    # assumptions: a return to an earlier intent (A -> B -> A) in about one later query in ten
    p_switch: float = 0.3
    p_return: float = 0.7
    p_specific_start: float = 0.2
    p_refine: float = 0.35
    retrieval_noise: float = 1.0
    retrieval_pop_weight: float = 0.5
    position_bias: float = 0.8
    # calibrated to DIGINETICA's clicks per search (rankbook.data.session_shape)
    click_base: float = -5.25
    w_type: float = 1.5
    w_brand: float = 2.5
    w_line: float = 2.0
    w_attribute: float = 1.5
    w_price: float = 0.8
    w_quality: float = 0.4
    buy_base: float = -4.0
    buy_match: float = 0.6
    buy_stage: float = 0.7
    query_gap_mean_s: float = 90.0
    click_gap_mean_s: float = 25.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("n_products", "n_sessions", "n_days", "n_users", "serp_size", "max_queries"):
            if getattr(self, name) < 1:
                raise ValueError(f"SessionConfig.{name} must be >= 1, got {getattr(self, name)}")
        for name in (
            "p_continue",
            "p_continue_after_purchase",
            "p_switch",
            "p_return",
            "p_specific_start",
            "p_refine",
        ):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"SessionConfig.{name} must be in [0, 1], got {v}")
        for name in ("retrieval_noise", "position_bias", "query_gap_mean_s", "click_gap_mean_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"SessionConfig.{name} must be >= 0, got {getattr(self, name)}")
