"""A dataclass as JSON and back, field by field: how the run file is made from the run model, and read back.

Writing walks a dataclass's fields (:func:`dataclasses.fields`) in their order and writes each value by the one
converter of its declared type: an enum as its value, a dataclass as an object, a named tuple as an object of its
fields, a tuple or list as an array, ``dict[str, X]`` as an object, ``X | None`` as ``X`` or null; numbers,
strings, booleans and ``Any`` as they are. Reading walks the same fields and types the other way. A key missing,
or null where the type takes no None, reads as the field's default (an older file); without one it is an error.

What differs from that is declared once, on the field, with :func:`key` (its JSON name, a key written only when
set, ...), and a figure written beside the fields, computed and never read back, with :func:`written` on the
property that computes it. Nothing here knows a field of the model, so a new field needs nothing here.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, Union

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

Named = Callable[[Mapping[str, Any]], str]
Name = str | tuple[str | Named, str] | Named
"""A JSON key; ``(outer, inner)``: the key ``inner`` of an object ``outer`` that neighbouring fields share; a
function of the values of the fields before it (a key named after one of them, such as ``pass_at_3``)."""
Omit = Literal["none", "empty"] | Callable[[Any], bool]
"""When a key is left out: its value is None, or empty, or a function of the object that holds it says so."""

_RULE = "json"
"""The metadata key :func:`key` writes a field's rule under."""
_WRITTEN = "_json_written"
"""The attribute :func:`written` marks a property's function with."""
_MISSING = object()


@dataclasses.dataclass(frozen=True)
class Rule:
    """How one field is written and read, when not by its name and type alone (:func:`key`)."""

    name: Name | None = None
    omit: Omit | None = None
    null_when_empty: bool = False
    absent: Callable[[Mapping[str, Any]], Any] | None = None
    inline: bool = False
    written: bool = True
    read: Callable[[Mapping[str, Any]], Any] | None = None


def key(
    name: Name | None = None,
    *,
    omit: Omit | None = None,
    null_when_empty: bool = False,
    absent: Callable[[Mapping[str, Any]], Any] | None = None,
    inline: bool = False,
    written: bool = True,
    read: Callable[[Mapping[str, Any]], Any] | None = None,
) -> dict[str, Rule]:
    """A field's JSON rule, for ``field(metadata=key(...))``.

    ``name``: its key (default: the field's name; see :data:`Name`). ``omit``: when the key is left out (see
    :data:`Omit`); a file without it reads as the default. ``null_when_empty``: an empty value is written as null.
    ``absent``: the value when the key is missing or null, from the object read (a file written before the key).
    ``inline``: a dataclass value's keys are written into this object, not as an object of their own (all of them
    null for None). ``written=False``: the field is not written (a figure beside it shows it); ``read``: how it is
    read back, from the object that holds it."""
    return {_RULE: Rule(name, omit, null_when_empty, absent, inline, written, read)}


@dataclasses.dataclass(frozen=True)
class Figure:
    """A property written into its dataclass's object after the field ``after``, never read back."""

    attr: str
    name: str
    after: str
    omit: Omit | None
    type: Any
    """The property's return type, which its value is written by."""


def written(after: str, *, name: str | None = None, omit: Omit | None = None) -> Callable[[F], F]:
    """Mark a property's function (under ``@property``) as a figure of the file: written after the field
    ``after`` (in the order the properties are defined) as ``name`` (default: the property's), left out when
    ``omit`` says so; computed again on reading, never read back."""

    def mark(fn: F) -> F:
        setattr(fn, _WRITTEN, (after, name, omit))
        return fn

    return mark


def _rule(f: dataclasses.Field[Any]) -> Rule:
    rule = f.metadata.get(_RULE)
    return rule if isinstance(rule, Rule) else Rule()


