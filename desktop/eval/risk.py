"""The one risk classifier of tool calls: ``classify(tool, args) -> Risk``.

Every proposed action in a case artifact gets its ``risk_level`` and
``risk_tags`` from here. The function is total: any tool name and any
arguments (even garbage) give a result, never an exception.

What a call is (``action_type``) comes from the tool's name:

=================  ==========================================================  ========
action_type        tools                                                       base
=================  ==========================================================  ========
shell              command, shell, bash, Bash, run_shell_command, exec, ...   low
file_write         edit_file, write_file, Write, Edit, MultiEdit, apply_patch  low
file_read          Read, read_file, Glob, Grep, LS, list_directory, ...       low
network            WebFetch, WebSearch, fetch, http_request, ...              medium
agent_management   spawn_node, create_edge, Task                              medium
other              anything else                                               unknown
=================  ==========================================================  ========

Tags found in the arguments raise the level to the highest tag's level:

======================  ======  =====================================================
tag                     level   when
======================  ======  =====================================================
delete_recursive        high    ``rm -r``/``-f``, ``find -delete``, ``git clean``, ``shred``
delete                  medium  ``rm``, ``rmdir``, ``unlink``, ``truncate`` of files
package_install         high    pip/uv/poetry/npm/yarn/pnpm/apt/brew/gem/cargo/go/conda install
git_push                high    ``git push``
git_history_rewrite     high    ``git reset --hard``, ``push --force``, rebase, filter-branch
remote_code             high    a download piped into a shell (``curl ... | sh``)
privilege               high    ``sudo``, ``su``, ``doas``
outside_workspace       high    a write (edit, redirect, cp/mv target) outside the workspace
network                 medium  curl, wget, ssh, scp, nc, git clone/fetch/pull, web tools
permissions             medium  ``chmod``, ``chown``
process_kill            medium  ``kill``, ``pkill``, ``killall``
agent_management        medium  the call changes the graph (spawn a node, add an edge)
unparsed_command        medium  a shell command that could not be split into words
======================  ======  =====================================================

Levels are ordered low < unknown < medium < high (:data:`LEVEL_RANK`).
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

LEVEL_RANK = {"low": 0, "unknown": 1, "medium": 2, "high": 3}
TAG_LEVEL = {
    "delete_recursive": "high", "package_install": "high", "git_push": "high",
    "git_history_rewrite": "high", "remote_code": "high", "privilege": "high",
    "outside_workspace": "high", "delete": "medium", "network": "medium",
    "permissions": "medium", "process_kill": "medium", "agent_management": "medium",
    "unparsed_command": "medium",
}

_SHELL_TOOLS = {"command", "shell", "bash", "run_shell_command", "exec", "exec_command",
                "local_shell", "terminal", "run_command", "execute", "sh", "shell_command"}
_WRITE_TOOLS = {"edit_file", "write_file", "write", "edit", "multiedit", "apply_patch",
                "str_replace", "str_replace_editor", "notebookedit", "replace", "create_file",
                "write_to_file", "patch"}
_READ_TOOLS = {"read", "read_file", "glob", "grep", "ls", "list_directory", "search",
               "read_many_files", "search_file_content", "view", "notebookread", "todowrite",
               "todoread", "list_files", "find_files"}
_NETWORK_TOOLS = {"webfetch", "websearch", "fetch", "http_request", "web_fetch",
                  "google_web_search", "web_search", "browse", "curl"}
_AGENT_TOOLS = {"spawn_node", "create_edge", "task"}
BASE_LEVEL = {"shell": "low", "file_write": "low", "file_read": "low", "network": "medium",
              "agent_management": "medium", "other": "unknown"}

_COMMAND_KEYS = ("cmd", "command", "commandLine", "command_line", "script", "input")
_PATH_KEYS = ("path", "file_path", "filePath", "notebook_path", "target_file", "file",
              "filename", "absolute_path")
_INSTALLERS = {
    "pip": {"install", "download"}, "pip3": {"install", "download"}, "uv": {"add", "install"},
    "poetry": {"add", "install"}, "npm": {"install", "i", "add", "ci"},
    "yarn": {"add", "install"}, "pnpm": {"add", "install", "i"}, "apt": {"install"},
    "apt-get": {"install"}, "brew": {"install"}, "gem": {"install"},
    "cargo": {"install", "add"}, "go": {"install", "get"}, "conda": {"install"},
    "dnf": {"install"}, "yum": {"install"}, "apk": {"add"}, "pipx": {"install"},
    "bun": {"add", "install"}, "npx": None, "dpkg": {"-i"},
}
_NET_COMMANDS = {"curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "netcat", "telnet",
                 "ftp", "http", "https", "ping", "dig", "nslookup", "aria2c"}
_SHELLS = {"sh", "bash", "zsh", "dash", "python", "python3", "node", "perl", "ruby"}
_REDIRECTS = {">", ">>", ">|", "&>", "&>>"}
_OPERATOR_CHARS = set("();<>|&")


@dataclass(frozen=True)
class Risk:
    """A tool call's kind, level and the reasons for it."""

    action_type: str
    level: str
    tags: list[str] = field(default_factory=list)


