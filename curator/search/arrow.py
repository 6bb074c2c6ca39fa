"""Arrow tables of index docs: the table schema, docs to Arrow, and Arrow housekeeping."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from curator.search.docs import DOC_COLUMNS, IndexDoc
from curator.search.fields import FEATURES, features
from curator.search.words import field_texts

if TYPE_CHECKING:
    import pyarrow as pa


# The columns of the index table before its vector: a doc's, then what ranking reads of it
TABLE_COLUMNS: tuple[str, ...] = (*DOC_COLUMNS, *FEATURES)


def doc_schema(dim: int) -> pa.Schema:
    import pyarrow as pa

    return pa.schema(
        [
            pa.field("path", pa.string(), nullable=False),
            pa.field("slug", pa.string()),
            pa.field("name", pa.string()),
            pa.field("description", pa.string()),
            pa.field("type", pa.string()),
            pa.field("scope", pa.string()),
            pa.field("status", pa.string()),
            pa.field("confidence", pa.float64()),
            pa.field("stale", pa.bool_()),
            pa.field("stale_reason", pa.string()),
            pa.field("sensitive", pa.bool_()),
            pa.field("tags", pa.list_(pa.string())),
            pa.field("tag_keys", pa.list_(pa.string())),
            pa.field("created", pa.string()),
            pa.field("reviewed", pa.string()),
            pa.field("kind", pa.string()),
            pa.field("content_hash", pa.string()),
            pa.field("text", pa.string()),
            pa.field("body", pa.string()),
            pa.field("context", pa.string()),
            pa.field("stems", pa.string()),
            pa.field("words", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ]
    )


def to_arrow(docs: Sequence[IndexDoc], vectors: np.ndarray, dim: int) -> pa.Table:
    import pyarrow as pa

    schema = doc_schema(dim)
    columns: dict[str, Any] = {
        name: [
            list(getattr(d, name)) if name in ("tags", "tag_keys") else getattr(d, name)
            for d in docs
        ]
        for name in DOC_COLUMNS
    }
    found = [features(field_texts(d.name, d.description, d.tags, d.body, d.context)) for d in docs]
    for i, name in enumerate(FEATURES):
        columns[name] = [f[i] for f in found]
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
    arrays = [pa.array(columns[n], type=schema.field(n).type) for n in TABLE_COLUMNS]
    arrays.append(pa.FixedSizeListArray.from_arrays(flat, dim))
    return pa.Table.from_arrays(arrays, schema=schema)


def by_path(data: pa.Table) -> pa.Table:
    """`data` sorted by path. A table is usually stored in path order already (a rebuild writes
    it so), and checking that is far cheaper than sorting (a take of every column)."""
    import pyarrow.compute as pc

    paths = data.column("path")
    n = len(paths)
    if n < 2 or pc.all(pc.less(paths.slice(0, n - 1), paths.slice(1))).as_py():
        return data
    return data.sort_by("path")


def release_arrow_memory() -> None:
    """Hand memory Arrow's pool and malloc kept from freed buffers back to the OS (after a bulk
    read, an update or a rebuild: they would otherwise keep the high-water mark)."""
    import pyarrow as pa

    with contextlib.suppress(Exception):
        pa.default_memory_pool().release_unused()


#: the columns of the filters' prefilter (`Filter.sql`: the gate, and the request's filters)
#: that hold few distinct values: each gets a bitmap index, so both legs of a hybrid query find
#: the rows passing the filter from the indices instead of reading and comparing every row
FILTERED = ("kind", "sensitive", "scope", "status", "type", "stale")
FTS_INDEX = "text_idx"


def index_names() -> tuple[str, ...]:
    """The indices a table of the index has: full text, then one per FILTERED column."""
    return (FTS_INDEX, *(f"{column}_idx" for column in FILTERED))


def create_indices(table: Any, have: set[str] | frozenset[str] = frozenset()) -> None:
    """The table's indices that are not among `have` (by name; all of them by default)."""
    from lancedb.index import FTS, Bitmap

    if FTS_INDEX not in have:
        table.create_index("text", config=FTS(with_position=False), replace=True, name=FTS_INDEX)
    for column in FILTERED:
        if f"{column}_idx" not in have:
            table.create_index(column, config=Bitmap(), replace=True, name=f"{column}_idx")


__all__ = [
    "FILTERED",
    "TABLE_COLUMNS",
    "by_path",
    "create_indices",
    "doc_schema",
    "index_names",
    "release_arrow_memory",
    "to_arrow",
]
