"""community_themes' written answer: the themes of the global search handed to a chat model,
which answers the question citing them ([T1][T3]); the answer is kept only when every sentence
cites a theme that exists (`check_model_answer`), else the deterministic answer stands.

The call goes through the one model client (its timeout, concurrency bound and retry policy).
One writer lives as long as the MCP server, so its bound holds across concurrent tool calls
(each runs in a worker thread).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from graphrag_core.common.errors import GraphragError
from graphrag_core.common.model_endpoint import ModelEndpoint
from graphrag_core.settings import CommunitySettings
from graphrag_core.store.community_search import check_model_answer, model_prompt

if TYPE_CHECKING:
    from graphrag_core.common.model_client import ModelClient

log = logging.getLogger(__name__)

# The answer is at most six sentences (the prompt says so); this bounds what a model may run on.
ANSWER_MAX_TOKENS = 600


def themes_question(sector: str | None, query: str | None) -> str:
    return (query or "the main themes") + (f" among {sector} companies" if sector else "")


class ThemesAnswerWriter:
    """Writes community_themes' answer with the themes endpoint (CommunitySettings.REDUCE_*)."""

    def __init__(self, endpoint: ModelEndpoint):
        # Imported here: a server whose answers are deterministic never loads the SDK.
        from graphrag_core.common.model_client import ModelClient

        self.endpoint = endpoint
        self.model = endpoint.model
        self.client: ModelClient = ModelClient(endpoint)

    @classmethod
    def from_settings(cls, settings: CommunitySettings | None) -> ThemesAnswerWriter | None:
        """The configured writer, or None when the answer is deterministic."""
        if settings is None or not settings.model_reduce():
            return None
        endpoint = settings.themes_endpoint()
        return cls(endpoint) if endpoint is not None else None

    def write(
        self, sector: str | None, query: str | None, themes: list[dict[str, Any]]
    ) -> str | None:
        """The model's answer citing the themes, or None (any failure, or a sentence citing no
        theme): the caller keeps its deterministic answer."""
        try:
            completion = self.client.chat(
                messages=model_prompt(themes_question(sector, query), themes),
                temperature=0,
                max_tokens=ANSWER_MAX_TOKENS,
                response_format={"type": "json_object"},
            )
            text = completion.response.choices[0].message.content
        except (GraphragError, IndexError, AttributeError) as exc:
            log.warning(
                "community_themes: the model answer failed (%s); answering deterministically", exc
            )
            return None
        return check_model_answer(str(text or ""), themes)

    def close(self) -> None:
        self.client.close()
