"""A synthetic company directory for graph benchmarks (`load_demo --nodes N`), as roster rows.

Pure and deterministic for the same arguments. The world has the shape of a real graph: a few
hub organisations, libraries and tools that many rows point at (power-law choices), many leaf
people, and a second, later snapshot in which some people change employer or city and some
projects switch package manager or database — so the graph has history. Names are unique per
`offset`, so growing a namespace twice adds new people instead of meeting the old ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final


def _words(text: str) -> list[str]:
    """A word list reads best as words (the names below)."""
    return text.split()


FIRST: Final = _words("""
    Ana Ben Chloe David Elena Felix Grace Hugo Iris Jonas Kira Leo Mia Nina Omar Paula Quinn Rosa
    Sam Tara Uma Victor Wen Xavier Yara Zoe Aiko Bruno Carla Dmitri Eva Farid Greta Hana Ivan
    Julia Kenji Lena Marco Noor Olga Pedro Rui Sofia Tomas Ugo Vera Wei Ximena Yusuf Zara Amir Bea
    Caio Dara Emil Fleur Gil Hedda Ines""")
LAST: Final = _words("""
    Silva Novak Chen Garcia Kowalski Müller Rossi Dubois Tanaka Kim Nguyen Costa Ferreira Jensen
    Larsen Smith Brown Wang Li Zhang Petrov Haddad Okafor Mensah Santos Moreau Fischer Weber Romano
    Bianchi Sato Suzuki Park Lee Tran Pereira Almeida Hansen Nilsen Jones Taylor Liu Yang Ivanov
    Sokolov Aziz Eze Boateng Oliveira Martins Laurent Schulz Wagner Ricci Conti Ito Kato Choi Pham
    Lopes""")
ORG_A: Final = _words("Helix Northwind Bluefin Ironwood Quartz Meridian Lumen Cobalt Harbor Summit")
ORG_B: Final = _words("Systems Labs Works Analytics Logistics Robotics Health Energy Media Capital")
PROJ_A: Final = _words("""
    Orion Vega Lyra Atlas Nova Pulsar Quasar Comet Nebula Zenith Aurora Polaris Sirius Rigel
    Altair Deneb Castor Pollux Antares Electra""")
PROJ_B: Final = _words("""
    API Portal Engine Gateway Console Pipeline Tracker Planner Scheduler Insights Billing Search
    Mobile Sync""")
LIB_WORDS: Final = _words("""
    geo auth json http cache queue metrics logger config crypto dates forms charts maps i18n router
    store validate retry storage""")
PLACES: Final = _words("""
    Lisbon Porto Berlin Madrid Paris Amsterdam Warsaw Prague Dublin Vienna Hangzhou Shanghai""")
ROLES: Final = (
    "software engineer", "staff engineer", "product manager", "designer", "data analyst",
    "engineering manager", "site reliability engineer", "QA engineer",
)  # fmt: skip
PACKAGE_MANAGERS: Final = ("npm", "pnpm", "Yarn")
DATABASES: Final = ("PostgreSQL", "MySQL", "SQLite", "MongoDB")
FRAMEWORKS: Final = ("React", "Vue", "Svelte", "Angular")
OFFICE_SHARE: Final = 0.4  # people with a city (an office) in the directory; the rest are remote
MOVE_SHARE: Final = 0.08  # people who change employer (and some their city) in the update
SWITCH_SHARE: Final = 0.15  # projects that switch package manager or database


@dataclass(frozen=True)
class Person:
    name: str
    role: str
    org: str
    place: str  # "" for people who work remotely (no city in the directory)
    projects: tuple[str, ...]


@dataclass(frozen=True)
class Project:
    name: str
    package_manager: str
    database: str
    framework: str
    libraries: tuple[str, ...]
    depends_on: tuple[str, ...]


@dataclass(frozen=True)
class Library:
    name: str
    depends_on: tuple[str, ...]


Entity = Person | Project | Library


@dataclass(frozen=True)
class Row:
    """One roster line and what it states; `update` rows restate an entity's whole row."""

    line: str
    entity: Entity
    update: bool = False

    @property
    def key(self) -> str:
        return f"{type(self.entity).__name__}:{self.entity.name}"


