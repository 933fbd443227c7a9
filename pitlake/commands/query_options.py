"""The options of `pitlake query`, generated from the query models: every model field is one
option (`--as-of`, `--lookback-days`; a list field also in its singular, repeatable spelling,
`--symbols A,B` or `-s A -s B`), in the models' order, with the model's default and text.
A dataset takes exactly its model's fields; any other option given is refused. The reads
derived from several datasets (market, limits) have models too (`surfaces.DERIVED`).

Snapshot and status are compositions, not datasets: their options are written out here."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from pitlake.serve.api import surfaces
from pitlake.serve.api.params import QUERY_DATASETS

SHORT = {"symbols": "-s"}
SNAPSHOT = "snapshot"
STATUS = "status"
# The options of the two compositions.
COMPOSED: dict[str, frozenset[str]] = {
    SNAPSHOT: frozenset({"symbols", "date", "datasets", "as_of"}),
    STATUS: frozenset({"as_of"}),
}


# Every read with a model: its CLI word and the model (the datasets', then the derived reads').
MODELS: dict[str, type[BaseModel]] = {
    **{surfaces.path(s): surfaces.model(s) for s in surfaces.QUERIES},
    **{name.replace("_", "-"): m for name, m in surfaces.DERIVED.items()},
}


def _fields() -> dict[str, tuple[FieldInfo, list[str]]]:
    """Every query field with the reads taking it, in an order every model agrees with:
    first seen over the models, a new field placed before the next field of its model
    already placed (`index` before `date`), so each read's options keep its model's order."""
    out: dict[str, tuple[FieldInfo, list[str]]] = {}
    for word, model in MODELS.items():
        names = list(model.model_fields.items())
        for i, (name, info) in enumerate(names):
            if name not in out:
                later = next((n for n, _ in names[i + 1 :] if n in out), None)
                items = list(out.items())
                at = [n for n, _ in items].index(later) if later else len(items)
                out = dict([*items[:at], (name, (info, [])), *items[at:]])
            out[name][1].append(word)
    return out


FIELDS = _fields()
# Which options each dataset takes. Anything else is refused, so a typo'd query never silently
# answers a different question.
APPLIES: dict[str, frozenset[str]] = {
    **{surfaces.name(s): frozenset(surfaces.model(s).model_fields) for s in surfaces.QUERIES},
    **{name: frozenset(m.model_fields) for name, m in surfaces.DERIVED.items()},
    **COMPOSED,
}
DEFAULTS: dict[str, Any] = {name: surfaces.default(info) for name, (info, _) in FIELDS.items()}
DEFAULTS["datasets"] = None


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _option(name: str, info: FieldInfo, takers: list[str]) -> tuple[Any, Any]:
    """(annotation, default) of one field's option."""
    every = len(takers) == len(MODELS)
    doc = (info.description or "").strip()
    text = doc if every else f"{', '.join(takers)}: {doc}"
    if surfaces.takes_list(info):
        names = [flag(name), flag(surfaces.ONE_AT_A_TIME[name]), *filter(None, [SHORT.get(name)])]
        help_ = f"{text} Repeatable, or comma-separated."
        return Annotated[list[str] | None, typer.Option(*names, help=help_)], None
    if info.annotation is bool:
        # a flag that defaults to true is turned off by its --no- form
        decl = f"{flag(name)}/--no-{flag(name)[2:]}" if info.default else flag(name)
        return Annotated[bool, typer.Option(decl, help=text)], info.default
    kind: Any = int | None if int in surfaces.types_of(info) else str | None
    return Annotated[kind, typer.Option(flag(name), help=text)], DEFAULTS[name]


def parameters() -> list[inspect.Parameter]:
    """The query command's parameters: DATASET, then every field's option, then the
    snapshot's --datasets, --lake and --json."""
    kw = inspect.Parameter.KEYWORD_ONLY
    words = " | ".join(d.replace("_", "-") for d in QUERY_DATASETS)
    out = [
        inspect.Parameter(
            "dataset",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            annotation=Annotated[str, typer.Argument(help=words)],
        )
    ]
    for name, (info, takers) in FIELDS.items():
        annotation, default = _option(name, info, takers)
        out.append(inspect.Parameter(name, kw, default=default, annotation=annotation))
    extra = {
        "datasets": (
            Annotated[
                str | None,
                typer.Option(help="snapshot: comma-separated datasets (default: all)."),
            ],
            None,
        ),
        "lake": (
            Annotated[
                str | None,
                typer.Option(
                    help="Lake directory or s3:// URL (default: $PITLAKE_HOME, else ./lake)."
                ),
            ],
            None,
        ),
        "as_json": (
            Annotated[bool, typer.Option("--json", help="Print the envelope as JSON.")],
            False,
        ),
    }
    for name, (annotation, default) in extra.items():
        out.append(inspect.Parameter(name, kw, default=default, annotation=annotation))
    return out


def with_options(run: Callable[..., None]) -> Callable[..., None]:
    """`run(dataset, **options)` as a typer command with the generated parameters."""
    params = parameters()

    def command(dataset: str, **options: Any) -> None:
        run(dataset, **options)

    command.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    command.__name__ = "query"
    return command
