"""The documentation runs: every code block in ``docs/`` is executed, and the site builds.

Conventions for code blocks in ``docs/*.md`` (fenced with backticks or tildes, at any
indentation, so blocks inside admonitions, tabs and grids count too):

- The blocks of one page run in order, in one namespace, with the working directory set to a
  fresh temporary directory that is also first on ``sys.path`` (the repository root, hence
  ``examples``, is importable as well). Each page gets its own cache directory
  (``TOOLCALL_CACHE_DIR``); whatever the page imported from its directory is forgotten after it.
- ``python`` / ``py``: executed. If the first line is a comment naming a relative path ending in
  ``.py`` (``# myapp/tools/weather.py``), the block is not executed but written to that path
  under the page's directory, to be imported by later blocks or commands.
- ``pycon``: run as a doctest in the page's namespace (``...`` matches anything), so the output
  shown is the output the code gives.
- ``sh`` / ``bash`` / ``shell``: the block runs as one ``bash -euo pipefail`` script in the page's
  directory, with the virtualenv's ``bin`` first on ``PATH`` (``python``, ``toolcall``,
  ``toolcall-cache``) and the page's directory and the repository root on ``PYTHONPATH``; it
  must exit 0.
- ``console``: each ``$ command`` runs like a shell block (a trailing ``\\`` continues it on the
  next line); the lines up to the next ``$`` are its expected output, stdout then stderr,
  compared like a doctest (``...`` matches anything).
- ``json``: must parse; ``toml`` and ``yaml``: must parse.
- Anything else (``dockerfile``, ``text``) must carry a ``skip`` directive.
- A ``python`` or ``pycon`` block that issues a ``ToolcallWarning`` must show it (catch it and
  print it, as the troubleshooting page does): an example that warns without saying so would
  surprise whoever copies it.

Directives are HTML comments (invisible on the site) on the lines just before a block:

- ``<!-- docs-test: skip REASON -->``: the block is not run; the reason is mandatory.
- ``<!-- docs-test: requires MODULE [MODULE ...] -->``: skipped unless the modules import (the
  peer libraries of the migration page are not dependencies of toolcall).
- ``<!-- docs-test: equals EXPRESSION -->`` on a ``json`` block: the block must equal the value of
  the Python expression, evaluated in the page's namespace (an emitted schema shown as JSON).
- ``<!-- docs-test: exit N -->`` on a ``console`` or shell block: the expected exit status.
- ``<!-- docs-test: fake-model ... -->``: the script the fake model follows from this block on.
  Pages call ``OpenAI()``, ``Anthropic()``, ``genai.Client()`` and
  ``boto3.client("bedrock-runtime")`` as a program would; during the test,
  ``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``, ``GOOGLE_GEMINI_BASE_URL`` and
  ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME`` point the real SDKs at a server on 127.0.0.1 that plays
  the model (Chat Completions, Responses, Messages, generateContent, Converse). Script
  lines: ``call NAME {json args}`` starts a turn with one tool
  call, ``also NAME {json args}`` adds a parallel call to that turn, ``say TEXT`` is the final
  answer after the last turn. Like the real APIs, the server refuses a request whose tool calls
  were not all answered, or that does not offer a tool the script calls.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import importlib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import threading
import tomllib
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

import subproc
from toolcall import ToolcallWarning
from toolcall._load import hook, registry

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SRC = ROOT / "src" / "toolcall"
BIN = Path(sys.executable).parent
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
TIMEOUT = 60

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*?)[ \t]*$")
DIRECTIVE_START = re.compile(r"^[ \t]*<!--\s*docs-test:\s*")
FILE_BLOCK = re.compile(r"^#\s*(?P<path>[\w./-]+\.py)\s*$")

PYTHON = {"python", "py"}
PYCON = {"pycon"}
SHELL = {"sh", "bash", "shell"}
CONSOLE = {"console"}
DATA = {"json", "toml", "yaml", "yml"}
DOCTEST_FLAGS = doctest.ELLIPSIS


# -- reading pages ------------------------------------------------------------------------


@dataclass
class Block:
    page: str
    line: int
    """1-based line of the block's first code line in the page."""
    lang: str
    code: str
    directives: list[tuple[str, str]] = field(default_factory=list)

    def directive(self, name: str) -> str | None:
        for key, value in self.directives:
            if key == name:
                return value
        return None

    @property
    def where(self) -> str:
        return f"docs/{self.page}:{self.line}"