def _unique(parts: tuple[list[str], list[str]], index: int, joiner: str = " ") -> str:
    a, b = parts
    base = f"{a[index % len(a)]}{joiner}{b[(index // len(a)) % len(b)]}"
    lap = index // (len(a) * len(b))
    return f"{base} {lap + 1}" if lap else base


def _library_name(index: int) -> str:
    lap = index // len(LIB_WORDS)
    return f"@nw/{LIB_WORDS[index % len(LIB_WORDS)]}" + (f"-{lap + 1}" if lap else "")


def _skewed(rng: random.Random, items: list[str]) -> str:
    """Power-law pick: the first items are hubs, the last ones leaves."""
    return items[min(len(items) - 1, int(len(items) * rng.random() ** 2.5))]


def _line(entity: Entity) -> str:
    if isinstance(entity, Person):
        return (
            f"{entity.name} | {entity.role} | {entity.org} | {entity.place or 'remote'} | "
            f"projects: {', '.join(entity.projects)}"
        )
    if isinstance(entity, Project):
        stack = f"{entity.package_manager}, {entity.database}, {entity.framework}"
        return (
            f"{entity.name} | stack: {stack} | libraries: {', '.join(entity.libraries)} | "
            f"depends on: {', '.join(entity.depends_on) or 'none'}"
        )
    return f"{entity.name} | depends on: {', '.join(entity.depends_on) or 'none'}"


def world_rows(*, size: int, offset: int) -> tuple[list[Row], list[Row]]:
    """(first snapshot, later updates) for about `size` new nodes (places are shared)."""
    rng = random.Random(f"stratagate-demo-{offset}-{size}")
    n_orgs, n_projects, n_libs = max(3, size // 100), max(5, size // 10), max(5, size // 12)
    n_people = max(1, size - n_orgs - n_projects - n_libs)
    orgs = [_unique((ORG_A, ORG_B), offset + i) for i in range(n_orgs)]
    projects = [_unique((PROJ_A, PROJ_B), offset + i) for i in range(n_projects)]
    libs = [_library_name(offset + i) for i in range(n_libs)]
    libraries = [
        Library(name, tuple(sorted({_skewed(rng, libs[:i]) for _ in range(rng.randint(0, 2))})))
        if i
        else Library(name, ())
        for i, name in enumerate(libs)
    ]
    stacks = [
        Project(
            name,
            _skewed(rng, list(PACKAGE_MANAGERS)),
            _skewed(rng, list(DATABASES)),
            _skewed(rng, list(FRAMEWORKS)),
            tuple(sorted({_skewed(rng, libs) for _ in range(rng.randint(1, 3))})),
            tuple(sorted({_skewed(rng, projects[:i]) for _ in range(rng.randint(0, 1))}))
            if i
            else (),
        )
        for i, name in enumerate(projects)
    ]
    people = [
        Person(
            _unique((FIRST, LAST), offset + i),
            rng.choice(ROLES),
            _skewed(rng, orgs),
            _skewed(rng, PLACES) if rng.random() < OFFICE_SHARE else "",
            tuple(sorted({_skewed(rng, projects) for _ in range(1 + (rng.random() < 0.3))})),
        )
        for i in range(n_people)
    ]
    entities: list[Entity] = [*libraries, *stacks, *people]
    snapshot = [Row(_line(e), e) for e in entities]
    updates: list[Row] = []
    for person in people:
        if rng.random() < MOVE_SHARE:
            org = rng.choice([o for o in orgs if o != person.org])
            place = rng.choice(PLACES) if person.place and rng.random() < 0.5 else person.place
            moved = Person(person.name, person.role, org, place, person.projects)
            updates.append(Row(_line(moved), moved, update=True))
    for project in stacks:
        if rng.random() < SWITCH_SHARE:
            if project.package_manager == "npm" or rng.random() < 0.5:
                switched = Project(
                    project.name, "pnpm" if project.package_manager != "pnpm" else "npm",
                    project.database, project.framework, project.libraries, project.depends_on,
                )  # fmt: skip
            else:
                database = "PostgreSQL" if project.database != "PostgreSQL" else "MySQL"
                switched = Project(
                    project.name, project.package_manager, database, project.framework,
                    project.libraries, project.depends_on,
                )  # fmt: skip
            updates.append(Row(_line(switched), switched, update=True))
    return snapshot, updates
