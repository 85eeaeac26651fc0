"""docs/configuration.md, written from `Settings`: every setting's environment variable, its
default and its meaning, section by section. The page is generated so that it cannot drift from
the code (`filings-graph config-docs > docs/configuration.md`; tests/test_configuration_page.py
fails when the two disagree). Defaults come from the class, never from this environment."""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import AliasChoices, SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.settings import PROJECT_ROOT, Settings

COMMAND = "filings-graph config-docs > docs/configuration.md"


@dataclass(frozen=True)
class SettingRow:
    variable: str
    default: str
    meaning: str


@dataclass(frozen=True)
class Section:
    title: str
    intro: str
    rows: tuple[SettingRow, ...]


def _default(field: FieldInfo) -> str:
    """The default as one writes it in the environment; machine-dependent defaults (a path
    inside the checkout, a count of cores) are written so that the page is the same anywhere."""
    if field.default_factory is not None:
        value = field.default_factory()  # type: ignore[call-arg]
        if isinstance(value, Path) and value.is_relative_to(PROJECT_ROOT):
            return f"`{value.relative_to(PROJECT_ROOT).as_posix()}`"
        return "computed (see meaning)"
    value = field.default
    if value is None:
        return "unset"
    if isinstance(value, SecretStr):
        return "set"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, tuple | list):
        return f"`{','.join(str(v) for v in value)}`"
    if isinstance(value, Path):
        return f"`{value.as_posix()}`"
    if value == "":
        return '`""`'
    return f"`{value}`"


def _choices(annotation: object) -> tuple[str, ...]:
    """The values a Literal field (or an optional one) accepts; () for any other type."""
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(v) for v in typing.get_args(annotation))
    for arg in typing.get_args(annotation):
        if typing.get_origin(arg) is typing.Literal:
            return _choices(arg)
    return ()


def _row(variable: str, owner: str, name: str, field: FieldInfo) -> SettingRow:
    if not (field.description or "").strip():
        raise ConfigurationError(
            f"{owner}.{name} ({variable}) has no description: give its Field a description "
            f"(what it changes, its unit), then run `{COMMAND}`"
        )
    meaning = " ".join((field.description or "").split())
    choices = _choices(field.annotation)
    if choices:
        meaning += "; one of " + ", ".join(f"`{c}`" for c in choices)
    # A table cell ends at "|", and "<data root>" would read as an HTML tag and vanish.
    meaning = re.sub(r"<(?=[A-Za-z/])", r"\\<", meaning.replace("|", "\\|"))
    return SettingRow(variable, _default(field).replace("|", "\\|"), meaning)


def _doc(cls: type) -> str:
    return " ".join((cls.__doc__ or "").split())


def sections(root: type[BaseSettings] = Settings) -> Iterator[Section]:
    """The root's own fields first (under their aliases), then one section per nested settings
    class (its env_prefix + field name), in the order the root declares them."""
    own: list[SettingRow] = []
    nested: list[tuple[str, type[BaseSettings]]] = []
    for name, field in root.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseSettings):
            nested.append((name, annotation))
            continue
        alias = field.validation_alias
        variable = str(alias.choices[0]) if isinstance(alias, AliasChoices) else name.upper()
        own.append(_row(variable, root.__name__, name, field))
    yield Section(f"`{root.__name__}`", _doc(root), tuple(own))
    for name, cls in nested:
        prefix = str(cls.model_config.get("env_prefix", ""))
        rows = tuple(
            _row(f"{prefix}{sub}".upper(), cls.__name__, sub, field)
            for sub, field in cls.model_fields.items()
        )
        yield Section(f"`{name}`: `{prefix}*`", _doc(cls), rows)


def configuration_page(root: type[BaseSettings] = Settings) -> str:
    """The Markdown page: a heading, how settings are read, then a table per section."""
    lines = [
        "# Configuration",
        "",
        "<!-- Generated from graphrag_core/settings/ by",
        f"     `{COMMAND}`:",
        "     edit the Settings' Field descriptions, not this page. -->",
        "",
        "Every setting is a field of `Settings` (`graphrag_core/settings/`, the only code that",
        "reads the environment) with an environment variable that overrides its default. Each",
        "Dagster resource carries its stage's section; `filings-graph` passes the same settings to",
        "every process it starts (run workers, the daemon, dask workers), so set them once in the",
        "shell or the service's environment. Lists take commas or a JSON list.",
        "",
    ]
    for section in sections(root):
        lines += [f"## {section.title}", ""]
        if section.intro:
            lines += [section.intro, ""]
        lines += ["| variable | default | meaning |", "|---|---|---|"]
        lines += [f"| `{r.variable}` | {r.default} | {r.meaning} |" for r in section.rows]
        lines.append("")
    return "\n".join(lines)