def blocks_of(page: str) -> list[Block]:
    """The fenced code blocks of a page, with the directives written just before each."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    pending: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if DIRECTIVE_START.match(line):
            text = DIRECTIVE_START.sub("", line)
            while "-->" not in text:
                i += 1
                assert i < len(lines), f"docs/{page}:{i}: unterminated docs-test comment"
                text += "\n" + lines[i]
            name, *rest = text[: text.index("-->")].split(None, 1)
            pending.append((name, rest[0].strip() if rest else ""))
            i += 1
            continue
        match = FENCE.match(line)
        if match is None:
            if line.strip() and pending:
                pytest.fail(f"docs/{page}:{i + 1}: a docs-test directive must precede a block")
            i += 1
            continue
        indent, fence = match["indent"], match["fence"]
        info = match["info"].split()
        lang = info[0].lower() if info else ""
        start = i + 1
        code: list[str] = []
        i += 1
        while i < len(lines) and not re.match(
            rf"^{re.escape(indent)}{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[i]
        ):
            code.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        assert i < len(lines), f"docs/{page}:{start}: unclosed code block"
        i += 1
        blocks.append(Block(page, start + 1, lang, "\n".join(code) + "\n", pending))
        pending = []
    return blocks


# -- the fake model ---------------------------------------------------------------------


@dataclass
class Script:
    """What the fake model does: tool-call turns, then a final answer."""

    turns: list[list[tuple[str, Any]]]
    final: str

    @classmethod
    def parse(cls, text: str) -> Script:
        turns: list[list[tuple[str, Any]]] = []
        final = ""
        for raw in text.splitlines():
            verb, _, rest = raw.strip().partition(" ")
            if verb == "say":
                final = rest
            elif verb in ("call", "also"):
                name, _, args = rest.partition(" ")
                if verb == "call" or not turns:
                    turns.append([])
                turns[-1].append((name, json.loads(args)))
            elif verb:
                pytest.fail(f"fake-model: unknown script line {raw!r}")
        return cls(turns, final)


class Refused(Exception):
    """The request is one the real API would refuse (400)."""


def _calls_answered(pairs: list[tuple[list[str], list[str]]]) -> None:
    for asked, answered in pairs:
        if sorted(asked) != sorted(answered):
            msg = f"tool calls {asked} were answered by results for {answered}"
            raise Refused(msg)


def _offered(names: list[str], turn: list[tuple[str, Any]]) -> None:
    for name, _ in turn:
        if name not in names:
            msg = f"the model called {name!r}, but the request offers only {names}"
            raise Refused(msg)


class FakeModel:
    """Plays OpenAI Chat Completions, OpenAI Responses and Anthropic Messages from a script."""

    def __init__(self) -> None:
        self.script: Script | None = None

    def answer(self, path: str, body: Any) -> Any:
        if self.script is None:
            msg = "no fake-model script on this page"
            raise Refused(msg)
        if path.endswith("/chat/completions"):
            return self._chat(body, self.script)
        if path.endswith("/responses"):
            return self._responses(body, self.script)
        if path.endswith("/messages"):
            return self._anthropic(body, self.script)
        if path.endswith(":generateContent"):
            return self._gemini(body, self.script)
        if path.endswith("/converse"):
            return self._bedrock(body, self.script)
        msg = f"no such endpoint {path}"
        raise Refused(msg)

    def _chat(self, body: Any, script: Script) -> Any:
        messages = body["messages"]
        pairs = []
        for n, sent in enumerate(messages):
            if sent.get("role") == "assistant" and sent.get("tool_calls"):
                asked = [call["id"] for call in sent["tool_calls"]]
                after = messages[n + 1 : n + 1 + len(asked)]
                pairs.append((asked, [m.get("tool_call_id") for m in after if m["role"] == "tool"]))
                for answer in after:
                    if not isinstance(answer.get("content"), str):
                        msg = "a tool message's content must be a string"
                        raise Refused(msg)
        _calls_answered(pairs)
        expected = sum(len(asked) for asked, _ in pairs)
        if sum(1 for m in messages if m.get("role") == "tool") != expected:
            msg = "a tool message must answer a tool call of the assistant message before it"
            raise Refused(msg)
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        reply: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
        if turn < len(script.turns):
            offered = [t["function"]["name"] for t in body.get("tools", [])]
            _offered(offered, script.turns[turn])
            reply["tool_calls"] = [
                {
                    "id": f"call_{turn}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": _compact(args)},
                }
                for i, (name, args) in enumerate(script.turns[turn])
            ]
        else:
            reply["content"] = script.final
        return {
            "id": f"chatcmpl-{turn}",
            "object": "chat.completion",
            "created": 1700000000,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls" if "tool_calls" in reply else "stop",
                    "logprobs": None,
                    "message": reply,
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    def _responses(self, body: Any, script: Script) -> Any:
        items = body["input"] if isinstance(body["input"], list) else []
        asked = [i["call_id"] for i in items if i.get("type") == "function_call"]
        answered = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
        _calls_answered([(asked, answered)])
        made, turn = 0, 0
        while turn < len(script.turns) and made < len(asked):
            made += len(script.turns[turn])
            turn += 1
        if made != len(asked):
            msg = f"{len(asked)} function calls in the input do not match the script"
            raise Refused(msg)
        output: list[dict[str, Any]]
        if turn < len(script.turns):
            offered = [t["name"] for t in body.get("tools", []) if t.get("type") == "function"]
            _offered(offered, script.turns[turn])
            output = [
                {
                    "type": "function_call",
                    "id": f"fc_{turn}_{i}",
                    "call_id": f"call_{turn}_{i}",
                    "name": name,
                    "arguments": _compact(args),
                    "status": "completed",
                }
                for i, (name, args) in enumerate(script.turns[turn])
            ]
        else:
            output = [
                {
                    "type": "message",
                    "id": "msg_final",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": script.final, "annotations": []}],
                }
            ]
        return {
            "id": f"resp_{turn}",
            "object": "response",
            "created_at": 1700000000,
            "status": "completed",
            "model": body["model"],
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }

    def _anthropic(self, body: Any, script: Script) -> Any:
        messages = body["messages"]
        pairs = []
        for n, message in enumerate(messages):
            content = message.get("content")
            if message.get("role") != "assistant" or not isinstance(content, list):
                continue
            asked = [b["id"] for b in content if b.get("type") == "tool_use"]
            if not asked:
                continue
            reply = messages[n + 1]["content"] if n + 1 < len(messages) else []
            answers = [b for b in reply if isinstance(b, dict) and b.get("type") == "tool_result"]
            pairs.append((asked, [b["tool_use_id"] for b in answers]))
        _calls_answered(pairs)
        results = sum(
            1
            for m in messages
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"
        )
        if results != sum(len(asked) for asked, _ in pairs):
            msg = "a tool_result block must answer a tool_use block of the message before it"
            raise Refused(msg)
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        if turn < len(script.turns):
            _offered([t["name"] for t in body.get("tools", [])], script.turns[turn])
            content = [
                {"type": "tool_use", "id": f"toolu_{turn}_{i}", "name": name, "input": args}
                for i, (name, args) in enumerate(script.turns[turn])
            ]
            stop = "tool_use"
        else:
            content, stop = [{"type": "text", "text": script.final}], "end_turn"
        return {
            "id": f"msg_{turn}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }

    def _gemini(self, body: Any, script: Script) -> Any:
        """generateContent: each model turn's function calls are answered, by name, by the
        function responses of the user turn after it."""
        contents = body["contents"]
        pairs = []
        for n, content in enumerate(contents):
            parts = content.get("parts") or []
            asked = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
            if content.get("role") != "model" or not asked:
                continue
            reply = contents[n + 1].get("parts") or [] if n + 1 < len(contents) else []
            answers = [p["functionResponse"] for p in reply if "functionResponse" in p]
            for answer in answers:
                if not isinstance(answer.get("response"), dict):
                    msg = "a function response's response must be an object"
                    raise Refused(msg)
            pairs.append((asked, [a["name"] for a in answers]))
        _calls_answered(pairs)
        turn = sum(1 for c in contents if c.get("role") == "model")
        if turn < len(script.turns):
            offered = [
                d["name"] for t in body.get("tools", []) for d in t.get("functionDeclarations", [])
            ]
            _offered(offered, script.turns[turn])
            parts = [{"functionCall": {"name": n, "args": a}} for n, a in script.turns[turn]]
        else:
            parts = [{"text": script.final}]
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5},
            "modelVersion": "fake",
        }

    def _bedrock(self, body: Any, script: Script) -> Any:
        """Converse: each assistant message's toolUse blocks are answered by the toolResult
        blocks of the user message after it."""
        messages = body["messages"]
        pairs = []
        for n, message in enumerate(messages):
            asked = [b["toolUse"]["toolUseId"] for b in message["content"] if "toolUse" in b]
            if message["role"] != "assistant" or not asked:
                continue
            reply = messages[n + 1]["content"] if n + 1 < len(messages) else []
            answered = [b["toolResult"]["toolUseId"] for b in reply if "toolResult" in b]
            pairs.append((asked, answered))
        _calls_answered(pairs)
        turn = sum(1 for m in messages if m["role"] == "assistant")
        if turn < len(script.turns):
            tools = body.get("toolConfig", {}).get("tools", [])
            _offered([t["toolSpec"]["name"] for t in tools], script.turns[turn])
            content = [
                {"toolUse": {"toolUseId": f"tooluse_{turn}_{i}", "name": name, "input": args}}
                for i, (name, args) in enumerate(script.turns[turn])
            ]
            stop = "tool_use"
        else:
            content, stop = [{"text": script.final}], "end_turn"
        return {
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": stop,
            "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
            "metrics": {"latencyMs": 1},
        }


def _compact(args: Any) -> str:
    return json.dumps(args, separators=(",", ":"), ensure_ascii=False)


@contextlib.contextmanager
def serving(model: FakeModel) -> Iterator[str]:
    """Serve ``model`` on 127.0.0.1 until the block ends; yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"null")
            try:
                status, answer = 200, model.answer(self.path, body)
            except Refused as exc:
                status = 400
                answer = {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": f"fake model: {exc}"},
                }
            payload = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: a refused request surfaces as the SDK's exception in the page."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def fake_model() -> Iterator[tuple[FakeModel, str]]:
    model = FakeModel()
    with serving(model) as url:
        yield model, url


