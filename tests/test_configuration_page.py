"""docs/configuration.md is generated from Settings and must say what the code does: every
setting, under the variable that really sets it, with its default and a meaning of its own."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.settings import Settings, settings_environment
from pipelines.config_docs import COMMAND, configuration_page, sections

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "configuration.md"


def _rows():
    return [row for section in sections() for row in section.rows]


def test_the_page_is_what_settings_generate():
    assert PAGE.read_text(encoding="utf-8") == configuration_page(), (
        f"docs/configuration.md disagrees with graphrag_core/settings/: run `{COMMAND}`"
    )


def test_every_variable_the_project_reads_is_on_the_page_once():
    """The variables are those settings_environment hands to run workers (the names Settings
    reads), no more and no fewer, each in one row."""
    variables = [row.variable for row in _rows()]
    assert len(variables) == len(set(variables))
    assert set(variables) == set(settings_environment(Settings()))
    assert {"EDGAR_WATCHLIST", "EDGAR_FORMS", "GRAPHRAG_DATA", "GRAPHRAG_TABLES_URL"} <= set(
        variables
    )


def test_every_meaning_is_its_own():
    """No setting without a meaning, and no two with the same words (five endpoints once said
    'bearer token; vLLM without --api-key needs none' three times)."""
    meanings = Counter(row.meaning for row in _rows())
    assert all(meanings), [row.variable for row in _rows() if not row.meaning]
    assert [m for m, n in meanings.items() if n > 1] == []


def test_the_documented_defaults_are_the_defaults(monkeypatch):
    """What the page says a default is, for a sample of types, is what Settings() gives in an
    environment that sets nothing."""
    for name in settings_environment(Settings()):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    page = {row.variable: row.default for row in _rows()}
    assert page["EDGAR_WATCHLIST"] == f"`{','.join(settings.edgar.watchlist)}`"
    assert page["GRAPHRAG_CHUNK_MAX_TOKENS"] == f"`{settings.chunking.max_tokens}`"
    assert page["GRAPHRAG_MCP_HOST"] == f"`{settings.mcp.host}`"
    assert page["GRAPHRAG_MCP_TOKEN"] == "unset" and settings.mcp.token is None
    assert page["EXTRACTOR_GOLD_SET"] == "`tests/fixtures/extraction_gold/cases.jsonl`"
    assert settings.extraction.gold_set == ROOT / "tests/fixtures/extraction_gold/cases.jsonl"
    # a default that depends on the machine is not written as this machine's value
    assert page["GRAPHRAG_DAGSTER_MAX_CONCURRENT_RUNS"] == "computed (see meaning)"


def test_a_documented_variable_sets_its_setting(monkeypatch):
    monkeypatch.setenv("EDGAR_WATCHLIST", "NVDA,AMD")
    monkeypatch.setenv("GRAPHRAG_CHUNK_MAX_TOKENS", "256")
    monkeypatch.setenv("GRAPHRAG_TABLES_URL", "memory://tables")
    settings = Settings()
    assert settings.edgar.watchlist == ("NVDA", "AMD")
    assert settings.chunking.max_tokens == 256
    assert settings.tables_url == "memory://tables"


def test_the_page_does_not_depend_on_this_environment(monkeypatch, tmp_path):
    before = configuration_page()
    monkeypatch.setenv("GRAPHRAG_DATA", str(tmp_path))
    monkeypatch.setenv("GRAPHRAG_CHUNK_MAX_TOKENS", "256")
    assert configuration_page() == before


def test_choices_are_listed_and_cells_cannot_break_the_table():
    page = {row.variable: row.meaning for row in _rows()}
    assert page["GRAPHRAG_DAGSTER_EXECUTOR"].endswith("one of `in_process`, `multiprocess`, `dask`")
    assert "\\<data root>" in page["GRAPHRAG_DAGSTER_INBOX"]
    assert all("|" not in m.replace("\\|", "") for m in page.values())


def test_a_setting_without_a_description_is_refused():
    class Section(BaseSettings):
        """A section."""

        model_config = SettingsConfigDict(env_prefix="PLANTED_")
        explained: int = Field(1, description="has one")
        bare: int = 2

    class Root(BaseSettings):
        """The root."""

        section: Section = Field(default_factory=Section)

    with pytest.raises(ConfigurationError, match=r"Section\.bare \(PLANTED_BARE\)"):
        configuration_page(Root)


def test_odd_descriptions_stay_inside_their_cell():
    class Section(BaseSettings):
        """Odd."""

        model_config = SettingsConfigDict(env_prefix="ODD_")
        pipe: str = Field("a|b", description="left | right\n  and <tag> on\ttwo lines")
        empty: str = Field("", description="an empty default")

    class Root(BaseSettings):
        """The root."""

        section: Section = Field(default_factory=Section)

    page = configuration_page(Root)
    [row] = [line for line in page.splitlines() if line.startswith("| `ODD_PIPE`")]
    assert row == "| `ODD_PIPE` | `a\\|b` | left \\| right and \\<tag> on two lines |"
    assert '| `ODD_EMPTY` | `""` | an empty default |' in page


def test_the_command_prints_the_page(capsys):
    from pipelines.cli import main

    assert main(["config-docs"]) == 0
    assert capsys.readouterr().out == configuration_page()
