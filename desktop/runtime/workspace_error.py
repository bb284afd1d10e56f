"""The error of a node's working folder that the user fixes: the turn fails, said in full."""


class WorkspaceError(RuntimeError):
    """The node's working folder cannot be had or made ready (a file is in its place, no
    permission, its worktree's setup command failed): the turn fails with this message,
    which names the folder and the fix."""
