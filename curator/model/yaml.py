"""YAML for headers: PyYAML's C loader with the refusals a header needs, and its dumper.

Nothing is parsed in front of libyaml: what curator reads is what `yaml.CSafeLoader` reads,
except where this module refuses a header (a reported problem, never a different value):
aliases and merge keys, duplicate and non-string keys, tags beyond plain data, nesting deeper
than `MAX_DEPTH`, integers too large to print, and values whose constructor fails. Dates and
times are kept as the string they were written as (where libyaml makes date objects).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from typing import Any, NoReturn

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

P = "tag:yaml.org,2002:"
STR, INT, TIMESTAMP = P + "str", P + "int", P + "timestamp"
MAP, SEQ, MERGE = P + "map", P + "seq", P + "merge"
MAX_DEPTH = 64  # a header is a few levels deep; deeper is refused, never recursed into
MAX_NODES = 10_000  # a header holds tens of values; building 100k+ Python nodes takes seconds
MAX_INT_DIGITS = 4300  # Python's limit for turning an int into text (sys.int_info)
_MAX_INT_BITS = int(MAX_INT_DIGITS * math.log2(10))
_TIMESTAMP_FORM = SafeConstructor.timestamp_regexp


class HeaderError(Exception):
    """A header that cannot be read; `line` is 1-based within the header text (0: unknown),
    `index` the character offset libyaml pointed at (-1: unknown)."""

    def __init__(self, message: str, line: int = 0, *, index: int = -1) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.index = index


def _refuse(problem: str, node: Node) -> ConstructorError:
    return ConstructorError(None, None, problem, node.start_mark)


class HeaderLoader(yaml.CSafeLoader):
    """libyaml's parser and composer with curator's limits and refusals.

    libyaml's composer calls `descend_resolver` before it composes each node, so the depth
    and size checks stop a hostile header before anything recurses into it or builds it.
    The refusals live in the constructor's own loops (no second walk over the nodes): a node
    met a second time is an alias; keys are checked as their mapping is built; a tag beyond
    plain data (str, int, float, bool, null, date, list, map) has no constructor.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        self._depth += 1
        self._nodes += 1
        if self._depth > MAX_DEPTH or self._nodes > MAX_NODES:
            mark = getattr(current_node, "start_mark", None)
            if self._depth > MAX_DEPTH:
                problem = f"nested deeper than {MAX_DEPTH} levels"
            else:
                problem = f"more than {MAX_NODES} values in one header"
            raise yaml.composer.ComposerError(None, None, problem, mark)

    def ascend_resolver(self) -> None:
        self._depth -= 1

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Hashable, Any]:
        if not isinstance(node, MappingNode):
            raise _refuse(f"expected a mapping for {tag_name(node.tag)}", node)
        built = self.constructed_objects
        mapping: dict[Hashable, Any] = {}
        for key, value in node.value:
            _check_key(key, mapping)
            if key in built or value in built:
                raise _refuse("YAML aliases are not allowed in a header", key)
            built[key] = key.value
            mapping[key.value] = self.construct_object(value, deep)
        return mapping

    def construct_sequence(self, node: Node, deep: bool = False) -> list[Any]:
        if not isinstance(node, SequenceNode):
            raise _refuse(f"expected a list for {tag_name(node.tag)}", node)
        built = self.constructed_objects
        items = []
        for item in node.value:
            if item in built:
                raise _refuse("YAML aliases are not allowed in a header", node)
            items.append(self.construct_object(item, deep))
        return items

    def construct_undefined(self, node: Node) -> NoReturn:
        if node.tag == MERGE:
            raise _refuse("YAML merge keys (<<) are not allowed in a header", node)
        raise _refuse(f"the YAML tag {tag_name(node.tag)} is not allowed in a header", node)

    def construct_header_int(self, node: ScalarNode) -> int:
        """An int as YAML reads it, refused when it is too long to print (or to compute: a
        long base-60 int costs quadratic time)."""
        if len(node.value) > MAX_INT_DIGITS:
            raise _refuse("integer is too long", node)
        value: int = self.construct_yaml_int(node)
        if abs(value).bit_length() > _MAX_INT_BITS:
            raise _refuse("integer is too large", node)
        return value

    def construct_header_timestamp(self, node: ScalarNode) -> str:
        """A date or time kept as written (`2026-03-04`, not a date object). An impossible
        date such as 2026-02-30 is kept too: `check` reports it at its field; a value that
        is no date at all (`!!timestamp soon`) is refused."""
        if not _TIMESTAMP_FORM.match(self.construct_scalar(node)):
            raise _refuse("not a date or time", node)
        return str(node.value)


def _guarded(construct: Callable[..., Any]) -> Callable[..., Any]:
    """The constructor with any failure (`!!float abc`, `0b_`, `!!bool maybe`, a float that
    overflows) turned into the loader's own error, at the value."""

    def guarded(loader: Any, node: Node) -> Any:
        try:
            return construct(loader, node)
        except yaml.YAMLError:
            raise
        except (ArithmeticError, LookupError, ValueError, TypeError, AttributeError) as exc:
            shown = node.value if isinstance(node.value, str) else ""
            problem = f"cannot read {_short(shown)!r} as {tag_name(node.tag)} ({exc})"
            raise _refuse(problem, node) from None

    return guarded


