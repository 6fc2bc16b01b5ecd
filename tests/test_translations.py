"""The Simplified Chinese catalog keeps up with the UI: every string the templates and the UI code
mark for translation has a translation, nothing is fuzzy, and the committed .mo says exactly what
the .po says. (Developers regenerate the catalog with `manage.py makemessages -l zh_Hans` and
`compilemessages`; this test needs no gettext tools.)"""

from __future__ import annotations

import ast
import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.utils.translation.template import templatize

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
GETTEXT_FUNCTIONS = {
    "_": 1,
    "gettext": 1,
    "gettext_lazy": 1,
    "gettext_noop": 1,
    "ngettext": 2,
    "ngettext_lazy": 2,
    "pgettext": 2,
    "pgettext_lazy": 2,
}
# templatize() turns {% translate %} / {% blocktranslate %} into gettext calls xgettext can read.
_TEMPLATE_CALL = re.compile(
    r"\b(_|gettext|ngettext|pgettext|npgettext)\(\s*((?:u?'(?:[^'\\]|\\.)*'|u?\"(?:[^\"\\]|\\.)*\")"
    r"(?:\s*,\s*(?:u?'(?:[^'\\]|\\.)*'|u?\"(?:[^\"\\]|\\.)*\"))*)"
)
_LITERAL = re.compile(r"u?('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")


@dataclass
class Entry:
    msgid: str
    context: str | None = None
    plural: str | None = None
    translations: list[str] = field(default_factory=list)
    fuzzy: bool = False

    @property
    def key(self) -> tuple[str | None, str]:
        return (self.context, self.msgid)


def _templates() -> list[Path]:
    return sorted((ROOT / "templates").rglob("*.html"))


def _python_sources() -> list[Path]:
    return sorted(
        p
        for folder in ("graphui", "memory", "stratagate_site")
        for p in (ROOT / folder).rglob("*.py")
    )


def extracted() -> set[tuple[str | None, str]]:
    """(context, msgid) of every string marked for translation in templates and UI code."""
    found: set[tuple[str | None, str]] = set()
    for path in _templates():
        for name, args in _TEMPLATE_CALL.findall(templatize(path.read_text(), origin=str(path))):
            strings = [ast.literal_eval(s) for s in _LITERAL.findall(args)]
            if name in ("pgettext", "npgettext"):
                found.add((strings[0], strings[1]))
            else:
                found.add((None, strings[0]))
    for path in _python_sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name not in GETTEXT_FUNCTIONS:
                continue
            strings = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if not strings or not all(isinstance(s, str) for s in strings):
                continue
            if name.startswith("pgettext"):
                found.add((strings[0], strings[1]))
            else:
                found.add((None, strings[0]))
    return found


def _unquote(line: str) -> str:
    return ast.literal_eval(line.strip())


def parse_po(path: Path) -> list[Entry]:
    entries: list[Entry] = []
    current: Entry | None = None
    target: tuple[str, int] | None = None
    fuzzy = False
    for raw in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = raw.strip()
        if not line:
            if current is not None:
                entries.append(current)
            current, target, fuzzy = None, None, False
            continue
        if line.startswith("#~"):
            continue  # obsolete entries are not part of the catalog
        if line.startswith("#,"):
            fuzzy = "fuzzy" in line
            continue
        if line.startswith("#"):
            continue
        if line.startswith("msgctxt "):
            current = Entry(msgid="", context=_unquote(line[8:]), fuzzy=fuzzy)
            target = ("context", 0)
        elif line.startswith("msgid "):
            if current is None:
                current = Entry(msgid="", fuzzy=fuzzy)
            current.msgid = _unquote(line[6:])
            target = ("msgid", 0)
        elif line.startswith("msgid_plural "):
            assert current is not None
            current.plural = _unquote(line[13:])
            target = ("plural", 0)
        elif line.startswith("msgstr"):
            assert current is not None
            index = int(line[7]) if line.startswith("msgstr[") else 0
            text = line.split(" ", 1)[1]
            while len(current.translations) <= index:
                current.translations.append("")
            current.translations[index] = _unquote(text)
            target = ("msgstr", index)
        elif line.startswith('"') and current is not None and target is not None:
            kind, index = target
            piece = _unquote(line)
            if kind == "msgid":
                current.msgid += piece
            elif kind == "plural":
                current.plural = (current.plural or "") + piece
            elif kind == "context":
                current.context = (current.context or "") + piece
            else:
                current.translations[index] += piece
    return [e for e in entries if e.msgid]  # the header has an empty msgid


@pytest.fixture(scope="module")
def catalog() -> list[Entry]:
    return parse_po(CATALOG / "django.po")


def test_every_marked_string_has_a_chinese_translation(catalog: list[Entry]) -> None:
    translated = {e.key for e in catalog if e.translations and all(e.translations)}
    missing = sorted(
        f"{ctx + ' | ' if ctx else ''}{msgid}" for ctx, msgid in extracted() - translated
    )
    assert missing == [], f"{len(missing)} untranslated, e.g. {missing[:10]}"


def test_nothing_in_the_catalog_is_fuzzy(catalog: list[Entry]) -> None:
    assert [e.msgid for e in catalog if e.fuzzy] == []


def test_the_compiled_catalog_matches_the_source(catalog: list[Entry]) -> None:
    with (CATALOG / "django.mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    for entry in catalog:
        if entry.plural is not None:
            assert compiled.ngettext(entry.msgid, entry.plural, 1) == entry.translations[0]
        elif entry.context is not None:
            assert compiled.pgettext(entry.context, entry.msgid) == entry.translations[0]
        else:
            assert compiled.gettext(entry.msgid) == entry.translations[0], entry.msgid


def test_translations_keep_their_placeholders(catalog: list[Entry]) -> None:
    placeholder = re.compile(r"%\((\w+)\)[sdf]|%[sd]")
    wrong = [
        e.msgid
        for e in catalog
        for text in e.translations
        if sorted(placeholder.findall(text)) != sorted(placeholder.findall(e.msgid))
        and not (
            e.plural and sorted(placeholder.findall(text)) == sorted(placeholder.findall(e.plural))
        )
    ]
    assert wrong == []
