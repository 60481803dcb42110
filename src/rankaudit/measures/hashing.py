"""The documented, platform-independent 64-bit tie-breaking hash.

Definition (all arithmetic modulo 2**64 on unsigned 64-bit integers)::

    GAMMA = 0x9E3779B97F4A7C15
    mix64(z)      = z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
                    z ^= z >> 27; z *= 0x94D049BB133111EB;
                    z ^ (z >> 31)
    splitmix64(x) = mix64(x + GAMMA)
    tie_hash(seed, user, item) =
        splitmix64(splitmix64(splitmix64(seed) ^ id64(user)) ^ id64(item))

``mix64`` is the finaliser of SplitMix64 (Steele, Lea & Flood, OOPSLA 2014),
the generator that seeds ``java.util.SplittableRandom``.  ``id64`` maps an id
to 64 bits:

- integers (Python or NumPy, signed or unsigned) map to their two's-complement
  value modulo 2**64, e.g. ``id64(-1) = 2**64 - 1``;
- strings map to the first 8 bytes of ``blake2b(utf8(id), digest_size=8)``
  read little-endian (``bytes`` are hashed directly);
- anything else (floats, None, ...) is rejected.

Nothing here depends on Python's salted ``hash()``, on the platform's byte
order or on the process, so the same (seed, user, item) gives the same key on
every machine.  Within a tie block, candidates are ordered by ascending key;
on a (astronomically rare) key collision the item id itself decides
(ascending integer value, or ascending string order).

Three implementations are kept and tested equal: :func:`tie_hash` (plain
Python ints, the readable definition), :func:`tie_hash_array` (NumPy,
vectorised) and the numba functions used inside the kernels.

References
----------
.. code-block:: bibtex

    @inproceedings{steele2014splitmix,
      author    = {Steele, Guy L. and Lea, Doug and Flood, Christine H.},
      title     = {Fast Splittable Pseudorandom Number Generators},
      booktitle = {OOPSLA},
      year      = {2014},
      pages     = {453--472}
    }
    @misc{rfc7693,
      author = {Saarinen, Markku-Juhani O. and Aumasson, Jean-Philippe},
      title  = {The {BLAKE2} Cryptographic Hash and Message Authentication Code},
      howpublished = {RFC 7693},
      year   = {2015}
    }
"""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Callable, Sequence

import numba
import numpy as np

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB

__all__ = [
    "GAMMA",
    "hash_collisions",
    "hash_order_key_nb",
    "hash_order_ranks",
    "id64",
    "ids_to_keys",
    "mix64",
    "normalize_ids",
    "splitmix64",
    "tie_hash",
    "tie_hash_array",
]