# -- running pages ----------------------------------------------------------------------


class PageRun:
    """One page's namespace, directory and environment."""

    def __init__(self, page: str, directory: Path, model: FakeModel) -> None:
        self.page = page
        self.directory = directory
        self.model = model
        self.namespace: dict[str, Any] = {"__name__": "__docs__"}
        self.env = subproc.environment([directory, ROOT], {"NO_COLOR": "1", "COLUMNS": "100"})

    def run(self, block: Block) -> None:
        script = block.directive("fake-model")
        if script is not None:
            self.model.script = Script.parse(script)
        lang = block.lang
        if lang in PYTHON | PYCON:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ToolcallWarning)
                if lang in PYTHON:
                    self._python(block)
                else:
                    self._pycon(block)
            unshown = [str(w.message) for w in caught if w.category is ToolcallWarning]
            assert not unshown, (
                f"{block.where}: the block issues warnings the page does not show: {unshown}"
            )
        elif lang in SHELL:
            self._shell(block, block.code, expected=None)
        elif lang in CONSOLE:
            self._console(block)
        elif lang in DATA:
            self._data(block)
        else:
            pytest.fail(f"{block.where}: a {lang or 'plain'} block needs a skip directive")

    def _python(self, block: Block) -> None:
        first = block.code.split("\n", 1)[0]
        target = FILE_BLOCK.match(first)
        if target is not None:
            path = self.directory / target["path"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.code, encoding="utf-8")
            importlib.invalidate_caches()
            return
        code = compile("\n" * (block.line - 1) + block.code, str(DOCS / block.page), "exec")
        exec(code, self.namespace)

    def _pycon(self, block: Block) -> None:
        parser = doctest.DocTestParser()
        test = parser.get_doctest(
            block.code, self.namespace, block.where, str(DOCS / block.page), block.line - 1
        )
        test.globs = self.namespace  # DocTest copies them; the page's blocks share one
        runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS)
        report = io.StringIO()
        runner.run(test, out=report.write, clear_globs=False)
        if runner.failures:
            pytest.fail(f"{block.where}: the output differs\n{report.getvalue()}", pytrace=False)

    def _shell(self, block: Block, command: str, expected: str | None) -> str:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", command],
            cwd=self.directory,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        status = int(block.directive("exit") or 0)
        output = done.stdout + done.stderr
        if done.returncode != status:
            pytest.fail(
                f"{block.where}: `{command.strip()}` exited {done.returncode}, expected "
                f"{status}\n{output}",
                pytrace=False,
            )
        if expected is not None:
            checker = doctest.OutputChecker()
            if not checker.check_output(expected, output, DOCTEST_FLAGS):
                pytest.fail(
                    f"{block.where}: `{command.strip()}` printed\n{output}\nexpected\n{expected}",
                    pytrace=False,
                )
        return output

    def _console(self, block: Block) -> None:
        commands: list[tuple[str, list[str]]] = []
        continuing = False
        for line in block.code.splitlines():
            if continuing:
                commands[-1] = (commands[-1][0] + "\n" + line, commands[-1][1])
            elif line.startswith("$ "):
                commands.append((line[2:], []))
            elif commands:
                commands[-1][1].append(line)
            else:
                pytest.fail(f"{block.where}: a console block starts with `$ command`")
            continuing = line.endswith("\\")
        for command, output in commands:
            expected = "\n".join(output).rstrip("\n")
            self._shell(block, command, expected + "\n" if expected else "")

    def _data(self, block: Block) -> None:
        if block.lang == "json":
            value = json.loads(block.code)
            expression = block.directive("equals")
            if expression is not None:
                actual = json.loads(json.dumps(eval(expression, self.namespace)))
                assert value == actual, f"{block.where}: the JSON shown is not {expression}"
        elif block.lang == "toml":
            tomllib.loads(block.code)
        else:
            yaml.safe_load(block.code)


