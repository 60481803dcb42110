"""LambdaRank loss and NDCG against plain pairwise references (Burges, MSR-TR-2010-82, 2010)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook.context.losses import lambdarank_loss, ndcg

torch.set_num_threads(1)


# ---------------------------------------------------------------- brute-force references
def _ref_ranks(s: list[float]) -> list[int]:
    order = sorted(range(len(s)), key=lambda i: -s[i])  # Python's sort is stable
    ranks = [0] * len(s)
    for r, i in enumerate(order):
        ranks[i] = r
    return ranks


def _ref_dcg_terms(y: list[int], ranks: list[int], k: int | None) -> tuple[list[float], float]:
    disc = [(1 / math.log2(2 + r)) if (k is None or r < k) else 0.0 for r in ranks]
    ideal = sorted(((2.0**v) - 1 for v in y), reverse=True)
    idcg = sum(g / math.log2(2 + r) for r, g in enumerate(ideal) if k is None or r < k)
    return disc, idcg


def ref_list_loss(s: torch.Tensor, y: list[int], sigma: float, k: int | None) -> torch.Tensor:
    """Pairwise loop over one unpadded list; s is a 1-d float64 tensor that may require grad."""
    vals = s.detach().tolist()
    ranks = _ref_ranks(vals)
    disc, idcg = _ref_dcg_terms(y, ranks, k)
    total = s.sum() * 0.0
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] > y[j]:
                gi, gj = 2.0 ** y[i] - 1, 2.0 ** y[j] - 1
                delta = abs(gi - gj) * abs(disc[i] - disc[j]) / idcg
                total = total + delta * torch.log1p(torch.exp(-sigma * (s[i] - s[j])))
    return total


def ref_lambdas(s: list[float], y: list[int], sigma: float) -> np.ndarray:
    """Burges' closed-form lambda gradient dC/ds_i for one list."""
    ranks = _ref_ranks(s)
    disc, idcg = _ref_dcg_terms(y, ranks, None)
    lam = np.zeros(len(s))
    for i in range(len(s)):
        for j in range(len(s)):
            if y[i] > y[j]:
                delta = abs((2.0 ** y[i]) - (2.0 ** y[j])) * abs(disc[i] - disc[j]) / idcg
                rho = 1.0 / (1.0 + math.exp(sigma * (s[i] - s[j])))
                lam[i] += -sigma * delta * rho
                lam[j] -= -sigma * delta * rho
    return lam


def ref_ndcg(s: list[float], y: list[int], k: int | None) -> float:
    ranks = _ref_ranks(s)
    disc, idcg = _ref_dcg_terms(y, ranks, k)
    return sum((2.0**v - 1) * d for v, d in zip(y, disc, strict=True)) / idcg


def random_batch(seed: int, n_lists: int = 6, width: int = 7):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, width + 1, size=n_lists)
    scores = torch.tensor(rng.normal(size=(n_lists, width)), dtype=torch.float64)
    labels = torch.tensor(rng.choice([0, 1, 2], p=[0.6, 0.3, 0.1], size=(n_lists, width)))
    mask = torch.arange(width)[None, :] < torch.tensor(lengths)[:, None]
    labels[~mask] = 0
    return scores, labels, mask


# ---------------------------------------------------------------- loss values
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [None, 3])
def test_loss_matches_pairwise_reference(seed, k):
    scores, labels, mask = random_batch(seed)
    per_list = lambdarank_loss(scores, labels, mask, sigma=1.3, k=k, reduction="none")
    for b in range(scores.shape[0]):
        m = mask[b]
        ref = ref_list_loss(scores[b][m], labels[b][m].tolist(), 1.3, k)
        assert per_list[b].item() == pytest.approx(ref.item(), rel=1e-12, abs=1e-14)


def test_mean_reduction_skips_lists_without_pairs():
    scores = torch.tensor([[0.3, 0.1, -1.0], [0.5, 0.2, 0.0], [1.0, 0.0, 0.0]], dtype=torch.float64)
    labels = torch.tensor([[0, 2, 1], [1, 1, 1], [2, 0, 0]])
    mask = torch.tensor([[True, True, True], [True, True, True], [True, False, False]])
    per_list = lambdarank_loss(scores, labels, mask, reduction="none")
    assert per_list[1].item() == 0.0 and per_list[2].item() == 0.0
    mean = lambdarank_loss(scores, labels, mask)
    assert mean.item() == pytest.approx(per_list[0].item(), rel=1e-12)


def test_no_pairs_gives_zero_with_graph():
    scores = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    labels = torch.zeros(2, 3, dtype=torch.long)
    loss = lambdarank_loss(scores, labels)
    loss.backward()
    assert loss.item() == 0.0
    assert torch.equal(scores.grad, torch.zeros_like(scores))


