"""What the model is told about a tool and told back about its input: the description loaded from
tools/prompts/NAME.md, the JSON Schema in the API's plain shape, validation errors as sentences a
model fixes its call from, and a tool_result's text."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

PROMPTS_DIR = Path(__file__).parent / "prompts"


@cache
def load_prompt(name: str) -> str:
    path = PROMPTS_DIR / f"{name}.md"
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return name


@cache
def api_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema in the plain shape the API expects (no titles)."""
    cleaned: dict[str, Any] = _clean_schema(model.model_json_schema(by_alias=True))
    return cleaned


def _clean_schema(node: Any) -> Any:
    if isinstance(node, dict):
        cleaned = {k: _clean_schema(v) for k, v in node.items() if k != "title"}
        if cleaned.get("type") == "object" and "additionalProperties" not in cleaned:
            cleaned["additionalProperties"] = False
        return cleaned
    if isinstance(node, list):
        return [_clean_schema(v) for v in node]
    return node


_TYPE_NAMES = {
    "int_parsing": "number",
    "int_type": "number",
    "float_parsing": "number",
    "float_type": "number",
    "bool_parsing": "boolean",
    "bool_type": "boolean",
    "string_type": "string",
    "list_type": "array",
    "dict_type": "object",
    "model_type": "object",
}


def format_validation_error(tool_name: str, exc: ValidationError) -> str:
    """Turn pydantic's errors into sentences a model fixes its call from."""
    issues: list[str] = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(input)"
        kind = err["type"]
        given = err.get("input")
        if kind == "missing":
            issues.append(f"The required parameter `{loc}` is missing")
        elif kind == "extra_forbidden":
            issues.append(f"An unexpected parameter `{loc}` was provided")
        elif kind in _TYPE_NAMES:
            issues.append(
                f"The parameter `{loc}` type is expected as `{_TYPE_NAMES[kind]}` but provided as "
                f"`{_json_type(given)}`"
            )
        else:
            issues.append(f"The parameter `{loc}`: {err['msg']}")
    plural = "s" if len(issues) > 1 else ""
    return f"InputValidationError: {tool_name} failed due to the following issue{plural}:\n" + (
        "\n".join(issues)
    )


def content_text(content: str | list[dict[str, Any]]) -> str:
    """The text of tool_result content; an image block as a placeholder."""
    if isinstance(content, str):
        return content
    return "\n".join(
        str(b.get("text", "")) if b.get("type") == "text" else f"[{b.get('type', 'block')}]"
        for b in content
    )


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
