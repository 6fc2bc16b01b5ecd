"""The export prompt (SPEC §11.1): what the user pastes into another AI so it writes down what
it remembers as `stratagate.external-memory.v2` JSON. English and Chinese, same rules."""

from __future__ import annotations

from typing import Final

from memory.errors import Invalid
from memory.services.imports.parser import SCHEMA_V2, SOURCE_TYPE

LANGUAGES: Final = ("en", "zh")

PROMPT_EN: Final = f"""\
Please export everything you remember about me as ONE JSON object and reply with that JSON
only (no prose before or after it; a ```json fence is fine). Use exactly this format:

{{
  "schemaVersion": "{SCHEMA_V2}",
  "sourceType": "{SOURCE_TYPE}",
  "sourceSystem": "<your product name, or \\"unknown\\">",
  "exportedAt": "<current time in RFC 3339 - only if you reliably know it, else omit>",
  "coverage": "full | partial | limited",
  "coverageNote": "<one sentence: what you could and could not export>",
  "uncertainItems": ["<things you are unsure about, briefly>"],
  "candidates": [
    {{
      "memoryKind": "instruction | preference | fact | event",
      "category": "instruction | identity | career | project | preference",
      "title": "<short, searchable>",
      "summary": "<one standalone, objective memory>",
      "narrative": "<optional longer context, only if needed>",
      "tags": ["<the category>", "<other keywords>"],
      "quotes": ["<my own words, verbatim - never yours>"],
      "temporal": {{
        "mentionedAt": "<when I told you>",
        "happenedStart": "<when it happened or starts>",
        "happenedEnd": "<when it ended or ends>",
        "originalText": "<the time wording as said, e.g. 'last spring'>",
        "precision": "instant | day | month | year | range | unknown",
        "basis": "explicit | relative | inferred | unknown",
        "status": "occurred | planned | cancelled | ongoing | unknown",
        "participants": ["<people, projects, organisations, tools, places>"],
        "eventType": "<one of the event types in rule 4>"
      }},
      "scope": "user | project | session",
      "criticality": "routine | preference | identity | safety",
      "confidence": 0.0
    }}
  ]
}}

Rules:
1. Order candidates: instructions I gave you, then identity, career, projects, preferences.
2. One independently checkable fact per candidate. If you remember contradictory versions of
   something, output each version as its own candidate.
3. Dates: use YYYY, YYYY-MM, YYYY-MM-DD, or an RFC 3339 instant only when the time and zone are
   known. Never invent precision: "in 2024" stays "2024" with precision "year". Never use the
   current time, the export time or the order of our chats as the time something happened.
   A relative expression ("last week") without a reliable reference date: keep it in
   originalText, set precision and basis to "unknown" and leave out happenedStart/happenedEnd.
4. eventType only for memoryKind "event", one of: decision, release, task_completed, plan,
   change, cancellation, incident, meeting, collaboration, migration, other.
   confidence is how sure you are (0 to 1).
5. Never output null: leave out any field you do not know.
6. Leave out anything sensitive: ID numbers, phone numbers, e-mail addresses, passwords, API
   keys, exact addresses, credentials.
7. If you remember nothing that qualifies, still answer with the JSON object, with
   "candidates": [] and "coverage": "limited".
"""

PROMPT_ZH: Final = f"""\
请把你记得的关于我的一切导出为「一个」JSON 对象，并且只回复这个 JSON（前后不要有任何说明文字；
可以放在 ```json 代码块里）。严格使用以下格式：

{{
  "schemaVersion": "{SCHEMA_V2}",
  "sourceType": "{SOURCE_TYPE}",
  "sourceSystem": "<你的产品名称，无法确定时写 \\"unknown\\">",
  "exportedAt": "<当前时间（RFC 3339）——仅当你确切知道时填写，否则省略>",
  "coverage": "full | partial | limited",
  "coverageNote": "<一句话：哪些能导出、哪些不能>",
  "uncertainItems": ["<你不确定的内容，简要列出>"],
  "candidates": [
    {{
      "memoryKind": "instruction | preference | fact | event",
      "category": "instruction | identity | career | project | preference",
      "title": "<简短、便于检索的标题>",
      "summary": "<一条独立、客观的记忆>",
      "narrative": "<可选：必要时的补充背景>",
      "tags": ["<类别>", "<其他关键词>"],
      "quotes": ["<我本人说过的原话，逐字引用——不要引用你自己的话>"],
      "temporal": {{
        "mentionedAt": "<我告诉你的时间>",
        "happenedStart": "<事情发生或开始的时间>",
        "happenedEnd": "<事情结束的时间>",
        "originalText": "<原话中的时间表述，例如「去年春天」>",
        "precision": "instant | day | month | year | range | unknown",
        "basis": "explicit | relative | inferred | unknown",
        "status": "occurred | planned | cancelled | ongoing | unknown",
        "participants": ["<相关的人、项目、组织、工具、地点>"],
        "eventType": "<规则 4 中的事件类型之一>"
      }},
      "scope": "user | project | session",
      "criticality": "routine | preference | identity | safety",
      "confidence": 0.0
    }}
  ]
}}

规则：
1. 候选顺序：我给你的指令 → 身份 → 职业 → 项目 → 偏好。
2. 每条候选只写一个可以独立判断真伪的事实。
   如果你记得某件事有相互矛盾的版本，请分别输出为独立的候选。
3. 日期格式只用 YYYY、YYYY-MM、YYYY-MM-DD；只有在确切知道时刻和时区时才用 RFC 3339 时间点。
   不要虚构精度：「2024 年」就写 "2024"，precision 为 "year"。绝不能把当前时间、导出时间或聊天顺序
   当作事情发生的时间。没有可靠参照日期的相对表述（如「上周」）：写进 originalText，precision 和
   basis 设为 "unknown"，并省略 happenedStart / happenedEnd。
4. 只有 memoryKind 为 "event" 时才填写 eventType，取值之一：decision、release、task_completed、
   plan、change、cancellation、incident、meeting、collaboration、migration、other。
   confidence 表示你的把握（0 到 1）。
5. 绝不输出 null：不知道的字段直接省略。
6. 不要包含任何敏感信息：身份证号、电话号码、电子邮箱、密码、API 密钥、精确住址、各类凭据。
7. 如果没有符合条件的记忆，也要输出这个 JSON 对象，其中 "candidates": []，"coverage": "limited"。
"""


def import_prompt(lang: str = "en") -> dict[str, str]:
    """The prompt in `lang` (en | zh) with the schema version it asks for."""
    if lang not in LANGUAGES:
        raise Invalid(
            f"lang must be one of {', '.join(LANGUAGES)}",
            code="invalid_lang",
            details={"languages": list(LANGUAGES)},
        )
    return {
        "lang": lang,
        "schema_version": SCHEMA_V2,
        "prompt": PROMPT_EN if lang == "en" else PROMPT_ZH,
    }
