"""JSON schemas (YAML files) checked with ``jsonschema``, with messages that name the key and say what is expected.

A schema node may carry ``errorMessage`` (the ajv-errors convention, ignored by validators): an error in the
node or below it, where no deeper node has one, is reported at the node's key as ``<key>: <errorMessage>, got
<value>``. A missing or unknown key is reported as such, with the allowed keys. Integers are strict: 16.0 and
true are not integers. ``jsonschema`` (a Snakemake dependency) is imported on the first check only.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from .configio import load_yaml

# keywords whose next path token names a child schema, and whether that child checks a nested value
_KEYED = {"properties": True, "patternProperties": True, "prefixItems": True, "allOf": False, "anyOf": False,
          "oneOf": False}
_DIRECT = {"additionalProperties": True, "items": True, "contains": True, "if": False, "then": False,
           "else": False, "not": False}


@cache
def load_schema(path) -> dict:
    """The schema in the YAML file at ``path`` (read once per process)."""
    return load_yaml(Path(path))


@cache
def _validator_class():
    """Draft 2020-12 with strict integers (jsonschema's own take 16.0 for one)."""
    from jsonschema import Draft202012Validator, validators

    def strict_integer(checker, instance):
        return isinstance(instance, int) and not isinstance(instance, bool)

    checker = Draft202012Validator.TYPE_CHECKER.redefine("integer", strict_integer)
    return validators.extend(Draft202012Validator, type_checker=checker)


def key_path(path) -> str:
    """``datasets.zoo.shape``, ``sources.s.files[0].sha256``; 'top level' for the root."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else f".{step}" if text else str(step)
    return text or "top level"


def problem(instance, schema: dict, where=()) -> str | None:
    """The first violation of ``schema`` by ``instance`` as '<key>: <what is wrong>', or None when it is valid.

    ``where``: the keys of ``instance`` in its document, put before the keys of the message.
    """
    errors = list(_validator_class()(schema).iter_errors(instance))
    if not errors:
        return None
    error = min(errors, key=lambda e: len(e.absolute_path))  # the outermost: a missing key before its consequences
    path = list(where) + list(error.absolute_path)
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return f"{key_path(path)}: missing key(s) {', '.join(map(repr, missing))}"
    if error.validator == "additionalProperties" and error.validator_value is False:
        allowed = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(allowed))
        return f"{key_path(path)}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}"
    message, depth = _error_message(schema, list(error.schema_path))
    if message is None:
        if error.validator == "type" and error.validator_value == "object":
            return f"{key_path(path)}: must be a mapping, got {type(error.instance).__name__}"
        return f"{key_path(path)}: {error.message}"
    value = instance
    for step in path[len(where):len(where) + depth]:
        value = value[step]
    path = path[:len(where) + depth]
    return f"{key_path(path)}: {message}" + ("" if isinstance(value, dict) else f", got {value!r}")


def _error_message(root: dict, schema_path: list) -> tuple[str | None, int]:
    """The ``errorMessage`` of the deepest node on ``schema_path`` that has one, and the depth of its value."""
    node, depth, found, i = root, 0, (None, 0), 0
    while i < len(schema_path):
        token = schema_path[i]
        while isinstance(node, dict) and "$ref" in node and token not in node:  # jsonschema's path goes on inside the referenced node
            node = _ref(root, node["$ref"])
            found = (node["errorMessage"], depth) if "errorMessage" in node else found
        if token in _KEYED and i + 1 < len(schema_path):
            node, depth, i = node[token][schema_path[i + 1]], depth + _KEYED[token], i + 2
        elif token in _DIRECT:
            node, depth, i = node[token], depth + _DIRECT[token], i + 1
        else:
            break  # the failing keyword itself
        found = (node["errorMessage"], depth) if isinstance(node, dict) and "errorMessage" in node else found
    return found


def _ref(root: dict, ref: str) -> dict:
    """The node a local reference ``#/a/b`` points to."""
    node = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node
