"""The project's Dagster instance: SQLite storage under $GRAPHRAG_DATA/dagster_home."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import dagster as dg

PROJECT_ROOT = Path(__file__).resolve().parent.parent
INSTANCE_YAML = PROJECT_ROOT / "dagster.yaml"


def prepare_dagster_home(data_root: Path) -> Path:
    """Create DAGSTER_HOME inside the data root with the project's dagster.yaml, and point
    the environment at it so `dagster dev` and in-process runs share one instance."""
    home = Path(data_root) / "dagster_home"
    home.mkdir(parents=True, exist_ok=True)
    if not INSTANCE_YAML.exists():
        raise FileNotFoundError(
            f"{INSTANCE_YAML}: the project's dagster.yaml is missing; run from a checkout of "
            "filings-graphrag (it is installed editable by `make`)"
        )
    target = home / "dagster.yaml"
    if not target.exists() or target.read_bytes() != INSTANCE_YAML.read_bytes():
        shutil.copyfile(INSTANCE_YAML, target)
    os.environ["DAGSTER_HOME"] = str(home)
    return home


def get_instance(data_root: Path) -> dg.DagsterInstance:
    prepare_dagster_home(data_root)
    return dg.DagsterInstance.get()
