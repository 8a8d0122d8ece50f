"""Command-line options generated from the library's dataclasses.

Every option of every command is a dataclass field of the library:
:func:`dataclass_options` adds them to a command and hands the command one instance built
from them by name, so a renamed field cannot silently drop out and the help shows the
library's own defaults (``train``/``cv``: :class:`~scoremol.spec.TrainingSpec`,
:mod:`scoremol.training.requests`; ``predict``: :class:`~scoremol.inference.request.PredictRequest`,
:class:`~scoremol.inference.distributed.request.DistributedRequest`; ``report``/``explain``:
:mod:`scoremol.report.request`).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from typing import Annotated, Optional

import typer
from rich.markup import escape

from scoremol.errors import ScoremolError
from scoremol.spec import DEFAULT_PRESET, PRESETS

__all__ = ["dataclass_options", "field_option", "input_argument"]


def input_argument(help: str, many: bool = True) -> object:
    """The annotation of a command's molecule input argument(s)."""
    argument = typer.Argument(metavar="INPUT..." if many else "INPUT", show_default=False, help=help)
    return Annotated[list[str] if many else str, argument]


def _preset_help(text: str, key: str) -> str:
    def shown(value: object) -> str:
        return ("on" if value else "off") if isinstance(value, bool) else f"{value:g}"

    values = "; ".join(f"{name}: {shown(settings[key])}" for name, settings in PRESETS.items())
    return f"{text} [dim]\\[{values}][/dim]"


def field_option(spec_field: dataclasses.Field, annotation: object) -> tuple[object, object]:
    """The Typer option of a dataclass field, from its metadata (help, panel, flag, short
    flag, bounds: see :func:`scoremol.spec.option`) and its type (a ``Literal`` becomes a
    choice checked at parse time); a training setting that a preset decides lists the
    presets' values."""
    meta = spec_field.metadata
    flag = meta.get("flag") or "--" + spec_field.name.replace("_", "-")
    switch = annotation in (bool, bool | None, Optional[bool])
    if switch and "/" not in flag and meta.get("negatable", True):
        flag = f"{flag}/--no-{flag[2:]}"
    text = escape(meta["help"])  # plain text in the spec; brackets are not markup
    if spec_field.name in PRESETS[DEFAULT_PRESET]:
        text = _preset_help(text, spec_field.name)
    flags = [flag] + ([meta["short"]] if meta.get("short") else [])
    option = typer.Option(
        *flags,
        help=text,
        rich_help_panel=meta["panel"],
        show_default=spec_field.default is not None,
        **({"metavar": meta["metavar"]} if "metavar" in meta else {}),
        **meta.get("bounds", {}),
    )
    return Annotated[annotation, option], spec_field.default


def dataclass_options(**groups: type | tuple[type, object]):
    """A decorator adding the fields of dataclasses as options of a command: for each
    ``keyword=cls`` (or ``keyword=(cls, build)``), every field of ``cls`` that carries option
    metadata becomes an option, and the command receives one instance as ``keyword``,
    built by ``build(**values)`` (default: ``cls``; a ``ValueError`` is a one-line error)."""
    fields: dict[str, dict[str, tuple[object, object]]] = {}
    builders = {}
    for keyword, group in groups.items():
        cls, build = group if isinstance(group, tuple) else (group, group)
        hints = typing.get_type_hints(cls)
        fields[keyword] = {
            f.name: field_option(f, hints[f.name]) for f in dataclasses.fields(cls) if "help" in f.metadata
        }
        builders[keyword] = build

    def decorate(command):
        command_hints = typing.get_type_hints(command, include_extras=True)  # real objects, not strings
        # keyword-only parameters must follow the command's own (which have defaults or not)
        own = [
            p.replace(annotation=command_hints.get(name, p.annotation), kind=inspect.Parameter.KEYWORD_ONLY)
            for name, p in inspect.signature(command).parameters.items()
            if name not in groups
        ]
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
            for options in fields.values()
            for name, (annotation, default) in options.items()
        ]

        @functools.wraps(command)
        def wrapper(**kwargs):
            built = {}
            for keyword, options in fields.items():
                values = {name: kwargs.pop(name) for name in options}
                try:
                    built[keyword] = builders[keyword](**values)
                except ValueError as exc:
                    raise ScoremolError(str(exc)) from None
            return command(**built, **kwargs)

        wrapper.__signature__ = inspect.Signature(own + added)
        return wrapper

    return decorate
