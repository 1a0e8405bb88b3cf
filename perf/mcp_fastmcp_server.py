"""FastMCP serving ``mcp_tools``'s functions over streamable HTTP.

Run: ``python mcp_fastmcp_server.py PORT`` (``bench_mcp.py`` does).
"""

from __future__ import annotations

import sys

import mcp_tools
from fastmcp import FastMCP

app = FastMCP("bench")
app.tool(mcp_tools.add)
app.tool(mcp_tools.place_order)

if __name__ == "__main__":
    print(f"listening at http://127.0.0.1:{sys.argv[1]}/mcp", file=sys.stderr, flush=True)
    app.run(
        transport="http",
        host="127.0.0.1",
        port=int(sys.argv[1]),
        show_banner=False,
        log_level="WARNING",
    )
