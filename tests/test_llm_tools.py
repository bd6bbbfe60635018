"""The one tool-schema builder: simple and pydantic-described parameters, and validation of a
model's call."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from reverie.llm.tools import ToolBox, tool_from_function
from reverie.llm.types import ToolCall


def find(
    query: str,
    k: Annotated[int, Field(ge=1, le=5)] = 3,
    kinds: list[Literal["a", "b"]] | None = None,
) -> str:
    """Find things.

    Args:
        query: what to find
        k: how many
        kinds: only these kinds
    """
    return f"{query}|{k}|{kinds}"


def test_schema_of_bounded_enum_and_optional_parameters() -> None:
    fn = tool_from_function(find).schema["function"]
    props = fn["parameters"]["properties"]
    assert fn["description"] == "Find things."
    assert props["query"] == {"type": "string", "description": "what to find"}
    assert props["k"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 5,
        "default": 3,
        "description": "how many",
    }
    assert props["kinds"] == {
        "type": "array",
        "items": {"enum": ["a", "b"], "type": "string"},
        "description": "only these kinds",
    }  # optional: described as the list itself
    assert (
        fn["parameters"]["required"] == ["query"]
        and fn["parameters"]["additionalProperties"] is False
    )


def test_calls_are_validated_against_the_annotations() -> None:
    box = ToolBox([tool_from_function(find)])
    ok = box.call(ToolCall("c", "find", {"query": "x", "k": 2, "kinds": ["b"]}))
    assert ok.ok and ok.text == "x|2|['b']"
    for bad in (
        {"query": "x", "k": 9},
        {"query": "x", "k": "2"},
        {"query": "x", "kinds": ["c"]},
        {"query": 7},
    ):
        out = box.call(ToolCall("c", "find", bad))
        assert not out.ok and out.text.startswith("Error: find:"), (bad, out.text)
