"""Every variant compiles in the grammar engines that enforce tool schemas locally (issues 12, 25).

vLLM and SGLang constrain a model's tool call with xgrammar or llguidance, compiled from the
tool's parameters schema, and llama.cpp with the GBNF grammar its converter writes; an engine
that refuses the schema fails the request. Every variant (every format of ``FORMATS``, strict
or not) of the examples, of the broad module of ``test_schema_validity`` and of the type zoo
below is compiled here the way each consumer compiles it:

- llguidance: ``LLMatcher.grammar_from_json_schema(schema, defaults={"whitespace_flexible":
  True})`` then ``LLMatcher.validate_grammar`` (vLLM's ``serialize_guidance_grammar`` and
  ``validate_guidance_grammar``). It refuses a keyword it does not implement unless told to be
  ``lenient``; of what toolcall emits that is ``uniqueItems`` alone, which SPEC 3 puts on
  every set and strict mode leaves out.
- xgrammar: ``GrammarCompiler.compile_json_schema(schema, any_whitespace=True)`` (vLLM's
  ``compile_grammar``), on a small made-up vocabulary. It compiles everything; what it ignores
  it says on stderr, and the test pins that list (``docs/strict.md`` repeats it).

- llama.cpp: ``json_schema_to_gbnf`` of llama-cpp-python's ``llama_cpp/llama_grammar.py``
  (the Python port of llama.cpp's converter, which needs no C++ build), then the GBNF text read
  by llguidance's GBNF reader (``grammar_from("gbnf", ...)``, which refuses what llama.cpp's own
  grammar parser refuses, such as the escape ``\\.``) and validated. Not everything converts:
  the test pins which tools do not, and why; ``docs/strict.md`` lists them.

xgrammar is in the ``grammar`` extra, not ``dev`` (it imports torch and transformers): its
tests skip when it cannot be imported. The converter comes from the pinned llama-cpp-python
source distribution (hash-checked), downloaded with pip once per machine and kept under the
user's cache directory; without a network the test skips and says so.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import re
import sys
import tarfile
import textwrap
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import jsonschema
import pytest
from llguidance import LLMatcher, LLTokenizer, grammar_from
from test_schema_validity import BROAD_SOURCE

import subproc
import toolcall
from toolcall._shared.names import FORMATS

BROAD = "tc_grammar_engines_broad"
ZOO = "tc_grammar_engines_zoo"
MODULES = ("examples.weather", "examples.orders", BROAD, ZOO)

# One tool per kind of value, so that what a converter refuses is named by its tool.
ZOO_SOURCE = """
import datetime as dt
import decimal
import pathlib
import uuid
from typing import Annotated, Any, Literal

import toolcall

__toolcall__ = True


def decimals(amount: decimal.Decimal, maybe: decimal.Decimal | None = None) -> None:
    \"\"\"A decimal, plain and nullable.\"\"\"


def durations(span: dt.timedelta, maybe: dt.timedelta | None = None) -> None:
    \"\"\"A timedelta, plain and nullable.\"\"\"


def moments(when: dt.datetime, at: dt.time, day: dt.date, maybe: dt.datetime | None = None) -> None:
    \"\"\"Date-times, times, dates.\"\"\"


def identifiers(
    ident: uuid.UUID,
    snowflake: Annotated[int, toolcall.Param(wire="string_integer")],
    blob: bytes,
    path: pathlib.Path,
) -> None:
    \"\"\"A UUID, a string_integer, bytes and a path.\"\"\"


def nullables(
    tags: set[str] | None = None,
    items: list[int] | None = None,
    mode: Literal["a", "b"] | None = None,
    flag: bool | None = None,
) -> None:
    \"\"\"Type lists: every optional value of the strict variant is one.\"\"\"


def numbers(n: int | float, ratio: float = 0.5) -> None:
    \"\"\"A numeric union.\"\"\"


def described_any(value: Annotated[Any, toolcall.Param(description="anything at all")]) -> None:
    \"\"\"An Any with a description.\"\"\"
