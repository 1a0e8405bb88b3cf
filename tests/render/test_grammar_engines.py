"""Issue 12: every variant compiles in the grammar engines that enforce tool schemas locally.

vLLM and SGLang constrain a model's tool call with xgrammar or llguidance, compiled from the
tool's parameters schema; an engine that refuses the schema fails the request. Every variant
(every format of ``FORMATS``, strict or not) of the examples and of the broad module of
``test_schema_validity`` is compiled here the way vLLM compiles it:

- llguidance: ``LLMatcher.grammar_from_json_schema(schema, defaults={"whitespace_flexible":
  True})`` then ``LLMatcher.validate_grammar`` (vLLM's ``serialize_guidance_grammar`` and
  ``validate_guidance_grammar``). It refuses a keyword it does not implement unless told to be
  ``lenient``; of what toolcall emits that is ``uniqueItems`` alone, which SPEC 3 puts on
  every set and strict mode leaves out.
- xgrammar: ``GrammarCompiler.compile_json_schema(schema, any_whitespace=True)`` (vLLM's
  ``compile_grammar``), on a small made-up vocabulary. It compiles everything; what it ignores
  it says on stderr, and the test pins that list (``docs/strict.md`` repeats it).

xgrammar is in the ``grammar`` extra, not ``dev`` (it imports torch and transformers): its
tests skip when it cannot be imported.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llguidance import LLMatcher
from test_schema_validity import BROAD_SOURCE

import subproc
import toolcall
from toolcall._names import FORMATS

BROAD = "tc_grammar_engines_broad"
MODULES = ("examples.weather", "examples.orders", BROAD)


@pytest.fixture(scope="module")
def schemas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[bool, dict[str, Any]]]:
    """Every distinct parameters schema of every variant, by strict value, keyed by its text."""
    root = tmp_path_factory.mktemp("engines")
    Path(root, f"{BROAD}.py").write_text(textwrap.dedent(BROAD_SOURCE))
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        found: dict[bool, dict[str, Any]] = {False: {}, True: {}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", toolcall.ToolcallWarning)  # what strict cannot say
            for name in MODULES:
                module = importlib.import_module(name)
                for fmt in FORMATS:
                    for strict in (False, True):
                        for definition in toolcall.emit(module, fmt, strict=strict):
                            schema = parameters_of(json.loads(json.dumps(definition)))
                            found[strict][json.dumps(schema, sort_keys=True)] = schema
        yield found
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(BROAD, None)


def parameters_of(definition: dict[str, Any]) -> dict[str, Any]:
    """The parameters schema inside one format's tool definition."""
    for path in (
        ("function", "parameters"),
        ("input_schema",),
        ("inputSchema",),
        ("parametersJsonSchema",),
        ("toolSpec", "inputSchema", "json"),
    ):
        node: Any = definition
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            return node
    raise AssertionError(f"no parameters schema in {definition}")


def test_every_format_and_both_strict_values_are_compiled(
    schemas: dict[bool, dict[str, Any]],
) -> None:
    """The broad module's schemas are all here (five formats share one schema per tool)."""
    assert FORMATS == ("openai", "anthropic", "mcp", "gemini", "bedrock")
    assert len(schemas[False]) >= 10
    assert len(schemas[True]) >= 10
    assert any('"uniqueItems"' in text for text in schemas[False])
    assert not any('"uniqueItems"' in text for text in schemas[True])


def llguidance_error(schema: dict[str, Any], **options: Any) -> str:
    grammar = LLMatcher.grammar_from_json_schema(
        schema, defaults={"whitespace_flexible": True, **options}
    )
    return LLMatcher.validate_grammar(grammar)


def test_llguidance_compiles_every_strict_variant(schemas: dict[bool, dict[str, Any]]) -> None:
    refused = {text: llguidance_error(schema) for text, schema in schemas[True].items()}
    assert not {text: error for text, error in refused.items() if error}


def test_llguidance_refuses_only_uniqueitems_unless_lenient(
    schemas: dict[bool, dict[str, Any]],
) -> None:
    """The non-strict variants: each refusal is ``uniqueItems`` (a set), and nothing else is
    refused; with ``lenient`` (ignore unimplemented keywords) every one compiles."""
    for text, schema in schemas[False].items():
        error = llguidance_error(schema)
        if '"uniqueItems"' in text:
            assert 'Unimplemented keys: ["uniqueItems"]' in error, text
        else:
            assert error == "", (text, error)
        assert llguidance_error(schema, lenient=True) == "", text


XGRAMMAR_CHILD = """
import json, sys
try:
    import xgrammar as xgr
except Exception as exc:  # torch or transformers missing or broken: not toolcall's to fix
    print(json.dumps({"skip": f"{type(exc).__name__}: {exc}"}))
    raise SystemExit(0)
vocabulary = [chr(code) for code in range(32, 127)] + ['{"', '":', '",', '"}']
compiler = xgr.GrammarCompiler(xgr.TokenizerInfo(vocabulary))
refused = {}
for text, schema in json.load(sys.stdin).items():
    try:
        compiler.compile_json_schema(json.dumps(schema), any_whitespace=True)
    except Exception as exc:
        refused[text] = str(exc)
print(json.dumps({"refused": refused}))
"""
"""xgrammar runs in a child interpreter: it imports torch, which must not land in the test
worker (torch changes what later tests in the same process see, doctest's among them)."""


# What xgrammar says it ignores, in its own words: the C++ converter prints a warning and
# compiles the rest.
# (``uniqueItems`` it ignores without a word).
PATTERN_AND_LENGTH = (
    "pattern combined with minLength/maxLength is not supported; ignoring minLength/maxLength"
)
XGRAMMAR_IGNORES = {
    "multipleOf is not supported for type:number; ignoring multipleOf",
    PATTERN_AND_LENGTH,
}


@pytest.mark.parametrize("strict", [False, True], ids=["loose", "strict"])
def test_xgrammar_compiles_every_variant(schemas: dict[bool, dict[str, Any]], strict: bool) -> None:
    done = subproc.python(
        "-c", XGRAMMAR_CHILD, input=json.dumps(schemas[strict]), timeout=300, check=True
    )
    answer = json.loads(done.stdout.splitlines()[-1])
    if "skip" in answer:
        pytest.skip(
            f"xgrammar is not importable ({answer['skip']}); pip install 'pytoolcall[grammar]'"
        )
    assert answer["refused"] == {}
    said = set(re.findall(r"Warning: (.*)", done.stderr))
    # strict schemas carry no minLength/maxLength (OpenAI's strict subset has none)
    assert said == (XGRAMMAR_IGNORES - {PATTERN_AND_LENGTH} if strict else XGRAMMAR_IGNORES)
