"""The demo conversation as data: four sessions of a software project, spread over September
and early October 2026 (UTC), phrased so the offline processor finds decisions that get
superseded, dated plans, a cancellation, an incident, meetings, preferences and people.

A line is `(when, user, assistant)` with `when` as "MM-DD HH:MM" in 2026 UTC; the assistant
answers one minute later. `tools` maps a 1-based turn number to the tool calls attached to that
turn's assistant message. The session's speaker is the user's name (it becomes the person in the
graph). One session is Simplified Chinese; a few turns mix both languages; one message holds a
fake API key so redaction shows in the UI.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Line = tuple[str, str, str]
ToolCall = dict[str, Any]


@dataclass(frozen=True)
class ScriptSession:
    session_id: str
    speaker: str
    lines: tuple[Line, ...]
    tools: Mapping[int, tuple[ToolCall, ...]] = field(default_factory=dict)


def tool(name: str, arguments: dict[str, Any], result: dict[str, Any]) -> ToolCall:
    return {"name": name, "arguments": arguments, "result": result}


def run_tests(arguments: dict[str, Any], summary: str, *, ok: bool = True) -> ToolCall:
    return tool("run_tests", arguments, {"summary": summary, "ok": ok})


# fmt: off
KICKOFF = ScriptSession(
    session_id="atlas-kickoff",
    speaker="Maya",
    lines=(
        ("09-01 09:02", "Hi! My name is Maya Chen. I'm a lead engineer on the logistics team.",
         "Nice to meet you, Maya. Tell me about the project and I can help set it up."),
        ("09-01 09:05",
         "I live in Lisbon. I work at Northwind Labs, and Atlas is our internal tool for planning "
         "warehouse routes.",
         "Got it: an internal route-planning tool for the Northwind logistics team."),
        ("09-01 09:10", "We'll use npm for the Atlas project.",
         "OK. The package.json now has scripts for dev, build and test."),
        ("09-01 09:14", "Let's use TypeScript and React with Vite for the Atlas app.",
         "Good choice. The scaffold is ready: src/, vite.config.ts and a strict tsconfig."),
        ("09-01 09:20", "For storage, we'll use SQLite for the Atlas app while it is small.",
         "SQLite works well for a prototype. There is a data/ folder and a migrations script."),
        ("09-01 09:25", "I prefer tabs over spaces for indentation.",
         "Noted. The .editorconfig sets indent_style = tab and Prettier has useTabs on."),
        ("09-01 14:00", "Can you add a lint script? I like strict ESLint rules.",
         "Added `npm run lint` with the recommended TypeScript rules."),
        ("09-01 14:10", "Here's the staging config line I used: api_key=sk-demo-1234567890abcdef",
         "Please keep secrets out of chat and out of the repo. Rotate that key and read it from "
         "an environment variable instead."),
        ("09-01 14:20", "Run the tests please.", "Done: 12 passed, 0 failed."),
        ("09-01 14:30", "Finish the prototype next week.",
         "Understood. The prototype scope stays small: routes list, map view and CSV export."),
        ("09-01 14:40",
         "We have a meeting with the design team on Thursday to review the wireframes.",
         "A one-page summary of the data model for the designers is in docs/."),
        ("09-01 14:50", "Thanks.", "Any time."),
        ("09-02 09:00", "Good morning. The CSV export is slow for 10k routes.",
         "Profiling shows the JSON to CSV conversion builds one big string. Streaming rows would "
         "fix it."),
        ("09-02 09:10", "Stream the rows then.",
         "Done. Exporting 10k routes now takes 0.4 s instead of 6 s."),
        ("09-02 09:20", "Please run the tests again.", "All green."),
        ("09-02 09:30", "What's our branching model?",
         "Short-lived feature branches, merged into main through pull requests."),
        ("09-02 09:40", "I always squash-merge, so keep that.", "Will do."),
        ("09-02 09:50", "Add a README section on how to run Atlas locally.",
         "Added: install the dependencies, then `npm run dev` serves http://localhost:5173."),
        ("09-03 10:00", "We met with Priya from design this morning; she liked the route map.",
         "Great. Should her notes become issues?"),
        ("09-03 10:10", "Yes, create issues for the three comments.",
         "Created #12 (map legend), #13 (empty states) and #14 (keyboard shortcuts)."),
        ("09-03 10:20", "I hate long-running CI jobs, keep the pipeline under five minutes.",
         "The pipeline takes about three minutes at the moment."),
        ("09-03 10:30", "I usually review pull requests after lunch.", "Noted."),
        ("09-03 10:40", "Tests?", "One failure in export.test.ts: the header row is missing."),
        ("09-03 10:50", "Fix the header row and rerun.", "Fixed. 16 passed."),
    ),
    tools={
        9: (run_tests({"path": "src/", "reporter": "dot"}, "12 passed, 0 failed"),),
        15: (run_tests({"path": "src/"}, "14 passed, 0 failed"),),
        20: (
            tool(
                "create_issues",
                {"titles": ["Map legend", "Empty states", "Keyboard shortcuts"]},
                {"created": [12, 13, 14]},
            ),
        ),
        23: (run_tests({"path": "src/"}, "15 passed, 1 failed: export.test.ts", ok=False),),
        24: (run_tests({"path": "src/"}, "16 passed, 0 failed"),),
    },
)

STORAGE = ScriptSession(
    session_id="atlas-storage",
    speaker="Maya",
    lines=(
        ("09-08 09:00", "npm installs are getting slow in CI and the lockfile keeps conflicting.",
         "pnpm would help here: a content-addressed store and a stricter lockfile."),
        ("09-08 09:05", "Let's switch to pnpm instead of npm for the Atlas project.",
         "Done: pnpm-lock.yaml is committed and CI runs pnpm install --frozen-lockfile."),
        ("09-08 09:15", "CI time dropped from 4 minutes to 90 seconds.", "Nice improvement."),
        ("09-08 09:30",
         "The staging server crashed last night because the disk filled up with logs.",
         "Log rotation is on now (7 days, 100 MB cap) with an alert at 80% disk usage."),
        ("09-08 09:40", "SQLite is struggling with concurrent writes from the route optimiser.",
         "That is expected with several writer processes. PostgreSQL handles concurrent writers "
         "well."),
        ("09-08 09:50", "Let's move to PostgreSQL for the Atlas app.",
         "OK. The docker-compose file has a PostgreSQL 16 service and the schema scripts are "
         "ready."),
        ("09-09 10:00", "We migrated the staging data of the Atlas app to PostgreSQL this morning.",
         "Row counts match on both sides: 40,112 routes."),
        ("09-09 10:15", "Please run the test suite against PostgreSQL.",
         "Two tests fail, both in date handling."),
        ("09-09 10:30", "Fix them, timestamps must be stored in UTC.",
         "Fixed: every timestamp column is timestamptz now. 60 passed."),
        ("09-09 10:45", "Let's cancel Friday's demo with the sales team, the map view isn't ready.",
         "A short note for the sales team is drafted."),
        ("09-09 11:00", "I'm a big fan of small pull requests.", "Small PRs it is."),
        ("09-09 11:10", "Finish the map view by September 18.",
         "Noted; the work is split into three tasks."),
    ),
    tools={
        7: (tool("run_sql", {"query": "select count(*) from routes"}, {"summary": "40112 rows"}),),
        8: (run_tests({"path": "src/", "database": "postgres"}, "58 passed, 2 failed", ok=False),),
        9: (run_tests({"path": "src/", "database": "postgres"}, "60 passed, 0 failed"),),
    },
)

BACKEND_ZH = ScriptSession(
    session_id="zh-backend-sync",
    speaker="李伟",
    lines=(
        ("09-15 10:00", "你好，我是Atlas项目的后端负责人。", "你好！有什么需要我帮忙的？"),
        ("09-15 10:05", "我住在杭州，平时远程办公。By the way, I work at Northwind Labs too.",
         "明白。"),
        ("09-15 10:10", "路线查询太慢了，Atlas项目决定用Redis做缓存。",
         "好的，路线查询已经加上缓存，过期时间是10分钟。"),
        ("09-15 10:30", "缓存命中率怎么样？", "压测结果：命中率92%，P95延迟从800毫秒降到120毫秒。"),
        ("09-15 10:40", "我喜欢用Vitest写单元测试，比Jest快。", "Vitest和Vite配合得很好。"),
        ("09-15 10:45", "好的", "收到。"),
        ("09-16 09:30", "昨天晚上支付接口出错了，大概有20分钟不可用。",
         "日志显示数据库连接池耗尽，连接池已经从10调到30。"),
        ("09-16 09:45", "周四下午3点开会评审缓存方案。", "好，方案和回滚步骤会一起准备好。"),
        ("09-16 10:00", "这周五的上线取消了，等迁移完成再说。", "明白，上线检查清单先保留。"),
        ("09-16 10:10", "帮我跑一下后端测试。", "全部通过。"),
        ("09-16 10:20", "下周三之前完成缓存失效的逻辑。", "好的，先写一份设计文档。"),
        ("09-16 10:30", "Atlas的前端还是React吗？", "是的，前端是React加Vite，包管理器是pnpm。"),
    ),
    tools={
        4: (
            tool(
                "run_benchmark",
                {"target": "/api/routes", "requests": 10000},
                {"summary": "hit rate 92%, p95 120 ms"},
            ),
        ),
        10: (run_tests({"path": "server/"}, "88 passed, 0 failed"),),
    },
)

RELEASE = ScriptSession(
    session_id="atlas-release",
    speaker="Maya",
    lines=(
        ("09-28 09:00", "Status update: I finished the prototype on Friday.",
         "Congratulations! That closes the prototype milestone."),
        ("09-28 09:10", "We plan to ship Atlas 1.0 on 2026-10-15.",
         "A release checklist is in docs/release.md."),
        ("09-28 09:20", "Let's use GitHub Actions for the Atlas repo.",
         "The release workflow builds, tests and publishes a Docker image on every tag."),
        ("09-28 09:30", "I never deploy on Fridays.",
         "Good rule. The release workflow has a guard for it now."),
        ("09-28 09:40", "I really like Neovim.", "The repo's editor settings are Neovim-friendly."),
        ("09-28 09:50", "Can you run the full test suite?", "All 142 tests pass."),
        ("09-30 10:00", "I moved to Porto in August.",
         "Porto shares Lisbon's time zone, so the schedule stays as it is."),
        ("09-30 10:10", "The map tiles are slow on mobile, 3 seconds to first render.",
         "Caching tiles in a service worker brought it down to 900 ms."),
        ("09-30 10:20", "We decided against server-side rendering for now.",
         "Agreed, client-side rendering keeps the deployment simple."),
        ("09-30 10:30", "Please run the end-to-end tests on the staging build.",
         "One flaky test in the route editor; it passed on retry."),
        ("09-30 10:40", "I'm allergic to peanuts, keep that in mind for the launch party catering.",
         "Noted, that goes to whoever orders the catering."),
        ("09-30 10:50", "The launch party is on October 16 in the Lisbon office.",
         "It is on the release calendar."),
        ("10-02 09:00", "Mixed update: 前端性能优化我们已经完成了，首屏时间降到1.2秒。",
         "Great — 1.2 s to first paint on mobile is well within the budget."),
        ("10-02 09:10", "李伟 says the Redis cache is stable, hit rate 92%.",
         "Good. That goes into the release notes."),
        ("10-02 09:20", "Draft the release notes for 1.0.",
         "Draft ready: route planning, map view, CSV export, pnpm and PostgreSQL under the hood."),
        ("10-02 09:30", "Can you tag the release candidate?",
         "Tagged v1.0.0-rc.1; the workflow built the image."),
        ("10-02 09:40", "I'll write the launch announcement myself.",
         "Sure, the release notes are a good starting point."),
        ("10-02 09:50", "Thanks, that's all for today.", "Have a good evening, Maya!"),
    ),
    tools={
        6: (run_tests({"path": ".", "coverage": True}, "142 passed, 0 failed, coverage 87%"),),
        10: (run_tests({"suite": "e2e", "target": "staging"}, "23 passed, 1 flaky"),),
        16: (tool("create_tag", {"tag": "v1.0.0-rc.1"}, {"message": "tag v1.0.0-rc.1 created"}),),
    },
)
# fmt: on

SESSIONS: tuple[ScriptSession, ...] = (KICKOFF, STORAGE, BACKEND_ZH, RELEASE)
# The events the demo forgets and pins, found by a verbatim piece of their summary.
FORGET_QUOTE = "review pull requests after lunch"
PIN_QUOTE = "I never deploy on Fridays"
