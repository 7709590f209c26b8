"""A dataclass as JSON and back, field by field: how the run file is made from the run model, and read back.

Writing walks a dataclass's fields (:func:`dataclasses.fields`) in their order and writes each value by the one
converter of its declared type: an enum as its value, a dataclass as an object, a named tuple as an object of its
fields, a tuple or list as an array, ``dict[str, X]`` as an object, ``X | None`` as ``X`` or null; numbers,
strings, booleans and ``Any`` as they are. Reading walks the same fields and types the other way. A key missing,
or null where the type takes no None, reads as the field's default (an older file); without one it is an error.
Each type's converters, and each dataclass's plan of fields, are made once, so a report of a thousand questions
is read in about twice the time the hand-written reader took and written in the same time.

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
from functools import partial
from typing import Any, Literal, TypeVar, Union, cast

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


def _figures(cls: type) -> dict[str, list[Figure]]:
    """Each field's written figures, by the field they follow, in the order the class defines them."""
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


Convert = Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def _optional(tp: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); anything else -> (itself, False); ``Any`` takes None."""
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) < len(typing.get_args(tp)):
            return (args[0] if len(args) == 1 else Union[tuple(args)]), True  # noqa: UP007
    return tp, tp is Any


def _is_record(tp: Any) -> bool:
    """A named tuple: written as an object of its fields."""
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def _is_dataclass(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


_ENCODERS: dict[Any, Convert] = {}
_DECODERS: dict[Any, Convert] = {}


def _encoder(tp: Any) -> Convert:
    """The one converter that writes a value of type ``tp`` as JSON data, made once per type."""
    if tp not in _ENCODERS:
        inner, _ = _optional(tp)
        write = _plain_encoder(inner)
        _ENCODERS[tp] = write if write is _same else (lambda v: None if v is None else write(v))
    return _ENCODERS[tp]


def _plain_encoder(tp: Any) -> Convert:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return lambda v: v.value
    if _is_dataclass(tp):
        return lambda v: _plan(type(v)).write(v)
    if _is_record(tp):
        hints = typing.get_type_hints(tp)
        fields = [(name, _encoder(hints.get(name, Any))) for name in tp._fields]
        return lambda v: {name: write(x) for (name, write), x in zip(fields, v)}
    if origin is tuple and args and args[-1] is not Ellipsis:
        items = [_encoder(a) for a in args]
        return lambda v: [write(x) for write, x in zip(items, v)]
    if origin in (list, tuple):
        item = _encoder(args[0] if args else Any)
        return list if item is _same else (lambda v: [item(x) for x in v])
    if origin is dict:
        value = _encoder(args[1] if len(args) == 2 else Any)
        return dict if value is _same else (lambda v: {k: value(x) for k, x in v.items()})
    return _same


def _decoder(tp: Any) -> Convert:
    """The one converter that reads JSON data as a value of type ``tp`` (:class:`TypeError`,
    :class:`ValueError` or :class:`KeyError` when it is not one), made once per type."""
    if tp not in _DECODERS:
        inner, optional = _optional(tp)
        read = _plain_decoder(inner)
        needed = getattr(inner, "__name__", str(inner))

        def checked(data: Any) -> Any:
            if data is not None:
                return read(data)
            if optional:
                return None
            raise ValueError(f"null where {needed} is needed")

        _DECODERS[tp] = read if read is _same and optional else checked
    return _DECODERS[tp]


def _plain_decoder(tp: Any) -> Convert:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return cast(Convert, tp)
    if _is_dataclass(tp):
        return lambda data: _plan(tp).read(data)
    if _is_record(tp):
        hints = typing.get_type_hints(tp)
        fields = [(name, _decoder(hints.get(name, Any))) for name in tp._fields]
        return lambda data: tp(*(read(_object(data, tp)[name]) for name, read in fields))
    if origin is tuple and args and args[-1] is not Ellipsis:
        items = [_decoder(a) for a in args]

        def fixed(data: Any) -> tuple[Any, ...]:
            if len(_array(data)) != len(items):
                raise ValueError(f"{len(items)} items are needed, found {len(data)}")
            return tuple(read(x) for read, x in zip(items, data))

        return fixed
    if origin in (list, tuple):
        item, made = _decoder(args[0] if args else Any), (tuple if origin is tuple else list)
        return lambda data: made(item(x) for x in _array(data))
    if origin is dict:
        value = _decoder(args[1] if len(args) == 2 else Any)
        return lambda data: {k: value(x) for k, x in _object(data, tp).items()}
    return _same


def _array(data: Any) -> list[Any]:
    if not isinstance(data, list):
        raise TypeError(f"an array is needed, found {type(data).__name__}")
    return data


def _object(data: Any, tp: Any) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise TypeError(f"{getattr(tp, '__name__', 'this')} must be an object, found {type(data).__name__}")
    return data


def _omitted(omit: Omit | None, owner: Any, value: Any) -> bool:
    if omit is None:
        return False
    if omit == "none":
        return value is None
    if omit == "empty":
        return not value
    assert callable(omit)
    return bool(omit(owner))


def _name(key: Name, values: Mapping[str, Any]) -> str | tuple[str, str]:
    if isinstance(key, tuple):
        outer, inner = key
        return (outer if isinstance(outer, str) else outer(values)), inner
    return key if isinstance(key, str) else key(values)


def _lookup(data: Mapping[str, Any], name: str | tuple[str, str]) -> Any:
    if isinstance(name, tuple):
        outer = data.get(name[0])
        if outer is not None and not isinstance(outer, Mapping):  # a value of the wrong kind is not a missing one
            raise TypeError(f"{name[0]} must be an object, found {type(outer).__name__}")
        return outer.get(name[1], _MISSING) if isinstance(outer, Mapping) else _MISSING
    return data.get(name, _MISSING)


@dataclasses.dataclass(frozen=True)
class _Field:
    """One field as its class's plan writes and reads it."""

    name: str
    init: bool
    rule: Rule
    key: Name
    optional: bool
    encode: Convert
    decode: Convert
    default: Callable[[], Any] | None
    inline: type | None
    """The dataclass whose keys are written into this object (``key(inline=True)``)."""
    inline_keys: tuple[str, ...]
    figures: tuple[Figure, ...]
    """The figures written after it."""


