"""The asyncio engine that runs workflows (no Qt here)."""
