"""Frozen value classes without the code generation of dataclasses.

`@dataclass(frozen=True, slots=True)` writes and compiles an `__init__`, `__repr__`, `__eq__`,
`__hash__`, `__setattr__` and `__delattr__` for every class, each time its module is imported:
0.3 to 1.5 ms per class on every start of every command (docs/performance.md, "Validate (cold
start)"). A `Frozen` subclass writes its `__init__` and inherits the rest, behaving as that
dataclass did: equality and hash over the (compared) fields, the same repr, `FrozenInstanceError`
on assignment, and pickles and copies made the same way (`__getstate__` lists the values).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError
from operator import attrgetter
from typing import Any, ClassVar

__all__ = ["Frozen"]


def _values_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function returning the tuple of the named attributes of an object."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda value: (one(value),)
    return lambda value: ()


class Frozen:
    """What `@dataclass(frozen=True, slots=True)` gives, over the fields a subclass names.

    A subclass sets `__slots__ = __match_args__ = (its field names, in order)` and sets them in
    its `__init__` with `object.__setattr__`. `class C(Frozen, uncompared=("name",))` leaves a
    field out of equality and hash, as `field(compare=False)` does.
    """

    __slots__: tuple[str, ...] = ()
    # Set for each subclass (read through the class, so never bound): the tuple of its field
    # values, and of those that equality and hash compare.
    _fields: ClassVar[Callable[[Any], tuple[Any, ...]]]
    _compared: ClassVar[Callable[[Any], tuple[Any, ...]]]

    def __init_subclass__(cls, *, uncompared: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fields = _values_of(cls.__slots__)
        cls._compared = _values_of(tuple(name for name in cls.__slots__ if name not in uncompared))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            compared = type(self)._compared
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(type(self)._compared(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __getstate__(self) -> list[Any]:
        return list(type(self)._fields(self))

    def __setstate__(self, state: list[Any]) -> None:
        for name, value in zip(self.__slots__, state, strict=True):
            object.__setattr__(self, name, value)
