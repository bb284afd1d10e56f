"""Agent adapters: each turns an agent's native stream into contract events."""
