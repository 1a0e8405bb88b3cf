"""How well tool search finds the right tool: public catalogs, real queries, side by side.

Catalogs (none is committed; each is read from a clone of its public repository):

- **BFCL** (the primary one): every function of the Berkeley Function Calling Leaderboard's
  single-turn categories (``ShishirPatil/gorilla``, ``berkeley-function-call-leaderboard/
  bfcl_eval/data``), pooled into one catalog of a few thousand tools with their JSON-schema
  parameters (names, descriptions, enums); each question's relevant tools are the functions
  its ground truth calls. User questions are the ones people wrote for the benchmark, the
  ``live_`` ones contributed by real users.
- **MetaTool** (``HowieHwong/MetaTool``): 199 ChatGPT plugins (name and description, no
  parameters) and 20,614 user queries, each labelled with the one plugin it needs.

Rankers, all run here in one process on the same queries:

- ``toolcall``: ``toolcall``'s default ranking (BM25F over the IR, a named tool first);
- ``toolcall, name+description``: the same without parameters (what the IR adds);
- ``BM25 (plain)``: textbook Okapi BM25 (k1 1.2, b 0.75, lower-cased word tokens) over the
  name and description, written out below;
- ``FastMCP BM25``: FastMCP's ``BM25SearchTransform`` index over the text it searches;
- ``pydantic-ai keywords``: pydantic-ai's keyword-overlap tool search.

Weights were chosen on the *dev* half of each catalog's queries (split by a hash of the query's
id) and the figures reported are for the *held-back* half. Usage::

    python perf/search_eval.py --gorilla PATH --metatool PATH [--write]

PATH is a clone (or a bare git directory) of the repository; the environment variables
``TOOLCALL_EVAL_GORILLA`` and ``TOOLCALL_EVAL_METATOOL`` may give them instead. A catalog
whose repository is missing is skipped with a message.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolcall import ir
from toolcall._search.index import build_index

PERF = Path(__file__).resolve().parent
RESULTS = PERF / "RESULTS.md"
MARKER = "<!-- search_eval.py -->"
NEXT_MARKER = "<!-- measurements -->"

BFCL_DATA = "berkeley-function-call-leaderboard/bfcl_eval/data"
BFCL_FILES = (
    "BFCL_v4_simple_python",
    "BFCL_v4_simple_java",
    "BFCL_v4_simple_javascript",
    "BFCL_v4_multiple",
    "BFCL_v4_parallel",
    "BFCL_v4_parallel_multiple",
    "BFCL_v4_live_simple",
    "BFCL_v4_live_multiple",
    "BFCL_v4_live_parallel",
    "BFCL_v4_live_parallel_multiple",
)


@dataclass
class Catalog:
    name: str
    tools: list[ir.Tool]
    schemas: list[dict[str, Any]]  # name, description, parameters: what a peer is given
    queries: list[tuple[str, str, frozenset[str]]]  # id, text, relevant tool names
    notes: list[str] = field(default_factory=list)


def read(repo: Path, relative: str) -> str:
    """A file of a clone, or of a bare git directory at its HEAD."""
    if (repo / relative).is_file():
        return (repo / relative).read_text(encoding="utf-8")
    done = subprocess.run(
        ["git", "--git-dir", str(repo), "show", f"HEAD:{relative}"],
        capture_output=True,
        check=True,
    )
    return done.stdout.decode("utf-8")


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# -- catalogs -------------------------------------------------------------------------------


def load_bfcl(repo: Path) -> Catalog:
    tools: dict[str, dict[str, Any]] = {}
    queries: list[tuple[str, str, frozenset[str]]] = []
    for stem in BFCL_FILES:
        answers = {
            row["id"]: row["ground_truth"]
            for row in lines(read(repo, f"{BFCL_DATA}/possible_answer/{stem}.json"))
        }
        for row in lines(read(repo, f"{BFCL_DATA}/{stem}.json")):
            for function in row["function"]:
                tools.setdefault(function["name"], function)  # a name's first definition
            truth = answers.get(row["id"])
            if not truth:
                continue
            relevant = frozenset(name for call in truth for name in call)
            turns = row["question"][0] if row["question"] else []
            text = " ".join(m["content"] for m in turns if m.get("role") == "user")
            if text.strip() and relevant <= tools.keys():
                queries.append((row["id"], text, relevant))
    schemas = [
        {
            "name": f["name"],
            "description": f.get("description", ""),
            "parameters": f.get("parameters", {}),
        }
        for f in tools.values()
    ]
    return Catalog(
        "BFCL",
        [_bfcl_tool(schema) for schema in schemas],
        schemas,
        queries,
        [f"{len(BFCL_FILES)} single-turn categories pooled"],
    )


def _bfcl_tool(schema: dict[str, Any]) -> ir.Tool:
    parameters = schema["parameters"] or {}
    required = set(parameters.get("required", ()))
    return ir.Tool(
        name=schema["name"],
        description=schema["description"] or "",
        parameters=tuple(
            ir.Parameter(
                name=name,
                type=_type(prop),
                description=str(prop.get("description", "")),
                required=name in required,
            )
            for name, prop in (parameters.get("properties") or {}).items()
            if isinstance(prop, dict)
        ),
    )


def _type(prop: dict[str, Any], depth: int = 0) -> ir.Type:
    """A JSON-schema property as the IR node derivation would give it (what search reads)."""
    values = prop.get("enum")
    if isinstance(values, list) and values:
        return ir.Type(kind="enum", values=tuple(v for v in values if v is not None))
    kind = prop.get("type")
    if kind in ("dict", "object") and isinstance(prop.get("properties"), dict) and depth < 4:
        return ir.Type(
            kind="object",
            fields=tuple(
                ir.Field(
                    name=name,
                    type=_type(sub, depth + 1),
                    description=str(sub.get("description", "")),
                )
                for name, sub in prop["properties"].items()
                if isinstance(sub, dict)
            ),
        )
    if kind in ("array", "tuple") and isinstance(prop.get("items"), dict) and depth < 4:
        return ir.Type(kind="array", items=_type(prop["items"], depth + 1))
    simple = {"string": "string", "integer": "integer", "float": "number", "number": "number"}
    return ir.Type(kind=simple.get(str(kind), "any"))  # type: ignore[arg-type]


def load_metatool(repo: Path) -> Catalog:
    descriptions: dict[str, str] = json.loads(read(repo, "dataset/plugin_des.json"))
    rows = csv.DictReader(io.StringIO(read(repo, "dataset/data/all_clean_data.csv")))
    queries = [
        (f"metatool-{i}", row["Query"], frozenset({row["Tool"]}))
        for i, row in enumerate(rows)
        if row["Tool"] in descriptions
    ]
    schemas = [
        {"name": name, "description": text, "parameters": {}} for name, text in descriptions.items()
    ]
    tools = [ir.Tool(name=name, description=text) for name, text in descriptions.items()]
    return Catalog("MetaTool", tools, schemas, queries)


# -- rankers --------------------------------------------------------------------------------

Search = Callable[[str, int], list[str]]


def toolcall_default(catalog: Catalog) -> Search:
    index = build_index(catalog.tools)
    return lambda query, k: [hit.name for hit in index.search(query, k)]


def toolcall_name_description(catalog: Catalog) -> Search:
    bare = [ir.Tool(name=t.name, description=t.description) for t in catalog.tools]
    index = build_index(bare)
    return lambda query, k: [hit.name for hit in index.search(query, k)]


_WORD = re.compile(r"\w+")


def plain_bm25(catalog: Catalog, k1: float = 1.2, b: float = 0.75) -> Search:
    """Okapi BM25 as textbooks write it, over ``name description``."""
    docs = [_WORD.findall(f"{s['name']} {s['description']}".lower()) for s in catalog.schemas]
    names = [s["name"] for s in catalog.schemas]
    average = sum(map(len, docs)) / max(len(docs), 1)
    postings: dict[str, list[tuple[int, int]]] = {}
    for i, doc in enumerate(docs):
        counts: dict[str, int] = {}
        for word in doc:
            counts[word] = counts.get(word, 0) + 1
        for word, tf in counts.items():
            postings.setdefault(word, []).append((i, tf))
    n = len(docs)

    def search(query: str, k: int) -> list[str]:
        scores: dict[int, float] = {}
        for word in set(_WORD.findall(query.lower())):
            found = postings.get(word, [])
            idf = math.log(1 + (n - len(found) + 0.5) / (len(found) + 0.5))
            for i, tf in found:
                norm = tf + k1 * (1 - b + b * len(docs[i]) / average)
                scores[i] = scores.get(i, 0.0) + idf * tf * (k1 + 1) / norm
        best = sorted(scores, key=lambda i: (-scores[i], names[i]))[:k]
        return [names[i] for i in best]

    return search


def fastmcp_bm25(catalog: Catalog) -> Search | None:
    try:
        from fastmcp.server.transforms.search.bm25 import _BM25Index
    except ImportError:
        return None

    def text(schema: dict[str, Any]) -> str:  # fastmcp's _extract_searchable_text, on a schema
        parts = [schema["name"]]
        if schema["description"]:
            parts.append(schema["description"])
        for name, info in (schema["parameters"] or {}).get("properties", {}).items():
            parts.append(name)
            if isinstance(info, dict) and info.get("description"):
                parts.append(info["description"])
        return " ".join(parts)

    index = _BM25Index()
    index.build([text(s) for s in catalog.schemas])
    names = [s["name"] for s in catalog.schemas]
    return lambda query, k: [names[i] for i in index.query(query, k)]


def pydantic_ai_keywords(catalog: Catalog) -> Search | None:
    try:
        from pydantic_ai.tools import ToolDefinition
        from pydantic_ai.toolsets._tool_search import keywords_search_fn
    except ImportError:
        return None
    defs = [
        ToolDefinition(name=s["name"], description=s["description"], parameters_json_schema={})
        for s in catalog.schemas
    ]
    return lambda query, k: keywords_search_fn(None, [query], defs)[:k]  # type: ignore[arg-type]


RANKERS: dict[str, Callable[[Catalog], Search | None]] = {
    "toolcall": toolcall_default,
    "toolcall, name+description only": toolcall_name_description,
    "BM25 (plain, name+description)": plain_bm25,
    "FastMCP BM25SearchTransform": fastmcp_bm25,
    "pydantic-ai keywords": pydantic_ai_keywords,
}


# -- metrics --------------------------------------------------------------------------------


def held_back(query_id: str) -> bool:
    """Half the queries, fixed by a hash of the id: the figures are measured on these."""
    return zlib.crc32(query_id.encode()) % 2 == 1


def evaluate(
    search: Search, queries: Sequence[tuple[str, str, frozenset[str]]]
) -> dict[str, float]:
    r5 = r10 = ndcg = 0.0
    for _, text, relevant in queries:
        found = search(text, 10)
        r5 += len(relevant.intersection(found[:5])) / len(relevant)
        r10 += len(relevant.intersection(found[:10])) / len(relevant)
        dcg = sum(1 / math.log2(i + 2) for i, name in enumerate(found[:10]) if name in relevant)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
        ndcg += dcg / ideal
    n = max(len(queries), 1)
    return {"R@5": r5 / n, "R@10": r10 / n, "NDCG@10": ndcg / n}


def run(catalogs: list[Catalog], split: str) -> list[str]:
    out: list[str] = []
    for catalog in catalogs:
        queries = [q for q in catalog.queries if held_back(q[0]) == (split == "held-back")]
        out += [
            "",
            f"### {catalog.name}: {len(catalog.tools):,} tools, {len(queries):,} queries "
            f"({split} half)",
            "",
            "| ranker | Recall@5 | Recall@10 | NDCG@10 | ms per query |",
            "|---|---:|---:|---:|---:|",
        ]
        for label, make in RANKERS.items():
            search = make(catalog)
            if search is None:
                out.append(f"| {label} | not installed | | | |")
                continue
            start = time.perf_counter()
            scores = evaluate(search, queries)
            per_query = (time.perf_counter() - start) * 1e3 / max(len(queries), 1)
            out.append(
                f"| {label} | {scores['R@5']:.3f} | {scores['R@10']:.3f} | "
                f"{scores['NDCG@10']:.3f} | {per_query:.2f} |"
            )
        print("\n".join(out[-len(RANKERS) - 5 :]), flush=True)
    return out


def commit() -> str:
    return subprocess.run(
        ["git", "-C", str(PERF), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()


def write_section(body: list[str]) -> None:
    """Replace this script's section of RESULTS.md (before the hand-written measurements)."""
    section = [
        MARKER,
        "## Tool search: finding the right tool (`perf/search_eval.py`)",
        "",
        f"One run of `perf/search_eval.py --write` (generated; do not edit by hand), toolcall "
        f"commit {commit()}, Python {sys.version.split()[0]}. Public catalogs with their own "
        "user queries, every ranker run here on the same queries; a query's relevant tools "
        "are the ones its ground truth calls. Recall@k: the share of a query's relevant "
        "tools in the first k hits; NDCG@10 with binary relevance. Figures are for the "
        "held-back half of each catalog's queries (toolcall's weights were set on the other "
        "half). Time per query is the whole evaluation's wall time over the query count, on "
        "this machine, for orientation only.",
        *body,
    ]
    replace_section(MARKER, section)