def max_level(levels: Any) -> str:
    """The highest of ``levels`` (``low`` when there are none)."""
    best = "low"
    for level in levels:
        if LEVEL_RANK.get(level, 1) > LEVEL_RANK[best]:
            best = level if level in LEVEL_RANK else "unknown"
    return best


def action_type(tool: Any) -> str:
    """What kind of action a tool name stands for."""
    name = str(tool or "").strip().lower().rsplit("__", 1)[-1]  # mcp__server__tool
    for kind, names in (("shell", _SHELL_TOOLS), ("file_write", _WRITE_TOOLS),
                        ("file_read", _READ_TOOLS), ("network", _NETWORK_TOOLS),
                        ("agent_management", _AGENT_TOOLS)):
        if name in names:
            return kind
    return "other"


def classify(tool: Any, args: Any, workspace: str | None = None) -> Risk:
    """The risk of calling ``tool`` with ``args``; ``workspace`` (absolute) marks which
    absolute paths are inside."""
    try:
        return _classify(tool, args, workspace)
    except Exception:  # total by contract: a classifier bug must not lose the action
        return Risk("other", "unknown", ["unclassified"])


def _classify(tool: Any, args: Any, workspace: str | None) -> Risk:
    kind = action_type(tool)
    args = args if isinstance(args, dict) else {}
    tags: set[str] = set()
    if kind == "shell" or (kind == "other" and _command_text(args)):
        tags |= command_tags(_command_text(args), workspace)
    if kind == "file_write":
        for path in _paths(args):
            if _outside(path, workspace):
                tags.add("outside_workspace")
    if kind == "network":
        tags.add("network")
    if kind == "agent_management":
        tags.add("agent_management")
    level = max_level([BASE_LEVEL[kind], *(TAG_LEVEL.get(t, "unknown") for t in tags)])
    return Risk(kind, level, sorted(tags))


def _command_text(args: dict[str, Any]) -> str:
    for key in _COMMAND_KEYS:
        value = args.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            # ["bash", "-lc", "rm -rf x"]: the script is the last word
            return value[-1] if len(value) >= 3 and value[1] in ("-c", "-lc") else \
                shlex.join(value)
    return ""


def _paths(args: dict[str, Any]) -> list[str]:
    paths = [args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)]
    edits = args.get("edits")
    for edit in edits if isinstance(edits, list) else []:
        if isinstance(edit, dict) and isinstance(edit.get("path"), str):
            paths.append(edit["path"])
    return paths


def _outside(path: str, workspace: str | None) -> bool:
    """Whether a path written to leaves the workspace (relative paths are inside unless
    they climb out with ``..``)."""
    text = path.strip()
    if text in ("/dev/null", "/dev/stdout", "/dev/stderr"):
        return False
    if text.startswith("~"):
        return True
    pure = PurePosixPath(text)
    if pure.is_absolute():
        return workspace is None or not _under(pure, PurePosixPath(workspace))
    depth = 0
    for part in pure.parts:
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            return True
    return False


def _under(path: PurePosixPath, root: PurePosixPath) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return ".." not in path.parts


def _tokens(command: str) -> tuple[list[str], bool]:
    """Shell words and operators (``;``, ``&&``, ``|``, ``>``...), and whether the quoting
    was balanced."""
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        return list(lexer), True
    except ValueError:
        return command.split(), False