def _forget(directory: Path) -> None:
    """Drop the modules a page imported from its directory, so the next page starts clean."""
    root = str(directory)
    doomed = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        paths = list(getattr(module, "__path__", []) or [])
        if file.startswith(root) or any(str(p).startswith(root) for p in paths):
            doomed.append(name)
    for name in doomed:
        module = sys.modules.pop(name)
        # The registry keeps answering a dotted name after its module left sys.modules, so
        # the next page's module of the same name must not find this page's entry.
        registry.forget(name)
        registry.index.pop(module, None)


@pytest.mark.parametrize("page", PAGES)
def test_page_runs(
    page: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_model: tuple[FakeModel, str],
) -> None:
    """Every code block of the page runs and shows the output the code gives."""
    model, url = fake_model
    model.script = None
    directory = tmp_path / "page"
    directory.mkdir()
    monkeypatch.chdir(directory)
    monkeypatch.syspath_prepend(str(directory))
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-docs")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{url}/v1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-docs")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-docs")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", url)
    # boto3 reads nothing of the user's: no ~/.aws, no instance metadata
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "docs")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "docs")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    run = PageRun(page, directory, model)
    hooks = list(sys.path_hooks)
    try:
        for block in blocks_of(page):
            reason = block.directive("skip")
            if reason is not None:
                assert reason, f"{block.where}: a skip directive needs a reason"
                continue
            required = block.directive("requires")
            if required and not all(importlib.util.find_spec(m) for m in required.split()):
                continue
            run.run(block)
    finally:
        _forget(directory)
        model.script = None
        if sys.path_hooks != hooks:
            # fastmcp's beartype claw puts its own path hook first (docs/adapters/fastmcp.md
            # imports fastmcp): later pages must see toolcall's hook, as a fresh process would
            sys.path_hooks[:] = hooks
            hook._drop_file_finders()