def replace_section(marker: str, section: list[str]) -> None:
    """Put ``section`` (which starts with ``marker``) in RESULTS.md in place of the old one,
    or, the first time, just before the hand-written measurements, which stay last."""
    text = "\n".join(section).rstrip("\n") + "\n\n"
    old = RESULTS.read_text(encoding="utf-8")
    if marker in old:
        start = old.index(marker)
        end = old.find("<!-- ", start + len(marker))
        new = old[:start] + text + (old[end:] if end >= 0 else "")
    elif NEXT_MARKER in old:
        at = old.index(NEXT_MARKER)
        new = old[:at] + text + old[at:]
    else:
        new = old.rstrip("\n") + "\n\n" + text
    RESULTS.write_text(new.rstrip("\n") + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gorilla", type=Path, default=os.environ.get("TOOLCALL_EVAL_GORILLA"))
    parser.add_argument("--metatool", type=Path, default=os.environ.get("TOOLCALL_EVAL_METATOOL"))
    parser.add_argument(
        "--split",
        choices=("held-back", "dev"),
        default="held-back",
        help="which half of the queries to measure (dev: the half weights are tuned on)",
    )
    parser.add_argument("--write", action="store_true", help="update perf/RESULTS.md")
    options = parser.parse_args(argv)
    catalogs: list[Catalog] = []
    for label, path, load in (
        ("BFCL", options.gorilla, load_bfcl),
        ("MetaTool", options.metatool, load_metatool),
    ):
        if path is None or not Path(path).exists():
            print(f"skipped {label}: no repository given (see --help)", file=sys.stderr)
            continue
        catalogs.append(load(Path(path)))
    if not catalogs:
        print("no catalog to evaluate", file=sys.stderr)
        return 1
    body = run(catalogs, options.split)
    if options.write:
        write_section(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
