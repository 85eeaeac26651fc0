"""The project's Dagster instance: its configuration rendered from dagster.yaml and Settings
into $GRAPHRAG_DATA/dagster_home, SQLite storage there unless PostgreSQL is configured."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dagster as dg
import yaml

from assets.pools import EDGAR_POOL, EXTRACTOR_POOL
from graphrag_core.common.atomic import write_atomic
from graphrag_core.settings import OperationsSettings

PROJECT_ROOT = Path(__file__).resolve().parent.parent
INSTANCE_YAML = PROJECT_ROOT / "dagster.yaml"
WORKSPACE_YAML = PROJECT_ROOT / "workspace.yaml"
LOCATION_NAME = "filings_graphrag"
# The PostgreSQL URL is read by the instance from the environment, so no password is written
# into dagster_home.
POSTGRES_URL_ENV = "GRAPHRAG_DAGSTER_POSTGRES_URL"


def instance_config(operations: OperationsSettings) -> dict[str, Any]:
    """The project's dagster.yaml with the settings applied."""
    if not INSTANCE_YAML.exists():
        raise FileNotFoundError(
            f"{INSTANCE_YAML}: the project's dagster.yaml is missing; run from a checkout of "
            "filings-graphrag (it is installed editable by `make`)"
        )
    config: dict[str, Any] = yaml.safe_load(INSTANCE_YAML.read_text(encoding="utf-8")) or {}
    runs = config.setdefault("concurrency", {}).setdefault("runs", {})
    runs["max_concurrent_runs"] = operations.max_concurrent_runs
    if operations.postgres_url is not None:
        config["storage"] = {"postgres": {"postgres_url": {"env": POSTGRES_URL_ENV}}}
    return config


def prepare_dagster_home(data_root: Path, operations: OperationsSettings | None = None) -> Path:
    """Create DAGSTER_HOME inside the data root with the rendered dagster.yaml, and point the
    environment at it so `dagster dev`, the daemon and in-process runs share one instance."""
    operations = operations or OperationsSettings()
    home = Path(data_root) / "dagster_home"
    home.mkdir(parents=True, exist_ok=True)
    rendered = (
        f"# rendered from {INSTANCE_YAML} by filings-graph; edit that file or the "
        "GRAPHRAG_DAGSTER_* settings, not this one\n"
        + yaml.safe_dump(instance_config(operations), sort_keys=False)
    ).encode("utf-8")
    target = home / "dagster.yaml"
    if not target.exists() or target.read_bytes() != rendered:
        write_atomic(target, rendered)
    os.environ["DAGSTER_HOME"] = str(home)
    if operations.postgres_url is not None:
        os.environ[POSTGRES_URL_ENV] = sqlalchemy_url(operations.postgres_url.get_secret_value())
    return home


def sqlalchemy_url(url: str) -> str:
    """The URL with the driver dagster-postgres ships with (psycopg2) named: SQLAlchemy 2.1
    takes a bare postgresql:// for psycopg 3, which is not installed."""
    for scheme in ("postgresql://", "postgres://"):
        if url.startswith(scheme):
            return "postgresql+psycopg2://" + url[len(scheme):]
    return url


def apply_pool_limits(instance: dg.DagsterInstance, operations: OperationsSettings) -> None:
    """Set the slots of the `edgar` and `extractor` pools to what the settings say."""
    storage = instance.event_log_storage
    if not storage.supports_global_concurrency_limits:
        return
    for pool, limit in (
        (EDGAR_POOL, operations.edgar_pool_limit),
        (EXTRACTOR_POOL, operations.extractor_pool_limit),
    ):
        if storage.get_concurrency_info(pool).slot_count != limit:
            storage.set_concurrency_slots(pool, limit)


def get_instance(data_root: Path, operations: OperationsSettings | None = None) -> dg.DagsterInstance:
    operations = operations or OperationsSettings()
    prepare_dagster_home(data_root, operations)
    instance = dg.DagsterInstance.get()
    apply_pool_limits(instance, operations)
    return instance