# -- the site ---------------------------------------------------------------------------


@pytest.mark.once
def test_site_builds_strict(tmp_path: Path) -> None:
    """`mkdocs build --strict` succeeds, API reference included, with no warning."""
    done = subproc.python(
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "--config-file",
        ROOT / "mkdocs.yml",
        "--site-dir",
        tmp_path / "site",
        env={"NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"},
        cwd=ROOT,
        timeout=TIMEOUT,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert "WARNING" not in log, log
    reference = {
        "toolcall": ("toolcall.run", "toolcall.emit", "toolcall.Toolbox", "toolcall.ToolError"),
        "ir": ("toolcall.ir.Tool", "toolcall.ir.Type"),
        "providers": (
            "toolcall.providers.openai_tool_messages",
            "toolcall.providers.responses_tools",
        ),
        "mcp": ("toolcall.mcp.serve", "toolcall.mcp.build_server"),
    }
    for page, names in reference.items():
        html = (tmp_path / "site" / "api" / page / "index.html").read_text()
        for name in names:
            assert f'id="{name}"' in html, f"api/{page}: {name}"


def test_every_page_is_in_the_nav() -> None:
    """Each Markdown page under docs/ is reachable from the site navigation."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())

    def walk(items: Any) -> Iterator[str]:
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            if isinstance(value, list):
                yield from walk(value)
            else:
                yield value

    assert sorted(walk(config["nav"])) == PAGES


def test_every_block_convention_is_known() -> None:
    """Every block is runnable or skipped with a reason, and every directive is known."""
    known = {"skip", "requires", "equals", "exit", "fake-model"}
    runnable = PYTHON | PYCON | SHELL | CONSOLE | DATA
    for page in PAGES:
        for block in blocks_of(page):
            for name, value in block.directives:
                assert name in known, f"{block.where}: unknown directive {name!r}"
                if name == "skip":
                    assert value, f"{block.where}: skip needs a reason"
            assert block.lang in runnable or block.directive("skip"), (
                f"{block.where}: a {block.lang or 'plain'} block must run or be skipped"
            )


# -- troubleshooting covers every warning ----------------------------------------------


def _fragments(node: ast.AST) -> list[str]:
    """The fixed text of every string literal under ``node`` (f-strings: their literal parts)."""
    parts = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.JoinedStr):
            parts += [
                v.value
                for v in sub.values
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
            ]
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            parts.append(sub.value)
    return list(dict.fromkeys(p.strip(" :;,") for p in parts if len(p.strip(" :;,")) >= 8))


def _warning_texts() -> list[tuple[str, list[str]]]:
    """Each warning text in the source: where, and the fixed fragments of its message.

    Derivation warns through ``warn(message)`` calls, and also issues the strict-mode problems
    (``problems.append(...)`` in the renderer and the strict checker, and the renderer's
    ``*_problem`` helpers), whose messages are built where they are found.
    """
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.endswith("_problem"):
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        found.append((f"{path.name}:{ret.lineno}", _fragments(ret.value)))
            if not (isinstance(node, ast.Call) and node.args):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            owner = func.value if isinstance(func, ast.Attribute) else None
            owner_name = getattr(owner, "attr", None) or getattr(owner, "id", None)
            if name in ("warn", "warn_explicit"):
                message = node.args[0]
                if isinstance(message, ast.Constant | ast.JoinedStr):
                    found.append((f"{path.name}:{node.lineno}", _fragments(message)))
            elif name == "append" and owner_name == "problems":
                found.append((f"{path.name}:{node.lineno}", _fragments(node)))
    return found


def test_troubleshooting_covers_every_warning() -> None:
    """Every ToolcallWarning text in the source appears on the troubleshooting page."""
    page = (DOCS / "troubleshooting.md").read_text(encoding="utf-8")
    texts = _warning_texts()
    assert len(texts) >= 30
    missing = [
        f"{where}: {fragment!r}"
        for where, fragments in texts
        for fragment in fragments
        if fragment not in page
    ]
    assert not missing, "undocumented warnings:\n" + "\n".join(missing)
