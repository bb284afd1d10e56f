"""A number of seconds given on the command line (``--silence-sec``, ``--timeout-sec``)."""

from __future__ import annotations

import argparse
import math

MOST = 365 * 24 * 3600.0
"""A year: no wait is longer; a bigger number only overflows where it is stored (the
milliseconds of an evaluation's records)."""


def seconds(value: str) -> float:
    """The argparse type of a time limit: a positive, finite number of seconds, at most
    :data:`MOST`. ``float`` alone lets through a negative or zero limit (a run that stalls
    at once), ``nan`` (never reached, so silently no limit) and ``inf``; each is refused
    as a usage error, before anything runs."""
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not 0 < number <= MOST:  # false for nan too
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a time limit; give a positive number of seconds up to "
            f"{MOST:.0f} (a year), such as 300")
    return number
