"""Options shared by several commands, defined once (Typer ``Annotated`` aliases).

The training options of ``train`` and ``cv`` are the fields of
:class:`~scoremol.spec.TrainingSpec`: :func:`training_options` adds them to a command and
hands the command one ``spec`` built from them by name, so a renamed field cannot silently
drop out and the help shows the spec's own defaults.
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
from scoremol.spec import DEFAULT_PRESET, INPUT, PRESETS, RUN, TrainingSpec

OUTPUT = "Output"
DISTRIBUTED = "Distributed (Dask)"


SmilesCol = Annotated[
    Optional[str],
    typer.Option(
        "--smiles-col", help="SMILES column of a CSV/TSV (default: smiles/SMILES/Smiles).", rich_help_panel=INPUT
    ),
]
Format = Annotated[
    Optional[str],
    typer.Option("--format", help="csv, tsv, smi or sdf (default: from the extension).", rich_help_panel=INPUT),
]
Standardize = Annotated[
    bool,
    typer.Option(
        "--standardize/--no-standardize",
        help="Keep the largest organic fragment, neutralize charges.",
        rich_help_panel=INPUT,
    ),
]
Workers = Annotated[
    Optional[int],
    typer.Option(
        "--workers",
        min=1,
        help="Processes for large inputs (default: all CPUs; 1 = one process).",
        rich_help_panel=RUN,
        show_default=False,
    ),
]
Device = Annotated[str, typer.Option("--device", help="cpu, cuda or auto.", rich_help_panel=RUN)]
Target = Annotated[
    Optional[list[str]],
    typer.Option(
        "--target",
        "-t",
        help="Target column; repeat for several (default: the data set's).",
        rich_help_panel=INPUT,
        show_default=False,
    ),
]


#: Each TrainingSpec field as a command-line parameter (name -> annotation, default).
def _preset_help(text: str, key: str) -> str:
    def shown(value: object) -> str:
        return ("on" if value else "off") if isinstance(value, bool) else f"{value:g}"

    values = "; ".join(f"{name}: {shown(settings[key])}" for name, settings in PRESETS.items())
    return f"{text} [dim]\\[{values}][/dim]"


def spec_option(spec_field: dataclasses.Field, annotation: object) -> tuple[object, object]:
    """The Typer option of a :class:`TrainingSpec` field, from its metadata (help, panel,
    flag, bounds) and its type (a ``Literal`` becomes a choice checked at parse time)."""
    meta = spec_field.metadata
    flag = meta.get("flag") or "--" + spec_field.name.replace("_", "-")
    switch = annotation in (bool, bool | None, Optional[bool])
    if switch and "/" not in flag:
        flag = f"{flag}/--no-{flag[2:]}"
    decided_by_preset = spec_field.name in PRESETS[DEFAULT_PRESET]
    text = escape(meta["help"])  # plain text in the spec; brackets are not markup
    help_text = _preset_help(text, spec_field.name) if decided_by_preset else text
    option = typer.Option(
        flag,
        help=help_text,
        rich_help_panel=meta["panel"],
        show_default=spec_field.default is not None,
        **meta.get("bounds", {}),
    )
    return Annotated[annotation, option], spec_field.default


_HINTS = typing.get_type_hints(TrainingSpec)
#: Every TrainingSpec field as a command-line option, by field name.
_SPEC_OPTIONS: dict[str, tuple[object, object]] = {
    f.name: spec_option(f, _HINTS[f.name]) for f in dataclasses.fields(TrainingSpec)
}


def training_options(command):
    """Add every :class:`TrainingSpec` field as an option of ``command``, which receives
    them as one ``spec`` keyword argument (built by name; a bad value is a one-line error)."""
    hints = typing.get_type_hints(command, include_extras=True)  # real objects, not strings
    own = [
        p.replace(annotation=hints.get(name, p.annotation))
        for name, p in inspect.signature(command).parameters.items()
        if name != "spec"
    ]
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
        for name, (annotation, default) in _SPEC_OPTIONS.items()
    ]
    # keyword-only parameters must follow the command's own (which have defaults or not)
    own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]

    @functools.wraps(command)
    def wrapper(**kwargs):
        options = {name: kwargs.pop(name) for name in _SPEC_OPTIONS}
        try:
            spec = TrainingSpec.from_options(**options)
        except ValueError as exc:
            raise ScoremolError(str(exc)) from None
        return command(spec=spec, **kwargs)

    wrapper.__signature__ = inspect.Signature(own + added)
    return wrapper