"""


class Variant(NamedTuple):
    module: str
    tool: str
    format: str
    strict: bool
    schema: dict[str, Any]


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Variant]]:
    """The parameters schema of every variant of every tool of ``MODULES``."""
    root = tmp_path_factory.mktemp("engines")
    Path(root, f"{BROAD}.py").write_text(textwrap.dedent(BROAD_SOURCE))
    Path(root, f"{ZOO}.py").write_text(ZOO_SOURCE)
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        found = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", toolcall.ToolcallWarning)  # what strict cannot say
            for name in MODULES:
                module = importlib.import_module(name)
                for fmt in FORMATS:
                    for strict in (False, True):
                        for definition in toolcall.emit(module, fmt, strict=strict):
                            schema = parameters_of(json.loads(json.dumps(definition)))
                            tool = definition.get("name") or _name_of(definition)
                            found.append(Variant(name, tool, fmt, strict, schema))
        yield found
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(BROAD, None)
        sys.modules.pop(ZOO, None)


def _name_of(definition: dict[str, Any]) -> str:
    for key in ("function", "toolSpec"):
        if key in definition:
            return str(definition[key]["name"])
    raise AssertionError(f"no name in {definition}")


@pytest.fixture(scope="module")
def schemas(variants: list[Variant]) -> dict[bool, dict[str, Any]]:
    """Every distinct parameters schema of every variant, by strict value, keyed by its text."""
    found: dict[bool, dict[str, Any]] = {False: {}, True: {}}
    for variant in variants:
        found[variant.strict][json.dumps(variant.schema, sort_keys=True)] = variant.schema
    return found


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


def test_every_variant_is_json_schema(variants: list[Variant]) -> None:
    """The zoo's new rows (a duration, type lists, a described Any) are valid 2020-12 schemas."""
    for variant in variants:
        jsonschema.Draft202012Validator.check_schema(variant.schema)


def llguidance_error(schema: dict[str, Any], **options: Any) -> str:
    grammar = LLMatcher.grammar_from_json_schema(
        schema, defaults={"whitespace_flexible": True, **options}
    )
    return LLMatcher.validate_grammar(grammar)


def test_llguidance_compiles_every_strict_variant(schemas: dict[bool, dict[str, Any]]) -> None:
    """llguidance compiles every strict variant."""
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
    """xgrammar compiles every variant, warning only of what it is known to ignore."""
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


# -- llama.cpp --------------------------------------------------------------------------------

LLAMA_CPP_PYTHON = "llama-cpp-python==0.3.36"
LLAMA_SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
LLAMA_GRAMMAR = "llama_cpp_python-0.3.36/llama_cpp/llama_grammar.py"
LLAMA_GRAMMAR_SHA256 = "b6a457fcb4e010885a29a47eec3525c1316c36e4ad0a3b24373704c8d0be0255"
# What pip says when it cannot reach the package index: then the test skips.
OFFLINE = re.compile(
    r"NewConnectionError|Max retries exceeded|Temporary failure in name resolution|"
    r"Network is unreachable|Could not find a version that satisfies|No matching distribution"
)


