"""``nki.collectives``: collective communication between NeuronCores.

tpb simulates one NeuronCore, so every collective call raises :class:`tpb.NotSupported`
naming what is missing (the collective engine and the inter-core fabric are not in tpb's
fact sheets). The names import, and ``ReplicaGroup`` can be built, so a kernel module that
defines a collective path still imports and its single-core paths run.

Example::

    import nki.collectives as ncc
    group = ncc.ReplicaGroup([[0, 1]])     # fine
    ncc.all_reduce(...)                    # raises tpb.NotSupported
"""

from __future__ import annotations

from typing import Any, Callable, NoReturn

__all__ = [
    "ReplicaGroup", "all_gather", "all_gather_v", "all_reduce", "all_to_all", "all_to_all_v",
    "collective_permute", "collective_permute_implicit",
    "collective_permute_implicit_current_processing_rank_id",
    "collective_permute_implicit_reduce", "rank_id", "reduce_scatter",
]


class ReplicaGroup:
    """``ReplicaGroup(groups)``: the ranks of a collective; kept as given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        return f"ReplicaGroup{self.args!r}"


def _refuse(name: str) -> NoReturn:
    from .._errors import NotSupported

    raise NotSupported(
        f"not supported: nki.collectives.{name} — tpb simulates one NeuronCore; the "
        "collective engine and the inter-core fabric are not in its fact sheets")


def _collective(name: str) -> Callable[..., NoReturn]:
    def call(*args: Any, **kwargs: Any) -> NoReturn:
        _refuse(name)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``nki.collectives.{name}``: raises :class:`tpb.NotSupported` (one core)."
    return call


all_gather = _collective("all_gather")
all_gather_v = _collective("all_gather_v")
all_reduce = _collective("all_reduce")
all_to_all = _collective("all_to_all")
all_to_all_v = _collective("all_to_all_v")
collective_permute = _collective("collective_permute")
collective_permute_implicit = _collective("collective_permute_implicit")
collective_permute_implicit_current_processing_rank_id = _collective(
    "collective_permute_implicit_current_processing_rank_id")
collective_permute_implicit_reduce = _collective("collective_permute_implicit_reduce")
rank_id = _collective("rank_id")
reduce_scatter = _collective("reduce_scatter")
