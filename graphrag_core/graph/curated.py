"""The curated alias file (`graph/data/curated_aliases.json`): brands and short forms SEC's names
do not cover (Google → Alphabet, Facebook → Meta, TSMC → Taiwan Semiconductor Manufacturing),
and companies that file nothing with the SEC (Samsung, SK hynix, Hon Hai/Foxconn) with the
names they are written under. Every alias of every entry has a test."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphrag_core.common.ids import sha256_text
from graphrag_core.common.names import name_slug
from graphrag_core.graph.ontology import ENTITY_ID_RE

CURATED_FILE = "curated_aliases.json"


class CuratedCompany(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_id: str = Field(pattern=r"^CIK-\d{10}$")
    sec_title: str = Field(description="the title SEC's company_tickers.json gives this CIK")
    aliases: tuple[str, ...]
    why: str


class CuratedOrganization(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_id: str
    name: str
    aliases: tuple[str, ...]
    why: str

    @field_validator("entity_id")
    @classmethod
    def _org_key(cls, value: str) -> str:
        if not value.startswith("ORG:") or not ENTITY_ID_RE.match(value):
            raise ValueError(f"{value!r} is not an ORG: key")
        return value


class CuratedAliases(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    about: str
    companies: tuple[CuratedCompany, ...]
    organizations: tuple[CuratedOrganization, ...]

    def pairs(self) -> list[tuple[str, str]]:
        """(alias, entity id) for every alias, organization names included."""
        out = [(a, c.entity_id) for c in self.companies for a in c.aliases]
        for o in self.organizations:
            out += [(o.name, o.entity_id), *((a, o.entity_id) for a in o.aliases)]
        return out

    def problems(self) -> list[str]:
        """Entries that contradict themselves: an organization key that is not the slug of its
        name (a legal-form mention of that name would make a second node), one alias for two
        entities."""
        out = [
            f"{o.entity_id}: key should be ORG:{name_slug(o.name)} (the slug of {o.name!r})"
            for o in self.organizations
            if o.entity_id != f"ORG:{name_slug(o.name)}"
        ]
        seen: dict[str, str] = {}
        for alias, entity in self.pairs():
            key = alias.casefold()
            if seen.setdefault(key, entity) != entity:
                out.append(f"alias {alias!r} names both {seen[key]} and {entity}")
        return out


@lru_cache(maxsize=1)
def _packaged_text() -> str:
    return (
        resources.files("graphrag_core.graph")
        .joinpath("data", CURATED_FILE)
        .read_text(encoding="utf-8")
    )


def load_curated(text: str | None = None) -> CuratedAliases:
    """The packaged curated alias file (or `text`, for tests)."""
    return CuratedAliases.model_validate_json(text if text is not None else _packaged_text())


def curated_digest() -> str:
    return sha256_text(_packaged_text())