def test_padding_is_inert_even_if_nan():
    scores, labels, mask = random_batch(11)
    garbage = scores.clone()
    garbage[~mask] = float("nan")
    labels_garbage = labels.clone()
    labels_garbage[~mask] = 2
    garbage.requires_grad_(True)
    loss = lambdarank_loss(garbage, labels_garbage, mask)
    loss.backward()
    assert torch.isfinite(loss)
    assert loss.item() == pytest.approx(lambdarank_loss(scores, labels, mask).item(), rel=1e-12)
    assert torch.all(garbage.grad[~mask] == 0)
    assert torch.isfinite(garbage.grad).all()


# ---------------------------------------------------------------- gradients
@pytest.mark.parametrize("seed", range(4))
def test_autograd_gradient_matches_reference_autograd(seed):
    scores, labels, mask = random_batch(seed + 100)
    s1 = scores.clone().requires_grad_(True)
    lambdarank_loss(s1, labels, mask, reduction="sum").backward()
    s2 = scores.clone().requires_grad_(True)
    total = sum(
        ref_list_loss(s2[b][mask[b]], labels[b][mask[b]].tolist(), 1.0, None)
        for b in range(len(s2))
    )
    total.backward()
    torch.testing.assert_close(s1.grad, s2.grad, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("seed", range(4))
def test_gradient_equals_burges_lambdas(seed):
    scores, labels, mask = random_batch(seed + 200)
    s = scores.clone().requires_grad_(True)
    lambdarank_loss(s, labels, mask, sigma=0.7, reduction="sum").backward()
    for b in range(len(scores)):
        m = mask[b]
        lam = ref_lambdas(scores[b][m].tolist(), labels[b][m].tolist(), 0.7)
        np.testing.assert_allclose(s.grad[b][m].numpy(), lam, rtol=1e-10, atol=1e-14)


def test_gradcheck_float64():
    scores, labels, mask = random_batch(7, n_lists=3, width=5)
    s = scores.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(lambda x: lambdarank_loss(x, labels, mask), (s,), eps=1e-7)


def test_gradient_pushes_better_items_up():
    s = torch.zeros(1, 3, dtype=torch.float64, requires_grad=True)
    labels = torch.tensor([[0, 1, 2]])
    lambdarank_loss(s, labels).backward()
    # descending the gradient raises the sale, lowers the unengaged item
    assert s.grad[0, 2] < 0 < s.grad[0, 0]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 8))
def test_invariant_to_permuting_list_entries(seed, width):
    rng = np.random.default_rng(seed)
    scores = torch.tensor(rng.normal(size=(1, width)), dtype=torch.float64)
    labels = torch.tensor(rng.integers(0, 3, size=(1, width)))
    perm = torch.tensor(rng.permutation(width))
    a = lambdarank_loss(scores, labels, reduction="sum")
    b = lambdarank_loss(scores[:, perm], labels[:, perm], reduction="sum")
    assert a.item() == pytest.approx(b.item(), rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------- NDCG
@pytest.mark.parametrize("k", [None, 2])
def test_ndcg_matches_reference(k):
    scores, labels, mask = random_batch(3, n_lists=8)
    got = ndcg(scores, labels, mask, k=k)
    for b in range(len(scores)):
        m = mask[b]
        y = labels[b][m].tolist()
        if max(y) == 0:
            assert math.isnan(got[b].item())
        else:
            assert got[b].item() == pytest.approx(ref_ndcg(scores[b][m].tolist(), y, k), rel=1e-12)


def test_ndcg_is_one_for_ideal_order():
    labels = torch.tensor([[2, 1, 0, 0]])
    assert ndcg(torch.tensor([[4.0, 3.0, 2.0, 1.0]]), labels).item() == pytest.approx(1.0)
    assert ndcg(torch.tensor([[1.0, 2.0, 3.0, 4.0]]), labels).item() < 1.0


# ---------------------------------------------------------------- input validation
def test_bad_inputs_raise_naming_the_argument():
    s = torch.zeros(2, 3)
    with pytest.raises(ValueError, match="labels shape"):
        lambdarank_loss(s, torch.zeros(2, 4))
    with pytest.raises(ValueError, match="mask shape"):
        lambdarank_loss(s, torch.zeros(2, 3), torch.ones(3, 2, dtype=torch.bool))
    with pytest.raises(ValueError, match="labels must be finite"):
        lambdarank_loss(s, torch.tensor([[0, -1, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="scores must be finite"):
        lambdarank_loss(torch.tensor([[0.0, float("nan"), 0.0]]), torch.zeros(1, 3))
    with pytest.raises(ValueError, match="sigma"):
        lambdarank_loss(s, torch.zeros(2, 3), sigma=0)
    with pytest.raises(ValueError, match="scores must have shape"):
        lambdarank_loss(torch.zeros(3), torch.zeros(3))
