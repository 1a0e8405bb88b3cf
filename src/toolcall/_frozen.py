"""Read-only JSON containers for the precomputed results ``emit`` and ``describe`` hand out.

``emit`` returns the same object on every call, in constant time, so a caller who appended a
tool to the returned list (or edited a schema in it) would change what every later call
returns. Copying on every call would cost time on a hot path; instead the stored value is made
deeply read-only and every mutator raises ``TypeError`` saying how to get a mutable copy.

They subclass ``dict`` and ``list`` rather than wrapping them (``MappingProxyType``, tuples)
because callers pass the result straight to a provider SDK or a JSON encoder:
``isinstance(x, dict)``, ``json.dumps``, ``msgspec.json.encode`` and ``==`` with plain data all
keep working. Whatever *produces a new object* gives plain data: ``copy.copy``,
``copy.deepcopy``, pickling, ``.copy()``, ``a + b`` and ``d | other``.

The guard is against accidents, not malice: ``dict.__setitem__(frozen, k, v)`` still works.

Examples
--------
>>> tools = freeze([{"name": "echo"}])
>>> tools.append({"name": "other"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
TypeError: this FrozenList is read-only: ... copy.deepcopy(value), or list(value) for a shallow copy
>>> import copy
>>> mine = copy.deepcopy(tools)
>>> mine.append({"name": "other"}); type(mine[0])
<class 'dict'>
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, NoReturn, Self

__all__ = ["FrozenDict", "FrozenList", "freeze", "seal", "seal_list", "thaw"]


def _read_only(self: FrozenDict | FrozenList, *args: object, **kwargs: object) -> NoReturn:
    shallow = "dict(value)" if isinstance(self, dict) else "list(value)"
    msg = (
        f"this {type(self).__name__} is read-only: toolcall hands out the same precomputed "
        f"value on every call. Copy it before changing it: copy.deepcopy(value), or {shallow} "
        "for a shallow copy"
    )
    raise TypeError(msg)


class FrozenDict(dict[str, Any]):
    """A ``dict`` whose contents, at every depth, cannot be changed.

    Construction freezes every value (see `freeze`), so a ``FrozenDict`` is deeply read-only
    however it was built.
    """

    __slots__ = ()

    def __new__(cls, data: Mapping[str, Any] | Iterable[tuple[str, Any]] = (), /) -> Self:
        frozen: Self = freeze(data if type(data) is dict else dict(data))
        return frozen

    def __init__(self, data: Mapping[str, Any] | Iterable[tuple[str, Any]] = (), /) -> None:
        """Do nothing: the contents are set in ``__new__``, so calling ``__init__`` again on a
        finished object cannot refill it."""

    __setitem__ = _read_only
    __delitem__ = _read_only
    __ior__ = _read_only
    update = _read_only
    pop = _read_only
    popitem = _read_only
    clear = _read_only
    setdefault = _read_only

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        # The default protocol would rebuild a FrozenDict through ``__setitem__``; an
        # unpickled copy is the caller's own, so it is plain (nested values reduce the same way).
        return (dict, (dict(self),))


class FrozenList(list[Any]):
    """A ``list`` whose contents, at every depth, cannot be changed.

    Construction freezes every item (see `freeze`), so a ``FrozenList`` is deeply read-only
    however it was built.
    """

    __slots__ = ()

    def __new__(cls, data: Iterable[Any] = (), /) -> Self:
        frozen: Self = freeze(data if type(data) is list else list(data))
        return frozen

    def __init__(self, data: Iterable[Any] = (), /) -> None:
        """Do nothing: the contents are set in ``__new__``, so calling ``__init__`` again on a
        finished object cannot refill it."""

    __setitem__ = _read_only
    __delitem__ = _read_only
    __iadd__ = _read_only
    __imul__ = _read_only
    append = _read_only
    extend = _read_only
    insert = _read_only
    remove = _read_only
    pop = _read_only
    clear = _read_only
    sort = _read_only
    reverse = _read_only

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return thaw(self)  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[type[list[Any]], tuple[list[Any]]]:
        # See FrozenDict.__reduce__.
        return (list, (list(self),))


def freeze(value: Any) -> Any:
    """Return *value* (JSON data) as deeply read-only data.

    Dicts become `FrozenDict`, lists and tuples `FrozenList`; an already frozen value is
    returned as is, so frozen subtrees can be shared between results at no cost. Anything
    else is returned unchanged: JSON scalars are immutable already.
    """
    kind = type(value)  # the exact types first, built in place: this runs for every node
    if kind is dict:
        frozen_dict = _new_dict(FrozenDict)
        # keys() and values() of one dict pair up exactly; strict=True would cost a fifth
        _update(frozen_dict, zip(value.keys(), map(freeze, value.values())))  # noqa: B905
        return frozen_dict
    if kind in _AS_IS:
        return value
    if kind is list or kind is tuple:
        frozen_list = _new_list(FrozenList)
        _extend(frozen_list, map(freeze, value))
        return frozen_list
    if isinstance(value, FrozenDict | FrozenList):
        return value
    if isinstance(value, dict):
        return FrozenDict(value)
    if isinstance(value, list | tuple):
        return FrozenList(value)
    return value


def seal(value: dict[str, Any]) -> FrozenDict:
    """*value* as a `FrozenDict` without walking it: for a dict whose values are frozen or
    scalars already (an envelope around a frozen schema), where `freeze` would only check
    each of them again."""
    frozen_dict = _new_dict(FrozenDict)
    _update(frozen_dict, value)
    return frozen_dict


def seal_list(items: list[Any]) -> FrozenList:
    """`seal` for a list whose items are frozen or scalars already."""
    frozen_list = _new_list(FrozenList)
    _extend(frozen_list, items)
    return frozen_list


_AS_IS: Final = frozenset({str, int, float, bool, type(None), FrozenDict, FrozenList})
_new_dict: Final = dict.__new__
_new_list: Final = list.__new__
_update: Final = dict.update
_extend: Final = list.extend


def thaw(value: Any) -> Any:
    """Return a plain, mutable deep copy of *value* (JSON data); tuples become lists."""
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(item) for item in value]
    return value
