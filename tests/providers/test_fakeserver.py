"""The fake model server: scripts, the four wires, errors, slow streams and hangs."""

import asyncio
import json

import aiohttp
import pytest

from desktop.providers.fakeserver import FakeModelServer, Script, ScriptError


async def post(url: str, body: dict, timeout: float = 10) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.post(
            url, json=body, timeout=aiohttp.ClientTimeout(total=timeout)) as response:
        return response.status, await response.text()


def sse_data(text: str) -> list:
    return [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]


@pytest.mark.parametrize(("path", "body", "needle"), [
    ("/v1/messages", {"model": "m", "stream": True}, '"text_delta"'),
    ("/v1/responses", {"model": "m", "stream": True}, '"response.output_text.delta"'),
    ("/v1beta/models/g:streamGenerateContent", {}, '"candidates"'),
    ("/v1/chat/completions", {"model": "m", "stream": True}, '"chat.completion.chunk"'),
])
async def test_each_wire_streams_the_scripted_text(path, body, needle):
    async with FakeModelServer(Script.from_data(["Hello wire."])) as server:
        status, text = await post(server.url + path + ("?alt=sse" if "models" in path else ""),
                                  body)
    assert status == 200 and needle in text
    chunks = "".join(d for d in sse_data(text) if d != "[DONE]")
    assert "Hello" in chunks and "wire." in chunks


async def test_keys_replies_in_order_and_errors_stick():
    script = Script.from_data({"agents": {
        "a": ["one", {"error": {"status": 401, "message": "bad key"}}], "b": ["bee"]}})
    async with FakeModelServer(script) as server:
        chat = "/v1/chat/completions"
        _, first = await post(server.base_url("a") + chat, {"stream": True})
        status, body = await post(server.base_url("a") + chat, {"stream": True})
        again, _ = await post(server.base_url("a") + chat, {"stream": True})
        _, other = await post(server.base_url("b") + chat, {"stream": True})
    assert "one" in first and "bee" in other
    assert status == again == 401 and json.loads(body)["error"]["message"] == "bad key"
    assert [r.key for r in server.model_requests()] == ["a", "a", "a", "b"]


async def test_a_key_of_one_wire_plays_its_own_replies_beside_the_others():
    script = Script.from_data({"agents": {"n:anthropic": ["from claude's list"],
                                          "n": ["from the key's list"]}})
    async with FakeModelServer(script) as server:
        _, codex = await post(server.base_url("n") + "/v1/responses", {})
        _, claude = await post(server.base_url("n") + "/v1/messages", {"stream": True})
    assert "the key" in codex and "claude" not in codex
    assert "claude" in claude


async def test_tool_call_names_follow_the_wire():
    async with FakeModelServer(Script.from_data([{"shell": "ls"}] * 3)) as server:
        _, claude = await post(server.url + "/v1/messages", {"stream": True})
        _, codex = await post(server.url + "/v1/responses", {})
        _, gemini = await post(server.url + "/v1beta/models/g:streamGenerateContent", {})
    assert '"Bash"' in claude and '"exec_command"' in codex and '"run_shell_command"' in gemini


async def test_hang_never_answers_until_stopped():
    server = await FakeModelServer(Script.from_data([{"hang": True}])).start()
    try:
        async with aiohttp.ClientSession() as session, session.post(
                server.url + "/v1/messages", json={"stream": True},
                timeout=aiohttp.ClientTimeout(total=60)) as response:
            assert response.status == 200  # the stream begins...
            reading = asyncio.ensure_future(response.read())

            async def hung() -> None:  # ...and its handler waits to be released
                while not server._hung:
                    await asyncio.sleep(0.01)

            await asyncio.wait_for(hung(), 30)
            assert [r.reply for r in server.model_requests()] == [{"hang": True}]
            assert not reading.done()
            await server.stop()
            # anything written before the wait arrives before the end of the stream
            assert await asyncio.wait_for(reading, 30) == b""
    finally:
        await server.stop()


@pytest.mark.parametrize("bad", [{"replies": [{"nope": 1}]}, 42, {"agents": {"a": "x"}},
                                 {"replies": [{"error": {"message": "no status"}}]}])
def test_bad_scripts_are_clear_errors(bad):
    with pytest.raises(ScriptError):
        Script.from_data(bad)
