"""LambdaRank loss and list-wise NDCG in PyTorch, for the sequence encoders of Part III.

Both the Transformer and the Perceiver-like encoders of :mod:`rankbook.context.sequence` are
trained, as in Sheng et al. (2024, §2.3), "with a lambdaRank loss function (Burges, 2010),
prioritizing sale items over clicks and clicks over items with no engagement".  Labels are graded
relevance ``sale = 2 > click = 1 > none = 0``; lists of different lengths are padded to a common
width and a boolean ``mask`` marks the real entries.

Kernel section: :func:`lambdarank_loss` (vectorised over a batch of lists) and :func:`ndcg`.
The plain pairwise reference implementation that tests hold the kernel equal to lives in
``tests/context/test_losses.py``.

References
----------
C. J. C. Burges. *From RankNet to LambdaRank to LambdaMART: An Overview.* Microsoft Research
Technical Report MSR-TR-2010-82, 2010.

K. Järvelin and J. Kekäläinen. *Cumulated gain-based evaluation of IR techniques.* ACM TOIS 20(4),
2002.
"""

from __future__ import annotations

from rankaudit._optional import require

torch = require("torch", purpose="rankbook.context.losses")

__all__ = ["gains", "ideal_dcg", "lambdarank_loss", "ndcg", "rank_positions"]


def _check_lists(
    scores: torch.Tensor, labels: torch.Tensor, mask: torch.Tensor | None
) -> torch.Tensor:
    """Validate a padded batch of lists and return the boolean mask (all True when ``mask`` is
    None)."""
    if scores.ndim != 2:
        raise ValueError(f"scores must have shape (n_lists, list_width); got {tuple(scores.shape)}")
    if labels.shape != scores.shape:
        raise ValueError(
            f"labels shape {tuple(labels.shape)} differs from scores shape {tuple(scores.shape)}"
        )
    if mask is None:
        mask = torch.ones_like(scores, dtype=torch.bool)
    elif mask.shape != scores.shape:
        raise ValueError(
            f"mask shape {tuple(mask.shape)} differs from scores shape {tuple(scores.shape)}"
        )
    mask = mask.to(torch.bool)
    valid_labels = labels[mask]
    if valid_labels.numel() and (
        not torch.isfinite(valid_labels.float()).all() or (valid_labels < 0).any()
    ):
        bad = torch.nonzero(mask & ~(torch.isfinite(labels.float()) & (labels >= 0)))[0].tolist()
        raise ValueError(
            f"labels must be finite and >= 0 where mask is True; bad entry at (list, pos) {bad}"
        )
    valid_scores = scores.detach()[mask]
    if valid_scores.numel() and not torch.isfinite(valid_scores).all():
        bad = torch.nonzero(mask & ~torch.isfinite(scores.detach()))[0].tolist()
        raise ValueError(
            f"scores must be finite where mask is True; bad entry at (list, pos) {bad}"
        )
    return mask


