"""A plan called off ends the plan (`memory.engine.called_off`, applied by
`services.supersession`)."""

from __future__ import annotations

import pytest

from memory.engine.called_off import called_off, names_called_off


@pytest.mark.parametrize(
    ("said", "what"),
    [
        ("The village-hall tour's off though.", "village-hall tour"),
        ("Oh and scrap the four-day hygienist week.", "four-day hygienist week"),
        ("We cancelled the offsite because of the budget.", "offsite"),
        ("Also we're not doing the Steam Next Fest demo after all.", "Steam Next Fest demo"),
        ("成都那个培训取消了，老王不去了。", "成都那个培训"),
        ("夜间班决定不开了，教练人手不够", "夜间班"),
    ],
)
def test_what_is_called_off(said: str, what: str) -> None:
    assert called_off(said) == what


@pytest.mark.parametrize("said", ["I cancelled it.", "We're off to Rome.", "我今天不开心了。"])
def test_nothing_named_is_called_off(said: str) -> None:
    assert called_off(said) is None


@pytest.mark.parametrize(
    ("what", "earlier", "about"),
    [
        ("village-hall tour", "We're planning a village-hall tour in July.", True),
        ("village-hall tour", "The theatre tour to Leeds is in July.", False),
        ("成都那个培训", "老王下个月想去成都参加新能源三电维修的培训", True),
        ("成都那个培训", "老王下个月去重庆参加培训", False),
        ("夜间班", "我们打算今年暑假开个夜间班", True),
    ],
)
def test_the_plan_it_is_about(what: str, earlier: str, about: bool) -> None:
    assert names_called_off(what, earlier) is about
