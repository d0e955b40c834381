"""No ``Any`` in the public surface: every name exported by ``doorman_client`` and
``doorman_client.types`` is walked (functions' and methods' signatures, models' fields,
TypedDicts' keys, dataclasses' fields, properties, type aliases, and the types they name in
turn), and ``typing.Any`` must appear nowhere. mypy's ``disallow_any_explicit`` keeps it out of
the package's source; this catches one that comes in through an imported or generated type."""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable

from pydantic import BaseModel

import doorman_client
import doorman_client.types

OWN = "doorman_client"


def any_in(obj: object, own: tuple[str, ...] = (OWN,)) -> list[str]:
    found: list[str] = []
    seen: set[int] = set()

    def hints_of(target: object, where: str) -> dict[str, object]:
        try:
            return dict(typing.get_type_hints(target))
        except Exception as err:  # a name the hints cannot resolve is a finding too
            found.append(f"{where}: unresolvable hints ({err})")
            return {}

    def walk_type(tp: object, where: str) -> None:
        if tp is typing.Any:
            found.append(where)
            return
        if typing.get_origin(tp) is typing.Literal:
            return
        if isinstance(tp, (str, typing.ForwardRef)):
            name = tp if isinstance(tp, str) else tp.__forward_arg__
            if name != "JsonValue":  # pydantic's recursive JSON alias names itself
                found.append(f"{where}: unresolved {name}")
            return
        if id(tp) in seen:
            return
        seen.add(id(tp))
        value = getattr(tp, "__value__", None)  # a TypeAliasType
        if value is not None and not isinstance(tp, type):
            walk_type(value, where)
            return
        for arg in typing.get_args(tp):
            if isinstance(arg, (type, types.GenericAlias, types.UnionType)) or typing.get_origin(arg) is not None or arg is typing.Any:
                walk_type(arg, where)
            elif isinstance(arg, (str, typing.ForwardRef)):
                walk_type(arg, where)
        if isinstance(tp, type) and tp.__module__.startswith(own):
            walk_object(tp, tp.__qualname__)

    def walk_callable(fn: Callable[..., object], where: str) -> None:
        for name, hint in hints_of(fn, where).items():
            walk_type(hint, f"{where}({name})")

    def walk_object(target: object, where: str) -> None:
        if isinstance(target, type):
            if id(target) in seen and not where.endswith(target.__qualname__):
                return
            seen.add(id(target))
            if issubclass(target, BaseModel):
                hints = hints_of(target, where)
                for name in target.model_fields:
                    walk_type(hints[name], f"{where}.{name}")
            elif typing.is_typeddict(target) or dataclasses.is_dataclass(target) or issubclass(target, BaseException):
                for name, hint in hints_of(target, where).items():
                    walk_type(hint, f"{where}.{name}")
            for name, member in vars(target).items():
                if name.startswith("_") and name != "__init__":
                    continue
                if isinstance(member, property) and member.fget is not None:
                    walk_callable(member.fget, f"{where}.{name}")
                elif inspect.isfunction(member) and member.__module__.startswith(own):
                    walk_callable(member, f"{where}.{name}")
        elif inspect.isfunction(target):
            walk_callable(target, where)
        else:
            walk_type(target, where)

    walk_object(obj, getattr(obj, "__qualname__", repr(obj)))
    return found


def public_names() -> list[tuple[str, object]]:
    names = [(f"doorman_client.{name}", getattr(doorman_client, name)) for name in doorman_client.__all__ if name != "__version__"]
    names += [(f"doorman_client.types.{name}", getattr(doorman_client.types, name)) for name in doorman_client.types.__all__]
    return names


def test_no_any_in_the_public_surface() -> None:
    names = public_names()
    assert len(names) > 40
    findings = [f"{name}: {where}" for name, obj in names for where in any_in(obj)]
    assert findings == []


class _Model(BaseModel):
    nested: list[dict[str, typing.Any]]


class _Outer(BaseModel):
    inner: _Model | None = None


@dataclasses.dataclass
class _Holder:
    value: typing.Any


def test_the_walk_finds_an_any() -> None:
    # The check above can fail: Any in a parameter, a return, a field, nested in a generic, or in
    # a model a field names.
    def takes(value: typing.Any) -> None: ...

    def returns() -> dict[str, list[typing.Any]]:
        return {}

    assert any_in(takes) != []
    assert any_in(returns) != []
    assert any_in(_Holder) != []
    # _Model is not the package's: the walk stops at it, as at pydantic's or httpx's types...
    assert any_in(_Outer) == []
    # ...and opens it when it is, finding the Any two levels down.
    assert any_in(_Outer, own=(OWN, __name__)) == ["_Model.nested"]
