"""Typed tool functions for model agents: every tool schema Reverie sends is built here, from a
signature.

A tool is a plain function (or bound method) with annotated parameters and a docstring whose first
paragraph describes it and whose ``Args:`` block describes each parameter. ``str``, ``int``,
``float`` and ``bool`` map to JSON types directly; any other annotation (``Annotated[int,
Field(ge=1, le=50)]``, ``list[Literal[...]]``, an optional ``X | None = None``) takes its JSON
schema from pydantic. The model sees ``Tool.schema`` (OpenAI function format); ``ToolBox.call``
validates a model's ``ToolCall`` against the signature and returns text for the model — a bad call
is an error message to the model, never an exception here.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .types import ToolCall

__all__ = ["Tool", "ToolBox", "ToolError", "ToolOutcome", "tool_from_function", "function_schema"]

_JSON_TYPES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARG_RE = re.compile(r"^\s{2,}(\w+)\s*(?:\([^)]*\))?:\s*(.+)$")


class ToolError(Exception):
    """Raised by a tool to tell the model what went wrong; the text goes back to the model
    verbatim."""


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    ok: bool
    text: str


@dataclass(frozen=True)
class Tool:
    name: str
    fn: Callable[..., str]
    schema: dict[str, Any]
    params: dict[str, tuple[Any, bool]]  # name -> (annotation, required)


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    doc = inspect.cleandoc(doc or "")
    head, _, rest = doc.partition("\nArgs:")
    description = " ".join(head.split("\n\n")[0].split())
    args: dict[str, str] = {}
    current = None
    for line in rest.splitlines():
        m = _ARG_RE.match(line)
        if m:
            current = m.group(1)
            args[current] = m.group(2).strip()
        elif current and line.strip() and line.startswith("    "):
            args[current] += " " + line.strip()
        elif line.strip() and not line.startswith(" "):
            break
    return description, args


def _property(typ: Any) -> dict[str, Any]:
    """The JSON schema of one parameter: a JSON type for the four simple ones, pydantic's schema
    otherwise (an optional ``X | None`` is described as ``X``: leaving the parameter out is how a
    model says None)."""
    if typ in _JSON_TYPES:
        return {"type": _JSON_TYPES[typ]}
    args = typing.get_args(typ)
    if type(None) in args and typing.get_origin(typ) in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        # typing.Union, not X | Y: the union is built at run time
        typ = rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007
    from pydantic import TypeAdapter

    schema = TypeAdapter(typ).json_schema()
    schema.pop("title", None)
    return schema


def tool_from_function(fn: Callable[..., Any], name: str | None = None) -> Tool:
    """Build a ``Tool`` from an annotated function; raises TypeError for a parameter without an
    annotation."""
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn, include_extras=True)
    description, arg_docs = _parse_docstring(fn.__doc__ or "")
    properties: dict[str, Any] = {}
    required: list[str] = []
    params: dict[str, tuple[Any, bool]] = {}
    for pname, p in sig.parameters.items():
        if pname not in hints:
            raise TypeError(f"tool {fn.__name__}: parameter {pname} needs an annotation")
        typ = hints[pname]
        prop = _property(typ)
        if pname in arg_docs:
            prop["description"] = arg_docs[pname]
        is_required = p.default is inspect.Parameter.empty
        if not is_required:
            if p.default is not None:
                prop["default"] = p.default
        else:
            required.append(pname)
        properties[pname] = prop
        params[pname] = (typ, is_required)
    tool_name = name or fn.__name__
    schema = {
        "type": "function",
        "function": {
            "name": tool_name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }
    return Tool(tool_name, fn, schema, params)


def function_schema(fn: Callable[..., Any], name: str | None = None) -> dict[str, Any]:
    """The OpenAI function-tool schema of ``fn`` (for tools executed elsewhere, e.g.
    ``memory_search``)."""
    return tool_from_function(fn, name).schema


def _check_value(value: Any, typ: Any) -> bool:
    if typ is bool:
        return isinstance(value, bool)
    if typ is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if typ is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if typ is str:
        return isinstance(value, str)
    from pydantic import TypeAdapter, ValidationError

    try:
        TypeAdapter(typ).validate_python(value, strict=True)
    except ValidationError:
        return False
    return True


class ToolBox:
    """A set of tools the model may call, by name."""

    def __init__(self, tools: list[Tool]) -> None:
        self.tools = {t.name: t for t in tools}

    @property
    def schemas(self) -> list[dict[str, Any]]:
        return [t.schema for t in self.tools.values()]

    def call(self, call: ToolCall) -> ToolOutcome:
        tool = self.tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self.tools))
            return ToolOutcome(False, f"Error: unknown tool {call.name!r}; the tools are: {known}.")
        if call.arguments is None:
            raw = (call.raw_arguments or "")[:200]
            return ToolOutcome(
                False, f"Error: the arguments of {call.name} were not a JSON object: {raw!r}"
            )
        args = dict(call.arguments)
        unknown = sorted(set(args) - set(tool.params))
        if unknown:
            return ToolOutcome(
                False, f"Error: {call.name} has no parameter(s) {', '.join(unknown)}."
            )
        for pname, (typ, required) in tool.params.items():
            if pname not in args:
                if required:
                    return ToolOutcome(False, f"Error: {call.name} needs the parameter {pname!r}.")
                continue
            if not _check_value(args[pname], typ):
                got = json.dumps(args[pname])[:80]
                wanted = _JSON_TYPES.get(typ) or json.dumps(_property(typ))[:120]
                return ToolOutcome(
                    False, f"Error: {call.name}: {pname} must be a {wanted}, got {got}."
                )
        try:
            return ToolOutcome(True, tool.fn(**args))
        except ToolError as exc:
            return ToolOutcome(False, f"Error: {exc}")
