"""The versioned prompt: a system part and a user template, read from `prompts/<name>.md`.

The version that goes into every cache key and extraction row is the file's name plus a hash of
its text and of the JSON schema, so editing either without renaming the file still invalidates
cached replies instead of serving answers to a question that is no longer asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.common.ids import content_hash
from graphrag_core.extraction.triples import schema_fingerprint

USER_MARKER = "<!-- user -->"
DEFAULT_PROMPT = "extract_v2"


@dataclass(frozen=True)
class Prompt:
    name: str
    system: str
    user_template: str
    version: str

    def user_message(
        self, *, company: str, section: str, text: str, heading: str | None = None
    ) -> str:
        # str.replace, not str.format: the passage itself may contain braces. The passage goes
        # in last, so that braces in it are never taken for a placeholder.
        return (
            self.user_template.replace("{company}", company)
            .replace("{section}", section)
            .replace("{heading}", heading or "(none)")
            .replace("{text}", text)
        )


@cache
def load_prompt(name: str = DEFAULT_PROMPT) -> Prompt:
    resource = resources.files("graphrag_core.extraction.prompts").joinpath(f"{name}.md")
    if not resource.is_file():
        raise ConfigurationError(
            f"EXTRACTOR_PROMPT={name!r}: no prompt file graphrag_core/extraction/prompts/{name}.md"
        )
    raw = resource.read_text(encoding="utf-8")
    if USER_MARKER not in raw:
        raise ConfigurationError(
            f"prompt {name}.md lacks the {USER_MARKER} line before its user template"
        )
    system, user = raw.split(USER_MARKER, 1)
    digest = content_hash(raw, schema_fingerprint(), length=12)
    return Prompt(
        name=name, system=system.strip(), user_template=user.strip(), version=f"{name}@{digest}"
    )