def gains(labels: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Exponential gain ``G = 2**label - 1`` (Burges 2010, eq. for NDCG), zero on padded entries."""
    y = labels if labels.is_floating_point() else labels.to(torch.get_default_dtype())
    g = torch.pow(2.0, y) - 1.0
    return torch.where(mask, g, torch.zeros_like(g))


def _discounts(ranks: torch.Tensor, k: int | None, dtype: torch.dtype) -> torch.Tensor:
    """``1 / log2(2 + rank)`` for 0-based ranks, zero beyond the cut-off ``k``."""
    d = 1.0 / torch.log2(ranks.to(dtype) + 2.0)
    if k is not None:
        d = torch.where(ranks < k, d, torch.zeros_like(d))
    return d


def rank_positions(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """0-based rank of every entry when each list is sorted by descending score.

    Padded entries are ranked last. Ties keep input order (a stable sort); the sequence encoders
    produce continuous cosines, so exact ties are rare, and the validation NDCG is a training
    monitor, not a reported metric (reported metrics use the tie-aware evaluator of Part I).
    """
    s = scores.detach().masked_fill(~mask, float("-inf"))
    order = torch.argsort(s, dim=1, descending=True, stable=True)
    ranks = torch.empty_like(order)
    positions = torch.arange(s.shape[1], device=s.device).expand_as(order)
    ranks.scatter_(1, order, positions)
    return ranks


def ideal_dcg(labels: torch.Tensor, mask: torch.Tensor, k: int | None = None) -> torch.Tensor:
    """Ideal DCG per list: ``IDCG = sum_r G_(r) / log2(2 + r)`` over gains sorted descending."""
    g = gains(labels, mask)
    ideal = torch.sort(g, dim=1, descending=True).values
    ranks = torch.arange(g.shape[1], device=g.device).expand_as(ideal)
    return (ideal * _discounts(ranks, k, ideal.dtype)).sum(dim=1)


def ndcg(
    scores: torch.Tensor,
    labels: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    k: int | None = None,
) -> torch.Tensor:
    """NDCG@k of each list (Järvelin & Kekäläinen, ACM TOIS 2002), exponential gains.

    ``DCG@k = sum_{i: rank_i < k} (2**y_i - 1) / log2(2 + rank_i)`` (0-based ranks by descending
    score), ``NDCG@k = DCG@k / IDCG@k``. Lists whose IDCG is zero (no click and no sale) have no
    defined NDCG: they are returned as NaN so that callers must choose explicitly how to treat them
    (:func:`rankbook.context.sequence.validation_ndcg` averages over lists with a positive).

    Returns a tensor of shape ``(n_lists,)``.
    """
    mask = _check_lists(scores, labels, mask)
    with torch.no_grad():
        y = labels.to(scores.dtype)
        g = gains(y, mask)
        ranks = rank_positions(scores, mask)
        dcg = (g * _discounts(ranks, k, g.dtype)).sum(dim=1)
        idcg = ideal_dcg(y, mask, k)
        out = torch.full_like(dcg, float("nan"))
        ok = idcg > 0
        out[ok] = dcg[ok] / idcg[ok]
    return out


def lambdarank_loss(
    scores: torch.Tensor,
    labels: torch.Tensor,
    mask: torch.Tensor | None = None,
    *,
    sigma: float = 1.0,
    k: int | None = None,
    reduction: str = "mean",
) -> torch.Tensor:
    r"""LambdaRank loss over a padded batch of lists (Burges, MSR-TR-2010-82, 2010).

    For each list and every ordered pair ``(i, j)`` with ``y_i > y_j`` (sale 2 > click 1 > none 0),

    .. math::

        C_{ij} = |\Delta \mathrm{NDCG}_{ij}| \, \log\bigl(1 + e^{-\sigma (s_i - s_j)}\bigr),
        \qquad
        |\Delta \mathrm{NDCG}_{ij}| = \frac{|G_i - G_j| \, |D_i - D_j|}{\mathrm{IDCG}},

    with gains ``G = 2**y - 1``, discounts ``D = 1 / log2(2 + rank)`` at the current 0-based ranks
    (sorted by descending score; zero beyond ``k`` when given), and ``IDCG`` the ideal DCG of the
    list. ``|ΔNDCG_ij|`` is the change in NDCG from swapping ``i`` and ``j``; it is treated as a
    constant (no gradient flows through the sort), so that

    .. math::

        \frac{\partial C}{\partial s_i} = \lambda_i =
        \sum_{j: y_i > y_j} \frac{-\sigma |\Delta \mathrm{NDCG}_{ij}|}{1 + e^{\sigma (s_i - s_j)}}
        - \sum_{j: y_j > y_i}
          \frac{-\sigma |\Delta \mathrm{NDCG}_{ji}|}{1 + e^{\sigma (s_j - s_i)}},

    Burges' lambda gradients (2010, §4). The loss of a list is ``sum_{(i,j)} C_ij``.

    Parameters
    ----------
    scores : (n_lists, width) float tensor. Padded entries may hold anything (even NaN).
    labels : (n_lists, width) tensor of graded relevance, >= 0 where ``mask`` is True.
    mask : (n_lists, width) bool tensor, True for real entries; None means all real.
    sigma : RankNet's logistic scale ``σ`` (> 0).
    k : optional NDCG cut-off used in ``|ΔNDCG|``; None = the whole list.
    reduction : ``"mean"`` averages over lists that have at least one ranked pair (lists with all
        equal labels, or fully padded lists, carry no pair and are left out rather than counted as
        zero); ``"sum"`` sums over lists; ``"none"`` returns the per-list loss (zero for lists
        without pairs).

    A batch with no ranked pair at all returns an exact zero that still carries a graph, so that
    ``backward()`` is safe.
    """
    if sigma <= 0:
        raise ValueError(f"sigma must be > 0; got {sigma}")
    if k is not None and k < 1:
        raise ValueError(f"k must be >= 1 or None; got {k}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none'; got {reduction!r}")
    mask = _check_lists(scores, labels, mask)
    # Padded scores may be NaN: replace them before forming differences so no NaN gradient leaks.
    s = torch.where(mask, scores, torch.zeros_like(scores))
    y = labels.to(s.dtype)
    with torch.no_grad():
        g = gains(y, mask)
        ranks = rank_positions(s, mask)
        d = _discounts(ranks, k, s.dtype)
        idcg = ideal_dcg(y, mask, k)
        pair = (y[:, :, None] > y[:, None, :]) & mask[:, :, None] & mask[:, None, :]
        safe_idcg = torch.where(idcg > 0, idcg, torch.ones_like(idcg))
        weight = (g[:, :, None] - g[:, None, :]).abs() * (d[:, :, None] - d[:, None, :]).abs()
        weight = torch.where(pair, weight / safe_idcg[:, None, None], torch.zeros_like(weight))
    diff = s[:, :, None] - s[:, None, :]
    pair_loss = torch.nn.functional.softplus(-sigma * diff)
    per_list = (weight * pair_loss).sum(dim=(1, 2))
    if reduction == "none":
        return per_list
    if reduction == "sum":
        return per_list.sum()
    has_pair = pair.any(dim=(1, 2))
    n = int(has_pair.sum())
    if n == 0:
        return per_list.sum() * 0.0
    return per_list[has_pair].sum() / n
