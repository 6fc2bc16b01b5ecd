"""Checks that a page's `?partial=` fragments are the page's own markup (graphui.partials)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from django.test import Client

_CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*(")')


def _plain(html: str) -> str:
    """The markup with each form's CSRF token blanked (it is masked afresh on every render)."""
    return _CSRF.sub(r"\1…\2", html)


def shows(whole: str, part: str) -> bool:
    """Whether the markup `part` appears as it is inside `whole` (CSRF tokens aside)."""
    return _plain(part).strip() in _plain(whole)


def fragment(client: Client, url: str, part: str) -> str:
    """`url` (its query string kept) with `?partial=<part>`: 200 and no layout around it."""
    response = client.get(f"{url}{'&' if '?' in url else '?'}partial={part}")
    assert response.status_code == 200, (url, part, response.status_code)
    html = response.content.decode()
    assert "<html" not in html and "<footer" not in html, (url, part)
    return html


def assert_fragments_are_in_the_page(client: Client, url: str, parts: tuple[str, ...]) -> None:
    """Each partial, served alone, is exactly what the whole page shows in its place: the same
    rows, from the same template, with nothing around them."""
    page = client.get(url)
    assert page.status_code == 200
    whole = page.content.decode()
    for part in parts:
        alone = fragment(client, url, part)
        assert alone.strip(), (url, part)
        assert shows(whole, alone), (url, part)


_VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class _TopLevel(HTMLParser):
    """The top-level elements of a fragment, each as written, by id."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=False)
        self.html = html
        self.starts = [0]
        for line in html.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.depth = 0
        self.opened: tuple[int, str] = (0, "")
        self.pieces: dict[str, str] = {}
        self.feed(html)
        self.close()

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.opened = (self._offset(), dict(attrs).get("id") or "")
        if tag not in _VOID:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        self.depth -= 1
        if self.depth == 0:
            start, element_id = self.opened
            end = self.html.index(">", self._offset()) + 1
            self.pieces[element_id] = self.html[start:end]


def top_level(html: str) -> dict[str, str]:
    """`{id: markup}` for each top-level element of `html`, in order."""
    return _TopLevel(html).pieces