# only plain data: every other tag (!!binary, !!set, !!omap, !!python/..., !local) is refused
HeaderLoader.yaml_constructors = {
    STR: SafeConstructor.construct_yaml_str,
    SEQ: SafeConstructor.construct_yaml_seq,
    MAP: SafeConstructor.construct_yaml_map,
    INT: _guarded(HeaderLoader.construct_header_int),
    TIMESTAMP: _guarded(HeaderLoader.construct_header_timestamp),
    P + "float": _guarded(SafeConstructor.construct_yaml_float),
    P + "bool": _guarded(SafeConstructor.construct_yaml_bool),
    P + "null": _guarded(SafeConstructor.construct_yaml_null),
    None: HeaderLoader.construct_undefined,
}
HeaderLoader.yaml_multi_constructors = {}


def tag_name(tag: str) -> str:
    return "!!" + tag[len(P) :] if tag.startswith(P) else tag


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check_key(key: Node, keys: Mapping[Hashable, Any]) -> None:
    if key.tag == MERGE:
        raise _refuse("YAML merge keys (<<) are not allowed in a header", key)
    if not isinstance(key, ScalarNode) or key.tag != STR:
        shown = key.value if isinstance(key, ScalarNode) else "?"
        reads_as = key.tag.rsplit(":", 1)[-1]
        raise _refuse(
            f"key {_short(shown)!r} is not a string (YAML reads it as {reads_as}); quote it", key
        )
    if key.value in keys:
        raise _refuse(f"duplicate key {_short(key.value)!r}", key)


def compose(text: str) -> tuple[Node | None, Callable[[Node], Any]]:
    """The header's node tree and a function that constructs a node's value.

    Both raise HeaderError (with the offset) for anything libyaml or the refusals above
    reject: libyaml's errors and the depth and size limits while composing, the rest while
    constructing.
    """
    loader = HeaderLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.YAMLError as exc:
        raise _header_error(exc, text, "malformed YAML") from None

    def construct(target: Node) -> Any:
        try:
            return loader.construct_document(target)
        except yaml.YAMLError as exc:
            raise _header_error(exc, text, "unreadable YAML value") from None

    return node, construct


def load(text: str) -> Any:
    """The value of a YAML text as a header reads it (used to check what is written)."""
    node, construct = compose(text)
    return None if node is None else construct(node)


def _header_error(exc: yaml.YAMLError, text: str, what: str) -> HeaderError:
    """A HeaderError at the offset one of libyaml's errors points at."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or what
        if problem.startswith(("cannot read", "integer is", "not a date", "expected a")):
            what = "unreadable YAML value"
        elif isinstance(exc, ConstructorError) or problem.startswith(("nested", "more than")):
            return HeaderError(problem, index=mark.index if mark else -1)
        return HeaderError(f"{what}: {problem}", index=mark.index if mark else -1)
    if isinstance(exc, yaml.reader.ReaderError):
        index = -1
        if isinstance(exc.position, int):  # a byte offset into the UTF-8 text
            index = len(text.encode("utf-8")[: exc.position].decode("utf-8", "ignore"))
        char = exc.character
        shown = f"U+{char:04X}" if isinstance(char, int) else repr(char)
        return HeaderError(f"{what}: character {shown} is not allowed ({exc.reason})", index=index)
    return HeaderError(f"{what}: {exc}")


# -- writing --------------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Writes date strings plainly: the loader reads them back as those same strings."""

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        tag: str = super().resolve(kind, value, implicit)
        return STR if tag == TIMESTAMP else tag


class _QuotingDumper(_Dumper):
    """Writes every string double-quoted, with YAML escapes for line breaks (NEL, LS, PS)."""


_QuotingDumper.add_representer(
    str, lambda dumper, data: dumper.represent_scalar(STR, data, style='"')
)


def _render(key: str, value: Any, dumper: type, newline: str) -> str:
    flat = isinstance(value, list) and all(not isinstance(v, (list, dict)) for v in value)
    rendered = yaml.dump(
        {key: value},
        Dumper=dumper,
        default_flow_style=None if flat else False,
        allow_unicode=True,
        sort_keys=False,
        width=10**6,
        indent=2,
    )
    rendered = rendered.removesuffix("...\n")
    return rendered.replace("\n", newline)


def dump_field(key: str, value: Any, newline: str = "\n") -> str:
    """One top-level field as YAML lines (flat lists in flow style, mappings as blocks) that
    reads back as exactly `{key: value}`; HeaderError when no style does."""
    want = {key: value}
    for dumper in (_Dumper, _QuotingDumper):
        rendered = _render(key, value, dumper, newline)
        try:
            if same(load(rendered), want):
                return rendered
        except HeaderError:
            pass
    raise HeaderError(f"the value of {_short(key)!r} cannot be written so it reads back the same")


def dump_header(fields: Mapping[str, Any], newline: str = "\n") -> str:
    """A whole header body (without the --- fences) in the given key order."""
    return "".join(dump_field(key, value, newline) for key, value in fields.items())


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types (True is not 1, 1 is not 1.0, nan is nan), keys in order."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif x != y and not (isinstance(x, float) and math.isnan(x) and math.isnan(y)):
            return False
    return True