def command_tags(command: str, workspace: str | None = None) -> set[str]:
    """Risk tags of a shell command line (every simple command in it)."""
    tags: set[str] = set()
    if re.search(r"(curl|wget)\b[^|]*\|\s*(sudo\s+)?(sh|bash|zsh|python3?)\b", command):
        tags.add("remote_code")
    tokens, balanced = _tokens(command)
    if not balanced:
        tags.add("unparsed_command")
    words: list[str] = []
    for i, token in enumerate(tokens):
        if token in _REDIRECTS:
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            if target and _outside(target, workspace):
                tags.add("outside_workspace")
            continue
        if i and tokens[i - 1] in _REDIRECTS:
            continue  # the redirect's target, not an argument
        if token and set(token) <= _OPERATOR_CHARS:
            tags |= _simple_command_tags(words, workspace)
            words = []
        else:
            words.append(token)
    return tags | _simple_command_tags(words, workspace)


def _simple_command_tags(words: list[str], workspace: str | None) -> set[str]:
    words = [w for w in words if w]
    while words and ("=" in words[0] and not words[0].startswith("-")):
        words = words[1:]  # FOO=bar cmd
    if not words:
        return set()
    tags: set[str] = set()
    head = PurePosixPath(words[0]).name
    if head in ("sudo", "doas", "su"):
        return {"privilege"} | _simple_command_tags(words[1:], workspace)
    if head in ("env", "nohup", "time", "nice", "timeout", "xargs", "exec"):
        rest = words[1:]
        while rest and (rest[0].startswith("-") or rest[0].replace(".", "").isdigit()):
            rest = rest[1:]
        return _simple_command_tags(rest, workspace)
    rest = words[1:]
    flags = "".join(w[1:] for w in rest if w.startswith("-") and not w.startswith("--"))
    long_flags = {w for w in rest if w.startswith("--")}
    if head == "rm":
        recursive = bool(set(flags) & {"r", "R", "f"}) or \
            long_flags & {"--recursive", "--force"}
        tags.add("delete_recursive" if recursive else "delete")
    elif head in ("rmdir", "unlink", "truncate"):
        tags.add("delete")
    elif head == "shred" or (head == "find" and "-delete" in rest):
        tags.add("delete_recursive")
    elif head in ("chmod", "chown", "chgrp"):
        tags.add("permissions")
    elif head in ("kill", "pkill", "killall"):
        tags.add("process_kill")
    elif head in _NET_COMMANDS:
        tags.add("network")
    elif head == "git":
        tags |= _git_tags(rest)
    elif head in ("cp", "mv", "install", "ln", "tee", "dd"):
        targets = [w.removeprefix("of=") for w in rest if not w.startswith("-") or
                   w.startswith("of=")]
        if head == "tee":
            targets = [w for w in rest if not w.startswith("-")]
        elif targets:
            targets = targets[-1:]
        if any(_outside(t, workspace) for t in targets):
            tags.add("outside_workspace")
    if head in ("python", "python3") and rest[:2] == ["-m", "pip"]:
        head, rest = "pip", rest[2:]
    if head in _INSTALLERS:
        verbs = _INSTALLERS[head]
        sub = [w for w in rest if not w.startswith("-")]
        if head == "uv" and sub[:1] == ["pip"]:
            sub = sub[1:]
        if verbs is None or (sub and sub[0] in verbs) or (head == "dpkg" and "-i" in rest):
            tags |= {"package_install", "network"}
    return tags


def _git_tags(rest: list[str]) -> set[str]:
    sub = next((w for w in rest if not w.startswith("-")), "")
    tags: set[str] = set()
    if sub == "push":
        tags |= {"git_push", "network"}
        if {"-f", "--force", "--force-with-lease"} & set(rest):
            tags.add("git_history_rewrite")
    elif sub in ("clone", "fetch", "pull", "ls-remote", "submodule"):
        tags.add("network")
    elif sub == "clean":
        tags.add("delete_recursive")
    elif (sub == "reset" and "--hard" in rest) or sub in ("filter-branch", "rebase") or \
            (sub == "checkout" and "--" in rest and "." in rest):
        tags.add("git_history_rewrite")
    return tags


def args_text(args: Any) -> str:
    """A tool call's arguments as one searchable text (checks match patterns against it)."""
    try:
        return json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return str(args)