# --------------------------------------------------------------------------- reference
def mix64(z: int) -> int:
    """SplitMix64 finaliser on a Python int (the readable definition)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


def splitmix64(x: int) -> int:
    """One SplitMix64 step: ``mix64(x + GAMMA)``."""
    return mix64((x + GAMMA) & MASK64)


def id64(identifier: object) -> int:
    """Map one user or item id to an unsigned 64-bit integer (see module docstring)."""
    if isinstance(identifier, (bool, np.bool_)):
        return int(identifier)
    if isinstance(identifier, numbers.Integral):
        return int(identifier) & MASK64
    if isinstance(identifier, str):
        identifier = identifier.encode("utf-8")
    if isinstance(identifier, (bytes, bytearray)):
        digest = hashlib.blake2b(bytes(identifier), digest_size=8).digest()
        return int.from_bytes(digest, "little")
    raise ValueError(
        f"ids must be integers or strings; got {identifier!r} of type {type(identifier).__name__}"
    )


def tie_hash(seed: int, user_id: object, item_id: object) -> int:
    """The 64-bit tie-breaking key of one (seed, user, item) triple."""
    h = splitmix64(id64(seed))
    h = splitmix64(h ^ id64(user_id))
    return splitmix64(h ^ id64(item_id))


# --------------------------------------------------------------------------- numpy
def mix64_array(z: np.ndarray) -> np.ndarray:
    z = z.astype(np.uint64, copy=True)
    with np.errstate(over="ignore"):
        z ^= z >> np.uint64(30)
        z *= np.uint64(_M1)
        z ^= z >> np.uint64(27)
        z *= np.uint64(_M2)
        z ^= z >> np.uint64(31)
    return z


def splitmix64_array(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return mix64_array(x.astype(np.uint64) + np.uint64(GAMMA))


def normalize_ids(
    ids: Sequence[object] | np.ndarray,
    name: str = "ids",
    locate: Callable[[int], str] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Prepare an array of ids for the kernels: ``(keys, codes)``, both of the input's shape.

    ``keys`` is an integer array whose cast to ``uint64`` is :func:`id64` of each
    id; ``codes`` orders the ids for the collision fallback (integer ids: their
    value; string ids: their rank in sorted string order; in a mix, integers
    before strings before bytes) and is equal for two ids exactly when the ids
    are equal (``1`` and ``"1"`` are different ids).  Python integers of any
    size are taken modulo 2**64 (``-1`` and ``2**64 - 1`` share a key but stay
    different ids).  Integer ids are passed through without a copy.  Anything
    else (None, floats, bools inside an object array) raises a ValueError
    naming its position (``locate(flat_index)`` describes it when given).
    """
    arr = np.asarray(ids)
    if arr.dtype.kind in "iu":
        return arr, arr
    if arr.dtype.kind == "b":
        as_int = arr.astype(np.int64)
        return as_int, as_int
    if arr.dtype.kind not in "OUS":
        raise ValueError(f"{name} must be integers or strings; got dtype {arr.dtype}")
    flat = arr.reshape(-1)
    if arr.dtype.kind == "O":
        for j, x in enumerate(flat):
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, (str, bytes, numbers.Integral)):
                if locate is not None:
                    where = f": {locate(j)}"
                else:
                    where = str(list(map(int, np.unravel_index(j, arr.shape))))
                raise ValueError(
                    f"{name}{where} is {x!r} ({type(x).__name__}); ids must be integers or strings"
                )
        if flat.size and all(isinstance(x, numbers.Integral) for x in flat):
            values = [int(x) for x in flat]
            if all(-(2**63) <= v < 2**63 for v in values):
                as_int = np.array(values, dtype=np.int64).reshape(arr.shape)
                return as_int, as_int
    # Python ints beyond int64, strings, bytes or a mix: keys by id64, codes by the order
    # (integers by value, then strings, then bytes); 1 and "1" are different ids.
    tagged = [_sort_tag(x) for x in flat]
    distinct = sorted(set(tagged))
    code_of = {t: i for i, t in enumerate(distinct)}
    codes = np.fromiter((code_of[t] for t in tagged), dtype=np.int64, count=len(tagged))
    keys = np.fromiter((id64(t[1]) for t in distinct), dtype=np.uint64, count=len(distinct))
    return keys[codes].reshape(arr.shape), codes.reshape(arr.shape)


def _sort_tag(x: object) -> tuple[int, object]:
    if isinstance(x, numbers.Integral):
        return 0, int(x)
    if isinstance(x, str):
        return 1, str(x)
    return 2, bytes(x)  # type: ignore[arg-type]


def ids_to_keys(ids: Sequence[object] | np.ndarray, name: str = "ids") -> np.ndarray:
    """Vectorised :func:`id64`: an array of ids -> ``uint64`` keys (same shape).

    ``name`` is how error messages call the ids.
    """
    keys, _ = normalize_ids(ids, name)
    return (
        keys.astype(np.int64).view(np.uint64) if keys.dtype.kind == "i" else keys.astype(np.uint64)
    )