def _llama_grammar_file(tmp: Path) -> Path:
    """llama_grammar.py of the pinned sdist: from the cache, else downloaded with pip."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    cached = Path(base, "pytoolcall-tests", "llama_grammar-0.3.36.py")
    if cached.is_file() and hashlib.sha256(cached.read_bytes()).hexdigest() == LLAMA_GRAMMAR_SHA256:
        return cached
    requirements = tmp / "requirements.txt"
    requirements.write_text(f"{LLAMA_CPP_PYTHON} --hash=sha256:{LLAMA_SDIST_SHA256}\n")
    done = subproc.python(
        *("-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--retries", "1"),
        *("--timeout", "30", "--disable-pip-version-check", "-r", requirements, "-d", tmp),
        timeout=900,
    )
    if done.returncode != 0:
        if OFFLINE.search(done.stderr):
            pytest.skip(f"cannot download {LLAMA_CPP_PYTHON} (no network?): {done.stderr[-300:]}")
        raise AssertionError(f"pip download {LLAMA_CPP_PYTHON} failed:\n{done.stderr}")
    (sdist,) = tmp.glob("llama_cpp_python-*.tar.gz")
    with tarfile.open(sdist) as archive:
        member = archive.extractfile(LLAMA_GRAMMAR)
        assert member is not None
        text = member.read()
    assert hashlib.sha256(text).hexdigest() == LLAMA_GRAMMAR_SHA256
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(f"{cached.name}.{os.getpid()}")
    partial.write_bytes(text)
    os.replace(partial, cached)  # another worker may be writing the same bytes
    return cached


@pytest.fixture(scope="module")
def llama_grammar(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    """The converter module, loaded by path: it imports only the standard library."""
    path = _llama_grammar_file(tmp_path_factory.mktemp("llama"))
    spec = importlib.util.spec_from_file_location("_tc_llama_grammar", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gbnf_error(converter: types.ModuleType, schema: dict[str, Any]) -> str:
    """Why llama.cpp cannot use ``schema`` ("" when it can): the converter's own failure, or
    the GBNF it wrote refused by a GBNF reader."""
    try:
        gbnf = converter.json_schema_to_gbnf(json.dumps(schema))
    except Exception as exc:  # the converter asserts, or trips over a shape it does not expect
        return f"converter: {type(exc).__name__}: {exc}"
    try:
        grammar = grammar_from("gbnf", gbnf)
    except ValueError as exc:
        return f"GBNF: {exc}"
    return LLMatcher.validate_grammar(grammar)


# The tools llama-cpp-python's converter cannot take, in both variants unless said, and why:
LLAMA_REFUSES = {
    # a described Any, {"description": ...}: "Unrecognized schema" (it reads only an empty {})
    (ZOO, "described_any"): (None, "Unrecognized schema"),
    # a bare list's "items": {} is falsy, so it looks for "prefixItems" (KeyError)
    (BROAD, "containers"): (None, "KeyError: 'prefixItems'"),
    # the same, through the recursive Node (children: list[Node], the re-entry being {}); the
    # strict variant's children are a type list, which the converter reads without "items"
    (BROAD, "structured"): (False, "KeyError: 'prefixItems'"),
    # a type provider's own pattern, "^-?\\d+\\.\\d{2}$": GBNF has no \\d nor \\.
    (BROAD, "values"): (None, "Invalid escape sequence \\d"),
}


def test_llama_cpp_converts_every_variant_but_the_listed_ones(
    variants: list[Variant], llama_grammar: types.ModuleType
) -> None:
    """Issue 25.1: toolcall's own patterns convert (the decimal's "[.]", not "\\."); what does
    not is pinned here, with its reason, and listed in docs/strict.md."""
    refused: dict[tuple[str, str], set[bool]] = {}
    for variant in variants:
        error = gbnf_error(llama_grammar, variant.schema)
        key = (variant.module, variant.tool)
        if error:
            assert key in LLAMA_REFUSES, (key, variant.strict, error)
            assert LLAMA_REFUSES[key][1] in error, (key, error)
            refused.setdefault(key, set()).add(variant.strict)
    assert {key: sorted(strict) for key, strict in refused.items()} == {
        key: [False, True] if only is None else [only] for key, (only, _) in LLAMA_REFUSES.items()
    }
    counts = [not gbnf_error(llama_grammar, v.schema) for v in variants]
    assert (sum(counts), len(counts)) == (155, 190)


def _accepts(grammar: str, text: str) -> bool:
    tokenizer = LLTokenizer("byte")
    matcher = LLMatcher(tokenizer, grammar, log_level=0)
    return matcher.consume_tokens(tokenizer.tokenize_str(text)) and matcher.is_accepting()


@pytest.mark.parametrize("strict", [False, True], ids=["loose", "strict"])
def test_llama_cpp_grammar_of_a_decimal_means_the_pattern(
    variants: list[Variant], llama_grammar: types.ModuleType, strict: bool
) -> None:
    """The decimal variants convert in every format, and the grammar takes what the pattern
    takes: "12.50" and "-1.5e3", not "1,5" nor "12." (the issue's check)."""
    schemas = [v.schema for v in variants if v.tool == "decimals" and v.strict is strict]
    assert len(schemas) == len(FORMATS)
    for schema in schemas:
        assert gbnf_error(llama_grammar, schema) == ""
        grammar = grammar_from("gbnf", llama_grammar.json_schema_to_gbnf(json.dumps(schema)))
        maybe = ', "maybe": null' if strict else ""
        for amount, accepted in (("12.50", True), ("-1.5e3", True), ("1,5", False), ("12.", False)):
            text = f'{{"amount": "{amount}"{maybe}}}'
            assert _accepts(grammar, text) is accepted, (text, schema)
