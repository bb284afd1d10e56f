"""``agent-canvas _rlimit-exec [--data=BYTES] [--cpu=SOFT:HARD] -- ARGV...``

Sets resource limits, then becomes ARGV. The stand-in for util-linux ``prlimit`` where
that is missing; it understands the same two options (:func:`sandbox.rlimit_prefix`).
"""

import os
import resource
import sys

LIMITS = {"--data": resource.RLIMIT_DATA, "--cpu": resource.RLIMIT_CPU}


def main(args: list[str]) -> int:
    if "--" not in args:
        sys.stderr.write("usage: rlimit_exec [--data=BYTES] [--cpu=SOFT:HARD] -- ARGV...\n")
        return 2
    split = args.index("--")
    options, argv = args[:split], args[split + 1:]
    for option in options:
        name, _, value = option.partition("=")
        soft, _, hard = value.partition(":")
        try:
            resource.setrlimit(LIMITS[name], (int(soft), int(hard or soft)))
        except (KeyError, ValueError, OSError) as exc:
            sys.stderr.write(f"cannot set the limit {option} here ({exc}); remove the node's "
                             "sandbox maxMemoryMb/maxCpuSec, or run it on Linux\n")
            return 126
    if not argv:
        return 0
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"cannot start {argv[0]!r}: {exc.strerror or exc}\n")
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
