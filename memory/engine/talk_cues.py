"""The cues of talk around the facts rather than facts: advice (the assistant's own, or for
anyone in that spot), a case weighed, wishes and leave-taking, a figure the assistant worked out,
and memory recalled. Split from `memory.engine.offline_cues` when that passed 600 lines; read by
`memory.engine.offline_events` and `memory.engine.echoes`.
"""

from __future__ import annotations

from typing import Final

from memory.engine.offline_cues import cue

# Advice in general, not something that happened: "When a pilot gets cancelled it's worth keeping
# the notes", "試辦時可以先把暫停和取消的規則講清楚".
GENERIC_ADVICE: Final = cue(
    r"\b(?:when|whenever|if|in\s+case|once)\b[^.;!?]{0,40}\b(?:gets?|is|are)\s+(?:cancel\w*"
    r"|called\s+off|scrapped)|\bit['’]s\s+(?:worth|best|wise|good)\b|\b(?:usually|typically"
    r"|generally|often)\b"
    # What holds for others like the user: "Many elementary schools run a short welcome …".
    r"|^(?:many|most|a\s+lot\s+of|lots\s+of)\s+(?:[a-z-]+\s+){0,2}[a-z-]+s\b"
    r"|\bone\s+thing\s+worth\b",
    r"(?:时|時|的话|的話|如果|万一|萬一)[^，。]{0,12}(?:可以|建议|建議|最好)|可以先|最好先"
    r"|往往|一般来说|通常来说",
)
CONDITIONAL: Final = cue(r"\b(?:if|unless)\b|的话|的話|如果|假如|要是")
# A recommendation from the assistant: "I'd suggest keeping the snapshot", "建议加一个只读副本".
RECOMMENDATION: Final = cue(
    r"\b(?:i'd|i\s+would)\s+(?:suggest|recommend|advise)\b|\bi\s+(?:suggest|recommend)\b"
    r"|\bmy\s+recommendation\b|^(?:suggestion|tip|recommendation|one\s+(?:addition|idea|thought))"
    r"(?:\s+i['’]d\s+make)?\s*:"
    # Something drafted for the user: "Here's a holding SMS for the 07:10 bookings: …".
    r"|^(?:here['’]s|here\s+is)\s+(?:a|an|the|your)\s+(?:[\w:.-]+\s+){0,3}?(?:draft|template"
    r"|message|sms|text|email|e-mail|note|notice|reply|script|version|outline|timeline|checklist"
    r"|schedule|agenda|announcement|post|letter)\b",
    # What the assistant would do in the user's place: "I'd call the three late farms before
    # the April payment run", "I'd start with the busiest clinic".
    # "Then I'd block her October sailings", "For the Alder St quote I'd add …", "One addition
    # I'd make: put …", "Suggestion: offer the produce …".
    r"(?:^(?:so|and|then|personally|honestly)?,?\s*|[.;:]\s+|,\s+(?:so\s+|and\s+)?"
    r"|^(?:for|on|with)\s+[^,.;:]{2,40}?\s)"
    r"(?:i'd|i\s+would)\s+(?:start|run|call|reuse|keep|put|block|look\s+at|make|draft|offer|share|tell"
    r"|use|move|switch|book|send|schedule|add|try|ask|check|split|pick|choose|open|lock|push|hold"
    r"|wait|prioriti[sz]e|focus|consider|go\s+with|stick\s+with|set\s+up|block\s+out"
    r"|lead\s+with|budget|plan\s+for|loop\s+in|flag|confirm)\b",
    r"^(?:我)?(?:建议|推荐|建議)(?!你们?问)|[，,：:]\s*(?:我)?(?:建议|建議)(?!你们?问)"
    # "帮你拟了一版通知：…", "给你写了个草稿".
    r"|^(?:我)?(?:帮你|给你|替你)(?:拟|写|起草|整理)了?(?:一[版份个条篇]|个)",
)
# Wishes and leave-taking ("Have a great weekend!", "See you tomorrow"): never a plan, dated or not.
WISH: Final = cue(
    r"^(?:\w+[,!]\s+)?(?:have\s+(?:a|an|fun)|enjoy\s+(?:your|the|it)|good\s+luck|best\s+of\s+luck"
    r"|happy\s+\w+|congrat\w*|safe\s+travels|take\s+care|get\s+well)\b",
    # Mid-sentence too: "You're nearly there — good luck with the GM tomorrow".
    r"[—–,;:]\s*(?:and\s+)?(?:good|best\s+of)\s+luck\b",
    r"\bsee\s+(?:you|ya)\b|\b(?:talk|speak|chat)\s+(?:to\s+you\s+|with\s+you\s+)?(?:soon|later)\b"
    r"|\bcatch\s+(?:you|ya)\b",
    r"\b(?:cross(?:ing)?\s+(?:my|our)\s+fingers|fingers\s+crossed|rooting\s+for\s+you"
    r"|praying\s+for\s+you|thinking\s+of\s+you|proud\s+of\s+you)\b",
    r"^(?:祝你?|祝大家)|周末愉快|玩得开心|一路顺风|再见|回头见|明天见|下次见",
    # Encouragement before an exam or a talk: "别紧张，明早…祝你顺利！".
    r"祝(?:你|您)|别紧张|不要紧张|放轻松|好好发挥|正常发挥",
    # "早点休息，祝明天顺利！", "明天开会顺利！": a wish that something goes well.
    r"祝[^，。！？,]{0,10}顺利|(?:^|[，,])[^，。！？,]{0,12}(?<!不)顺利[！!~～]+$"
    # "…，祝明天天气给力！": a wish closing the sentence.
    r"|[，,]祝[^，。！？,]{1,12}[！!~～]*$",
    # Sending someone to bed: "Try to get some sleep", "早点睡吧", "先去休息吧".
    r"(?:try\s+to\s+|go\s+)?get\s+some\s+(?:sleep|rest)|go\s+to\s+bed",
    r"早点(?:睡|休息)|(?:先|快)?去(?:睡|休息)吧|好好休息",
)
# An assistant restating memory is not new evidence (notes §5.2): such sentences are skipped.
# An assistant's computed answer: a figure it works out for the user ("That is 8 vCPUs in total",
# "一年房租是42000元").
COMPUTED: Final = cue(
    r"\b(?:in\s+total|total(?:s|\s+of|\s+is)?|comes?\s+to|adds?\s+up\s+to|that(?:'s|\s+is)"
    r"|gives\s+you|works?\s+out\s+(?:to|at)|per\s+(?:year|month|week|day)|a\s+year|a\s+month)\b"
    r"|\byou(?:'ll|\s+will|'d|\s+would)?\s+need\s+(?:about|around|roughly|at\s+least|approximately)\b"
    r"|\byou\s+(?:can|could)\s+(?:run|fit|host|serve|handle|afford|support|store)\b",
    r"一共|总共|合计|总计|加起来|算下来|一年|每年|每月|大约|大概|能(?:同时)?(?:跑|扛|放|存|支持|容纳)",
)
RECALL: Final = cue(
    r"\b(?:you\s+(?:said|mentioned|told\s+me)|as\s+you\s+(?:said|mentioned)|according\s+to\s+"
    r"(?:my|your|the)\s+(?:memory|memories|notes)|i\s+remember\s+that|previously\s+you)\b",
    r"你说过|你提到|我记得|根据记忆|之前你说",
)
