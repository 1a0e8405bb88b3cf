"""OpenAI's documented strict-mode (Structured Outputs) limits: the one strict rule set.

Rendering reads it to leave out what strict mode rejects; ``check_strict`` reads it to report
what a schema breaks.

A strict tool whose parameters schema breaks one of these limits is rejected by the API when
the request is sent, which is far from where the schema was written. Checking at derivation
and at export moves that failure to where it can be fixed.

Source: OpenAI, "Structured Outputs", section "Supported schemas"
(https://platform.openai.com/docs/guides/structured-outputs#supported-schemas), as published
in 2025:

- types: string, number, integer, boolean, object, array, null; ``enum``; ``anyOf``
  (not at the root, which must be an object);
- keywords beyond the type: for strings ``pattern`` and ``format`` (``date-time``, ``time``,
  ``date``, ``duration``, ``email``, ``hostname``, ``ipv4``, ``ipv6``, ``uuid``); for numbers
  ``multipleOf``, ``maximum``, ``exclusiveMaximum``, ``minimum``, ``exclusiveMinimum``; for
  arrays ``minItems``, ``maxItems``; plus ``description``, ``title``, ``const`` and
  ``$ref``/``$defs``. Everything else is unsupported, notably ``default``, ``minLength``,
  ``maxLength``, ``uniqueItems``, ``prefixItems``, ``contentEncoding``, ``allOf``, ``not``,
  ``if``/``then``/``else``, ``patternProperties`` and ``dependentRequired``;
- every object has ``"additionalProperties": false`` and lists every property in
  ``required``;
- at most 5000 properties in all, objects nested at most 10 deep, at most 1000 enum values in
  all, at most 15000 characters in one enum of more than 250 values, and at most 120000
  characters of property names, definition names, enum values and const values in all.

How the checker reads the limits where the documentation is silent is in ``strict``.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "LARGE_ENUM",
    "MAX_ENUM_VALUES",
    "MAX_LARGE_ENUM_CHARS",
    "MAX_NESTING",
    "MAX_PROPERTIES",
    "MAX_TOTAL_CHARS",
    "SUPPORTED_FORMATS",
    "SUPPORTED_KEYWORDS",
]

MAX_NESTING: Final = 10
MAX_PROPERTIES: Final = 5000
MAX_ENUM_VALUES: Final = 1000
LARGE_ENUM: Final = 250
MAX_LARGE_ENUM_CHARS: Final = 15000
MAX_TOTAL_CHARS: Final = 120000

SUPPORTED_FORMATS: Final = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
SUPPORTED_KEYWORDS: Final = frozenset(
    {
        # any schema
        "type",
        "description",
        "title",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "definitions",
        # object
        "properties",
        "required",
        "additionalProperties",
        # array
        "items",
        "minItems",
        "maxItems",
        # string
        "pattern",
        "format",
        # number
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
    }
)
