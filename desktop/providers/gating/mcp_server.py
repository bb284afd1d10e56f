"""The MCP permission tool for Claude Code (``agent-canvas _gating-mcp-server``).

Claude Code starts it over stdio (``--mcp-config``) and calls its ``approve``
tool (``--permission-prompt-tool mcp__agent_canvas__approve``) before each
tool use that needs permission; the question goes to the provider's
:class:`~desktop.providers.gating.bridge.ApprovalBridge` over a unix socket,
and the answer comes back as the tool's JSON text.
"""

import asyncio
import json
import os
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer

from desktop.providers.gating.bridge import SOCKET_ENV

SERVER_NAME = "agent_canvas"
TOOL_NAME = "approve"
PERMISSION_TOOL = f"mcp__{SERVER_NAME}__{TOOL_NAME}"

server = MCPServer(SERVER_NAME)


async def ask(tool_name: str, tool_input: dict[str, Any], tool_use_id: str | None) -> str:
    """Forward one permission question to the bridge; deny when it cannot be reached."""
    path = os.environ.get(SOCKET_ENV, "")
    try:
        reader, writer = await asyncio.open_unix_connection(path)
    except OSError as exc:
        return json.dumps({"behavior": "deny", "message": f"approval service unreachable: {exc}"})
    try:
        question = {"tool_name": tool_name, "input": tool_input, "tool_use_id": tool_use_id}
        writer.write(json.dumps(question).encode() + b"\n")
        await writer.drain()
        line = await reader.readline()
    finally:
        writer.close()
    return line.decode().strip() or json.dumps({"behavior": "deny", "message": "no answer"})


@server.tool(name=TOOL_NAME, description="Ask the Agent Canvas user to approve a tool call.",
             structured_output=False)
async def approve(tool_name: str, input: dict[str, Any],
                  tool_use_id: str | None = None) -> str:
    return await ask(tool_name, input, tool_use_id)


def main(argv: list[str] | None = None) -> int:
    """Serve the permission tool on stdin/stdout until the agent CLI closes them."""
    server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
