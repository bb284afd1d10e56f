"""Which environment variables hold secrets, by name (the values are redacted elsewhere).

A name is secret when it matches one of :data:`SECRET_NAME_PATTERNS` (shell globs,
case-insensitive) or a pattern the user adds, and is not one of the public names a CI
system sets (:data:`PUBLIC_NAMES`). Users add patterns in the environment variable
``AGENT_CANVAS_SECRET_NAMES`` (comma- or space-separated) or in the file
``secret-names.txt`` of the data folder (one pattern a line, ``#`` comments).
"""

import fnmatch
import re
from collections.abc import Iterable

ENV_SECRET_NAMES = "AGENT_CANVAS_SECRET_NAMES"
SECRET_NAMES_FILE = "secret-names.txt"

SECRET_NAME_PATTERNS: tuple[str, ...] = (
    "*_KEY", "*_KEYS", "*_KEY_ID", "*API_KEY*", "*APIKEY*", "*ACCESS_KEY*", "*PRIVATE_KEY*",
    "*SECRET*", "*TOKEN*", "*PASS*", "*CREDENTIAL*", "*_AUTH", "*_DSN", "*COOKIE*",
    "*DATABASE_URL*", "AWS_*", "GITHUB_*", "API_KEY", "TOKEN", "SECRET",
)
"""Names that look secret: keys, tokens, passwords, credentials, and the AWS_ and GITHUB_
families (GitHub Actions' public defaults are exempt, see PUBLIC_NAMES)."""

PUBLIC_NAMES = frozenset({
    ENV_SECRET_NAMES,
    # GitHub Actions' default variables: metadata about the job, not secrets.
    "GITHUB_ACTION", "GITHUB_ACTION_PATH", "GITHUB_ACTION_REPOSITORY", "GITHUB_ACTIONS",
    "GITHUB_ACTOR", "GITHUB_ACTOR_ID", "GITHUB_API_URL", "GITHUB_BASE_REF", "GITHUB_ENV",
    "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_GRAPHQL_URL", "GITHUB_HEAD_REF",
    "GITHUB_JOB", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_REF", "GITHUB_REF_NAME",
    "GITHUB_REF_PROTECTED", "GITHUB_REF_TYPE", "GITHUB_REPOSITORY", "GITHUB_REPOSITORY_ID",
    "GITHUB_REPOSITORY_OWNER", "GITHUB_REPOSITORY_OWNER_ID", "GITHUB_RETENTION_DAYS",
    "GITHUB_RUN_ATTEMPT", "GITHUB_RUN_ID", "GITHUB_RUN_NUMBER", "GITHUB_SERVER_URL",
    "GITHUB_SHA", "GITHUB_STATE", "GITHUB_STEP_SUMMARY", "GITHUB_TRIGGERING_ACTOR",
    "GITHUB_WORKFLOW", "GITHUB_WORKFLOW_REF", "GITHUB_WORKFLOW_SHA", "GITHUB_WORKSPACE",
})


def parse_patterns(text: str) -> list[str]:
    """Patterns from the env var (commas or spaces) or the file (lines, ``#`` comments)."""
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        out += [p for p in re.split(r"[\s,]+", line) if p]
    return out


def _compile(patterns: Iterable[str]) -> re.Pattern[str]:
    return re.compile("|".join(fnmatch.translate(p.upper()) for p in patterns) or "(?!)")


_BUILT_IN = _compile(SECRET_NAME_PATTERNS)


def is_secret_name(name: str, extra: Iterable[str] = ()) -> bool:
    """Whether a variable called ``name`` holds a secret (``extra``: the user's patterns)."""
    upper = name.upper()
    if upper in PUBLIC_NAMES:
        return False
    if _BUILT_IN.match(upper):
        return True
    extra = list(extra)
    return bool(extra) and bool(_compile(extra).match(upper))
