"""A quality check's verdict, as every stage reports one: computed in the core, shown by Dagster
as an asset check, recorded per filing so a later publish can refuse to go ahead."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CheckVerdict(BaseModel):
    """One check on one filing's output of one stage."""

    model_config = ConfigDict(frozen=True)

    asset: str = Field(description="the table (asset) the check guards, e.g. validated_triples")
    check: str = Field(description="the check's name, e.g. rejection_rate")
    passed: bool
    blocking: bool = Field(
        description="a failed blocking check stops the snapshot from being published"
    )
    figures: dict[str, Any] = Field(
        default_factory=dict, description="what was measured, for the person reading the result"
    )

    def summary(self) -> str:
        """'validated_triples/rejection_rate failed (rejection_rate=0.8, threshold=0.5)'."""
        figures = ", ".join(f"{k}={v}" for k, v in self.figures.items())
        outcome = "passed" if self.passed else "failed"
        return f"{self.asset}/{self.check} {outcome}" + (f" ({figures})" if figures else "")
