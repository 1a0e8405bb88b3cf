"""toolcall's tools in the agent frameworks, one module per framework.

Each module imports its framework, so import the one you use (``toolcall.adapters.
openai_agents``, ``pydantic_ai``, ``langchain``, ``fastmcp``); ``import toolcall`` imports none
of them. Each takes a marked module (or its dotted name), a :class:`toolcall.Toolbox`, or a
list of them, and hands the framework toolcall's precomputed schema; a call goes through
``Toolbox.arun``, so validation, wire restoration and error messages are toolcall's.
"""