def _field(f: dataclasses.Field[Any], tp: Any, figures: tuple[Figure, ...]) -> _Field:
    rule = _rule(f)
    inner, optional = _optional(tp)
    inline = inner if rule.inline else None
    names = [_rule(g).name or g.name for g in dataclasses.fields(inline)] if inline else []
    default: Callable[[], Any] | None = None
    if f.default is not dataclasses.MISSING:
        default = partial(_same, f.default)
    elif f.default_factory is not dataclasses.MISSING:
        default = f.default_factory
    return _Field(
        name=f.name,
        init=f.init,
        rule=rule,
        key=rule.name or f.name,
        optional=optional,
        encode=_encoder(tp),
        decode=_decoder(tp),
        default=default,
        inline=inline,
        inline_keys=tuple(n for n in names if isinstance(n, str)),
        figures=figures,
    )


class _Plan:
    """How one dataclass is written and read: its fields' rules and converters and its figures, worked out once."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        hints, figures = typing.get_type_hints(cls), _figures(cls)
        self.fields = [_field(f, hints[f.name], tuple(figures.get(f.name, ()))) for f in dataclasses.fields(cls)]
        self.named = any(not isinstance(f.key, str) for f in self.fields)
        """Some key is named after another field's value: the values are kept as the walk goes."""

    def write(self, obj: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        values: dict[str, Any] = {}
        for f in self.fields:
            value = getattr(obj, f.name)
            if self.named:
                values[f.name] = value
            rule = f.rule
            if rule.written and not _omitted(rule.omit, obj, value):
                data = None if rule.null_when_empty and not value else f.encode(value)
                if f.inline is not None:
                    out.update(data if data is not None else dict.fromkeys(f.inline_keys))
                else:
                    name = f.key if isinstance(f.key, str) else _name(f.key, values)
                    if isinstance(name, tuple):
                        out.setdefault(name[0], {})[name[1]] = data
                    else:
                        out[name] = data
            for figure in f.figures:
                shown = getattr(obj, figure.attr)
                if not _omitted(figure.omit, obj, shown):
                    out[figure.name] = _encoder(figure.type)(shown)
        return out

    def read(self, data: Any) -> Any:
        data = _object(data, self.cls)
        values: dict[str, Any] = {}
        for f in self.fields:
            rule = f.rule
            if not f.init or not (rule.written or rule.read):
                continue
            if rule.read is not None:
                values[f.name] = rule.read(data)
            elif f.inline is not None:
                empty = all(data.get(k) is None for k in f.inline_keys)
                values[f.name] = None if f.optional and empty else _plan(f.inline).read(data)
            else:
                name = f.key if isinstance(f.key, str) else _name(f.key, values)
                found = _lookup(data, name)
                if found is not _MISSING and (found is not None or f.optional):
                    values[f.name] = f.decode(found)
                elif rule.absent is not None:
                    values[f.name] = rule.absent(data)
                elif f.default is not None:
                    values[f.name] = f.default()
                elif found is _MISSING:
                    raise KeyError(name if isinstance(name, str) else ".".join(name))
                else:
                    raise ValueError(f"{name}: null where a value is needed")
        return self.cls(**values)


_PLANS: dict[type, _Plan] = {}


def _plan(cls: type) -> _Plan:
    if cls not in _PLANS:
        _PLANS[cls] = _Plan(cls)
    return _PLANS[cls]


def to_json(obj: Any) -> dict[str, Any]:
    """A dataclass instance as a JSON object: its fields in order, each figure after the field it follows."""
    return _plan(type(obj)).write(obj)


def from_json(cls: type[T], data: Any) -> T:
    """The ``cls`` instance a JSON object holds (the inverse of :func:`to_json`; figures are not read)."""
    return cast(T, _plan(cls).read(data))
