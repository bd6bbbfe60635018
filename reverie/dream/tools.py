"""Typed tool functions for model agents: the JSON schema comes from the signature and docstring.

A tool is a plain function (or bound method) with annotated parameters (``str``, ``int``, ``float``, ``bool``)
and a docstring whose first paragraph describes it and whose ``Args:`` block describes each parameter. The model
sees ``Tool.schema`` (OpenAI function format); ``ToolBox.call`` validates a model's ``ToolCall`` against the
signature and returns text for the model — a bad call is an error message to the model, never an exception here.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..llm.types import ToolCall

__all__ = ["Tool", "ToolBox", "ToolError", "ToolOutcome", "tool_from_function"]

_JSON_TYPES: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_ARG_RE = re.compile(r"^\s{2,}(\w+)\s*(?:\([^)]*\))?:\s*(.+)$")


class ToolError(Exception):
    """Raised by a tool to tell the model what went wrong; the text goes back to the model verbatim."""


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    ok: bool
    text: str


@dataclass(frozen=True)
class Tool:
    name: str
    fn: Callable[..., str]
    schema: dict[str, Any]
    params: dict[str, tuple[type, bool]]  # name -> (type, required)


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


def tool_from_function(fn: Callable[..., str], name: str | None = None) -> Tool:
    """Build a ``Tool`` from an annotated function; raises TypeError for a parameter type JSON cannot carry."""
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    description, arg_docs = _parse_docstring(fn.__doc__ or "")
    properties: dict[str, Any] = {}
    required: list[str] = []
    params: dict[str, tuple[type, bool]] = {}
    for pname, p in sig.parameters.items():
        typ = hints.get(pname)
        if typ not in _JSON_TYPES:
            raise TypeError(f"tool {fn.__name__}: parameter {pname} needs a str/int/float/bool annotation")
        prop: dict[str, Any] = {"type": _JSON_TYPES[typ]}
        if pname in arg_docs:
            prop["description"] = arg_docs[pname]
        is_required = p.default is inspect.Parameter.empty
        if not is_required:
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
            "parameters": {"type": "object", "properties": properties, "required": required,
                           "additionalProperties": False},
        },
    }
    return Tool(tool_name, fn, schema, params)


def _check_value(value: Any, typ: type) -> bool:
    if typ is bool:
        return isinstance(value, bool)
    if typ is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if typ is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, typ)


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
            return ToolOutcome(False, f"Error: the arguments of {call.name} were not a JSON object: {raw!r}")
        args = dict(call.arguments)
        unknown = sorted(set(args) - set(tool.params))
        if unknown:
            return ToolOutcome(False, f"Error: {call.name} has no parameter(s) {', '.join(unknown)}.")
        for pname, (typ, required) in tool.params.items():
            if pname not in args:
                if required:
                    return ToolOutcome(False, f"Error: {call.name} needs the parameter {pname!r}.")
                continue
            if not _check_value(args[pname], typ):
                got = json.dumps(args[pname])[:80]
                return ToolOutcome(False, f"Error: {call.name}: {pname} must be a {_JSON_TYPES[typ]}, got {got}.")
        try:
            return ToolOutcome(True, tool.fn(**args))
        except ToolError as exc:
            return ToolOutcome(False, f"Error: {exc}")