def tie_hash_array(seed: int, user_ids: np.ndarray, item_ids: np.ndarray) -> np.ndarray:
    """Vectorised :func:`tie_hash` with NumPy broadcasting of ``user_ids`` and ``item_ids``."""
    s = np.asarray([splitmix64(id64(seed))], dtype=np.uint64)
    u = ids_to_keys(user_ids)
    i = ids_to_keys(item_ids)
    h = splitmix64_array(s ^ u)
    return splitmix64_array(h ^ i)


def hash_order_ranks(
    row_keys: np.ndarray, item_keys: np.ndarray, item_ranks: np.ndarray
) -> np.ndarray:
    """The ``hash`` rule's order, written once: per document, its rank (int64, over the whole
    flat batch) by ``splitmix64(row_key ^ item_key)`` ascending, then ``item_ranks`` (the
    id order) on a 64-bit collision.  ``row_key = splitmix64(splitmix64(seed) ^ id64(query or
    user))``, so the first key is :func:`tie_hash`.  Ranks over the whole batch order every
    tie block as the pairs do.  The row kernels' fast path compares the same pairs
    (:func:`hash_order_key_nb`, then the item code); tests hold the two equal."""
    with np.errstate(over="ignore"):
        h = splitmix64_array(np.asarray(row_keys, np.uint64) ^ np.asarray(item_keys, np.uint64))
    order = np.lexsort((np.asarray(item_ranks), h))
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def hash_collisions(
    user_ids: np.ndarray, item_ids: np.ndarray, *, n_seeds: int
) -> dict[str, float]:
    """Count 64-bit tie-key collisions inside rows, against an ideal hash's expectation.

    ``user_ids`` has one id per row, ``item_ids`` is ``(rows, m)``. Returns the number of pairs
    of candidates in one row with the same key ``tie_hash(seed, user, item)``, summed over seeds
    ``0..n_seeds-1``; the pairs checked; and the expected count for an ideal 64-bit hash,
    ``n_seeds * rows * C(m, 2) / 2**64``. (A collision only matters inside a tie block, where
    the item id then breaks it.)
    """
    users = ids_to_keys(user_ids, "user_ids")
    items = ids_to_keys(item_ids, "item_ids")
    n, m = items.shape
    total = 0
    for s in range(n_seeds):
        keys = np.sort(tie_hash_array(s, users[:, None], items), axis=1)
        total += int((keys[:, 1:] == keys[:, :-1]).sum())
    return {
        "collisions": total,
        "pairs_checked": int(n_seeds * n * m * (m - 1) // 2),
        "expected_collisions": float(n_seeds * n * m * (m - 1) / 2 / 2.0**64),
    }


# --------------------------------------------------------------------------- numba
@numba.njit(cache=True, inline="always")
def mix64_nb(z):  # pragma: no cover - compiled
    z = numba.uint64(z)
    z = (z ^ (z >> numba.uint64(30))) * numba.uint64(_M1)
    z = (z ^ (z >> numba.uint64(27))) * numba.uint64(_M2)
    return z ^ (z >> numba.uint64(31))


@numba.njit(cache=True, inline="always")
def splitmix64_nb(x):  # pragma: no cover - compiled
    return mix64_nb(numba.uint64(x) + numba.uint64(GAMMA))


@numba.njit(cache=True, inline="always")
def hash_order_key_nb(row_key, item_key):  # pragma: no cover - compiled
    """The ``hash`` rule's first key of one document (:func:`hash_order_ranks`)."""
    return splitmix64_nb(numba.uint64(row_key) ^ numba.uint64(item_key))


@numba.njit(cache=True)
def _tie_hash_nb(seed_key, user_key, item_key):  # pragma: no cover - compiled
    """``tie_hash`` on pre-mapped 64-bit keys (``id64`` already applied)."""
    h = splitmix64_nb(seed_key)
    h = splitmix64_nb(h ^ numba.uint64(user_key))
    return splitmix64_nb(h ^ numba.uint64(item_key))
