"""The banner of a run nothing runs is in the theme's colours: a calm fill for a run left
paused, a warning one for a run whose service went away, its text readable on both, in
either theme, and recoloured when the theme changes while it shows."""

from __future__ import annotations

import pytest
from contrast import contrast
from PySide6.QtGui import QColor

from desktop.ui.run.service_banner import ServiceBanner
from desktop.ui.theme import DARK, LIGHT, Theme


def fill_of(banner: ServiceBanner) -> QColor:
    """The colour drawn just inside the banner's border."""
    return banner.grab().toImage().pixelColor(4, 4)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=lambda t: t.name)
def test_each_tone_fills_in_the_theme_and_its_text_reads(qtbot, theme: Theme) -> None:
    banner = ServiceBanner()
    qtbot.addWidget(banner)
    banner.set_theme(theme)
    banner.resize(600, 60)
    banner.show_paused("It waits for an approval.")
    paused = fill_of(banner)
    assert paused == QColor(theme.diff_hunk)
    banner.show_lost("The service went away.")
    lost = fill_of(banner)
    assert lost == QColor(theme.diff_chg) and lost != paused
    for fill in (paused, lost):
        assert contrast(QColor(theme.text), fill) >= 4.5


def test_switching_the_theme_recolours_a_banner_on_show(qtbot) -> None:
    banner = ServiceBanner()
    qtbot.addWidget(banner)
    banner.set_theme(LIGHT)
    banner.resize(600, 60)
    banner.show_paused("It waits for an approval.")
    assert fill_of(banner) == QColor(LIGHT.diff_hunk)
    banner.set_theme(DARK)
    assert fill_of(banner) == QColor(DARK.diff_hunk)