_HINTS: dict[type, dict[str, Any]] = {}
_FIGURES: dict[type, dict[str, list[Figure]]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The types of a class's fields (once per class: reading a large report asks for them per object)."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _figures(cls: type) -> dict[str, list[Figure]]:
    """Each field's written figures, by the field they follow, in the order the class defines them."""
    if cls not in _FIGURES:
        _FIGURES[cls] = _find_figures(cls)
    return _FIGURES[cls]


def _find_figures(cls: type) -> dict[str, list[Figure]]:
    found: dict[str, list[Figure]] = {}
    for attr, value in vars(cls).items():
        mark = getattr(value.fget, _WRITTEN, None) if isinstance(value, property) else None
        if mark is not None:
            after, name, omit = mark
            tp = typing.get_type_hints(value.fget)["return"]
            found.setdefault(after, []).append(Figure(attr, name or attr, after, omit, tp))
    fields = {f.name for f in dataclasses.fields(cls)}
    stray = [f.attr for figures in found.values() for f in figures if f.after not in fields]
    if stray:
        raise TypeError(f"{cls.__name__}: written figures {stray} follow no field")
    return found


def _optional(tp: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); anything else -> (itself, False)."""
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) < len(typing.get_args(tp)):
            return (args[0] if len(args) == 1 else Union[tuple(args)]), True  # noqa: UP007
    return tp, tp is Any


def _omitted(omit: Omit | None, owner: Any, value: Any) -> bool:
    if omit is None:
        return False
    if omit == "none":
        return value is None
    if omit == "empty":
        return not value
    assert callable(omit)
    return bool(omit(owner))


def _name(rule: Rule, default: str, values: Mapping[str, Any]) -> str | tuple[str, str]:
    name = rule.name if rule.name is not None else default
    if isinstance(name, tuple):
        outer, inner = name
        return (outer if isinstance(outer, str) else outer(values)), inner
    return name if isinstance(name, str) else name(values)


def _is_record(tp: Any) -> bool:
    """A named tuple: written as an object of its fields."""
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def encode(value: Any, tp: Any) -> Any:
    """``value`` (of type ``tp``) as JSON data."""
    if value is None:
        return None
    tp, _ = _optional(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_json(value)
    if _is_record(tp):
        return {name: encode(v, _hints(tp).get(name, Any)) for name, v in zip(tp._fields, value)}
    if origin in (list, tuple):
        if origin is tuple and args and args[-1] is not Ellipsis:
            return [encode(v, t) for v, t in zip(value, args)]
        item = args[0] if args else Any
        return [encode(v, item) for v in value]
    if origin is dict or isinstance(value, Mapping):
        item = args[1] if len(args) == 2 else Any
        return {k: encode(v, item) for k, v in value.items()}
    return value


def to_json(obj: Any) -> dict[str, Any]:
    """A dataclass instance as a JSON object: its fields in order, each figure after the field it follows."""
    cls = type(obj)
    hints, figures = _hints(cls), _figures(cls)
    out: dict[str, Any] = {}
    values: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        rule, value = _rule(f), getattr(obj, f.name)
        values[f.name] = value
        if rule.written and not _omitted(rule.omit, obj, value):
            data = None if rule.null_when_empty and not value else encode(value, hints[f.name])
            if rule.inline:
                inner, _ = _optional(hints[f.name])
                out.update(data if data is not None else {k: None for k in _keys(inner)})
            else:
                name = _name(rule, f.name, values)
                if isinstance(name, tuple):
                    out.setdefault(name[0], {})[name[1]] = data
                else:
                    out[name] = data
        for figure in figures.get(f.name, ()):
            shown = getattr(obj, figure.attr)
            if not _omitted(figure.omit, obj, shown):
                out[figure.name] = encode(shown, figure.type)
    return out


def _keys(cls: type) -> list[str]:
    """The plain keys of a dataclass written inline (its fields' names, as :func:`to_json` writes them)."""
    names = [_rule(f).name or f.name for f in dataclasses.fields(cls)]
    return [n for n in names if isinstance(n, str)]


def decode(data: Any, tp: Any) -> Any:
    """JSON ``data`` read as a value of type ``tp``; :class:`TypeError`/:class:`ValueError`/:class:`KeyError`
    when it is not one."""
    inner, optional = _optional(tp)
    if data is None:
        if optional:
            return None
        raise ValueError(f"null where {getattr(inner, '__name__', inner)} is needed")
    tp = inner
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp(data)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return from_json(tp, data)
    if _is_record(tp):
        if not isinstance(data, Mapping):
            raise TypeError(f"{tp.__name__} must be an object, found {type(data).__name__}")
        return tp(*(decode(data[name], _hints(tp).get(name, Any)) for name in tp._fields))
    if origin in (list, tuple):
        if not isinstance(data, list):
            raise TypeError(f"an array is needed, found {type(data).__name__}")
        if origin is tuple and args and args[-1] is not Ellipsis:
            if len(data) != len(args):
                raise ValueError(f"{len(args)} items are needed, found {len(data)}")
            return tuple(decode(v, t) for v, t in zip(data, args))
        items = [decode(v, args[0] if args else Any) for v in data]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(data, Mapping):
            raise TypeError(f"an object is needed, found {type(data).__name__}")
        return {k: decode(v, args[1] if len(args) == 2 else Any) for k, v in data.items()}
    return data


def _lookup(data: Mapping[str, Any], name: str | tuple[str, str]) -> Any:
    if isinstance(name, tuple):
        outer = data.get(name[0])
        return outer.get(name[1], _MISSING) if isinstance(outer, Mapping) else _MISSING
    return data.get(name, _MISSING)


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return _MISSING


def from_json(cls: type[T], data: Any) -> T:
    """The ``cls`` instance a JSON object holds (the inverse of :func:`to_json`; figures are not read)."""
    if not isinstance(data, Mapping):
        raise TypeError(f"{cls.__name__} must be an object, found {type(data).__name__}")
    hints = _hints(cls)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init:
            continue
        rule = _rule(f)
        if rule.read is not None:
            values[f.name] = rule.read(data)
            continue
        if not rule.written:
            continue
        tp, optional = _optional(hints[f.name])
        if rule.inline:
            empty = all(data.get(k) is None for k in _keys(tp))
            values[f.name] = None if optional and empty else from_json(tp, data)
            continue
        name = _name(rule, f.name, values)
        found = _lookup(data, name)
        if found is _MISSING or (found is None and not optional):
            if rule.absent is not None:
                values[f.name] = rule.absent(data)
            elif (default := _default(f)) is not _MISSING:
                values[f.name] = default
            elif found is _MISSING:
                raise KeyError(name if isinstance(name, str) else ".".join(name))
            else:
                raise ValueError(f"{name}: null where a value is needed")
            continue
        values[f.name] = decode(found, hints[f.name])
    return cls(**values)
