"""Goals read from plain requests without the LLM, and what a request comes to before any plan: a goal, a question
back ("which phone?"), nothing to do, or that this home cannot do it (`l3mp.planning.impossible`).

The request's mentions are grounded over the whole graph, the plain reading of `l3mp.updates.reading` (request
mode: "me" is the speaker, "all the lights in the kitchen" names each) gives the literals that must hold, and
alike things are told apart by what is not so yet (only the lamp that is on can be switched off); when several
still fit, the answer is the question to ask. A request whose literals all hold already is satisfied. A request the
reading does not explain goes to the LLM (`l3mp.planning.goal`), over the context its grounded mentions give
(`grounded_context`); its literals are then settled the same way (`settle_goal`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from l3mp.domain.pddl_domain import Domain
from l3mp.domain.rules import RuleSet
from l3mp.domain.triplets import Fact
from l3mp.planning.goal import WILDCARD, Literal, holds
from l3mp.planning.impossible import DETERMINERS, clauses_of, why_impossible
from l3mp.planning.wording import BRING_WORDS, Wording, mend_signs, within_groups
from l3mp.planning.wording import EXCEPT_WORDS as _EXCEPT
from l3mp.retrieval.base import Retrieved
from l3mp.retrieval.context import DEFAULT_DEPTH, assemble
from l3mp.retrieval.grounding import ROOM_WORDS as _ROOM_WORDS
from l3mp.retrieval.grounding import Grounder, Lexicon, Mention, places_of, token_spans, tokens
from l3mp.updates import meaning
from l3mp.updates.gate import placed
from l3mp.updates.meaning import Stated
from l3mp.updates.reading import read, read_parts
from l3mp.world.graph import WorldGraph

GOAL, ASKED, SATISFIED, IMPOSSIBLE = "goal", "asked", "satisfied", "impossible"
KEEP_WORDS = frozenset({"leave", "keep", "stay", "stays", "remain", "remains", "still"})
"""Words of a clause that asks to keep a thing as it is ("but leave the bedside lamp on")."""
_KEEP_VERBS = frozenset({"leave", "keep", "stay", "stays", "remain", "remains"})
_DONT = frozenset({"don", "dont", "not", "never"})
_TO = frozenset({"in", "into", "on", "onto", "to", "inside", "at", "from", "back"})
_BREAKS = frozenset({"and", "then", "but", "so", "while", "please"})
_WISHES = frozenset({"should", "must", "ought", "need", "needs", "want", "wants", "like", "sure", "let", "make"})
"""Words that say what should be so ("the fridge should be closed"): a clause with one asks for that state."""
_DARK = frozenset({"dark", "darkness", "pitch", "gloomy", "dim", "see"})
_ONE = frozenset({"one", "ones"})
_REMINDER = re.compile(r"\b(?:(?:do\s*n[o']?t|never)\s+forget|remember|be\s+sure)\s+(?:to\s+)?", re.IGNORECASE)
"""Words that only remind ("don't forget to close the fridge", "remember to"): no negation of what follows."""
_BECAUSE_IT_IS = re.compile(r",\s*(?:it|they)(?:['\u2019](?:s|re)|\s+is|\s+are)\s+(?:so\s+|really\s+|very\s+|all\s+|"
                            r"pretty\s+)?(?:dirty|filthy|grubby|greasy)\s*[.!]?\s*$", re.IGNORECASE)
""""Put the bowl in the dishwasher, it's dirty": why, not what is asked (the bowl is to stay dirty or not as the
request's own verb says)."""
_WHEN = re.compile(r"\s+(?:right\s+(?:about\s+)?now|right\s+away|straight\s+away|asap|at\s+once|real\s+quick|when\s+"
                   r"you\s+can|"
                   r"when\s+you\s+get\s+a\s+(?:chance|sec|second|minute|moment)|"
                   r"(?:when|once|after)\s+(?:you(?:['\u2019]re|\s+are)|ur|youre|you\s+r)\s+(?:done|finished|through)|"
                   r"after(?:wards)?(?=\s*[.!?]*\s*$)|for\s+(?:now|the\s+(?:moment|time\s+being))|while\s+(?:you(?:['\u2019]re|\s+are)|ur|your|youre)\s+(?:at\s+it|"
                   r"(?:(?:out|in|up|down|over)\s+)?there))\b",
                   re.IGNORECASE)
"""Words that only say when ("right now", "when you get a chance"): no part of what is asked."""
_SHUT_OFF = re.compile(r"\bshut\s+(?=off\b|(?:everything|it|them)\s+off\b|(?:the|a|my|your|that|this)\s+"
                       r"[^,.;!?]+?\s+off\b)",
                       re.IGNORECASE)
""""Shut the TV off", "shut off the tap", "shut everything off": turn it off (not "shut" as closing)."""
_CAN_I_HAVE = re.compile(r"\b(?:can|could|may)\s+I\s+(?:please\s+)?(?:have|get)\s+(?=(?:a|an|the|some|my)\s)",
                         re.IGNORECASE)
""""Can I have a soda?": bring me a soda."""
_PITCH = re.compile(r"\b(?:pitch|completely|totally)[\s-]+(?:black|dark)\b", re.IGNORECASE)
""""It's pitch black in the laundry room": dark ("black" is no black thing)."""
_CANT_SEE = re.compile(r"\b(?:i\s+|we\s+)?(?:can|could)(?:n't|not|\s+not|'t|\s+barely|\s+hardly)?\s*"
                       r"(?:barely\s+|hardly\s+|even\s+)?see\b[^,.;!?]*?\bin\s+(?P<where>here|there|this\s+"
                       r"(?:kitchen|garage|office|hall(?:way)?|(?:bed|bath|living|dining|laundry)?room)(?:\s+\d)?)\b|"
                       r"\bit['\u2019]?s\s+like\s+a\s+cave\s+in\s+"
                       r"(?P<where2>here|there|(?:the\s+)?(?:kitchen|garage|office|hall(?:way)?|(?:bed|bath|living|"
                       r"dining|laundry)?\s*room)(?:\s+\d)?)\b", re.IGNORECASE)
""""I can barely see what I'm chopping in here", "it's like a cave in here (in the living room)": it is dark in here
(there)."""
_DARK_HERE = re.compile(r"\b(?:dark|dim|gloomy|bright)\s+in\s+(?:here|there|(?:the\s+)?(?:kitchen|garage|office|"
                        r"hall(?:way)?|(?:bed|bath|living|dining|laundry)?\s*room)(?:\s+\d)?)\b", re.IGNORECASE)
"""A room said dark or bright ("it's way too dim in here", "it's dark in the living room"): what follows names the
trouble of whoever is there."""
_THEIR_TROUBLE = re.compile(
    r"(?:\b(?:i|we)\s+(?:can(?:'t|not|\s+not|t)?|could(?:n't|nt)?)\s+(?:even\s+|barely\s+|hardly\s+|really\s+)*"
    r"(?:see|read|find)\b|\bmy\s+(?:head|eyes)\s+(?:is|are|'s|\u2019s|hurts?|aches?)\b|\b(?:i|we)\s+(?:nearly|almost|"
    r"just)\s+(?:walked|tripped|fell|bumped|ran|stepped)\b"
    r"|\b(?:hey\s+)?who\s+(?:turned|switched|shut|put)\s+(?:the|that|this|my)\s+(?:[a-z]+\s+)?(?:light|lamp)s?\s+"
    r"off\b)[^,.;!?]*[,.;!?]*|\bwith\s+(?:just|only)\s+(?:the|that|this|one|my)\s+(?:[a-z]+\s+)?(?:light|lamp)"
    r"(?:\s+on)?\b|(?:\b(?:uhh?|um+|oh|ugh|argh|hmm+)[,!.]*\s+)?\b(?:the|that|this|my)\s+(?:[a-z]+\s+)?(?:light|lamp)s?"
    r"\s+(?:just\s+)?(?:went|has\s+gone|"
    r"(?:'s|\u2019s)\s+gone)\s+(?:off|out)\b(?:\s*,)?(?:\s+and)?(?:\s+now)?", re.IGNORECASE)
""""I can't even see my plate", "my head is killing me", "who turned the light off??" beside a room said dark or
bright: the speaker's trouble, the reason to change the light, not a thing to change; so are "with just the
ceiling light" (the one on already) and "the light just went off and now ..." (what made it dark)."""
_TOO_BRIGHT = re.compile(r"\bthe\s+(?P<what>(?:[a-z]+\s+)?(?:light|lamp))\s+in\s+(?P<where>here|there)\s+(?:is|'s)\s+"
                         r"(?:(?:way\s+|far\s+|so\s+|too\s+)+bright|giving\s+me\s+(?:such\s+)?a\s+headache|hurting\s+"
                         r"my\s+eyes|blinding(?:\s+me)?)\b", re.IGNORECASE)
""""the light in here is giving me such a headache": turn off the light in here."""
_ANNOYING = re.compile(r"\b(?P<what>(?:this|that|the)\s+(?:[a-z]+\s+)?(?:tv|telly|television|light|lamp|tap|faucet))"
                       r"(?:\s+is|['\u2019]s)\s+(?:driving\s+me\s+(?:nuts|mad|crazy|insane|up\s+the\s+wall)|doing\s+"
                       r"my\s+"
                       r"head\s+in|(?:way\s+|so\s+|far\s+)*too\s+loud|so\s+loud)\b", re.IGNORECASE)
""""this tv is driving me nuts": turn it off."""
_EXCEPTION_SAID_AGAIN = re.compile(r"(?P<keep>\b(?:except|apart\s+from|but\s+not|besides)\b[^,.;!?]*?)(?:\s+please)?"
                                   r"\s*[,;]\s*(?:and\s+|just\s+)?(?:leave|keep)\s+(?:that\s+one|it|that|those|them|"
                                   r"this\s+one)\s+(?:on|off|open|closed|shut|running|as\s+it\s+is)\b", re.IGNORECASE)
""""lights off everywhere except the hallway please, leave that one on": the exception said again ("that one" is the
hallway's light, not every light)."""
_WHOLE_HOME = re.compile(r"\s+(?:in|of|around|throughout|across)\s+(?:the|this|my|our)\s+(?:whole\s+|entire\s+)?"
                         r"(?:house|home|flat|apartment)\b", re.IGNORECASE)
"""Words for the whole home ("every light in the house"): they narrow nothing."""
_NEEDS = re.compile(r"^(?P<what>[^,;.!?]+?)\s+(?:really\s+)?(?:needs|need)\s+(?:a\s+(?:good\s+|quick\s+)?|to\s+be\s+)?"
                    r"(?P<verb>wash|clean|scrub|rins|clos|shut|open|answer)\w*", re.IGNORECASE)
"""What a thing needs ("the red pan needs a good scrub", "every dirty dish in the bedroom needs washing"): the
request to do it ("wash the red pan")."""
_LYING = re.compile(r"\s+(?:(?:that|which)\s+(?:are|is)\s+(?:(?:sitting|lying|standing|left|(?:piled|stacked|"
                    r"heaped)(?:\s+up)?)\s+)?|(?:sitting|lying|standing|(?:piled|stacked|heaped)\s+up)\s+)"
                    r"(?=(?:in|on|inside)\b)", re.IGNORECASE)
"""Words that only say where things are ("the dishes that are sitting in the sink", "the dishes piled up in the
sink": the dishes in the sink)."""
_LISTED = re.compile(r",\s+(?=(?:the|my|your|his|her|our)\s[^,.;!?]*\band\b)", re.IGNORECASE)
"""A comma between things listed before "and" ("wash the red cup, the grey mug and the bowl")."""
_FOR_PERSON = re.compile(r"\b(?P<verb>(?i:get|bring|fetch|grab|take))\s+"
                         r"(?P<what>(?i:the|a|an|some)\s[^,.;!?]+?)\s+for\s+(?P<person>[A-Z][a-z]+|me)"
                         r"(?=\s*(?:,?\s*please)?\s*[.!?]?\s*$)")
""""Get the ripe banana for Sarah": bring Sarah the ripe banana (a name with its capital, ending the request)."""
_WANTS = re.compile(r"(?:^|(?<=\band\s))(?P<person>[A-Z][a-z]+)\s+(?:wants|wanted|would\s+like|could\s+use|"
                    r"is\s+asking\s+for|"
                    r"asked\s+for)\s+"
                    r"(?:to\s+(?:read|eat|drink|have|use|borrow|look\s+at|play\s+with)\s+)?(?:her|his|the|a|an|some|"
                    r"that|"
                    r"this)\s+")
""""Sarah wants her orange magazine", "Michael wants to read the novel": give Sarah the orange magazine (a name
with its capital, opening it or after "and": "flip on the desk lamp, and Jessica wanted the purple cookbook too")."""
_BEEN_AFTER = re.compile(r"^(?P<person>[A-Z][a-z]+)(?:['\u2019]s|\s+has)\s+been\s+(?:craving|asking\s+for|after|"
                         r"wanting|"
                        r"dying\s+for|on\s+about)\s+(?P<what>(?:her|his|the|a|an|some|that|this)\s+[^,.;!?\-]+?)"
                        r"(?:\s+all\s+(?:morning|day|afternoon|evening|week|night)|\s+for\s+ages)?(?=\s*[,.;!?\-]|"
                        r"\s*$)")
""""Jessica's been craving a yogurt all afternoon", "David's been asking for the coffee beans all morning": Jessica
wants a yogurt (`_WANTS` reads it)."""
_BRING_HIM_ONE = re.compile(r"\s*[,;.]\s*(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:go\s+(?:and\s+)?)?"
                            r"(?:(?:bring|get|take|fetch|grab)\s+(?:him|her|them)\s+(?:one|it|some)\b|"
                            r"(?:bring|take|carry|pass|hand|run)\s+(?:it|one|that)\s+(?:(?:over|up|down|across|along|"
                            r"round|around)\s+)?to\s+(?:him|her|them)\b)(?:\s+please)?[.!?]*\s*$", re.IGNORECASE)
"""The request said again after what someone wants ("Michael wants a beer, go bring him one", "..., can you take it
over to her"): nothing more is asked."""
_SAYS_WANTS = re.compile(r"^(?P<person>[A-Z][a-z]+)\s+(?:is|was|'s|feels|seems)\s[^,.;!?]*[,.;]\s*(?:he|she)\s+"
                         r"(?:wants|would\s+like|could\s+use|needs)\s+(?:her|his|the|a|an|some)\s+")
""""Michael is craving something sweet, he wants the chocolate bar": give Michael the chocolate bar."""
_GO_AND = re.compile(r"\b(?:go|come)(?:\s+(?:a?round|through))?\s+and\s+", re.IGNORECASE)
""""Go and get it", "go round and close everything that's open": get it, close everything that's open."""
_NEEDED = {"scrub": "wash", "rins": "wash", "clos": "close", "shut": "close"}
_WASHING_UP = re.compile(r"\b(?:do|doing)\s+the\s+washing[\s-]+up\s+(?:of|for)\s+", re.IGNORECASE)
""""Do the washing up of the grey plate": wash the grey plate."""
_ALL_WASHING = re.compile(r"\b(?:do|doing)\s+(?:the|all\s+the)\s+(?:washing[\s-]+up|dishes)"
                          r"(?=\s*(?:$|[,.;!?]|please\b|for\s+me\b))", re.IGNORECASE)
""""Do the washing up", "do the dishes" (nothing named after it): wash all the dirty dishes."""
_WANTS_TO_DO = re.compile(
    r"^\s*(?P<who>[A-Z][a-z]+|he|she|they|I|we)(?:['\u2019]s|\s+is|['\u2019]d|\s+would|['\u2019]m|\s+am)?\s+"
    r"(?:(?:wants|want|like|"
    r"trying|needs|need|going|about)\s+to|gonna)\s+(?!(?:have|get|be|eat|drink)\b)[a-z]+\b[^,.;!?\u2026-]*"
    r"(?:[,.;!?\u2026]+|\s+-+)\s*(?=\S)", re.IGNORECASE)
""""Sarah wants to watch the game, put the TV on ...": what someone means to do says why, at the start before a
pause; the request is the rest, "him" or "her" in it the one named ("... wants to have / eat ..." asks for the
thing: read as said)."""


def _without_what_they_mean_to_do(text: str) -> str:
    found = _WANTS_TO_DO.match(text)
    if found is None:
        return text
    rest, who = text[found.end():], found["who"]
    if re.search(r"\b(?:it|them|that|this|one)\b", rest, re.IGNORECASE):
        return text  # "... wants to look at the grey album, take it to him": what "it" is, is said before
    if who[0].isupper() and who != "I":
        rest = re.sub(r"\b(?:him|her|them)\b(?!\s+(?:own|room|bedroom)\b)", who, rest, count=1)
    return rest
_MY_OWN_PLAN = re.compile(r"\s*[,;]\s*(?:and\s+|as\s+|because\s+|since\s+)?(?:I|we)(?:'ll|\s+will|'m\s+going\s+to|"
                          r"\s+am\s+going\s+to|'re\s+going\s+to|\s+are\s+going\s+to|'d\s+rather)\s[^,.;!?]*"
                          r"[.!?]*\s*$", re.IGNORECASE)
""""..., I'll scrub that one myself later": what the speaker will do is no request (at the end, after a comma)."""
_DO_THE_DISHES = re.compile(
    r"\b(?:do|doing)\s+(?P<what>(?:the|all\s+the)\s+(?:dirty\s+)?(?:dishes|pots|pans|plates))\b", re.IGNORECASE)
""""Do the dirty dishes in the kitchen": wash the dirty dishes in the kitchen (a place after it says which)."""
_DIRTY_STUFF = re.compile(r"\b(?P<verb>do|wash|clean|scrub)\s+(?P<all>all\s+)?the\s+dirty\s+(?:stuff|things|lot)\b",
                          re.IGNORECASE)
""""do all the dirty stuff sitting in the sink": wash all the dirty dishes there (only dishes get dirty)."""
_I_WANT_BRING_IT = re.compile(r"^\s*(?:i|I)\s+(?:want|need|fancy)\s+(?P<what>(?:the|my)\s+[^,.;!?]+?)\s*[,.;!-]+\s*"
                              r"(?:(?:can|could)\s+(?:you|u)\s+)?(?P<verb>bring|fetch|get)\s+it\s+(?:over\s+)?(?:here|to\s+me)"
                              r"\b", re.IGNORECASE)
""""I want the bag of chips, bring it over here?": bring me the bag of chips."""
_BRING_IT_TO_ME = re.compile(r"\b(?P<verb>bring|fetch)\s+(?P<what>(?:the|my)\s+[a-z]+(?:\s+[a-z0-9]+){0,5}?\s+(?:in|on|"
                             r"from)\s+(?:the\s+)?[a-z]+(?:\s+[a-z0-9]+){0,2}?)\s+to\s+me\b", re.IGNORECASE)
""""bring the cordless phone in the hallway to me": bring me the cordless phone in the hallway (the place says which,
it is not where it goes)."""
_IS_THERE_ANY = re.compile(
    r"\bis\s+there\s+(?:still\s+)?(?:any\s+(?:of\s+)?)?(?:that\s+|the\s+|some\s+)?(?P<what>[a-z]+(?:\s+[a-z]+)?)"
    r"(?:\s+(?:still|left))?(?P<where>\s+(?:in|on)\s+the\s+[a-z]+(?:\s+[a-z]+)?(?:\s+\d)?)?(?:\s+(?:still|left))?\s*\?+\s*"
    r"(?:i['\u2019]?d\s+kill\s+for|i\s+could\s+(?:really\s+)?(?:go\s+for|use)|that['\u2019]?d\s+be\s+(?:lovely|great|"
    r"perfect|amazing))\b[^.?!]*[.!?]*\s*$", re.IGNORECASE)
""""is there any of that leftover pizza still in the fridge? I'd kill for a slice": bring me the leftover pizza in the
fridge (a wish said as a question)."""
_NOT_JUST = re.compile(r"\s*[,;\u2013\u2014-]*\s*\bnot\s+just\s+(?:the\s+)?[^,.;!?]+", re.IGNORECASE)
""""Every dirty one in the house, not just the kitchen ones": those too (no exception)."""
_HEY_ROBOT = re.compile(r"^\s*(?:(?:hey|hi|oi|ok|okay)(?:\s+(?:robot|there))?|when(?:ever)?\s+you\s+(?:get|have)\s+a\s+"
                        r"(?:chance|sec|second|minute|moment))\s*[,!.]+\s*", re.IGNORECASE)
""""hey robot, turn on ...": who is spoken to; "When you get a sec, flip on ...": when (any time)."""
_RUN_THE_TAP = re.compile(r"\brun\s+(?P<what>the\s+(?:[a-z]+\s+)?(?:tap|faucet))\b", re.IGNORECASE)
""""run the tap for me": turn the tap on."""
_WANTS_MAKE_SURE = re.compile(
    r"^\s*(?P<who>[A-Za-z]+)\s+(?:wants|wanted|needs|needed|asked\s+for|is\s+after|was\s+after)\s+(?P<what>(?:the|her|his|"
    r"their)\s+[^,.;!?]+?)\s*[,.;!-]+\s*(?:can\s+you\s+|could\s+you\s+|please\s+)?make\s+sure\s+(?:she|he|they)"
    r"(?:['\u2019]s|\s+has|\s+have)\s+got\s+(?:it|them)\b", re.IGNORECASE)
""""sarah wants her hardcover novel, make sure she's got it": give Sarah her hardcover novel."""
_SIGN_AFTER = re.compile(r"\b(?P<verb>turn|switch)\s+(?P<what>(?:the|all\s+the|my|our)\s+[^,.;!?]+?)\s+"
                         r"(?P<sign>on|off)\b(?=\s+(?:in|inside)\b)", re.IGNORECASE)
""""Switch the lights off in bedroom 2": switch off the lights in bedroom 2."""
_KEEP_SIGN_AFTER = re.compile(r"\b(?P<verb>leave|keep)\s+(?P<what>(?:the|my|our)\s+[a-z]+(?:\s+[a-z]+)?)\s+"
                              r"(?P<sign>on|off|open|closed|shut)\s+(?P<where>(?:in|inside)\s+(?:the\s+)?[a-z]+"
                              r"(?:\s+room)?(?:\s+\d+)?)(?=\s*(?:$|[,.;!?]|and\b|but\b|please\b))", re.IGNORECASE)
""""leave the light on in the dining room": leave the light in the dining room on (the room says which light)."""
_GIVE_A_WASH = re.compile(r"\bgive\s+(?P<what>(?:the|my|our|all\s+the)\s+[^,.;!?]+?|it|them)\s+" + meaning.A_WASH,
                          re.IGNORECASE)
""""Give the teapot a good scrub": wash the teapot."""
_THANKS_AT_THE_END = re.compile(r"(?:[,.;!\s-]+|^)(?:thanks|thank\s+you|thx|ty|ta|cheers)(?:\s+(?:so\s+much|a\s+lot|"
                                r"mate|love|robot))?[.!]*\s*$", re.IGNORECASE)
""""..., thanks", "... ta": no part of the request."""
_EXCLAIMED_AT_THE_END = re.compile(r"(?<=[?.!])\s*(?:what\s+a\s+(?:waste|mess|pain|joke|nightmare)(?:\s+of\s+[a-z ]+)?|"
                                   r"(?:so|how)\s+(?:annoying|wasteful|rude|typical)|typical|honestly|unbelievable|"
                                   r"seriously)[.!?]*\s*$", re.IGNORECASE)
""""Who left the tap running in bathroom 3?? What a waste of water": a cry after what is asked, no part of it."""
_BARE_LIGHTS = re.compile(r"^\s*(?P<what>(?:(?:all\s+)?the\s+|all\s+)?lights?)\s+(?P<state>off|on)(?=\s+in\b)",
                          re.IGNORECASE)
""""lights off in bathroom 2, except the mirror one": turn the lights off (a request said without its verb)."""
_LEFT_OUT_THEN_IT = re.compile(
    r"^\s*(?:(?:ugh|oh|ahh?|man|gosh|wow|hmm+|argh|honestly|seriously)[,!.]*\s+)?(?:(?:pretty\s+sure|i\s+think|think|"
    r"i\s+reckon)\s+)?(?:somebody|someone|some\s+one|[A-Za-z]+)(?:['\u2019]s|\s+has|\s+had)?\s+(?:just\s+)?"
    r"(?:gone\s+and\s+)?left\s+"
    r"(?P<what>(?:the|my|his|her|their|our)\s+(?:(?!(?:open|on|off|running|out|wide|half|again|dark)\b)[a-z]+\s+){0,3}?"
    r"(?!(?:open|on|off|running|out|wide|half|again|dark)\b)[a-z]+)(?P<room>\s+in\s+(?:the\s+)?[a-z]+(?:\s+room)?\s+\d(?=\s+"
    r"(?:hanging|wide|open|on|running|out)\b))?(?:\s+(?:out|lying|sitting|lying\s+around|"
    r"(?:wide\s+|hanging\s+)?open|on|running))?"
    r"(?P<where>\s+(?:on|in|at)\s+(?:the\s+)?(?:[a-z0-9]+\s+){0,4}?[a-z0-9]+)?(?:\s+(?:again|earlier|before))?\s*"
    r"(?:[.,;!?\u2026-]+\s*)+"
    r"(?P<rest>[^.!?]*\bit\b[^.!?]*[.!?]*\s*)$", re.IGNORECASE)
""""somebody left the butter out AGAIN. can you put it back in the fridge": put the butter back in the fridge (where
it was left is where it is: the memory knows)."""
_LEFT_BOTH_THEN_THEM = re.compile(
    r"^\s*(?:(?:oops|whoops|ugh|oh|argh|sorry)[,!.]*\s+)?(?:somebody|someone|[A-Za-z]+)(?:['\u2019]s|['\u2019]ve|\s+has|"
    r"\s+had|\s+have)?\s+left\s+(?P<what>(?:the|my|his|her)\s+[a-z]+"
    r"(?:\s+[a-z0-9]+){0,3}?\s+and\s+(?:the|my|his|her)\s+[a-z]+(?:\s+[a-z0-9]+){0,3}?)\s+(?:wide\s+)?"
    r"(?:open|on|running|out)(?:\s+(?:on|in)\s+the\s+[a-z]+(?:\s+[a-z0-9]+)?)?"
    r"(?:\s+again)?\s*[.,;!?\u2026-]+\s*(?P<rest>[^.!?]*?\bthem\b(?:\s+both)?[^.!?]*[.!?]*\s*)$", re.IGNORECASE)
""""Jessica left the pantry and the dishwasher open, can you close them both": close the pantry and the
dishwasher; "oops I left the butter and the OJ out on the counter, could you put them back in the fridge": put the
butter and the OJ back in the fridge (where they were left, the memory knows)."""
_AND_LEAVE_IT_SO = re.compile(r"^(?P<ask>(?:please\s+|can\s+you\s+|could\s+you\s+)?(?P<verb>open|turn\s+on|"
                              r"switch\s+on)\s+[^.?!,;]+?)\s*(?:,\s*|\s+)(?:and\s+)?(?:just\s+)?leave\s+(?:it|them)\s+"
                              r"(?P<state>open|on)\b", re.IGNORECASE)
""""Open the pantry door and just leave it open": open it (what is done stays so)."""
_HOW_THEY_ARE_THEN_HER = re.compile(
    r"^\s*(?P<who>[A-Za-z]+)(?:['\u2019]s|\s+is)\s+(?:so\s+|really\s+|a\s+bit\s+)?[a-z]+\s*[,.;!-]+\s*"
    r"(?P<ask>(?:(?:can|could|would)\s+you\s+|please\s+)?(?:take|bring|give|get|fetch|hand|pass))\s+(?:her|him)\b",
    re.IGNORECASE)
""""jessica's bored, take her the comic book": take Jessica the comic book (how she is: why)."""
_SAID_THEN_IT = re.compile(
    r"^\s*(?P<what>(?:my|the|our|his|her)\s+[a-z]+(?:\s+(?!(?:is|was|has)\b)[a-z0-9]+){0,9}?)(?:['\u2019]s|\s+is|\s+was|"
    r"\s+has\s+been)\s+(?:still\s+)?(?:sitting|lying|dirty|left)\b[^.?!,;]*[.!?,;]+\s*(?:[^.?!]*\bit['\u2019]s\b[^.?!]*"
    r"[.!?]+\s*)?(?P<rest>(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:wash|clean|bring|take|put|give|rinse)\s+it\b"
    r"[^.?!]*[.?!]*\s*(?:cheers|thanks|thx|ta)?[.!]*\s*)$", re.IGNORECASE)
""""my green cup's still sitting dirty by the bed from last night. wash it and bring it to me?": wash my green cup
and bring it to me (what was said of it says which, and why)."""
_MAKE_SURE_NOT = re.compile(r"\bmake\s+sure\s+(?P<what>(?:the|my|our|his|her)\s+[^.?!,;]+?)\s+(?:isn['\u2019]?t|"
                            r"is\s+not|aren['\u2019]?t|are\s+not)\s+(?P<state>running|on|open)\b", re.IGNORECASE)
""""make sure the kitchen tap isn't running": make sure it is off."""
_OPPOSITE = {"running": ("off", "turn off"), "on": ("off", "turn off"), "open": ("shut", "close")}
"""A state said to be undone: (how it is then, what undoes it)."""
_WITHOUT_AT_THE_END = re.compile(r"\s+without\s+[a-z]+ing(?:\s+(?:her|him|them|anyone|anybody|everyone|everybody|me|"
                                 r"us|up))?(?=\s*[.!?]*\s*$)", re.IGNORECASE)
""""can you turn it off without waking her": how (no thing of the home; "without touching the lamp" keeps it)."""
_BEFORE_IT = re.compile(r"\s+before\s+it\s+(?:goes\s+(?:off|bad|warm)|melts|spoils|gets\s+warm)\b", re.IGNORECASE)
_BEFORE_VOICEMAIL = re.compile(r"\s+before\s+(?:it|they)\s+(?:goes|go)\s+to\s+(?:voicemail|the\s+machine|"
                               r"the\s+answering\s+machine)|\s+before\s+(?:it|they)\s+rings?\s+out|\s+before\s+"
                               r"(?:they|the\s+caller)\s+hangs?\s+up\b", re.IGNORECASE)
""""..., can you grab it before it goes to voicemail": before it stops ringing (grabbing it then answers it)."""
""""..., before it melts": why, not a request."""
_BACK_WITH_IT = re.compile(r"(?:^|(?<=[.!?]\s))\s*back\s+(?P<where>(?:in|on|into|onto)\s+the\s+(?:[a-z0-9]+\s+){0,3}?"
                           r"[a-z0-9]+)\s+with\s+(?P<what>it|them)\b", re.IGNORECASE)
""""Back in the fridge with it": put it back in the fridge."""
_WHERE_IT_LIVES = re.compile(r"\s+where\s+(?:it|they)\s+(?:lives?|belongs?|goes|go)\b", re.IGNORECASE)
""""put it back on the shelf where it lives": the shelf it belongs on (the memory recalls where it was)."""
_WATER_RUNNING = re.compile(r"\b(?:get|put|turn|switch|start)\s+(?:on\s+)?the\s+water\s+(?:running|on|going)?\s*"
                            r"(?=(?:at|in|over)\s+the\b)", re.IGNORECASE)
""""get the water running at the sink there": turn on the tap at the sink there (water is no thing of the home)."""
_WASH_WORDS = re.compile(r"\b(?:rinse|scrub|hand[\s-]?wash|handwash)(?:\s+out)?"
                         r"(?=\s+(?:the|my|our|all|every|each|this|that|these|those|whatever|everything)\b)",
                         re.IGNORECASE)
""""Rinse the glass", "scrub the pan": wash it."""
_OH = r"(?:(?:ugh|oh|ahh?|man|gosh|wow|hmm+|mm+|ok|okay|so|honestly|ooh)[,!.]*\s+)?"
"""A word of feeling that may open a request ("man, ...", "mmm ...")."""
_GO_FOR = re.compile(r"^" + _OH + r"I\s*(?:(?:could|would|'d)\s+(?:really\s+|so\s+|totally\s+)?(?:go\s+for|do\s+with|"
                                  r"use|kill\s+for|die\s+for)\s+"
                     r"(?:some\s+of\s+(?:the|that|this|those|my)|some|a|an|the|that|this)|(?:'d|\s+would)\s+(?:really\s+)?(?:love|like)\s+(?:some|a|an|the|"
                     r"my)|"
                     r"(?:really\s+)?fancy\s+(?:some|a|an|the)|(?:'m|\s+am)\s+craving\s+(?:some|a|an|the))\s+(?=\w)",
                     re.IGNORECASE)
""""I could really go for some chocolate", "I'd love a soda", "I fancy the banana", "I'd kill for some of that
pizza": bring me the chocolate (the speaker is "me")."""
_HUNGRY = re.compile("^" + _OH + r"I(?:'m|\s+am)\s+(?:so\s+|really\s+|kinda\s+|kind\s+of\s+|a\s+bit\s+|pretty\s+|"
                     r"a\s+little\s+)?"
                     r"(?:hungry|thirsty|starving|peckish|parched|famished)\s*(?:[.!,;]+|\u2026)\s*"
                     r"(?:I\s*)?(?=(?:could|would|'d|really\s+fancy|fancy)\b)", re.IGNORECASE)
""""I'm kinda hungry... could really go for that bag of chips": what the speaker feels only says why (`_GO_FOR`
reads the rest)."""
_HUNGRY_AND_LEFT = re.compile(
    "^" + _OH + r"I(?:'m|\s+am)\s+(?:so\s+|really\s+|kinda\s+|kind\s+of\s+|a\s+bit\s+|pretty\s+|a\s+little\s+)?"
    r"(?:hungry|thirsty|starving|peckish|parched|famished)\s*(?:[.!,;]+|\u2026)\s*(?:(?:pretty\s+sure|i\s+think|"
    r"i\s+reckon)\s+)?I\s+(?:left|put|dropped)\s+(?:a|an|my|the|some)\s+(?P<what>[^.!?,;]+?)\s*[.!\u2026]*\s*$",
    re.IGNORECASE)
""""man I'm parched... pretty sure I left a water bottle on the desk in the office": bring me the water bottle on
the desk in the office (where the speaker left it says which; the feeling says what for)."""
_WOULD_BE_NICE = re.compile(
    r"^" + _OH + r"(?:I(?:'m|\s+am)\s[^.!?,;]*(?:[.!,;]+|\u2026)\s*)?"
    r"(?P<what>(?:a|an|some|the|that|this|my)\s+[^,.;!?]+?)\s+"
    r"would\s+(?:really\s+|so\s+|just\s+)?(?:be\s+(?:so\s+|really\s+|just\s+)?(?:great|lovely|nice|perfect|amazing|"
    r"wonderful|good|ace|brilliant)|hit\s+the\s+spot|save\s+(?:me|my\s+life))(?:\s+(?:right\s+"
    r"(?:about\s+)?)?now)?\s*[.!]*\s*$"
    r"|^" + _OH + r"(?:I(?:'m|\s+am)\s[^.!?,;]*(?:[.!,;]+|\u2026)\s*)?(?P<calling>(?:a|an|some|the|that|this|my)\s+"
                  r"[^,.;!?]+?)\s+"
    r"(?:is|'s)\s+(?:really\s+|totally\s+)?calling\s+(?:my\s+name|to\s+me)\s*[.!]*\s*$", re.IGNORECASE)
""""A granola bar would be lovely right now", "that banana on the table would really hit the spot" (after what the
speaker feels): bring me the granola bar."""
_PUT_ON = re.compile(r"\b(?:put|get)\s+(?P<what>(?:the|my|our)\s+[^,.;!?]+?)\s+on\b"
                     r"(?=\s*(?:$|[,.;!?]|in\b|please\b|for\b))", re.IGNORECASE)
""""Put the TV on in the living room" (on with no place after it): turn on the TV in the living room."""
_RETURN = re.compile(r"\breturn(?=\s+(?:the|my|his|her|our|your|this|that)\s)", re.IGNORECASE)
""""Return the atlas to the bookshelf": put the atlas on the bookshelf."""
_WHICH_IS = re.compile(r"\b(?P<det>all\s+the|all|every|each|any|the|that)\s+(?P<noun>[a-z]+)(?:\s+(?:next\s+to|"
                       r"beside|by|near)\s+(?:it|that|them))?\s+(?:that|which)\s*(?:['\u2019]s|['\u2019]re|\s+is|\s+are)\s+"
                       r"(?:still\s+|just\s+)?(?:hanging\s+|sitting\s+|wide\s+|left\s+)?(?P<state>ringing|open|dirty)\b",
                       re.IGNORECASE)
""""All the phones that are ringing": all the ringing phones; "that cupboard next to it that's hanging open": the open
cupboard (the state said before the noun, as the reading takes it, and says which; read before `_STILL_SO`)."""
_STILL_SO = re.compile(r"\s+(?:that|which)\s*(?:'s|'re|\s+is|\s+are)\s+(?:still\s+)?(?:open|on|running)\b"
                       r"(?=\s*(?:$|[,.;!?]|and\b|but\b|please\b|in\b))", re.IGNORECASE)
""""Close everything that's open", "turn off the lights that are on": what the verb changes is only what is so."""
_NOBODY_LEFT = re.compile(r"\b(?:make\s+sure|check)\s+(?:that\s+)?(?:(?:nobody|no\s+one|no-one|nobody's)\s+"
                          r"(?:has\s+)?left\s+|(?P<what>(?:the|my|our)\s+[^,.;!?]+?)\s+(?:isn't|is\s+not|wasn't|"
                          r"aren't|are\s+not|hasn't\s+been|haven't\s+been)\s+left\s+)", re.IGNORECASE)
""""Make sure nobody left the TV on", "make sure the TV isn't left on": don't leave the TV on (it is to be off)."""
_ASK_TO_CHECK = re.compile(r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?(?=(?:make\s+sure|check)\b)",
                           re.IGNORECASE)
""""Can you make sure nobody left the TV on?": make sure ... (`_NOBODY_LEFT` reads it)."""
_SO_IT_CAN = re.compile(r"\s+so\s+(?:that\s+)?(?:it|I|we|you|she|he|they)\s+(?:can|could|will|'ll|may)\s+"
                        r"(?!(?:go|get|come)\b)[^,.;!?]*(?=[.!?]*\s*$)", re.IGNORECASE)
""""Open the dishwasher so it can be loaded", "... so I can read": what the request is for, at its end."""
_HOLDING = re.compile(r"\b(?:the|that)\s+(?P<what>(?:[a-z]+\s+){0,3}?[a-z]+)\s+(?:that\s+)?(?P<who>[A-Z][a-z]+|she|he)"
                      r"(?:'s|\s+is|\s+was|\s+has\s+been)\s+(?:holding|carrying|reading|using)\b")
""""Put the purple textbook Jessica is holding back on the bookshelf": Jessica's purple textbook (the grounding
takes her thing to be the one she has)."""


def _whose(found: re.Match) -> str:
    who = found["who"]
    owner = {"he": "his", "she": "her"}.get(who, who + "'s")
    return f"{owner} {found['what']}"
_ROOMS_THING = re.compile(r"\bthe\s+(?P<room>(?:other\s+)?(?:kitchen|bathroom|bedroom|living\s+room|office|garage|"
                          r"laundry\s+room|hallway)(?:\s+\d+)?)'s\s+(?!(?:ringing|running|open|on|off|dirty|still|"
                          r"been|got|going|not|too|so|really|very|pitch|dark|all|lit|bright|freezing|cold|empty|a|an|the)\b)(?P<thing>[a-z]+)\b",
                          re.IGNORECASE)
""""the other kitchen's dishwasher": the dishwasher in the other kitchen (a room owns nothing)."""
_ROOM_DEVICE = re.compile(r"\bthe\s+(?P<room>(?:other\s+)?(?:kitchen|bathroom|bedroom|living\s+room|office|garage|"
                          r"laundry\s+room|hallway|dining\s+room)(?:\s+\d+)?)\s+(?P<thing>tv|telly|television)\b",
                          re.IGNORECASE)
""""the bedroom TV": the TV in the bedroom (so that a room without one is found out, not another room's TV)."""
_THAT_ONE = re.compile(r"(?<!\bnot\s)(?<!\bthe\s)\b(?:that|this)\s+one\b(?=\s+(?:up|off|on|out|too|as\s+well|"
                       r"please|for\s+me)\b|\s*[.,!?]|\s*$)", re.IGNORECASE)
""""Now the silver phone is ringing too, can you pick that one up?": pick it up (not "..., not that one")."""
_WITHOUT = re.compile(r",?\s+without\s+touching\s+", re.IGNORECASE)
""""Close the dishwasher without touching the lamp": close it but don't touch the lamp."""
_LEFT_IT = re.compile(r",\s+(?:I|we|he|she|they)\s+(?:left|put|dropped)\s+(?:it|them)\s+(?:on|in|at)\s+"
                      r"(?P<place>(?:the|my|his|her|our)\s+[^,.;!?]+?)\s*(?=[.!?]?\s*$)", re.IGNORECASE)
""""Bring me the smartphone, I left it on the desk in bedroom 2": the smartphone from the desk in bedroom 2."""


_SAID_OF_THEM = re.compile(
    r"^\s*(?P<name>[A-Z][a-z]+)(?:(?!\bthe\b)[^,.;!?]|\bthe\s+(?=(?:office|kitchen|bathroom|bedroom|garage|hallway|"
    r"living\s+room|laundry\s+room|dining\s+room|study|den)\b)){0,60}[,.;!]+\s*(?:(?i:please|could|can|would|will|you|"
    r"just|go|and)\s+)*(?P<verb>(?i:bring|take|get|fetch|grab|give|hand|pass))\s+(?:him|her|them)\s+(?=(?:the|a|an|"
    r"some|his|her|"
    r"their|that|this)\b)")
""""Sarah's hungry, please take her the apple": take Sarah the apple (a short clause of how the person named first
is, then a request to bring "him" or "her" something; a clause that names a thing is not dropped, one that names
a room is: "Michael went to the office to finish some work. Could you bring him the wine bottle?")."""


_US = re.compile(r"\b(?P<verb>pass|bring|get|grab|fetch|hand|give|chuck|toss)\s+us\b", re.IGNORECASE)
""""pass us the novel": pass me the novel (the one who asks)."""
_PLZ = re.compile(r"\b(?:plz|pls|plse|pleeease|pleease)\b", re.IGNORECASE)
_WOULD_YA = re.compile(r",?\s+(?:would|will|could|can)\s+(?:ya|you|u)(?=\s*[.!?]*\s*$)", re.IGNORECASE)
""""answer it would ya", "switch off the lights, would you?": asking, at the end."""
_FOR_ME = re.compile(r"\s+for\s+(?:me|us)\b(?=\s*(?:,?\s*please)?\s*(?:[.!?]|$))", re.IGNORECASE)
""""Could you open the fridge for me?": open the fridge (what is brought "for me" is read before: `_FOR_PERSON`)."""
_GERUNDS = {"bringing": "bring", "getting": "get", "fetching": "fetch", "grabbing": "grab", "taking": "take",
            "putting": "put", "giving": "give", "handing": "hand", "passing": "pass", "turning": "turn",
            "switching": "switch", "closing": "close", "shutting": "shut", "opening": "open", "washing": "wash",
            "answering": "answer", "picking": "pick", "moving": "move", "cleaning": "clean"}
_MIND = re.compile(r"(?:\b(?:would|do)\s+you\s+|(?:^|(?<=[,.;!?-]))\s*)mind\s+(?P<verb>" + "|".join(_GERUNDS)
                   + r"|wash)\b", re.IGNORECASE)
""""Would you mind bringing me the apple?", "..., mind shutting it?": bring me the apple, shut it ("would you mind
doing the dishes" is "mind wash the dishes" by then)."""
_NOBODY_THERE = re.compile(
    r"^\s*(?:nobody|no\s+one|no-one)(?:['\u2019]s|\s+is)\s+(?:in\s+)?(?P<room>(?:the\s+)?[a-z]+(?:\s+[a-z]+)?(?:\s+"
    r"\d+)?)"
    r"(?:\s+(?:now|anymore|any\s+more))?\s*[,.;!]+\s*(?P<rest>[^.!?]*?\b)in\s+there\b", re.IGNORECASE)
""""Nobody's in bedroom 2, switch off the lights in there": switch off the lights in bedroom 2."""


_SLANG_WORDS = {"u": "you", "ur": "your", "thats": "that's", "n": "and", "whats": "what's", "wat": "what",
                "gonna": "going to", "wanna": "want to", "gotta": "have to", "outta": "out of", "gimme": "give me",
                "lemme": "let me"}
_SLANG = re.compile(r"\b(?:" + "|".join(_SLANG_WORDS) + r")\b", re.IGNORECASE)
""""can u wash the serving dish thats in the dishwasher", "pots n pans": the words written out."""
_BELONGS = re.compile(
    r"(?P<what>\b(?:the|my|his|her|our)\s+[^,.;!?]+?)\s+(?:doesn['\u2019]?t|does\s+not|don['\u2019]?t|do\s+not)\s+"
    r"(?:belong|go|live)(?:\s+(?:in|on|at)\s+[^,.;!?]+?|\s+there|\s+here)?\s*[,.;!]+\s*(?:so\s+)?(?:please\s+|"
    r"could\s+you\s+|can\s+you\s+)?"
    r"(?:(?P<verb>put|move|take|bring|return)\s+(?:it|them)(?:\s+back)?|(?:it|they)\s+(?:lives?|belongs?|goes|go)"
    r"(?:\s+back)?)(?P<where>\s+(?:in|on|onto|into|to)\s+[^.!?]+?)?\s*(?=[.!?]|$)", re.IGNORECASE)
""""The green comic book doesn't belong in the bathroom, put it on the bookshelf", "... it lives on the bookshelf in
bedroom 1": put the green comic book on the bookshelf."""
_BELONGS_THERE = re.compile(
    r"^\s*(?P<what>(?:the|that|this|my|his|her|our)\s+[^,.;!?]+?)\s+(?:belongs|goes|lives)\s+(?:back\s+)?"
    r"(?P<where>(?:in|on|into|onto|inside)\s+[^,.;!?]+?)\s*[,.;!]+\s*(?:so\s+)?(?:please\s+)?"
    r"(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?(?:put|take|bring|move|return)\s+(?:it|them)"
    r"(?:\s+(?:back|away))?(?:\s+(?:there|back))?(?:\s+please)?\s*[.!?]*\s*$", re.IGNORECASE)
""""That green bowl on the side table belongs in the pantry. Put it away": put the green bowl on the side table in
the pantry."""


def _belongs_there(found: re.Match) -> str:
    """`_BELONGS_THERE` said as "put the green bowl from the side table in the pantry"."""
    what = re.sub(r"^(?:the|that|this)\s+", "", found["what"], flags=re.IGNORECASE)
    said = re.sub(r"\s+(?:on|in|inside)\s+", " from ", what, count=1)
    return f"put the {said} {found['where']}"


_ANSWER_THEM_ALL = re.compile(
    r"^[^,.;!?]*?\bphones\b(?:\s+(?P<where>(?:in|on)\s+(?:the\s+)?[a-z]+(?:\s+\d+)?))?[^,.;!?]*?\bringing\b[^,.;!?]*"
    r"[,.;!]+\s*(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?answer\s+"
    r"(?:them\s+all|all\s+of\s+them|both\s+of\s+them|them\s+both|them|both|all)\b", re.IGNORECASE)
""""Two phones are ringing at once! Answer both of them": answer all the ringing phones (in the room said)."""
_RINGING_THERE = re.compile(
    r"^\s*there['\u2019]?s\s+(?:an?\s+)?(?P<what>[a-z]+(?:\s+[a-z]+)?)\s+ringing\s+(?P<where>(?:in|on)\s+[^,.;!?]+?)"
    r"\s*[,.;!]+\s*(?:please\s+)?(?:(?:can|could|would|will)\s+(?:you|someone|somebody)\s+)?(?:please\s+)?"
    r"(?:answer|get|pick\s+up)\s+(?:it|that)\b", re.IGNORECASE)
""""There's a smartphone ringing in bedroom 5, can you answer it?": answer the smartphone in bedroom 5."""
_RINGING_IN = re.compile(
    r"^\s*(?:now\s+|and\s+now\s+)?(?:there['\u2019]?s\s+|there\s+is\s+)?(?:an?\s+|a\s+different\s+|another\s+|the\s+|"
    r"someone['\u2019]s\s+|somebody['\u2019]s\s+)?(?P<what>phone|smartphone|cordless|mobile|telephone|landline|something)"
    r"(?:['\u2019]s|\s+is)?\s+(?:ringing|going\s+off)\s+(?P<where>(?:in|on)\s+[^,.;!?\u2026]+?)\s*"
    r"(?:[-,.;!\u2014\u2026]+\s*)+"
    r"(?:please\s+)?(?:(?:can|could|would|will)\s+(?:you|u|someone|somebody)\s+)?(?:please\s+)?"
    r"(?:answer|get|grab|pick\s+up)(?:\s+(?:it|that(?:\s+one)?))?(?=\s*(?:please\s*)?[.!?]*\s*$)", re.IGNORECASE)
""""someone's phone is going off in bedroom 1 - can you answer it?", "a different phone ringing in bedroom 1, could
you grab that one", "Something's ringing in bedroom 1... would you get that?": answer the ringing phone there (the
one there that rings; only a phone rings)."""
_GET_THE_PHONE = re.compile(r"\b(?:get|grab|pick\s+up)\s+(?P<det>the|that)\s+(?:ringing\s+)?(?P<noun>phone|telephone)\b"
                            r"(?!\s+(?:for|to|from)\b)(?!\s+(?:and|then)\s+(?:bring|give|hand|put|take))",
                            re.IGNORECASE)
""""Can somebody get the phone?": answer the phone (not "get the phone for Sarah", "get the phone and bring it")."""

_THAT_IS_A_CALL = re.compile(
    r"^\s*(?:oh\s+|ah\s+)?(?:that['\u2019]?s|that\s+is|it['\u2019]?s|it\s+is|must\s+be|probably)\s+(?:probably\s+|"
    r"prob\s+|"
    r"likely\s+|definitely\s+|gotta\s+be\s+|got\s+to\s+be\s+)?(?:my|his|her|our|their|the)\s+[a-z]+(?:\s+[a-z]+)?\s+"
    r"(?:calling|ringing)\b[^,.;!?]*[,.;!?\u2026]+\s*(?:(?:can|could|would)\s+(?:you|u)\s+)?(?:please\s+)?"
    r"(?:pick\s+it\s+up|pick\s+up|answer\s+it|get\s+it|grab\s+it)\b", re.IGNORECASE)
""""that's probably my mom calling. pick it up ...": answer the phone (which one rings settles which)."""
_WHO_CALLS_AT_THE_END = re.compile(
    r"\s*[,.;!\u2026-]+\s*(?:it['\u2019]?s|it\s+is|that['\u2019]?s|that\s+is|must\s+be)\s+(?:probably\s+|prob\s+|"
    r"likely\s+)?"
    r"(?:my|his|her|our|their|the)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:calling|ringing)\b[^,.;!?]*[.!?]*\s*$", re.IGNORECASE)
""""..., it's probably my mum calling": who, not what is asked."""
_THAT_THING_FIRST = re.compile(r"^(?P<lead>\s*(?:(?:ugh|oh|man|hey|so|um|uh|hmm+|honestly)[,!.]*\s+)*)that\s+"
                               r"(?!(?:is|was|one|ones|has|had|will|would|should|must|can|could|might|does|did)\b|"
                               r"['\u2019])",
                               re.IGNORECASE)
""""ugh that phone in bedroom 3 has been ringing for like five minutes": the phone."""
_NEED_AT_THE_END = re.compile(r"\s*[,;\u2013\u2014-]+\s*(?:i\s+|we\s+)?(?:need|needs)\s+(?:the|some|a|an|my|our)\s+"
                              r"[a-z]+(?:\s+[a-z]+)?(?:\s+(?:from|in|out\s+of)\s+(?:there|it))?\s*[.!?]*\s*$",
                              re.IGNORECASE)
""""open up the medicine cabinet in the bathroom pls, need the plasters": why (what is needed need not be here)."""
_BACK_OFF_THEM = re.compile(r"\b(?P<verb>get|take|grab)\s+(?P<it>it|them)\s+back\s+(?:off|from)\s+(?:him|her|them)\b",
                            re.IGNORECASE)
""""Michael borrowed the gold phone, get it back off him and put it ...": get it back ("off" is no state there)."""
_PHONES_GOING_OFF = re.compile(r"\b(?P<what>phones?|smartphones?|mobiles?|cordless(?:\s+phones?)?)\s+"
                               r"(?P<be>(?:is|are|'s|keep|keeps)\s+)?(?:going|went|goes|go)\s+off\b", re.IGNORECASE)
""""two phones going off at once?! answer them both": ringing ("off" is no state of a phone)."""
_OFF_SOMEONE = re.compile(r"\b(?P<verb>take|grab|get)\s+(?P<what>(?:the|her|his|my)\s+[a-z]+(?:\s+[a-z]+)?|it|them)\s+"
                          r"off\s+(?P<who>[A-Z][a-z]+|him|her|them|me)\b")
""""take the phone off Michael and hand it to Sarah": from Michael; "take it off me": from me."""
_IN_THE_SHOWER = re.compile(r"\s*[,.;!-]*\s*(?:i['\u2019]?m|i\s+am)\s+(?:in\s+the\s+(?:shower|bath|bathtub|loo|toilet)|"
                            r"on\s+the\s+(?:loo|toilet))\b[^.?!]*", re.IGNORECASE)
""""can u answer the phone please im in the shower": why the speaker cannot (no thing of the home)."""
_INTERROBANG = re.compile(r"(?:\?+!+|!+\?+)[?!]*")
""""two phones ringing at once?!": an exclamation, no question."""
_LEFT_AT_THE_END = re.compile(r"\s*[.?!,;]+\s*(?:somebody|someone|some\s+one|[A-Z][a-z]+)\s+(?:has\s+|must\s+have\s+)?"
                              r"left\s+(?:it|them|the\s+[^.?!,;]+?)\s+(?:running|on|open)(?:\s+again)?\s*[.!?]*\s*$",
                              re.IGNORECASE)
""""can you turn off the water in the bathroom? somebody left the tap running": why (who left it so)."""
_DIRTY_ONES_ALONE = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|right|so|alright)[,!.]*\s+)?(?:(?:dish(?:es)?|washing[\s-]+up)\s+time\s*[.!,;:\u2014-]+\s*)?"
    r"(?P<what>(?:every|all\s+(?:the|of\s+the)|each)\s+(?:single\s+|last\s+)?dirty\s+[a-z]+\b[^.?!]*?)[.!]*\s*$",
    re.IGNORECASE)
""""Ok dish time. Every single dirty dish in the house, wherever they've ended up.": a group of dirty things said
alone asks for them washed (only dishes get dirty)."""
_DONT_LEAVE_IT = re.compile(
    r"\b(?:don['\u2019]?t|do\s+not|never)\s+leave\s+(?P<what>(?:the|my|our)\s+[a-z]+(?:\s+[a-z0-9]+){0,3}?)\s+(?:hanging\s+|"
    r"wide\s+|standing\s+|sitting\s+)?(?P<state>open|on|running)\b(?:\s+(?:like\s+(?:last\s+time|before|yesterday|"
    r"always)|again|this\s+time|afterwards|after))*", re.IGNORECASE)
""""..., and don't leave the fridge hanging open like last time": close the fridge (what is left so at the end is
the goal)."""
_NEXT_TO_IT = re.compile(r"(?<=[a-z])\s+(?:right\s+)?(?:next\s+to|beside|by)\s+(?:it|that)"
                         r"(?=\s+(?:in|into|on|onto|to)\s)", re.IGNORECASE)
""""bring Jessica the energy drink, and put the dirty wine glass next to it in the dishwasher": the wine glass (where
it is says which only when the words do not; then the robot asks which). Only before where it goes: "put the lamp
next to it" says where."""
_EXCEPT_MINE = re.compile(r"\b(?P<but>except|but|apart\s+from|besides|other\s+than)\s+(?:for\s+)?(?:mine|my\s+own|"
                          r"my\s+one|the\s+one\s+in\s+my\s+room)\b(?:\s+(?:here\s+)?(?P<room>in\s+(?:the\s+)?"
                          + _ROOM_WORDS + r"(?:\s+\d)?)\b)?", re.IGNORECASE)
""""switch off all the lights except mine": except the ones in here (in the room of the speaker); "except mine here
in the living room": the ones in the living room."""
_LEAVING_FIRST = re.compile(
    r"^\s*(?:(?:ok|okay|right|so)[,!.]*\s+)?(?:i['\u2019]?m|we['\u2019]?re|we\s+are|i\s+am|everyone['\u2019]?s|everybody['\u2019]?s|"
    r"we['\u2019]?ll\s+be|i['\u2019]?ll\s+be)\s+(?:(?:just|all|about\s+to)\s+)?(?:heading|going|off|leaving|popping|"
    r"nipping|out)\b(?:(?!\s[\u2014\u2013-])[^,.;!?\u2014\u2013])*(?:[,.;!?\u2026]+|\s+[\u2014\u2013-]+)\s*(?=\S)",
    re.IGNORECASE)
""""we're heading out - turn everything off ...", "Everyone's heading out for the weekend. Turn ...": where the
speaker is going, said first, is why (the request is what follows)."""
_GET_THE_LIGHT = re.compile(r"\bget\s+(?P<what>(?:the|that|those)\s+(?:[a-z]+\s+)?lights?)\b",
                            re.IGNORECASE)
"""'can you get the light? I'm trying to sleep': which way the light goes is said only by why (`_light_wanted`)."""
_TO_SLEEP = re.compile(r"\b(?:sleep|sleeping|asleep|nap|napping|bed|bedtime|film|movie)\b", re.IGNORECASE)
_TO_SEE = re.compile(r"\b(?:dark|can['\u2019]?t\s+see|cannot\s+see)\b", re.IGNORECASE)


def _light_wanted(text: str) -> str:
    """'get the light' said with why: off to sleep or watch a film, on when it is dark or to read. Unchanged when
    why says neither or both (the words alone do not say which way)."""
    found = _GET_THE_LIGHT.search(text)
    if found is None:
        return text
    off, on = bool(_TO_SLEEP.search(text)), bool(_TO_SEE.search(text))
    if off == on:
        return text
    return f"{text[:found.start()]}turn {'off' if off else 'on'} {found['what']}{text[found.end():]}"


_LEFT_OPEN = re.compile(r"\b(?:whatever|anything|everything)(?:['\u2019]s|\s+(?:that|which)?\s*(?:['\u2019]s|is|has))?"
                        r"\s+(?:been\s+)?(?:left\s+)?open\b", re.IGNORECASE)
"""'shut whatever's been left open': everything that's open."""
_GO_ROUND = re.compile(r"\b(?:go|walk|head|have\s+a\s+look)\s+(?:a?round|through)\s+(?P<room>(?:the\s+)?" + _ROOM_WORDS
                       + r"(?:\s+\d)?)\s+and\s+(?P<rest>[^.?!]+)", re.IGNORECASE)
"""'go round the kitchen and shut everything that's open': all that is done is in that room."""
_RUNNING_FOR_AGES = re.compile(
    r"^\s*(?P<what>(?:the|my|our|that)\s+[a-z]+(?:\s+[a-z0-9]+){0,4}?)(?:['\u2019]s|\s+has|\s+is)\s+(?:been\s+)?"
    r"(?:left\s+)?(?P<state>running|on|open)\s+(?:for\s+(?:ages|hours|ever|a\s+while|too\s+long)|forever|"
    r"all\s+(?:day|night|morning|afternoon|evening))\b[^.?!]*[.!?]*\s*$", re.IGNORECASE)
"""'The bathroom tap's been running for ages, you know.': said as all there is to a request, it asks to undo it."""
_WHILE_IN_A_ROOM = re.compile(r"\bwhile\s+(?:you(?:['\u2019]re|\s+are)|ur|youre)\s+(?:up\s+|down\s+|over\s+|out\s+)?"
                              r"in\s+(?P<room>(?:the\s+)?" + _ROOM_WORDS + r"(?:\s+\d)?)\s*,?\s+(?P<rest>[^.?!]+)",
                              re.IGNORECASE)
"""'and while you're in bedroom 1 switch the light on': what is asked, done in that room."""
_JUST_THE = re.compile(r"\b(?:put|turn|switch|get)\s+(?:some\s+|a\s+|the\s+)?lights?\s+on\s+(?P<room>in\s+(?:the\s+)?"
                       + _ROOM_WORDS + r"(?:\s+\d)?)\s*[?.!]+\s*(?:just|only)\s+"
                       r"(?P<x>the\s+[a-z]+(?:\s+[a-z]+){0,3})\s*,?"
                       r"\s+(?:but\s+)?not\s+(?P<y>the\s+(?:(?:big|main|little|small)\s+)?[a-z]+(?:\s+[a-z]+){0,3})"
                       r"\s*[.!?]*\s*$", re.IGNORECASE)
"""'Can you put some light on in bedroom 1? Just the bedside lamp, not the big overhead one.': that light on in
that room, the other kept off."""
_WHATEVER_IN_THE_DISHWASHER = re.compile(
    r"^[^.?!]*?\bthe\s+(?P<what>" + meaning.DISHWASHER + r")\b[^.?!]*[.?!]+\s*(?P<ask>[^.?!]*?)\b"
    r"(?:whatever|everything)"
    r"(?:['\u2019]s|\s+is|\s+that['\u2019]s)?\s+in\s+(?:there|it)\b", re.IGNORECASE)
""""The dishwasher in kitchen 1 is acting up again. Can you just hand wash whatever's in there?": wash all the
dishes in the dishwasher in kitchen 1 (what is said of it first is why)."""
_EMPTY_IT = re.compile(
    r"^(?P<first>[^.?!]*?\bthe\s+(?P<what>" + meaning.DISHWASHER + r")\b[^.?!]*[.?!]+\s*)(?P<ask>[^.?!]*?\b(?:put|take|"
    r"move|bring|stick|pop))\s+(?:all\s+)?(?:the\s+)?(?:clean\s+)?(?:stuff|things|dishes|lot)\s+(?:from|out\s+of|in)\s+"
    r"(?:it|there)\b(?P<rest>[^.?!]*)", re.IGNORECASE)
""""The dishwasher in kitchen 2 is done. Put all the clean stuff from it away in the pantry": put all the dishes
from the dishwasher in kitchen 2 in the pantry (what is said of it first is why)."""
_GATHER_THEN_PUT = re.compile(
    r"\b(?:gather|collect|round|pick|scoop)\s+up\s+(?P<what>(?:all\s+)?(?:the|my|his|her|our)\s+[a-z ]+?)\s*,?\s+and\s+"
    r"(?:then\s+)?(?P<verb>put|bring|take|stick|pop|move)\s+(?:them|'em)\b", re.IGNORECASE)
""""gather up all the magazines and put them on the wall shelf": put all the magazines on the wall shelf."""
_TAKE_IT_OFF_THEN = re.compile(
    r"\b(?:take|get|grab)\s+(?P<it>it|them)\s+(?:off|from|away\s+from|back\s+from|off\s+of)\s+(?:her|him|them|"
    r"[A-Z][a-z]+)\s*,?\s+and\s+(?:then\s+)?(?P<verb>put|pop|stick|bring|take|return|place)\s+(?P=it)\b")
""""take it off her and pop it back on the kitchen counter": pop it back on the kitchen counter (taking it from the
one who has it is part of moving it)."""
_THAT_ROOM = re.compile(r"^(?P<before>.*\bin\s+(?P<room>(?:the\s+)?(?P<kind>" + _ROOM_WORDS + r")(?:\s+\d)))\b"
                        r"(?P<mid>.*?)\b(?:that|the\s+same)\s+(?P=kind)\b", re.IGNORECASE | re.DOTALL)
""""... the dishwasher in kitchen 2 ... the pantry in that kitchen": in kitchen 2 (the room of that kind named
before)."""
_DO_A_DISH = re.compile(r"\bdo\s+(?=(?:the|my|our|these|those|all\s+the)\s+(?:[a-z]+\s+){0,3}?(?:glass|glasses|bowl|"
                        r"bowls|plate|plates|mug|mugs|cup|cups|pan|pans|pot|pots|saucepan|saucepans|teapot|tray)\b)",
                        re.IGNORECASE)
"""'Could you do the green glass and the yellow salad bowl ...': wash them (doing a dish is washing it)."""
_DO_SOMETHING = re.compile(r"(?:[,.;!?]\s*|\s+(?:so|and)\s+)(?:(?:could|can|would|will)\s+(?:you|u|ya)\s+)?"
                           r"(?:please\s+)?(?:do|fix)\s+(?:something\s+(?:about|with)\s+)?(?P<what>(?:the|those|these)\s+"
                           r"(?:[a-z]+\s+)?(?:lights?|lamps?))\s*(?:please\s*)?[?.!]*\s*$", re.IGNORECASE)
"""'It's pitch black in here ... Could you do something about the lights?': after a dark room, the lights on
there."""
_DARK_THEN_LIGHTS = re.compile(r"^[^?]*?\b(?:dark|dim|gloomy)\s+in\s+here\b[^a-z]*?(?:(?:so\s+)?(?:(?:could|can|"
                               r"would)\s+"
                               r"(?:you|u)\s+)?(?:please\s+)?(?:turn|switch|put|flip|flick)\s+on\s+)?(?P<what>(?:the|those|"
                               r"these)\s+(?:[a-z]+\s+)?(?:lights?|lamps?))\s*,?\s*(?:maybe|perhaps|please)?\s*[?.!]*\s*$",
                               re.IGNORECASE)
""""I can barely read this recipe, it's so dark in here... the kitchen lights, maybe?": those lights on (in here,
when they name no room)."""
_ALL_LIT_UP = re.compile(r"^\s*(?P<room>(?:the\s+)?" + _ROOM_WORDS + r"(?:\s+\d)?)(?:['\u2019]s|\s+is)\s+(?:all\s+)?"
                         r"lit\s+up\b[^.?!]*?(?:nobody|no\s+one|no-one)(?:['\u2019]s|\s+is)?\s+(?:even\s+)?in\s+"
                         r"(?:there|it)\b[^?!]*[.!]*\s*$", re.IGNORECASE)
"""'The bathroom's all lit up and there's nobody in there.': the lights off there."""
_EVERYTHING_LISTED = re.compile(
    r"\b(?P<verb>turn|switch|shut)\s+(?:everything\s+off|off\s+everything)\s*[,:;\u2014\u2013-]+\s*(?P<list>(?:the\s+)?"
    r"(?!all\b)[a-z]+(?:\s*,\s*(?:and\s+)?(?:the\s+)?(?!all\b)[a-z]+)*(?:\s*,?\s*and\s+(?:the\s+)?(?!all\b)[a-z]+)?)"
    r"(?:\s*,?\s*(?:all\s+of\s+it|"
    r"the\s+lot|everything)\b)?", re.IGNORECASE)
""""turn everything off - lights, telly, taps, all of it": turn off all the lights, the telly and all the taps (what
"everything" is, is the list after it; a plural word names every one)."""


_EVERYTHING_THEN_SOME = re.compile(r"(?<=[?.!])\s*(?:(?:the\s+)?[a-z]+\s*,\s*)+(?:and\s+)?(?:the\s+lot|all\s+of\s+it|"
                                   r"everything|the\s+works)\s*[.!]*\s*$", re.IGNORECASE)
""""Could you switch everything off in here? Lights, telly, the lot.": what "everything" is, said after it as a few of
its things and "the lot": everything (read only after a sentence that says "everything")."""


def _everything_listed(found: re.Match) -> str:
    names = [re.sub(r"^(?:and\s+)?(?:the\s+)?", "", n.strip(), flags=re.IGNORECASE)
             for n in re.split(r"\s*,\s*|\s+and\s+", found["list"]) if n.strip()]
    said = [f"all the {n}" if n.endswith("s") else f"the {n}" for n in names]
    return f"{found['verb']} off " + (", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0])


_BOTH_ROOMS = re.compile(r"\b(?P<rooms>(?:the\s+)?" + _ROOM_WORDS + r"(?:\s+\d)?\s+and\s+(?:the\s+)?" + _ROOM_WORDS
                         + r"(?:\s+\d)?)\b(?P<mid>.*?)\b(?:in|of)\s+(?:both\s+(?:rooms|of\s+them)|them\s+both|both|"
                         r"each\s+(?:room|of\s+them))\b", re.IGNORECASE)
""""the office and the living room are both way too dark, can you put the lights on in both rooms": the lights in
the office and the living room."""
_DARK_FIRST = re.compile(r"^\s*(?:the\s+)?" + _ROOM_WORDS + r"(?:\s+\d)?(?:\s+and\s+(?:the\s+)?" + _ROOM_WORDS
                         + r"(?:\s+\d)?)?\s+(?:is|are|['\u2019]s|['\u2019]re)\s+(?:both\s+)?(?:(?:so|way|far|too|"
                         r"really|pretty)\s+)*(?:dark|dim|gloomy|pitch\s+black)\s*[,.;!\u2026-]+\s*"
                         r"(?=[^.?!]*\b(?:lights?|lamps?)\b)", re.IGNORECASE)
""""the office and the living room are both way too dark, can you put the lights on in both rooms": the rooms said
dark first are why; the request after it says which lights (`_BOTH_ROOMS` reads "both rooms" first)."""
_IN_THERE_TOO = re.compile(r"(?P<room>\bin\s+(?:the\s+)?" + _ROOM_WORDS + r"(?:\s+\d)?)\b(?P<mid>[^.?!]*?\band\s+"
                           r"(?:the|a)\s+[a-z ]+?\s+)in\s+there\b", re.IGNORECASE)
""""Turn on the floor lamp in living room 1, and the tv in there too": the TV in living room 1."""
_WENT_PAST_THEN_THERE = re.compile(
    r"^\s*I\s+(?:just\s+)?(?:walked|went|came|popped|looked|passed|wandered)\s+(?:past|by|into|in\s+to|through|in)\s+"
    r"(?P<room>(?:the\s+)?" + _ROOM_WORDS + r"(?:\s+\d)?)\s*,?\s*(?:and\s+)?(?P<rest>[^.?!]*?\bin\s+)there\b",
    re.IGNORECASE)
""""I just walked past the office and someone left the light on in there. Switch it off?": someone left the light on
in the office (where the speaker went only says which room "there" is)."""
_TOO_AT_THE_END = re.compile(r"\s+(?:too|as\s+well|also)(?=\s*,?\s*(?:please|pls|plz|thanks|thx)?\s*[.!?]*\s*$)",
                             re.IGNORECASE)
""""..., and the tv in there too pls": and the tv in there."""
_FOR_THEN_HIM = re.compile(r"\bfor\s+(?P<name>[A-Z][a-z]+)\s+and\s+(?:then\s+)?"
                           r"(?P<verb>take|bring|give|get|grab|fetch|hand|pass)\s+(?:him|her|them)\b")
""""put the tv on for Michael and take him the bag of chips": take Michael the bag of chips."""
_EVERY_SINGLE = re.compile(r"\b(?:every|each)\s+(?:single|last)\b|\beach\s+and\s+every\b", re.IGNORECASE)
""""switch every single light in the house off": every light."""
_WHICHEVER_RINGS = re.compile(r"\b(?:pick\s+up|get|grab|answer)\s+(?:whichever|whatever|any|all\s+the|the)\s+"
                              r"(?:phones?|ones?)\s+(?:that\s+)?(?:are|is|['\u2019]s|['\u2019]re)\s+(?:still\s+)?ringing\b",
                              re.IGNORECASE)
""""Can you pick up whichever phones are ringing?": answer every ringing phone ("pick up" a phone that rings is
answering it, not taking it)."""
_ANSWER_ALL_OF_THEM = re.compile(r"(?:^[^,.;!?]*\bphones?\b[^,.;!?]*\bringing\b[^,.;!?]*[,.;!?]+\s*)?"
                                 r"\b(?P<verb>answer|pick\s+up)\s+(?:them\s+(?:all|both)|(?:all|both|each)\s+of\s+"
                                 r"them)\b"
                                 r"(?:\s+up)?", re.IGNORECASE)
""""two phones ringing?! answer them both", "why is every phone ringing?? answer all of them": every phone that
rings ("them" can only be phones: only a phone is answered); what is said of them first is only why."""
_FOR_LIKE = re.compile(r"\bfor\s+like\s+", re.IGNORECASE)
""""for like five minutes": for five minutes ("like" is no wish there)."""
_WHATEVER_IS = re.compile(r"\b(?P<verb>wash|clean|rinse|scrub|do)\s+(?:up\s+)?(?:whatever(?:['\u2019]s|\s+is)|"
                          r"what(?:['\u2019]?s|\s+is)|everything(?:\s+that(?:['\u2019]s|\s+is))?|anything(?:\s+"
                          r"that(?:['\u2019]s|\s+is))?|whatever)\s+(?:(?:piled|"
                          r"stacked|sitting|"
                          r"left|lying)\s+(?:up\s+)?)?(?=(?:in|on)\s+the\b)", re.IGNORECASE)
""""wash whatever's piled up in the kitchen sink", "do whatever's piled up in ...": wash all the dishes in the kitchen
sink."""
_ANSWER_THAT = re.compile(r"\banswer\s+(?:it|that)\b", re.IGNORECASE)
_PHONE_WORDS = re.compile(r"\b(?:phone|phones|smartphone|cordless|mobile|telephone|landline|cell)\b", re.IGNORECASE)

_TOOK_FROM_THEN_BACK_THERE = re.compile(
    r"(?P<thing>\b(?:the|my|his|her|their|that)\s+(?:[a-z0-9]+\s+){0,3}?[a-z0-9]+)\s+(?:(?:that|which)\s+)?(?:she|he|they|"
    r"I|you|we|[A-Z][a-z]+)\s+(?:took|grabbed|got|pinched|nicked|borrowed)\s+(?:(?P<off>off)|from|out\s+of)\s+"
    r"(?P<place>(?:the|my|his|her|their)\s+(?:[a-z0-9]+\s+){0,3}?[a-z0-9]+)(?P<mid>\s*[,.;!-]+\s*[^.?!]*?\b(?:it|them)\s+"
    r"back\s+)there\b", re.IGNORECASE)
""""Jessica's done with the novel she took off the coffee table, can you put it back there?": put it back on the
coffee table (where it was taken from is "there")."""
_PICK_UP_FOR = re.compile(r"\bpick\s+up(?:\s+for\s+(?:him|her|them|me|us|[A-Z][a-z]+))?(?=\s*[.!?]*\s*$)",
                          re.IGNORECASE)
""""David's phone keeps ringing ..., could you pick up for him?": answer it (a phone said to ring before "pick up"
with nothing to pick up after it; `_RINGS`)."""
_RINGS = re.compile(r"\b(?:ringing|rings|ring|buzzing|going\s+off)\b", re.IGNORECASE)


def _answer_that(text: str) -> str:
    """"Can you answer that for me?" with no phone named: answer the phone (which one rings settles which)."""
    return text if _PHONE_WORDS.search(text) else _ANSWER_THAT.sub("answer the phone", text)


def _here_said(where: str) -> str:
    """"I can't see a thing in this bedroom": the room the speaker is in is "here"."""
    return "here" if where.lower().startswith("this") else where


_IN_A_ROOM = re.compile(r"^\s+in\s+(?:the\s+)?" + _ROOM_WORDS + r"(?:\s+\d)?$", re.IGNORECASE)


def _in_the_room(where: str | None) -> str:
    """" in kitchen 2" of "left the fridge open in kitchen 2": which fridge (where on a table it was left, the
    memory knows)."""
    return where if where and _IN_A_ROOM.match(where) else ""


_DARK_SAID_AGAIN = re.compile(r"(?<=\bdark)(?P<rest>\b[^,.;!?]*)\s*[,.;!?\u2026]+\s*it['\u2019]s\s+dark\s+in\s+"
                              r"(?:there|here)"
                              r"\s*[.!?\u2026]*\s*$", re.IGNORECASE)
""""somebody left the bathroom dark again, (I can't see a thing in there ->) it's dark in there": said once."""


_ASKED_THEN_IF_SO = re.compile(
    r"^\s*(?:is|are)\s+(?P<what>(?:the|that|my|our)\s+[^?]+?)\s+(?:still\s+)?(?:on|running|going|open|ringing)"
    r"(?P<where>\s+in\s+[^?]+?)?\s*\?+\s*(?P<verb>(?:turn|switch|shut|close|answer)(?:\s+(?:off|on))?)\s+(?:it|them)"
    r"(?P<particle>\s+(?:off|on))?\s*,?\s*if\s+(?:it\s+is|it['\u2019]s|they\s+are|so|yes|it\s+still\s+is)\s*[.!]*\s*$",
    re.IGNORECASE)
""""Is the TV still on in the living room? Turn it off if it is.": turn off the TV in the living room (nothing to
do when it is not)."""
_OUT_HERE = re.compile(r"\b(?P<what>lights?|lamps?|tv|telly|taps?)\s+out\s+here\b", re.IGNORECASE)
""""switch off all the lights out here": the lights in here (the room the speaker is in)."""
_SIZE_THE = re.compile(r"^the\s+(?:(?:big|main|little|small)\s+)?|(?<=\s)one$", re.IGNORECASE)


def _just_the(m: re.Match) -> str:
    """"Put the lights on in the living room? just the lamp, not the big one": turn on the lamp in the living room
    but not the light (the kind said by "one" is a light; a size word says nothing of which kind)."""
    kind = _SIZE_THE.sub("", m["y"])
    return f"turn on {m['x']} {m['room']} but not the {kind}{'light' if m['y'].lower().endswith(' one') else ''}"


def plain_request(task: str) -> str:
    """The request in plainer words, as the plain reading takes them: reminders dropped ("don't forget to close
    the fridge": close the fridge), words for the whole home dropped ("every light in the house"), what a thing
    needs said as the request to do it ("the pan needs a good scrub": wash the pan). Said plainer again until
    nothing changes (a few rounds at most): one plainer word may let another rule read the request."""
    text = _plainer(task)
    for _ in range(3):
        again = _plainer(text)
        if again == text:
            break
        text = again
    return text


def _plainer(task: str) -> str:
    task = _light_wanted(_LEFT_OPEN.sub("everything that's open", _GO_ROUND.sub(
        lambda m: f"{m['rest'].rstrip()} in {m['room']}", task)))
    task = _ALL_LIT_UP.sub(lambda m: f"turn off the lights in {m['room']}", task)
    task = _DARK_THEN_LIGHTS.sub(lambda m: f"turn on {m['what']}" + (
        "" if re.search(_ROOM_WORDS, m["what"], re.IGNORECASE) else " in here"), task)
    fix = _DO_SOMETHING.search(task)
    if fix is not None and (_DARK_HERE.search(task) or _PITCH.search(task) or _CANT_SEE.search(task)):
        task = f"turn on {fix['what']} in here"  # (what came before only says why)
    task = _RUNNING_FOR_AGES.sub(lambda m: f"{_OPPOSITE[m['state'].lower()][1]} {m['what']}", task)
    task = _WHILE_IN_A_ROOM.sub(lambda m: f"{m['rest'].rstrip()} in {m['room']}", _DO_A_DISH.sub("wash ", task))
    task = _OUT_HERE.sub(lambda m: f"{m['what']} in here", _JUST_THE.sub(_just_the, task))
    task = _ASKED_THEN_IF_SO.sub(lambda m: f"{m['verb']}{m['particle'] or ''} "
                                           f"{re.sub(r'(?i)^that ', 'the ', m['what'])}{m['where'] or ''}", task)
    text = _WHICH_IS.sub(lambda m: f"{'the' if m['det'].lower() == 'that' else m['det']} {m['state']} {m['noun']}",
                         task)
    text = _LYING.sub(" ", _STILL_SO.sub("", _WHOLE_HOME.sub("", _REMINDER.sub("", _WHEN.sub("", _BECAUSE_IT_IS.sub(
        "", _WHEN_DONE_FIRST.sub("", meaning.numbered_rooms(_INTERROBANG.sub("!", text)))))))))
    text = _EVERY_SINGLE.sub("every", _TOO_AT_THE_END.sub("", _LEFT_AT_THE_END.sub("", text)))
    text = _HINT_AT_THE_END.sub("", text) or text
    text = _PLEASE_AT_THE_END.sub("", text) or text  # "turn on the floor lamp and the tv please": only polite
    text = _WHY_AT_THE_END.sub("", _IN_THE_SHOWER.sub("", text)) or text
    text = _asked_then(_WITHOUT_AT_THE_END.sub("", text))
    text = _SAID_THEN_IT.sub(lambda m: re.sub(r"\bit\b", m["what"], m["rest"], count=1), text)
    text = _MAKE_SURE_NOT.sub(lambda m: f"make sure {m['what']} is {_OPPOSITE[m['state'].lower()][0]}", text)
    text = _HOW_THEY_ARE_THEN_HER.sub(lambda m: f"{m['ask']} {m['who']}", text)
    text = _AND_LEAVE_IT_SO.sub(lambda m: m["ask"] if (m["verb"].lower() == "open") == (m["state"].lower() == "open")
                                else m[0], text)
    text = _LEFT_BOTH_THEN_THEM.sub(lambda m: re.sub(r"\bthem(?:\s+both)?\b", m["what"], m["rest"], count=1), text)
    text = _ONLY_RINGING.sub(lambda m: f"answer {re.sub(r'^that', 'the', m['what'])}{m['where'] or ''}", text)
    text = _RINGING_THEN_ANSWER.sub(_ringing_then_answer, _TO_ME_HERE.sub(lambda m: m["me"], _BRING_IT_HERE.sub(
        lambda m: f"{m['verb']} {m['it']} to me", text)))
    text = _HEAR_WATER.sub(lambda m: f"the tap in {m['where']} is running", _LEFT_GOING.sub(
        lambda m: f"{m['lead']} running", _WHERE_I_WENT.sub("", text)))
    text = _MAKE_SURE_PUT.sub(lambda m: f"put {m['what']} {m['where']}", _MAKE_SURE_HAS.sub(
        lambda m: f"give {m['who']} {m['what']}", text))
    text = _FOR_THEN_HIM.sub(lambda m: f"for {m['name']} and {m['verb']} {m['name']}", text)
    text = _DIRTY_ONES_ALONE.sub(lambda m: f"wash {m['what']}", _NEXT_TO_IT.sub("", text))
    text = _DONT_LEAVE_IT.sub(lambda m: f"{_OPPOSITE[m['state'].lower()][1]} {m['what']}", text)
    some = _EVERYTHING_THEN_SOME.search(text)
    if some is not None and re.search(r"\beverything\b", text[:some.start()], re.IGNORECASE):
        text = text[:some.start()]
    text = _EVERYTHING_LISTED.sub(_everything_listed, _LEAVING_FIRST.sub("", _EXCEPT_MINE.sub(
        lambda m: f"{m['but']} the ones {m['room'] or 'in here'}", text)))
    text = _BOTH_ROOMS.sub(lambda m: f"{m['rooms']}{m['mid']}in {m['rooms']}", text)
    text = _DARK_FIRST.sub("", text)
    text = _WENT_PAST_THEN_THERE.sub(lambda m: f"{m['rest']}{m['room']}", text)
    text = _IN_THERE_TOO.sub(lambda m: f"{m['room']}{m['mid']}{m['room']}", text)  # (one thing only: the grounding
    # reads "in there")
    text = _without_what_they_mean_to_do(_MY_OWN_PLAN.sub("", _EXCEPTION_SAID_AGAIN.sub(lambda m: m["keep"], text)))
    text = _DIRTY_STUFF.sub(lambda m: f"wash {m['all'] or ''}the dirty dishes", text)
    text = _WANTS_MAKE_SURE.sub(lambda m: f"give {m['who']} {m['what']}", text)
    text = _BRING_IT_TO_ME.sub(lambda m: f"{m['verb']} me {m['what']}", text)
    text = _I_WANT_BRING_IT.sub(lambda m: f"{m['verb']} me {m['what']}", text)
    text = _IS_THERE_ANY.sub(lambda m: f"bring me the {m['what']}{m['where'] or ''}", text)
    text = _RUN_THE_TAP.sub(lambda m: f"turn on {m['what']}", _HEY_ROBOT.sub("", _NOT_JUST.sub("", text)))
    text = _DO_THE_DISHES.sub(lambda m: f"wash {m['what']}", _ALL_WASHING.sub("wash all the dirty dishes",
                                                                             _WASHING_UP.sub("wash ", text)))
    text = _HUNGRY_AND_LEFT.sub(lambda m: f"bring me the {m['what']}", text)
    text = _WOULD_BE_NICE.sub(lambda m: "bring me " + re.sub(r"^(?:that|this|some|a|an)\s+", "the ", m["what"] or m[
        "calling"], flags=re.IGNORECASE), _HUNGRY.sub("I ", text.strip()))
    text = _GO_FOR.sub("bring me the ", _CAN_I_HAVE.sub("bring me ", _PITCH.sub("dark", _SHUT_OFF.sub("turn ", text))))
    text = _CANT_SEE.sub(lambda m: f"it's dark in {_here_said(m['where'] or m['where2'])}", _TOO_BRIGHT.sub(
        lambda m: f"turn off the {m['what']} in {m['where']}", text))
    text = _DARK_SAID_AGAIN.sub(lambda m: m["rest"], text)
    if _DARK_HERE.search(text):
        text = _THEIR_TROUBLE.sub("", text).strip()
    text = _ANNOYING.sub(lambda m: f"turn off {m['what']}", text)
    text = _PUT_ON.sub(lambda m: f"turn on {m['what']}", text)
    text = _SIGN_AFTER.sub(lambda m: f"{m['verb']} {m['sign']} {m['what']}", text)
    text = _KEEP_SIGN_AFTER.sub(lambda m: f"{m['verb']} {m['what']} {m['where']} {m['sign']}", text)
    text = _WASH_WORDS.sub("wash", _GIVE_A_WASH.sub(lambda m: f"wash {m['what']}", text))
    text = _TAKE_IT_OFF_THEN.sub(lambda m: f"{m['verb']} {m['it']}", text)
    text = _GATHER_THEN_PUT.sub(lambda m: f"{m['verb']} {m['what']}", text)
    text = _EMPTY_IT.sub(lambda m: f"{m['ask']} all the dishes from the {m['what']}{m['rest']}",
                         _THAT_ROOM.sub(lambda m: f"{m['before']}{m['mid']}{m['room']}", text))
    text = _WHATEVER_IN_THE_DISHWASHER.sub(lambda m: f"{m['ask']}all the dishes in the {m['what']}", text)
    text = _WATER_RUNNING.sub("turn on the tap ", _THANKS_AT_THE_END.sub("", text))
    text = _BARE_LIGHTS.sub(lambda m: f"turn {m['state']} {m['what']}", _EXCLAIMED_AT_THE_END.sub("", text) or text)
    text = _BEFORE_VOICEMAIL.sub(" before it stops ringing", text)
    text = _WHERE_IT_LIVES.sub("", _BEFORE_IT.sub("", _BACK_WITH_IT.sub(
        lambda m: f"put {m['what']} back {m['where']}", text)))
    text = _LEFT_OUT_THEN_IT.sub(lambda m: re.sub(r"\bit\b", m["what"] + _in_the_room(m["room"] or m["where"]),
                                                  m["rest"], count=1), text)
    text = _RETURN.sub("put", text)
    text = _NOBODY_LEFT.sub(lambda m: f"don't leave {m['what'] + ' ' if m['what'] else ''}",
                            _ASK_TO_CHECK.sub("", text))
    text = _ROOMS_THING.sub(lambda m: f"the {m['thing']} in the {m['room']}", text)
    text = _THAT_ONE.sub("it", _SO_IT_CAN.sub("", _HOLDING.sub(_whose, text)))
    text = _WITHOUT.sub(" but don't touch ", text)
    text = _LEFT_IT.sub(lambda m: f" from {m['place']}", text)
    text = _LISTED.sub(" and ", text)
    text = _FOR_PERSON.sub(lambda m: f"bring {m['person']} {m['what']}", text)
    text = _WANTS.sub(lambda m: f"give {m['person']} the ", _BEEN_AFTER.sub(
        lambda m: f"{m['person']} wants {m['what']}", text))
    if text.startswith("give "):  # "Michael wants a beer, go bring him one": the same, said twice
        text = _BRING_HIM_ONE.sub("", text)
    text = _HABIT_AT_THE_END.sub("", text)
    text = _SAYS_WANTS.sub(lambda m: f"give {m['person']} the ", text)
    text = _GO_AND.sub("", text)
    text = _SAID_OF_THEM.sub(lambda m: f"{m['verb']} {m['name']} ", text)
    text = _BELONGS.sub(lambda m: f"{m['verb'] or 'put'} {m['what'][0].lower()}{m['what'][1:]}{m['where'] or ''}",
                        _SLANG.sub(
        lambda m: _SLANG_WORDS[m[0].lower()], text))
    text = _ANSWER_THEM_ALL.sub(lambda m: "answer all the ringing phones" + (f" {m['where']}" if m["where"] else ""),
                                text)
    text = _RINGING_THERE.sub(lambda m: f"answer the {m['what']} {m['where']}", text)
    text = _RINGING_IN.sub(lambda m: f"answer the ringing {'phone' if m['what'].lower() == 'something' else m['what']} "
                                     f"{m['where']}", text)
    text = meaning.relative_places(text)
    text = _OFF_SOMEONE.sub(lambda m: f"{m['verb']} {m['what']} from {m['who']}", _PHONES_GOING_OFF.sub(
        lambda m: f"{m['what']} {m['be'] or ''}ringing", text))
    text = _ANSWER_ALL_OF_THEM.sub(lambda m: f"{m['verb']} every ringing phone", _WHICHEVER_RINGS.sub(
        "answer every ringing phone", text))
    text = _BACK_OFF_THEM.sub(lambda m: f"{m['verb']} {m['it']} back", _NEED_AT_THE_END.sub("", text))
    text = _FOR_LIKE.sub("for ", _THAT_THING_FIRST.sub(lambda m: f"{m['lead']}the ", text))
    text = (_THAT_IS_A_CALL.sub("answer the phone", _WHO_CALLS_AT_THE_END.sub("", _WHATEVER_IS.sub(
        lambda m: f"{'wash' if m['verb'].lower() == 'do' else m['verb']} all the dishes ", text))))
    if _RINGS.search(text):
        text = _PICK_UP_FOR.sub("answer it", text)
    text = _GET_THE_PHONE.sub(lambda m: f"answer {m['det']} {m['noun']}", _asked_then(_answer_that(text)))
    text = _FOR_ME.sub("", _PLZ.sub("please", _WOULD_YA.sub("", _US.sub(lambda m: f"{m['verb']} me", text))))
    text = _NOBODY_THERE.sub(lambda m: f"{m['rest']}in {m['room']}", _MIND.sub(
        lambda m: _GERUNDS.get(m["verb"].lower(), m["verb"]), text))
    text = _BELONGS_THERE.sub(_belongs_there, _TOOK_FROM_THEN_BACK_THERE.sub(
        lambda m: f"{m['thing']}{m['mid']}{'on' if m['off'] else 'to'} {m['place']}", text))
    needs = _NEEDS.match(text.strip())
    if needs:
        verb = needs["verb"].lower()
        what = needs["what"]
        what = what[0].lower() + what[1:] if what[:2] not in ("I ", "I'") else what
        text = f"{_NEEDED.get(verb, verb)} {what}{text.strip()[needs.end():]}"
    return text
_LOCATED = frozenset({"in", "on", "at", "inside"})


@dataclass(frozen=True)
class RequestReading:
    """A plain request's goal (PDDL), and whether it is to be planned, asked about, already holds or cannot be
    done here (`reason` says why, for people)."""

    outcome: str
    goal: str | None = None
    question: str | None = None
    reason: str = ""


def ground_request(grounder: Grounder, task: str, graph: WorldGraph, speaker: str | None,
                   rules: RuleSet) -> tuple[Mention, ...]:
    """The request's mentions; a thing said by bare words that one thing is labelled with but others of its type
    also fit ("wash the frying pan" with a frying pan and a black frying pan) may be any of them: the state settles
    it ("wash" the one that is dirty) or the robot asks, rather than taking the one labelled so. A place, an owner
    or a state word that says which (`Grounder.ground`) leaves it as it is."""
    out = []
    words = tokens(task)
    for mention in grounder.ground(task, graph, speaker=speaker):
        kind = graph.entity_type(mention.candidates[0]) if len(mention.candidates) == 1 else None
        said = set(mention.words.split())
        alike = tuple(n for n in mention.broader if graph.entity_type(n) == kind and said <= set(
            tokens(meaning.label(graph, n))))  # "the cupboard" is not the pantry, though a pantry is a cupboard
        owner = words[mention.start - 1] if mention.start else ""
        if owner == "my" and speaker is not None:  # "my plate": the one the speaker has, or the one in their room
            rooms = places_of(graph, rules, speaker)
            mine = tuple(n for n in alike if graph.has_fact(Fact("has", (speaker, n)))) or tuple(
                n for n in alike if places_of(graph, rules, n) & rooms)
            alike = mine if len(mine) == 1 else alike
        elif owner in DETERMINERS - {"the", "a", "an", "some", "this", "that", "these", "those"} or owner == "'s":
            alike = ()  # "her phone", "Sarah's phone": the grounding has settled whose
        if mention.by_label and mention.qualifies is None and kind is not None and alike and (
                len(alike) > 1 or alike != mention.candidates):  # several alike, or "my plate" is the other one
            mention = replace(mention, candidates=alike, alternatives=alike, by_label=False)
        out.append(_where_the_speaker_is(mention, words, graph, grounder.domain, speaker, rules))
    return tuple(out)


def _where_the_speaker_is(mention: Mention, words: list[str], graph: WorldGraph, domain: Domain,
                          speaker: str | None, rules: RuleSet) -> Mention:
    """"turn the tap on for me" said in the kitchen: of alike fixtures (taps, lights, fridges) that nothing else
    said tells apart, the one in the speaker's room, when exactly one is there (not "the other tap", "the tap in the
    other kitchen", not "all the lights")."""
    if speaker is None or mention.plural or len(mention.candidates) < 2 or mention.qualifies is not None or (
            "other" in words[max(0, mention.start - 2):mention.end + 5]) or not graph.has_entity(speaker):
        return mention  # ("the tv in the other living room": another room than the speaker's)
    if not domain.has_type("fixture") or not all(
            domain.is_subtype(graph.entity_type(n) or "", "fixture") for n in mention.candidates):
        return mention
    rooms = places_of(graph, rules, speaker)
    here = tuple(n for n in mention.candidates if places_of(graph, rules, n) & rooms)
    return replace(mention, candidates=here, alternatives=here, by_label=False) if len(here) == 1 else mention


_WASHED_THEN_BACK = re.compile(
    r"(?<=\S)\s*(?:[,;]\s*|\s+)(?:and|but|then|,)?\s*(?:then\s+)?(?:bring|put|take|pop|return|carry)\s+(?:it|them)\s+"
    r"(?:straight\s+)?back\s+(?:there|where\s+(?:it\s+was|they\s+were)|to\s+where\s+(?:it\s+was|they\s+were))"
    r"(?:\s+after(?:wards)?)?(?:\s*[,;]?\s*(?:don['\u2019]?t|do\s+not)\s+put\s+(?:it|them)\s+away)?(?=\s*[.!?]*\s*$)",
    re.IGNORECASE)
""""wash the dishes on the side table but bring them back there after, don't put them away": washed, and where
they are now (washing takes them to a sink)."""


def _washed_then_back(task: str, graph: WorldGraph, domain: Domain, rules: RuleSet, speaker: str | None,
                      grounder: Grounder) -> RequestReading | None:
    """A washing request that says to bring the dishes back where they are (`_WASHED_THEN_BACK`): the washing, read
    without those words, and each washed dish's place now; None when the request is not that."""
    back = _WASHED_THEN_BACK.search(task)
    if back is None or not re.search(r"\b(?:wash|rinse|scrub|clean)\b", task[:back.start()], re.IGNORECASE):
        return None
    found = read_request(task[:back.start()], graph, domain, rules, speaker=speaker, grounder=grounder)
    if found is None or found.outcome not in (GOAL, SATISFIED) or found.goal is None:
        return found
    washed = re.findall(r"\(not \(dirty ([^\s()]+)\)\)", found.goal)
    if not washed:
        return None
    parts = [found.goal[len("(and "):-1] if found.goal.startswith("(and ") else found.goal]
    parts += [f"({f.predicate} {' '.join(f.args)})" for name in washed for f in _places_now(name, graph, rules)]
    return RequestReading(found.outcome, f"(and {' '.join(parts)})", reason=found.reason)


_HAS_ONE = re.compile(
    r"^\s*(?:(?P<who>[A-Z][a-z]+)\s+(?:should\s+have|needs|wants|ought\s+to\s+have|could\s+use)\s+(?P<what>(?:a|an|some)\s+"
    r"[^,.;!?]+?)(?:\s+with\s+(?:him|her|them))?\s*[,.;!-]+\s*(?:can\s+you\s+|could\s+you\s+|please\s+)?make\s+sure\s+"
    r"(?:she|he|they)(?:['\u2019]s|\s+has|\s+have)\s+(?:got\s+)?(?:one|it|some)|(?:can\s+you\s+|could\s+you\s+|please\s+)?"
    r"make\s+sure\s+(?P<who2>[A-Z][a-z]+)\s+(?:has|'s)\s+(?:got\s+)?(?P<what2>(?:a|an|some)\s+[^,.;!?]+?))\s*[.!?]*\s*$")
""""Michael should have a soda with him, make sure he's got one", "make sure Jessica has got a glass": one of them is
to be with that person; when they have one already, nothing is to be done."""


def _has_one(task: str, graph: WorldGraph, domain: Domain, rules: RuleSet, speaker: str | None,
             grounder: Grounder) -> RequestReading | None:
    """`_HAS_ONE`: satisfied when the person has a thing the words may name, else read as giving them one;
    None when the request is not that."""
    said = _HAS_ONE.match(task)
    if said is None:
        return None
    who, what = said["who"] or said["who2"], said["what"] or said["what2"]
    give = f"give {who} {what}"
    mentions = grounder.ground(give, graph, speaker=speaker)
    person = next((m for m in mentions if m.candidates and _is_kind(graph, domain, m.candidates[0], "person")), None)
    things = [m for m in mentions if m is not person and m.candidates]
    if person is None or len(person.candidates) != 1 or len(things) != 1:
        return None
    had = [n for n in (*things[0].candidates, *things[0].broader)
           if graph.has_fact(Fact("has", (person.candidates[0], n)))]
    if had:
        return RequestReading(SATISFIED, f"(has {person.candidates[0]} {had[0]})")
    return read_request(give, graph, domain, rules, speaker=speaker, grounder=grounder)


def read_request(task: str, graph: WorldGraph, domain: Domain, rules: RuleSet, *, speaker: str | None = None,
                 grounder: Grounder | None = None, mentions: Sequence[Mention] | None = None,
                 ) -> RequestReading | None:
    """The request read without the LLM, or None when it is not plain enough (see the module docstring).
    `mentions`: the task's mentions grounded over the whole graph, if the caller has them. A request whose whole
    is not plain enough may still be a reason and then the request (`_after_the_reason`): the request is read."""
    grounder = grounder or Grounder(domain, rules)
    if (back := _washed_then_back(task, graph, domain, rules, speaker, grounder)) is not None:
        return back
    if (has := _has_one(task, graph, domain, rules, speaker, grounder)) is not None:
        return has
    first = None
    for said in dict.fromkeys((task, plain_request(task))):  # as said, else in plainer words when that asks: "the
        # cup I left on the dresser ... is gross, could you wash it for me" (the dresser says which cup)
        asked = _it_named_before(said, grounder, graph, domain) if _ASKS_AT_THE_END.search(said) else None
        if asked is None:  # "I think I left my energy drink on the desk... could you fetch it for me?": fetch it
            continue
        found = _read_request(plain_request(asked), graph, domain, rules, speaker=speaker, grounder=grounder)
        if found is not None and found.outcome != ASKED:  # (said plainer again: "scrub it" -> "wash it")
            return found
        first = first or found
    if first is not None:
        return first
    found = _read_request(task, graph, domain, rules, speaker=speaker, grounder=grounder, mentions=mentions)
    if found is not None:
        return found
    asked = _after_the_reason(task, grounder.lexicon)
    if asked is not None and (found := _read_request(asked, graph, domain, rules, speaker=speaker,
                                                     grounder=grounder)) is not None:
        return found
    asked = _before_the_reason(asked or task, grounder.lexicon)
    if asked is not None:
        return _read_request(asked, graph, domain, rules, speaker=speaker, grounder=grounder)
    asked = _before_how_things_are(task)
    if asked is not None and (found := _read_request(asked, graph, domain, rules, speaker=speaker,
                                                     grounder=grounder)) is not None and found.outcome == GOAL:
        return found
    asked = _after_a_question(task)
    if asked is not None and (found := _read_request(asked, graph, domain, rules, speaker=speaker,
                                                     grounder=grounder)) is not None:
        return found
    asked = _one_said_as_its_noun(task, grounder, graph, domain)
    if asked is not None and (found := _read_request(asked, graph, domain, rules, speaker=speaker,
                                                     grounder=grounder)) is not None:
        return found
    asked = _before_a_remark(task, grounder, graph, domain) or _it_named_before(task, grounder, graph, domain) or (
        _it_named_before(plain, grounder, graph, domain) if (plain := plain_request(task)) != task else None)
    return None if asked is None else _read_request(asked, graph, domain, rules, speaker=speaker, grounder=grounder)


_THE_ONE = re.compile(r"\b(?P<lead>the|that|this)\s+(?P<what>(?:[a-z]+\s+)?)one\b(?!\s+of\b)", re.IGNORECASE)


def _one_said_as_its_noun(task: str, grounder: Grounder, graph: WorldGraph, domain: Domain) -> str | None:
    """The request with "the overhead one", "the one in living room 1" said with the noun of the thing named last
    before it ("... but leave the overhead light as it is"); None when there is no such "one" or no thing before it.
    Not "the other one" (the grounding reads that), nor "one of"."""
    mentions = grounder.ground(task, graph)
    spans = token_spans(task)
    out, at = [], 0
    for found in _THE_ONE.finditer(task):
        if found["what"].strip().lower() in ("other", "same"):
            continue
        start = next((k for k, (a, _) in enumerate(spans) if a >= found.start()), None)
        before = [m for m in mentions if start is not None and m.end <= start and m.candidates
                  and _kind_of(graph, domain, m) == "thing"]
        if not before:
            continue
        noun = tokens(before[-1].words)[-1]
        out.append(task[at:found.start()] + f"{found['lead']} {found['what']}{noun}")
        at = found.end()
    return "".join(out) + task[at:] if out else None


_QUESTION_FIRST = re.compile(r"^\s*(?:(?:did|does|do|is|are|was|were|has|have|had)\b[^?]*\?+|"
                             r"(?:i\s+)?(?:think|reckon)\s+i\s+(?:heard|saw|smelt|smelled|"
                             r"noticed)\b[^,.;!?\-\u2013\u2014]*(?:[,.;!]+|\s+[-\u2013\u2014]+))"
                             r"\s*(?P<rest>\S.*)$", re.IGNORECASE | re.DOTALL)
""""did anyone leave a tap running? make sure every faucet in the house is off", "I think I heard water running -
make sure ...": a question or a hunch first, then what is asked."""


_HOW_IT_IS = re.compile(r"^(?:(?:the|my|our|his|her)\s+)?[a-z]+(?:\s+[a-z0-9]+)?(?:['\u2019]s|['\u2019]re|\s+is|\s+are|"
                        r"\s+was|\s+were)\s+\S", re.IGNORECASE)
"""A clause that opens with a thing (or "nobody") and a form of being: "tap's running", "the light's on"."""
_MORE_TO_DO = frozenset({"too", "also", "well", "other", "others", "one", "ones", "both", "either", "it", "them",
                         "that", "this", "those", "these", "should", "must", "need", "needs", "want", "wants"})


def _before_how_things_are(task: str) -> str | None:
    """The request without its last sentences (after a "?" or a stop) when they only say how things are now ("Can
    you shut everything off in bathroom 1? Tap's running and the light's on and nobody's even in there."): each of
    their clauses (split at commas and "and") is `_HOW_IT_IS`, with no word of asking, keeping, negation or
    exception, nor one that asks for more ("the other one's on too"). None otherwise; the caller takes what is
    left only when it reads to a goal."""
    parts = re.split(r"(?<=[.!?])\s+", task.strip())
    kept = len(parts)
    while kept > 1 and all(
            _HOW_IT_IS.match(c) and not set(tokens(c)) & (_KEEP_VERBS | _DONT | _EXCEPT | _ASKING_WORDS | _MORE_TO_DO)
            for c in re.split(r"\s*[,;]\s*|\s+and\s+", parts[kept - 1].strip(" .!?")) if c):
        kept -= 1
    return None if kept == len(parts) else " ".join(parts[:kept])


def _after_a_question(task: str) -> str | None:
    """What a request asks after a question or a hunch that opens it (`_QUESTION_FIRST`), when that part does not
    refer back to it ("... turn it off if so" is read whole); None otherwise."""
    found = _QUESTION_FIRST.match(task)
    if found is None or re.search(r"\b(?:it|them|that|this|one|so)\b", found["rest"], re.IGNORECASE):
        return None
    return found["rest"]


_ASKS_AT_THE_END = re.compile(r"[,.;!?\u2026]\s+(?:and\s+)?(?:(?:could|can|would|will)\s+(?:you|u|ya)|please|"
                              r"(?:would\s+you\s+|do\s+you\s+)?mind|(?=(?:wash|scrub|rinse|clean)\s+it\b))\b"
                              r"[^,.;!?]*\bit\b[^,.;!?]*[.!?]*\s*$", re.IGNORECASE)
"""A last part that asks the robot for something done to "it" ("..., could you fetch it for me?", "..., scrub it
and put it back in the cupboard")."""

_WASH_LEADS = frozenset({"wash", "scrub", "rinse", "clean"})
_PAST = re.compile(r"^(?!(?:need|feed|speed|bleed|shed|seed|weed)$)[a-z]{2,}ed$")
"""A verb said as done ("finished", "emptied"): a clause it opens says what was done, not what to do."""
_FOR_THEM = re.compile(r"\s+for\s+(?:her|him|them)\b(?=\s*(?:,?\s*please)?\s*[.!?]*\s*$)", re.IGNORECASE)
"""A request's last words "for her" ("wash it for her"), when its verb is no verb of bringing (`_it_named_before`:
without one, the people named before it are no one to bring it to)."""



def _it_named_before(task: str, grounder: Grounder, graph: WorldGraph, domain: Domain) -> str | None:
    """The last part of a request (after a comma or a stop) with its "it" said as the one thing the parts before
    it name, when those only say something of that thing and ask for nothing ("The wine's been sitting out on the
    coffee table since last night, pop it back in the fridge" -> "pop the wine back in the fridge"). None
    otherwise."""
    parts = re.split(r"(?<=[,.;!?])\s+|\s+[-\u2013\u2014]+\s+", task.strip())
    if len(parts) < 2:
        return None
    last, before = parts[-1], " ".join(parts[:-1])
    bringing = bool(set(tokens(_GIVE_A_WASH.sub("wash", last))) & (BRING_WORDS | {"run"}))  # ("give it a wash": no
    # bringing)
    for_them = None if bringing else _FOR_THEM.search(last)
    if for_them is not None:  # "... - can you wash it for her?": who it is for changes nothing of what is done
        last = last[:for_them.start()] + last[for_them.end():]
    said = tokens(last)
    if not (said.count("it") == 1 or (said.count("it") > 1 and said[0] in _WASH_LEADS)) or {
            "them", "him", "her", "that", "this", "one"} & set(said):  # ("scrub it and put it back": the first)
        return None
    words = tokens(before)
    mentions = grounder.ground(before, graph)
    covered = {i for m in mentions for i in range(m.start, m.end)}
    if any(c.verb is not None and not _PAST.match(words[c.verb]) for c in clauses_of(before, words, covered)) or any(
            w in _IT and words[i + 1:i + 2] not in (["'s"], ["is"], ["was"]) for i, w in enumerate(words)):
        return None  # ("Finished my comic, could you put it back ...": what was done asks for nothing; "..., it's on
        # the kitchen counter now" says where it is, and asks for nothing either)
    things = [m for m in mentions if m.qualifies is None and _kind_of(graph, domain, m) == "thing"
              and not (m.candidates and _is_kind(graph, domain, m.candidates[0], "receptacle"))]
    if len(things) > 1:  # "finished her cereal out of the green bowl - can you wash it?": the one washing fits
        states = {p for p, signs in grounder.lexicon.states.items() for said_words in signs.values()
                  if set(said) & said_words}
        fitting = [m for m in things if m.candidates and any(all(_fits(graph, domain, n, p) for n in m.candidates)
                                                              for p in states)]
        things = fitting if len(fitting) == 1 else things
    if len(things) != 1 or (bringing and any(_kind_of(graph, domain, m) == "person" for m in mentions)):
        return None  # (a receptacle there says where the thing is: "sitting out on the coffee table")
    start = things[0].start
    owner = ""
    if start > 0 and words[start - 1] in _OWNERS - {"'s"} | {"this"}:  # "I've finished my novel, ...": my novel
        owner = words[start - 1]  # ("I'm done with this soda": the one the speaker has)
    elif start > 1 and words[start - 1] == "'s":  # "Sarah's mug": Sarah's
        owner = f"{words[start - 2]}'s"
    if owner in ("her", "his", "their"):  # "Jessica's finished with her salad bowl": Jessica's
        people = [m for m in mentions if m.end <= start and _kind_of(graph, domain, m) == "person"]
        if people:
            owner = f"{' '.join(words[people[-1].start:people[-1].end])}'s"
    if len(set(things[0].broader) | set(things[0].candidates)) < 2:
        owner = ""  # the only one of its kind: whose it is changes nothing
    lexicon = grounder.lexicon
    moving = bool(set(said) & (lexicon.moves | lexicon.takes | lexicon.gives | {"return", "returned"}))
    where = {mentions.index(things[0])}
    for k, m in enumerate(mentions):  # the places that say which ("the cup on the dresser in bedroom 1")
        if m.qualifies in where and m.candidates and (not moving or _is_kind(graph, domain, m.candidates[0], "room")):
            where.add(k)  # (only a room when the thing is to be moved: "put the cup on the dresser ..." is a move)
    end = max(mentions[k].end for k in where)
    named = f"{owner or 'the'} {' '.join(words[start:end])}"
    return re.sub(r"\bit\b", named, last, count=1, flags=re.IGNORECASE)


def _before_a_remark(task: str, grounder: Grounder, graph: WorldGraph, domain: Domain) -> str | None:
    """The request without a last part (after a comma or a stop) that names nothing of the home but people and
    rooms and has no word of the lexicon's verbs or states, of asking, keeping or exceptions, and no pronoun that
    could stand for a thing: a remark on why or when ("put the telly on, the match starts in five", "..., dinner's
    at six"). None otherwise."""
    parts = re.split(r"(?<=[,.;!?])\s+|\s+[-\u2013\u2014]+\s+", _THANKS_AT_THE_END.sub("", task).strip())
    if len(parts) < 2:
        return None
    lexicon = grounder.lexicon
    said = tokens(parts[-1])
    verbs = lexicon.moves | lexicon.takes | lexicon.gives | lexicon.answers | lexicon.state_words | lexicon.goes
    own = bool(said) and said[0] in _OWN_LEADS  # "..., my hands are full", "..., I've got groceries to put away"
    asking = [w for k, w in enumerate(said) if (w in (_KEEP_VERBS | _DONT | _EXCEPT | _ASKING_WORDS) and not (
        own and w in _KEEP_VERBS and said[k + 1:k + 2] and said[k + 1].endswith("ing"))) or (  # "I keep banging"
        not own and (w in _WISHES or (w in verbs and not (k and said[k - 1] in DETERMINERS))))]
    if len(said) < 2 or asking or (_IT | {"them", "that", "those", "this", "these", "one", "ones"}) & set(said):
        return None
    asked_of = {n for m in grounder.ground(" ".join(parts[:-1]), graph) for n in m.candidates} if own else set()
    if any(not (set(m.candidates) & asked_of or all(domain.is_subtype(graph.entity_type(n) or "", "person") or
                                                       domain.is_subtype(graph.entity_type(n) or "", "room")
                                                       for n in m.candidates))
           for m in grounder.ground(parts[-1], graph)):
        return None  # (a remark of the speaker's own may name what the request does: "..., I keep banging my shin
        # on the door")
    return " ".join(parts[:-1]).rstrip(",;")


_GOING = frozenset({"heading", "head", "going", "go", "went", "gone", "popping", "nipping", "getting", "off"})
"""Words of going before "out" ("we're heading out"): a person going out, no light that is out."""
_OWN_LEADS = frozenset({"i", "i've", "i'm", "im", "ive", "my", "we", "we're", "we've", "want", "wanna", "gonna",
                        "need"})
"""Words that open a remark on the speaker's own situation ("my hands are full", "want to show my friend")."""
_ASKING_WORDS = frozenset({"please", "pls", "could", "can", "would", "will", "you", "u"})


_PLEASE_AT_THE_END = re.compile(r"\s*(?:,?\s*(?:please|pls|plz)|,\s*(?:ok|okay|alright|yeah))\s*[.!?]*\s*$",
                                re.IGNORECASE)
_WHEN_DONE_FIRST = re.compile(r"^\s*(?:when|once|after)\s+(?:you(?:['\u2019]re|\s+are)|ur|youre)\s+(?:done|finished|"
                              r"through)(?:\s+(?:in|with)\s+(?:the\s+)?[a-z]+(?:\s+(?:room|\d+))?)?\s*,?\s+",
                              re.IGNORECASE)
""""When you're done in the kitchen turn off the pendant light ...": when, not what."""


def _after_the_reason(task: str, lexicon: Lexicon) -> str | None:
    """The last part of a request (after a comma, colon, semicolon or stop) when the parts before it only say why
    ("Electricity costs a fortune: turn off all the lights", "We're leaving for the weekend, turn off ...", "It's
    far too bright in the living room, could you switch off the floor lamp?"): they ask for nothing, keep nothing
    and name no verb or state of the lexicon, and the last part has no pronoun that would stand for what they
    name. None otherwise."""
    parts = [p.strip() for p in re.split(r"[,:;.!?]+(?:\s+|$)|\s+[-\u2013\u2014]+\s+", _PLEASE_AT_THE_END.sub(
        "", _THANKS_AT_THE_END.sub("", task)).strip()) if p.strip()]
    if len(parts) < 2:
        return None
    last, before = parts[-1], [w for p in parts[:-1] for w in tokens(p)]
    verbs = lexicon.moves | lexicon.takes | lexicon.gives | lexicon.answers | lexicon.state_words | lexicon.goes
    if any(w in _KEEP_VERBS | _DONT | _EXCEPT | _ASKING_WORDS | _WISHES or (
            w in verbs and not (k and (before[k - 1] in DETERMINERS or (w == "out" and before[k - 1] in _GOING))))
            for k, w in enumerate(before)):
        return None  # ("my hands are full of groceries, ...": "hands" after "my" is no verb; "heading out")
    said = tokens(last)
    if _IT & set(said) or {"him", "her", "them", "there", "that", "those"} & set(said) or len(said) < 3:
        return None
    return last


_REASON_LEADS = re.compile(r"^(?:it|i|she|he|they|we)(?:'s|'ll|'m|'re|'d|\s+is|\s+will|\s+am|\s+are|\s+was)\b",
                           re.IGNORECASE)


_HINT_AT_THE_END = re.compile(
    r"(?<=[?.!,;])\s*(?:i\s+(?:think|believe|guess|reckon)|think|reckon|guess|believe|(?:i['\u2019]?m\s+)?pretty\s+sure|"
    r"probably|maybe)\s+(?:that\s+)?(?:(?:somebody|someone|he|she|they|[A-Z][a-z]+)\s+(?:put|left|dropped|stuck|moved|"
    r"took)\s+(?:it|them)\s+(?:in|on|inside|into)\s+|(?:it|they)(?:['\u2019]s|['\u2019]re|\s+is|\s+are|\s+was|"
    r"\s+were)\s+)[^.!?]*[.!?]*\s*$", re.IGNORECASE)
""""could u bring me the green comic book? think it's on one of the desks in here", "can you bring me the avocado? I
think Jess put it in the fridge": where the speaker thinks it is (a hint, not a request: the memory knows where it
is, and the plan goes there)."""
_HABIT_AT_THE_END = re.compile(r"\s*[,;.-]+\s*(?:it|they|that|this)\s+(?:always\s+|never\s+)?(?:keeps|keep|gets|"
                               r"get)\s+(?:getting\s+|being\s+)?(?:left\s+)?[^,.;!?]*[.!?]*\s*$", re.IGNORECASE)
""""..., it keeps getting left open": what keeps happening, said as the reason (not a state asked for)."""
_WHY_AT_THE_END = re.compile(
    r"\s*[,;.!?-]+\s*(?:(?:it|this|that)\s+(?:looks|look|is)\s+like\s+[^.?!]*"  # "..., it looks like a bomb went off"
    r"|(?:he|she|they|[A-Z][a-z]+|I)(?:['\u2019]s|\s+is|\s+are|['\u2019]re|['\u2019]m|\s+am)\s+(?:still\s+)?[a-z]+ing"
    r"(?:\s+(?:it|that|"
    r"now))?"
    r"|it(?:['\u2019]s|\s+is)\s+(?:still\s+)?(?!(?:running|ringing|buzzing|dripping|going|burning)\b)[a-z]+ing"
    r"(?:\s+(?:out|off|dry))?"  # "..., it's still airing out": why (not "it's still running": what is so)
    r"|(?:i|he|she|they|[A-Z][a-z]+)(?:['\u2019]s|['\u2019]ve|\s+has|\s+have)?\s+got\s+(?:my|his|her|their)\s+"
    r"hands\s+full"
    r"|(?:the|my|our|his|her)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:will|would|'ll|might|could)\s+(?:go\s+(?:bad|off|warm)|spoil|"
    r"melt|get\s+warm)"
    r"|(?:it|they)(?:['\u2019]s|['\u2019]re|['\u2019]ll|\s+is|\s+are|\s+has|\s+have|\s+will)?\s+(?:going\s+to\s+|"
    r"gonna\s+)?(?:gone|go|goes|get|gets|getting|got)\s+(?:all\s+|really\s+|a\s+bit\s+)?(?:warm|bad|off|stale|soggy|"
    r"flat)\b[^.?!]*"  # "..., it's going to get warm sitting on the counter", "it's gone warm": why it is to go there
    r"|what\s+a\s+(?:waste|shame|pain|mess)\b[^.?!]*"  # "..., what a waste of water"
    r"|(?:i|I)\s+want\s+(?:to\s+[a-z]+|my\s+[a-z]+\s+in\s+(?:that|this|it))\b[^.?!]*"  # "I want my tea in that one"
    r"|(?:(?:i|I)\s+)?(?:want|fancy)\s+(?:some|a|an)\s+[a-z]+"  # "..., bring it to me, I want some wine": what for
    r"|(?:i\s+)?(?:have|need)\s+to\s+[a-z]+\s+my\b[^.?!]*"  # "..., have to wash my face"
    r"|(?:it|that)['\u2019]?s\s+probably\s+[^.?!]*"  # "..., it's probably my mum"
    r"|(?:i|I)['\u2019]?m\s+in\s+the\s+middle\s+of\b[^.?!]*"  # "... I'm in the middle of something"
    r"|(?:she|he|they)\s+wants?\s+something\s+to\s+[a-z]+\b[^.?!]*"  # "..., she wants something to read"
    r"|(?:i\s+)?need\s+to\s+[a-z]+\b[^.?!]*"  # "... bring it to me? need to call my mum"
    r"|(?:i\s+)?can['\u2019]?t\s+be\s+bothered\b[^.?!]*"  # "... can't be bothered getting up lol"
    r"|(?:i|I)\s+don['\u2019]?t\s+want\s+(?:another|a|any)\s+[^.?!]*"  # "..., I don't want another flood"
    r"|(?:it|they)\s+(?:doesn['\u2019]?t|don['\u2019]?t)\s+belong\b[^.?!]*"  # "..., it doesn't belong in the bathroom"
    r"|(?:i|he|she|they|we|[A-Z][a-z]+)(?:['\u2019]s|['\u2019]m|['\u2019]re|\s+is|\s+am|\s+are|\s+was|\s+has\s+been)\s+"
    r"(?:all\s+)?(?:done|finished)(?:\s+with\s+(?:it|them|that|those))?)"  # "..., Michael's done with it"
    r"\s*[.!?]*\s*$")
""""..., Michael's still reading", "..., Jessica's got her hands full", "..., the pizza will go bad": why (a person
busy, a thing that would spoil), not a request."""
_WHERE_I_WENT = re.compile(r"^\s*I(?:['\u2019]ve|\s+have)?\s+(?:gone|come|moved|went|headed)\s+(?:up\s+|down\s+|"
                           r"over\s+)?"
                           r"(?:to|into)\s+[^,.;!?\-]+?\s*(?:[,.;!?]+|\s[-\u2013\u2014]+)\s*")
""""I've gone up to bedroom 3 - can you bring me ...": where the speaker is (the memory's "me" is the speaker)."""
_LEFT_GOING = re.compile(r"\b(?P<lead>left\s+(?:the|a|my)\s+(?:[a-z]+\s+){0,3}?(?:tap|taps|faucet|water))\s+(?:going|"
                         r"on)\b",
                         re.IGNORECASE)
""""somebody's left the bathroom tap going": running."""
_TO_ME_HERE = re.compile(r"\b(?:(?:over\s+)?here\s+)?(?P<me>to\s+me)(?:\s+(?:(?:in|at)\s+(?:the\s+)?" + _ROOM_WORDS
                         + r"(?:\s+\d)?\b|(?:in|over)\s+here\b))?", re.IGNORECASE)
""""bring it to me in the kitchen", "bring the phone here to me": to the speaker, wherever they are ("bring me the
book in the kitchen" says which book, and stays)."""
_BRING_IT_HERE = re.compile(r"\b(?P<verb>bring|fetch|carry)\s+(?P<it>it|them|that|those)\s+(?:over\s+|in\s+)?here\b"
                            r"(?!\s+to\s+me)", re.IGNORECASE)
""""answer it and bring it over here": bring it to me (the speaker)."""
_RINGING_THEN_ANSWER = re.compile(
    r"^\s*(?:(?:ugh|oh|hey|argh)[,!.]*\s+)?(?P<is_that>(?:is\s+that|is\s+it|that['\u2019]s|thats)\s+)?"
    r"(?P<what>(?:the|my|our|his|her|that)\s+[^,.;!?\u2026]+?)(?(is_that)(?:\s+(?:ringing|going\s+off|buzzing))?|"
    r"(?:['\u2019]s|\s+is|\s+has\s+been|\s+keeps|\s+won['\u2019]?t\s+stop)?\s+(?:ringing|going\s+off|buzzing))"
    r"(?:\s+again)?(?P<where>\s+(?:in|on)\s+the\s+"
    r"[a-z]+(?:\s+[a-z]+)?(?:\s+\d)?)?\s*(?:[,.;!?\u2026\u2013\u2014-]+\s*)+(?P<polite>(?:(?:can|could|would)\s+"
    r"(?:you|u)\s+|please\s+|pls\s+)?)(?:answer\s+it|get\s+it|grab\s+it|pick\s+it\s+up|pick\s+up)\b",
    re.IGNORECASE)
""""Is that the gold phone ringing? Answer it and ...", "is that MY phone?? answer it", "the phone in the kitchen's
ringing, can you answer it and
bring it to me", "the pink smartphone's going off again, get it would you": answer the gold phone (the phone in the
kitchen, ...) and ... ("that phone" is the phone: which one rings settles which)."""


_ONLY_RINGING = re.compile(
    r"^\s*(?:(?:ugh|oh|argh|omg|god|honestly)[,!.]*\s+)?(?P<what>(?:the|my|that)\s+(?:[a-z0-9]+\s+){0,5}?(?:phone|"
    r"smartphone|cordless|mobile|telephone|landline))(?P<where>\s+(?:on|in)\s+(?:(?:the|my)\s+)?[a-z]+(?:\s+[a-z0-9]+)?)?"
    r"(?:['\u2019]s|\s+is|\s+has\s+been|\s+keeps|\s+won['\u2019]?t\s+stop)\s+(?:ringing|going\s+off|buzzing)"
    r"(?:\s+again|\s+for\s+ages|\s+all\s+(?:day|morning|evening))?(?:\s*(?:[,.;!\u2026-]+\s*|\s+)(?:and\s+|but\s+)?"
    r"(?:i['\u2019]?m|i\s+am|i\s+can['\u2019]?t)\b[^.?!]*)?[.!\s]*$", re.IGNORECASE)
""""the phone on my dresser won't stop going off and I'm kinda in the middle of something": a phone said to ring,
and no more than why the speaker cannot answer it themselves, asks for it to be answered."""


def _ringing_then_answer(found: re.Match) -> str:
    what = re.sub(r"^(?:that|the)\b", "the", found["what"], flags=re.IGNORECASE)
    return f"{found['polite']}answer {what}{found['where'] or ''}"


_ASKED_THEN = re.compile(r"^\s*(?P<ask>(?:is|are|was|were|has|did)\s+[^?]+?)\s*\?+\s*(?P<rest>\S.*)$",
                         re.IGNORECASE | re.DOTALL)
_CONDITION = (r"if\s+(?:so|not|it\s+(?:is|isn['\u2019]?t|is\s+not|does|was)|it['\u2019]s\s+not|they\s+(?:are|"
              r"aren['\u2019]?t|are\s+not|did)|someone\s+did)\b")
_CONDITION_FIRST = re.compile(r"^(?:and\s+)?" + _CONDITION + r"\s*,?\s*", re.IGNORECASE)
_CONDITION_AFTER = re.compile(r"\s+" + _CONDITION + r"[^,.;!?]*(?=[.!?]*\s*$)", re.IGNORECASE)
_THING_ASKED = re.compile(r"\b(?P<what>(?:the|my|our|his|her)\s+[^?.!,]+?)\s+(?:still\s+)?(?:on|off|open|shut|closed|"
                          r"clean|dirty|ringing|running)(?:\s+(?:again|now|still|yet|already|at\s+all))*\s*$",
                          re.IGNORECASE)
_IT_SAID = re.compile(r"\b(?:it|them)\b", re.IGNORECASE)


def _asked_then(text: str) -> str:
    """A question about a thing's state, then what to do about it under a condition: "Is the green mug clean? If it
    isn't, give it a quick wash." -> "give the green mug a quick wash"; "Did someone leave the bathroom tap running??
    turn it off if so" -> "turn the bathroom tap off"; "is the fridge shut? close it if it isn't"; "Did anyone leave
    the fridge open? Make sure it's shut." The thing the question names is what "it" stands for, and doing it is
    asked whatever the answer (done, it holds either way). Only with a condition ("if so", "if not", "if it isn't",
    ...) or "make sure" after the question, and one "it" or "them" in what follows ("Is the TV on? I want to watch
    it" is no request of "it")."""
    found = _ASKED_THEN.match(text)
    if found is None:
        return text
    rest = found["rest"]
    first = _CONDITION_FIRST.match(rest)
    if not (first or _CONDITION_AFTER.search(rest) or re.match(r"make\s+sure\b", rest, re.IGNORECASE)):
        return text
    rest = _CONDITION_AFTER.sub("", rest[first.end():] if first else rest).strip()
    thing = _THING_ASKED.search(found["ask"])
    if thing is None or len(_IT_SAID.findall(rest)) != 1:
        return text
    return _IT_SAID.sub(thing["what"], rest, count=1)


_HEAR_WATER = re.compile(r"\bI\s+can\s+hear\s+(?:the\s+)?(?:water|a\s+tap|the\s+tap)\s+running\s+in\s+"
                         r"(?P<where>(?:the\s+)?"
                         r"[a-z]+(?:\s+room)?(?:\s+\d)?)", re.IGNORECASE)
""""I can hear water running in the kitchen": the tap in the kitchen is running."""
_MAKE_SURE_HAS = re.compile(r"\bmake\s+sure\s+(?P<who>[A-Z][a-z]+)(?:['\u2019]s|\s+has)\s+got\s+(?P<what>(?:the|his|"
                            r"her)\s+"
                            r"[^,.;!?]+?)(?:\s+before\s+(?:he|she|they)\s+(?:heads?|goes|leaves|go)(?:\s+(?:out|"
                            r"off))?)?"
                            r"(?=\s*[,.;!?]|\s*$)")
""""make sure Michael's got the gold phone before he heads out": give Michael the gold phone."""
_MAKE_SURE_PUT = re.compile(r"\bmake\s+sure\s+(?P<what>(?:the|my|our)\s+[a-z]+(?:\s+[a-z]+){0,2}?)\s+"
                            r"(?:got|gets|is|was|has\s+been)\s+put\s+(?:away\s+|back\s+)?"
                            r"(?P<where>(?:in|on|into|inside)\s+the)\b", re.IGNORECASE)
""""make sure the pasta box got put away in the pantry": put the pasta box in the pantry."""


def _before_the_reason(task: str, lexicon: Lexicon) -> str | None:
    """The request without a last part (after a comma or a stop) that only says why: it starts with a pronoun and
    a form of being or will ("..., but leave the red serving dish, it's soaking", "..., I'll scrub that one
    myself later") and has no word of the lexicon's verbs or states nor of keeping ("it's dirty" is a state the
    reading uses). None otherwise."""
    parts = re.split(r"(?<=[,.;!?])\s+", task.strip())
    if len(parts) < 2 or not _REASON_LEADS.match(parts[-1]):
        return None
    verbs = lexicon.moves | lexicon.takes | lexicon.gives | lexicon.answers | lexicon.state_words | lexicon.goes
    if any(w in verbs | _KEEP_VERBS | _DONT | _EXCEPT for w in tokens(parts[-1])):
        return None
    return " ".join(parts[:-1]).rstrip(",;")


_OWNERS = frozenset({"my", "his", "her", "their", "our", "your", "'s"})


def _which_room(words: list[str], mentions: Sequence[Mention], graph: WorldGraph, domain: Domain) -> str | None:
    """The question to ask when the request says which thing by a room that the words do not single out ("turn off
    the lights in my room" said by someone in the kitchen, "the lamp in the bedroom" with three bedrooms): doing it
    in every room they fit would do what nobody asked for. None when every such room is known."""
    if not domain.has_type("room"):
        return None
    for m in mentions:
        rooms = [n for n in m.candidates if domain.is_subtype(graph.entity_type(n) or "", "room")]
        if m.plural or len(rooms) < 2 or len(rooms) != len(m.candidates) or m.start == 0:
            continue
        at = next((i for i in range(m.start - 1, max(-1, m.start - 4), -1) if words[i] == "in"), None)
        if at is None or not (_OWNERS & set(words[at:m.start]) or words[m.start - 1] in ("the", "that")):
            continue
        thing = next((o for o in mentions if o.end == at and o is not m), None)
        rules = RuleSet.for_domain(domain)
        if thing is not None and len([n for n in _as_said(thing, words, graph, domain)
                                      if places_of(graph, rules, n) & set(rooms)]) == 1:
            continue  # "the phone in the kitchen's ringing": of the phones in either kitchen, one rings
        if thing is not None:  # it says which thing ("the lights in my room"), not where someone is ("Sarah, she's
            return meaning.which(m, rooms, graph)  # in the bathroom")
    return None


_BE_NOW = frozenset({"is", "'s", "are", "was", "still", "keeps", "been"})


def _as_said(thing: Mention, words: list[str], graph: WorldGraph, domain: Domain) -> list[str]:
    """The candidates of a mention in every state the request's words say is so of things of their kind ("the phone
    ... ringing": the ringing ones); all of them when the words say no such state."""
    lexicon = Lexicon.for_domain(domain)
    out = list(thing.candidates)
    for predicate, signs in lexicon.states.items():
        said = {sign for sign, said_words in signs.items() if set(said_words) & set(words)}
        if len(said) > 1:  # "the phone's ringing, can you answer it": what is so now is said after "is"
            said = {sign for sign, said_words in signs.items() if any(
                w in said_words and k > 0 and words[k - 1] in _BE_NOW for k, w in enumerate(words))}
        if len(said) != 1 or not all(_fits(graph, domain, n, predicate) for n in out):
            continue
        sign = next(iter(said))
        out = [n for n in out if graph.has_fact(Fact(predicate, (n,))) == sign]
    return out


def _read_request(task: str, graph: WorldGraph, domain: Domain, rules: RuleSet, *, speaker: str | None = None,
                  grounder: Grounder, mentions: Sequence[Mention] | None = None) -> RequestReading | None:
    said_so = _ROOM_DEVICE.sub(lambda m: f"the {m['thing']} in the {m['room']}", task)
    if said_so != task:  # as said, not plainer words: a room without one is impossible
        task, mentions = said_so, None
    mentions = ground_request(grounder, task, graph, speaker, rules) if mentions is None else mentions
    said, said_mentions = task, mentions
    plain = plain_request(task)
    if plain != task:  # "don't forget to close the cupboard": close it
        task, mentions = plain, ground_request(grounder, plain, graph, speaker, rules)
    said_of_it = _said_of_it(task, mentions, graph, domain, grounder.lexicon)
    if said_of_it is not None:  # "the phone is ringing, could you answer it?": answer the phone
        task, mentions = said_of_it, ground_request(grounder, said_of_it, graph, speaker, rules)
    mentions = _coordinated_places(tokens(task), tuple(mentions), graph, domain, rules)
    why = why_impossible(task, mentions, graph, domain, rules, grounder.lexicon)
    if why and task != said and not _GO_FOR.search(said) and not why_impossible(said, said_mentions, graph, domain,
                                                                                rules, grounder.lexicon):
        return None  # impossible only in the plainer words ("get the light for Sarah"): not sure what is meant (a
        # wish, "I could go for a granola bar", is a request to bring it: impossible as that)
    if why:
        return RequestReading(IMPOSSIBLE, reason=why)
    words = tokens(task)
    room = _which_room(words, mentions, graph, domain)
    if room is not None:
        return RequestReading(ASKED, question=room)
    keeps, cut = kept_things(task, mentions, graph, domain, grounder.lexicon)
    cut |= _reasons(task, words, mentions, graph, domain, cut)
    text = task
    if cut:
        rest = [w for i, w in enumerate(words) if i not in cut]
        while rest and rest[-1] in _BREAKS:
            rest.pop()
        if not rest and any(k.states for k in keeps) and (_KEEP_VERBS | _DONT) & set(words):
            # "don't leave the light on", "leave the desk lamp on", "don't turn off the TV": only what is to be
            # so; what a "don't" keeps and does not hold now needs nothing done ("don't turn off the TV" when off)
            literals = apply_keeps([], keeps, graph, domain)
            stated = [Stated(Fact(lit.predicate, lit.args), not lit.negated) for lit in literals]
            if not _KEEP_VERBS & set(words):  # as it is now
                stated = [Stated(st.fact, not st.true) if st.is_change(graph) else st for st in stated]
            return _answer(sorted(stated, key=str), (), changes=any(s.is_change(graph) for s in stated))
        if not rest:
            return None
        text = " ".join(rest)
        mentions = ground_request(grounder, text, graph, speaker, rules)
    reading = read(text, mentions, graph, domain, rules, grounder.lexicon, request=True, speaker=speaker)
    if reading is None or not reading.stated:
        if _EVERYTHING & set(tokens(text)) and (
                every := everything_at(text, mentions, graph, domain, rules, grounder.lexicon)):
            literals = apply_keeps([Literal(s.fact.predicate, s.fact.args, not s.true) for s in every], keeps, graph,
                                   domain)  # "shut everything off but leave the living room light on"
            every = [Stated(Fact(lit.predicate, lit.args), not lit.negated) for lit in literals]
            return _answer(sorted(every, key=str), (), changes=any(st.is_change(graph) for st in every))
            # (else, say, a complaint: "it's too dark in there, I can't see anything")
        if not keeps and (kinds := kinds_at(text, mentions, graph, domain, rules, grounder.lexicon)):
            return kinds
        return None if keeps else (complaint_reading(task, mentions, graph, domain, rules, grounder.lexicon,
                                                     speaker=speaker)
                                   or group_move(task, mentions, graph, domain, rules, grounder.lexicon))
    stated = list(reading.stated)
    if len({s.fact for s in stated}) < len({(s.fact, s.true) for s in stated}):
        return None  # a thing asked both ways ("close it ..., it's left open"): not plain
    if not keeps and _complaint(task, words, mentions, stated, grounder.lexicon):
        stated = [Stated(s.fact, not s.true) for s in stated]  # before settling: the thing it is so of is meant
    stated, question = meaning.resolve(stated, _from_places(text, mentions, graph, rules), graph, domain,
                                       rules, reading.settled, near=False, back=meaning.says_back(text))
    if question:
        return RequestReading(ASKED, question=question)
    if keeps:
        literals = apply_keeps([Literal(s.fact.predicate, s.fact.args, not s.true) for s in stated], keeps, graph,
                               domain)
        stated = [Stated(Fact(lit.predicate, lit.args), not lit.negated) for lit in literals]
    cannot = cannot_be_done(stated, graph, domain)
    if cannot:
        return RequestReading(IMPOSSIBLE, reason=cannot)
    return _answer(sorted(stated, key=str), (), changes=any(s.is_change(graph) for s in stated))


def cannot_be_done(stated: Sequence[Stated], graph: WorldGraph, domain: Domain) -> str:
    """Why no plan can bring the stated facts about, whatever the state ("make the phone ring": no action of the
    domain makes a phone ring), from the domain's action effects (`Domain.changeable`); empty when each change is
    some action's effect."""
    adds, deletes = domain.changeable
    for literal in stated:
        if literal.is_change(graph) and literal.fact.predicate not in (adds if literal.true else deletes):
            thing = meaning.label(graph, literal.fact.args[-1]) if literal.fact.args else literal.fact.predicate
            how = "" if literal.true else "no longer "
            return f"no action of the robot can make the {thing} {how}{literal.fact.predicate.replace('_', ' ')}"
    return ""


_IT = frozenset({"it", "them"})


def plain_parts(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, rules: RuleSet,
                lexicon: Lexicon, *, speaker: str | None = None) -> list[tuple[str, list[Stated]]]:
    """What each clause of a request that reads plainly on its own asks for (`reading.read_parts`), for a request
    the whole of which is not plain enough: the model's goal is completed with it (`with_parts`)."""
    if read(task, mentions, graph, domain, rules, lexicon, request=True, speaker=speaker) is not None:
        return []  # read whole (a clause of keeping, "leave X as it is", is never read as a part: `read_parts`)
    return read_parts(task, mentions, graph, domain, rules, lexicon, request=True, speaker=speaker)


def _thing_placed(fact: Fact, rules: RuleSet) -> str | None:
    """The thing a fact gives its one place (``on plate table``: the plate), else None."""
    return (placed(fact, rules) or (None,))[0]


def with_parts(literals: Sequence[Literal], parts: Sequence[tuple[str, list[Stated]]], rules: RuleSet,
               notes: list[str], named: frozenset[str] = frozenset()) -> list[Literal]:
    """The model's goal made to agree with what a plainly read clause asks:

    - what the model left out is added ("put the white plate in the dishwasher and close it", answered with the
      closing only): a literal it says nothing of, about a thing it gives no place;
    - the model's literal on the same fact with the other sign gives way ("put the plate in the dishwasher" is not
      "the plate not in the dishwasher"), and so does its literal of the same kind on a thing the request does not
      name (`named`: the entities its mentions may be);
    - so does its place for the thing when the request names no such place; where the model gives the thing
      another place the request names, its goal stands for the checks."""
    out = list(literals)
    for words, stated in parts:
        for literal in stated:
            fact, sign = literal.fact, not literal.true
            thing = _thing_placed(fact, rules) if literal.true else None
            wrong = [lit for lit in out if ((lit.predicate, lit.args) == (fact.predicate, fact.args)
                                            and lit.negated != sign) or (
                named and len(fact.args) == 1 and lit.predicate == fact.predicate and lit.negated == sign
                and not lit.quantified and not set(lit.args) & named) or (
                named and thing and not lit.negated and not lit.quantified and _thing_placed(
                    Fact(lit.predicate, lit.args), rules) == thing and not set(lit.args) - {thing}
                & named)]  # "on the kitchen table", where the plate is and the request does not say
            out = [lit for lit in out if lit not in wrong]
            if any((lit.predicate, lit.args) == (fact.predicate, fact.args) for lit in out) or (
                    thing and any(not lit.negated and _thing_placed(Fact(lit.predicate, lit.args), rules) == thing
                                  for lit in out)):
                continue
            out.append(Literal(fact.predicate, fact.args, sign, quote=words))
            note = (f"{', '.join(lit.to_pddl() for lit in wrong)} -> {literal}" if wrong else f"added {literal}"
                    ) + f": read from the words \"{words}\""
            notes += [] if note in notes else [note]
    return out


def _said_of_it(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain,
                lexicon: Lexicon) -> str | None:
    """A request of one clause that asks and others that only say a state of the same thing, as that clause alone
    with the thing named: "the blue phone is ringing, could you answer it?" (answer the blue phone), "answer the
    gold smartphone, it's been ringing forever" (answer the gold smartphone); None when it is not so."""
    words = tokens(task)
    covered = {i for m in mentions for i in range(m.start, m.end)}
    clauses = clauses_of(task, words, covered)
    asking = [c for c in clauses if c.verb is not None]
    if len(asking) != 1 or len(clauses) < 2:
        return None
    ask = asking[0]
    states = lexicon.state_words
    things = [m for m in mentions if m.qualifies is None and _kind_of(graph, domain, m) == "thing"]
    if len(things) != 1:
        return None
    thing = things[0]
    own = _own_words(thing, mentions, words, graph, domain)
    if any(_kind_of(graph, domain, m) == "person" and m not in own for m in mentions):
        return None
    for clause in clauses:
        span = set(words[clause.start:clause.end])
        if clause is ask:
            continue
        if not states & span or "here" in span or any(clause.start <= m.start < clause.end and m not in own
                                                      for m in mentions):
            return None  # a clause that says more than a state of the thing
    inside = ask.start <= thing.start < ask.end
    span = words[ask.start:ask.end]
    ringing = lexicon.states.get("ringing", {}).get(True, frozenset())
    if words[ask.verb] in lexicon.takes | {"pick"} and any(w in ringing for w in words[:ask.start] + words[ask.end:]):
        span = ["answer" if i == ask.verb - ask.start else w for i, w in enumerate(span)]  # "get it": answer it
        span = [w for w in span if w != "up"]
    if inside and not _IT & set(words[ask.start:ask.end]):
        return " ".join(span)
    if inside or span[ask.verb - ask.start] not in lexicon.answers | states | {"turn", "switch", "close", "shut",
                                                                               "open", "wash", "clean"}:
        return None
    named = " ".join(words[thing.start:max(m.end for m in own)])
    its = sum(w in _IT for w in span)
    if its == 0 and span[ask.verb - ask.start] in lexicon.answers and ask.verb - ask.start == len(span) - 1:
        return " ".join([*span, f"the {named}"])  # "the phone is ringing, can you pick up?": answer the phone
    if its != 1:
        return None
    return " ".join(f"the {named}" if w in _IT else w for w in span)


def _own_words(thing: Mention, mentions: Sequence[Mention], words: list[str], graph: WorldGraph,
               domain: Domain) -> list[Mention]:
    """`thing` and the mentions that say which it is: those that qualify it, and those that qualify them ("the
    phone on Jessica's nightstand"), and a place right after it ("left the medicine cabinet in bathroom 1 open")."""
    own = [thing]
    for _ in range(3):
        own += [m for m in mentions if m not in own and m.qualifies is not None and mentions[m.qualifies] in own]
    after = next((m for m in mentions if m not in own and thing.end < m.start <= thing.end + 2
                  and words[thing.end] in _LOCATED and _kind_of(graph, domain, m) == "place"), None)
    return own + ([after] if after is not None else [])


def _coordinated_places(words: list[str], mentions: tuple[Mention, ...], graph: WorldGraph, domain: Domain,
                        rules: RuleSet) -> tuple[Mention, ...]:
    """"The lights in the bedroom and the hallway": a group located by one room and, after "and", another room
    (no thing of its own) is the things of its kind in either room."""
    out = list(mentions)
    for k, group in enumerate(mentions):
        place = next((q for q in mentions if q.qualifies == k), None)
        if not group.plural or place is None:
            continue
        later = [m for m in mentions if m.start >= place.end and m.qualifies is None]
        if not later:
            continue
        other = later[0]
        between = [w for w in words[place.end:other.start] if w not in DETERMINERS]
        kind = next((k for k in ("room", "receptacle") if all(_is_kind(graph, domain, n, k)
                                                               for n in place.candidates)), None)
        if between != ["and"] or len(other.candidates) != 1 or kind is None or not _is_kind(
                graph, domain, other.candidates[0], kind) or any(m.start > other.start for m in mentions):
            continue
        rooms = set(place.candidates) | set(other.candidates)
        pool = group.broader or group.alternatives or group.candidates
        there = tuple(n for n in pool if places_of(graph, rules, n) & rooms)
        if there:
            out[k] = replace(group, candidates=there)
            out[mentions.index(other)] = replace(other, qualifies=k)
    return tuple(out)


def grounded_context(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, *,
                     speaker: str | None = None) -> Retrieved | None:
    """The context the LLM writes the goal over: every entity the mentions may name (and the speaker), their
    surroundings one fact away (the lights of "the bathroom", the dishes on "the kitchen island") and the robot;
    None when the request names nothing the memory has."""
    names = meaning.allowed_entities(mentions, graph, task)
    if speaker is not None and graph.has_entity(speaker):
        names.add(speaker)
    if not names:
        return None
    return assemble("grounded", graph, domain, names, DEFAULT_DEPTH, {"mentions": [m.words for m in mentions]})


def settle_goal(task: str, literals: Sequence[Literal], mentions: Sequence[Mention], graph: WorldGraph,
                domain: Domain, rules: RuleSet) -> RequestReading:
    """The LLM's goal literals settled as a plain reading's are:

    - "all the X" of a request that names only some X ("all the dishes on the kitchen island"): those X, not every
      X of the home; state signs as the request's words give them (`l3mp.planning.wording`);
    - a thing's not being somewhere that its new place implies ("in the fridge, not in the pantry") is left out;
    - alike things are told apart by where the request says they come from ("the wine bottle from the counter"),
      then by what is not so yet, or else asked about (`meaning.resolve`);
    - a goal that holds entirely is satisfied; otherwise what holds already is left out, unless the request asks
      to keep it ("leave the lamp on")."""
    lexicon = Lexicon.for_domain(domain)
    wording = Wording.of(task, mentions)
    notes: list[str] = []
    literals = mend_signs(wording, within_groups(wording, literals, graph, domain, rules, lexicon, notes), graph,
                          lexicon, notes, domain)
    named = {n for m in mentions if not meaning.is_source(wording.words, m.start) for n in m.candidates}
    literals = _one_place_each(_without_implied(literals, rules), rules, notes, named, graph)
    keeps, _ = kept_things(task, mentions, graph, domain, lexicon)
    literals = apply_keeps(_except_contradicted(literals, graph, domain), keeps, graph, domain)
    quantified = [lit for lit in literals if lit.quantified]
    ground = [Stated(Fact(lit.predicate, lit.args), not lit.negated) for lit in literals if not lit.quantified]
    stated, question = meaning.resolve(ground, _from_places(task, mentions, graph, rules), graph, domain, rules,
                                       near=False, back=meaning.says_back(task))
    if question:
        return RequestReading(ASKED, question=question)
    changes = any(s.is_change(graph) for s in stated) or not all(holds(lit, graph, domain) for lit in quantified)
    if changes:
        kept = {k.thing for k in keeps}
        stated = [s for s in stated if s.is_change(graph) or _asked_to_keep(s, task, mentions)
                  or (len(s.fact.args) == 1 and s.fact.args[0] in kept)]
    return _answer(stated, quantified, changes=changes, notes=notes)


def _answer(stated: Sequence[Stated], quantified: Sequence[Literal], *, changes: bool,
            notes: Sequence[str] = ()) -> RequestReading:
    parts = list(dict.fromkeys([*map(str, stated), *(lit.to_pddl() for lit in quantified)]))
    goal = parts[0] if len(parts) == 1 else f"(and {' '.join(parts)})"
    return RequestReading(GOAL if changes else SATISFIED, goal, reason="; ".join(notes))


def _from_places(task: str, mentions: Sequence[Mention], graph: WorldGraph, rules: RuleSet) -> list[Mention]:
    """Mentions of alike things narrowed to the one at the place they are taken from ("the wine bottle from the
    counter", "the mug out of the sink"), when exactly one is there."""
    words = tokens(task)
    out = list(mentions)
    for k, mention in enumerate(mentions):
        if mention.plural or len(mention.candidates) < 2:
            continue
        place = next((m for m in mentions if mention.end < m.start <= mention.end + 3), None)
        if place is None or not meaning.is_source(words, place.start):
            continue
        there = tuple(n for n in mention.candidates if places_of(graph, rules, n) & set(place.candidates))
        if len(there) == 1:
            out[k] = replace(mention, candidates=there)
    return out


def _without_implied(literals: Sequence[Literal], rules: RuleSet) -> list[Literal]:
    """Without ``not (inside bottle pantry)`` when the goal puts the bottle elsewhere under a rule that allows it
    one place."""
    placed = {(rule.name, key) for lit in literals if not lit.negated and not lit.quantified
              for rule in rules.for_predicate(lit.predicate) if rule.max == 1
              for key in rule.keys_of(lit.predicate, lit.args)}
    return [lit for lit in literals if not (lit.negated and any(
        (rule.name, key) in placed for rule in rules.for_predicate(lit.predicate) if rule.max == 1
        for key in rule.keys_of(lit.predicate, lit.args)))]


def _one_place_each(literals: Sequence[Literal], rules: RuleSet, notes: list[str],
                    named: set[str] | frozenset[str] = frozenset(), graph: WorldGraph | None = None) -> list[Literal]:
    """Of two places for one thing under a rule that allows it one ("(holding the_robot book)" and "(on book
    shelf)": no state has both), the last stands: the robot holds it on the way, where it ends is the goal. A place
    the request names (`named`: not where the thing comes from) stands over one it does not ("grab it out of the
    fridge and take it to Jessica": not a table the model made up); where the thing is now (in `graph`) does not
    ("there's one in the fridge, take it to her": Jessica, not the fridge), and never stands over a place it is not in
    yet, whatever the order ("is that MY phone?? answer it and bring it over here": the speaker, not its nightstand)."""
    last: dict[tuple[str, str], int] = {}
    for k, lit in enumerate(literals):
        if not lit.negated and not lit.quantified:
            for rule in rules.for_predicate(lit.predicate):
                if rule.max == 1:
                    for key in rule.keys_of(lit.predicate, lit.args):
                        now = graph is not None and graph.has_fact(Fact(lit.predicate, lit.args))
                        spoken = bool(set(lit.args) - {key} & named) and not now
                        held = last.get((rule.name, key))
                        if held is not None and now and not graph.has_fact(Fact(literals[held].predicate,
                                                                                literals[held].args)):
                            continue  # "is that MY phone?? answer it and bring it over here": not where it is now
                        if held is None or spoken or not set(literals[held].args) - {key} & named:
                            last[(rule.name, key)] = k
    out = []
    for k, lit in enumerate(literals):
        kept = None if lit.negated or lit.quantified else next(
            (last[(rule.name, key)] for rule in rules.for_predicate(lit.predicate) if rule.max == 1
             for key in rule.keys_of(lit.predicate, lit.args) if last.get((rule.name, key), k) != k), None)
        if kept is not None:
            other = literals[kept]
            notes.append(f"dropped {lit.to_pddl()}: {other.to_pddl()} is where the request leaves it" if kept > k
                         else f"dropped {lit.to_pddl()}: the request names no "
                         f"{' or '.join(sorted(set(lit.args) - set(other.args)))} as where it is to go")
            continue
        out.append(lit)
    return out


def _asked_to_keep(literal: Stated, task: str, mentions: Sequence[Mention]) -> bool:
    """Whether a clause that asks to keep things as they are ("leave the bedside lamp on") names the literal's
    thing."""
    words = tokens(task)
    for start, end in meaning.clauses(words):
        if KEEP_WORDS & set(words[start:end]) and any(
                start <= m.start < end and literal.fact.args[0] in m.candidates for m in mentions):
            return True
    return False


# ---- what a request asks to keep ("but leave the lamp on", "don't turn off the TV", "except the desk lamp") -----
@dataclass(frozen=True)
class Keep:
    """A thing the request asks to keep, and per state predicate the sign it is to have (None: as it is now)."""

    thing: str
    states: tuple[tuple[str, bool | None], ...] = ()
    in_a_room: bool = False
    """Kept as a thing of a room the request excepts ("all the lights off except bathroom 2"): only as to the state
    predicates the goal uses."""
    where: bool = False
    """Kept where it is ("leave the water bottle where it is", "don't take the apple juice out"): its place now is
    part of the goal."""
    others: bool = False
    """Kept as one of "everything else" ("but don't switch anything else off"): only when the rest of the request
    does not act on it."""


_ASKS_IF = frozenset({"did", "does", "do", "has", "have", "is", "are", "was", "were", "who", "whoever"})


def _asked_at(task: str, end: int) -> bool:
    """Whether the clause of `task` ending before token `end` ends with a question mark."""
    spans = token_spans(task)
    tail = task[spans[end - 1][1]:spans[end][0] if end < len(spans) else len(task)] if 0 < end <= len(spans) else ""
    return "?" in tail


def kept_things(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain,
                lexicon: Lexicon) -> tuple[list[Keep], set[int]]:
    """What the request asks to keep as it is, and the token indices of the words that ask it (to read the rest of
    the request without them):

    - a clause of keeping: "(but) leave the bedside lamp on", "the ceiling light should stay on", "leave the TV as
      it is" (not "leave the book on the desk": a place after the thing is where it goes);
    - a clause of not doing: "don't turn off the TV" (the TV stays on), "do not touch the fridge";
    - an exception: "all the lights except the desk lamp", "... but not the floor lamp";
    - a place ruled out ("in the fridge, not in the pantry") is cut from the rest, with nothing to keep."""
    words = tokens(task)
    covered = {i for m in mentions for i in range(m.start, m.end)}
    rules = RuleSet.for_domain(domain)
    keeps: list[Keep] = []
    cut: set[int] = set()
    for clause in clauses_of(task, words, covered):
        start, end = clause.start, clause.end
        span = words[start:end]
        if span[:1] and span[0] in _ASKS_IF and _asked_at(task, end):
            continue  # "Did anyone leave the fridge open? Make sure it's shut.": a question, nothing to keep
        at = next((i for i in range(start, end) if words[i] in _EXCEPT), None)
        kind = ""
        if at is not None:
            kind, start = "except", at
        elif _KEEP_VERBS & set(span) and not _dont_before_keep(span) and not _a_habit(span):
            kind = "keep"
        elif _DONT & set(span):
            kind = "dont"
            start = next(i for i in range(start, end) if words[i] in _DONT)
            start -= 1 if start > clause.start and words[start - 1] == "do" else 0
        if not kind:
            continue
        things = [m for m in mentions if start <= m.start < end and m.qualifies is None and m.candidates
                  and not _is_kind(graph, domain, m.candidates[0], "person")
                  and not (kind != "keep" and _is_place(graph, domain, m.candidates[0]) and _ONE & set(span))]
        if kind == "except" and not things and _ONE & set(span):
            things = _the_ones_at(words, start, end, mentions, graph, domain, rules)
        first = next((i for i in range(start, end) if words[i] not in _DONT | _KEEP_VERBS | {"do", "t", "but"}),
                     end)
        if kind == "dont" and first < end and words[first] in _TO:
            cut.update(range(start, end))  # "not in the pantry": where it does not go
            continue
        said = _said_states(words, start, end, covered, lexicon)
        if not things and kind in ("keep", "dont") and "else" in span and _EVERYTHING & set(span) and said:
            # "but don't switch anything else off", "leave everything else on": whatever is so stays so
            for name in sorted(graph.entities()):
                states = tuple((p, (not sign) if kind == "dont" else sign) for p, sign in said.items()
                               if _fits(graph, domain, name, p)
                               and graph.has_fact(Fact(p, (name,))) == ((not sign) if kind == "dont" else sign))
                if states:
                    keeps.append(Keep(name, states, others=True))
            cut.update(range(start, end))
            continue
        if not things and kind == "dont" and _EVERYTHING & set(span) and _MOVING & set(span) and (
                held := _what_is_in_it(words, start, end, mentions, graph, domain, rules)):
            keeps += [Keep(n, (), where=True) for n in held]  # "open the cupboard but don't take anything out of
            cut.update(range(start, end))  # it": what is in it stays there
            continue
        if not things or (kind == "keep" and _placed_after(words, things[0], mentions, graph, domain, end)):
            continue
        located = [_in_the_room_named(_located_at(mention, words, mentions, end, graph, domain, rules), mentions,
                                      graph, domain, rules) for mention in things]
        if kind == "keep" and said:
            located = [_as_it_is(m, said, graph, domain) for m in located]
        if any(len(m.candidates) > 1 and not m.plural for m in located):
            continue  # "leave the frying pan" with three frying pans: which one is for the model or the person to
            # say; the clause stays, so that the plain reading does not go on without it
        for mention in located:
            if kind == "except" and len(mention.candidates) == 1 and _is_kind(graph, domain, mention.candidates[0],
                                                                                "room"):
                room = mention.candidates[0]  # "lights off everywhere except bathroom 2": the room's things
                keeps += [Keep(n, (), True) for n in sorted(graph.entities()) if n != room
                          and room in places_of(graph, rules, n) and not _is_kind(graph, domain, n, "person")]
                continue
            where = all(_is_kind(graph, domain, n, "item") for n in mention.candidates) and (
                _WHERE_IT_IS & set(words[mention.end:end]) if kind == "keep" else
                kind == "dont" and bool(_MOVING & set(words[start:mention.start])))
            for name in mention.candidates:
                states = tuple((p, (not sign) if kind == "dont" else sign) for p, sign in said.items()
                               if _fits(graph, domain, name, p))
                keeps.append(Keep(name, states, where=where and not states))
        cut.update(range(start, end))
    return keeps, cut


def _what_is_in_it(words: list[str], start: int, end: int, mentions: Sequence[Mention], graph: WorldGraph,
                   domain: Domain, rules: RuleSet) -> list[str]:
    """The items in or on the place a clause says nothing is to be taken out of or off ("out of it", "from the
    fridge"; "it" is the last place named before the clause), or none."""
    at = next((i for i in range(start, end - 1) if words[i] in ("of", "from", "off")), None)
    if at is None:
        return []
    named = next((m for m in mentions if at < m.start < end and m.candidates), None)
    if named is None and "it" in words[at + 1:end]:
        named = next((m for m in reversed(mentions) if m.end <= start and m.candidates
                      and _is_kind(graph, domain, m.candidates[0], "receptacle")), None)
    if named is None or len(named.candidates) != 1 or not _is_kind(graph, domain, named.candidates[0], "receptacle"):
        return []
    place = named.candidates[0]
    return [n for n in sorted(graph.entities()) if _is_kind(graph, domain, n, "item") and any(
        placed(f, rules) == (n, place) for f in _places_now(n, graph, rules))]


def _places_now(name: str, graph: WorldGraph, rules: RuleSet) -> list[Fact]:
    """The facts that give `name` its one place now (``on plate table``), in a stable order."""
    return [f for f in sorted(graph.facts_of(name), key=str) if _thing_placed(f, rules) == name]


def _as_it_is(mention: Mention, said: dict[str, bool], graph: WorldGraph, domain: Domain) -> Mention:
    """Of the things a mention to keep as it is may name ("leave the living room light on" with a floor lamp off and
    an overhead light on there), the one that is already as said, when only one is."""
    if len(mention.candidates) < 2 or mention.plural:
        return mention
    already = tuple(n for n in mention.candidates if all(
        graph.has_fact(Fact(p, (n,))) == sign for p, sign in said.items() if _fits(graph, domain, n, p)) and any(
        _fits(graph, domain, n, p) for p in said))
    return replace(mention, candidates=already) if len(already) == 1 else mention


_REASON_WORDS = frozenset({"so", "because", "as", "since", "cause", "cos"})
_SOMEONE = frozenset({"he", "she", "they", "i", "we", "someone", "somebody", "nobody"})


def _reasons(task: str, words: list[str], mentions: Sequence[Mention], graph: WorldGraph, domain: Domain,
             cut: set[int]) -> set[int]:
    """The clauses after what a request asks (to do, or to keep: `cut`) that only give a reason: no verb of their
    own that asks, no thing named but people, and a person in them or a word of reason before them (", Jessica's
    still watching", "so it can be loaded")."""
    covered = {i for m in mentions for i in range(m.start, m.end)}
    found = clauses_of(task, words, covered)
    asked = [c.start for c in found if c.verb is not None] + sorted(cut)[:1]
    out: set[int] = set()
    for clause in found:
        span = range(clause.start, clause.end)
        if clause.verb is not None or not asked or clause.start <= min(asked) or set(span) <= cut:
            continue
        named = [m for m in mentions if clause.start <= m.start < clause.end]
        if any(not _is_kind(graph, domain, m.candidates[0], "person") for m in named if m.candidates):
            continue
        before = words[clause.start - 1] if clause.start else ""
        if named or _SOMEONE & set(words[clause.start:clause.end]) or before in _REASON_WORDS:
            out.update(span)
    return out


def _in_the_room_named(mention: Mention, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain,
                       rules: RuleSet) -> Mention:
    """Of alike things to keep, the one in the only room the request names ("turn off the light in kitchen 2 but
    leave the tap running": the tap of kitchen 2), when exactly one is there."""
    if len(mention.candidates) < 2 or mention.plural:
        return mention
    rooms = {n for m in mentions if m.candidates and all(_is_kind(graph, domain, c, "room") for c in m.candidates)
             for n in m.candidates}
    if len(rooms) != 1:
        return mention
    there = tuple(n for n in mention.candidates if rooms & places_of(graph, rules, n))
    return replace(mention, candidates=there) if len(there) == 1 else mention


_WHERE_IT_IS = frozenset({"where", "there"})
"""Words after a thing to keep that say it stays where it is ("leave it where it is", "it stays in there")."""
_MOVING = frozenset({"take", "move", "touch", "shift", "put"})
"""Verbs after "don't" that would move the thing ("don't take the apple juice out")."""


def _a_habit(span: list[str]) -> bool:
    """Whether the clause's word of keeping says what keeps happening ("I keep banging my shin on the door", "it
    keeps getting left open"), not what to keep as it is."""
    return any(w in _KEEP_VERBS and span[k + 1:k + 2] and span[k + 1].endswith("ing") and k > 0
               and span[k - 1] in _HABIT_SUBJECTS for k, w in enumerate(span))  # (not "let the phone keep ringing")


_HABIT_SUBJECTS = frozenset({"i", "he", "she", "they", "we", "you", "it", "someone", "somebody", "always", "just",
                             "still"})


def _dont_before_keep(span: list[str]) -> bool:
    """Whether a negation comes before the clause's verb of keeping ("don't leave the light on": it is to be off)."""
    keep = next(i for i, w in enumerate(span) if w in _KEEP_VERBS)
    return bool(_DONT & set(span[:keep]))


def _is_place(graph: WorldGraph, domain: Domain, name: str) -> bool:
    return any(_is_kind(graph, domain, name, k) for k in ("room", "receptacle"))


def _located_at(mention: Mention, words: list[str], mentions: Sequence[Mention], end: int, graph: WorldGraph,
                domain: Domain, rules: RuleSet) -> Mention:
    """A mention of alike things narrowed to those at the place that follows it in its clause ("leave the TV in
    living room 1 as it is"), when some are there."""
    if len(mention.candidates) < 2 or mention.plural:
        return mention
    for m in mentions:
        if mention.end <= m.start < end and m.start - mention.end <= 3 and m.candidates and _is_place(
                graph, domain, m.candidates[0]) and any(w in _LOCATED for w in words[mention.end:m.start]):
            there = tuple(n for n in mention.candidates if places_of(graph, rules, n) & set(m.candidates))
            if there:
                return replace(mention, candidates=there)
    return mention


def _the_ones_at(words: list[str], start: int, end: int, mentions: Sequence[Mention], graph: WorldGraph,
                 domain: Domain, rules: RuleSet) -> list[Mention]:
    """"(all the lights) except the one in bedroom 1": the things of the group before the exception that are at
    the place the exception names, as a mention."""
    group = next((m for m in reversed(mentions) if m.start < start and m.plural and m.candidates), None)
    place = next((m for m in mentions if start <= m.start < end and m.candidates
                  and _is_place(graph, domain, m.candidates[0])), None)
    if group is None or place is None or len(place.candidates) != 1:
        return []  # ("except the ones in my room" with "room" read as any room: not sure which)
    there = tuple(n for n in group.candidates if places_of(graph, rules, n) & set(place.candidates))
    return [replace(group, start=start, end=place.start, candidates=there, plural=True)] if there else []


def apply_keeps(literals: Sequence[Literal], keeps: Sequence[Keep], graph: WorldGraph,
                domain: Domain) -> list[Literal]:
    """The goal with what the request asks to keep: an ``ALL_<type>`` over a kept thing names the others of that
    type; a literal that would change a kept thing is left out; the kept state is part of the goal (as said, or as
    it is now for the state predicates the goal uses on things of its kind), and so is the place of a thing kept where
    it is."""
    acted = {lit.args[0] for lit in literals if lit.args and lit.quote != "keep"}
    every = {a[len(WILDCARD):] for lit in literals for a in lit.args if a.startswith(WILDCARD)}
    keeps = [k for k in keeps if not (k.others and (k.thing in acted or any(
        domain.is_subtype(graph.entity_type(k.thing) or "", t) for t in every)))]  # "else": what is not acted on
    if not keeps:
        return list(literals)
    rules = RuleSet.for_domain(domain)
    kept = {k.thing for k in keeps}
    out: list[Literal] = []
    for lit in literals:
        position = next((j for j, a in enumerate(lit.args) if a.startswith(WILDCARD)), None)
        type_ = lit.args[position][len(WILDCARD):] if position is not None else ""
        if position is None or not any(domain.is_subtype(graph.entity_type(n) or "", type_) for n in kept):
            out.append(lit)
            continue
        out += [Literal(lit.predicate, (*lit.args[:position], n, *lit.args[position + 1:]), lit.negated, lit.quote)
                for n in sorted(graph.entities()) if n not in kept
                and domain.is_subtype(graph.entity_type(n) or "", type_)]
    used = {lit.predicate for lit in out if len(lit.args) == 1}
    added: list[Literal] = []
    for keep in keeps:
        states = dict(keep.states)
        if not states and keep.in_a_room:
            states = {p: None for p in used if _fits(graph, domain, keep.thing, p)}
            if not states:
                continue
        if not states and not keep.where:  # "as it is": the state predicates the goal uses on things of its
            # kind, else all of its
            states = {p: None for p in used if _fits(graph, domain, keep.thing, p)} or {
                p: None for p in domain.predicates if p in Lexicon.for_domain(domain).states
                and _fits(graph, domain, keep.thing, p)}
        out = [lit for lit in out if not (lit.args and lit.args[0] == keep.thing
                                          and (lit.predicate in states or not keep.states))]
        for predicate, sign in sorted(states.items()):
            now = graph.has_fact(Fact(predicate, (keep.thing,)))
            added.append(Literal(predicate, (keep.thing,), not (now if sign is None else sign), "keep"))
        if keep.where and not any(lit.args[:1] == (keep.thing,) and len(lit.args) == 2 for lit in out):
            added += [Literal(f.predicate, f.args, False, "keep") for f in sorted(graph.facts_of(keep.thing), key=str)
                      if any(r.max == 1 and keep.thing in r.keys_of(f.predicate, f.args)
                             for r in rules.for_predicate(f.predicate))]
    return list(dict.fromkeys([*out, *added]))


def _except_contradicted(literals: Sequence[Literal], graph: WorldGraph, domain: Domain) -> list[Literal]:
    """``ALL_light`` off with one light on ("all the lights off but the floor lamp on"): the others of the type."""
    ground = [lit for lit in literals if not lit.quantified and len(lit.args) == 1]
    out: list[Literal] = []
    for lit in literals:
        if not (lit.quantified and len(lit.args) == 1):
            out.append(lit)
            continue
        type_ = lit.args[0][len(WILDCARD):]
        other = {g.args[0] for g in ground if g.predicate == lit.predicate and g.negated != lit.negated
                 and domain.is_subtype(graph.entity_type(g.args[0]) or "", type_)}
        if not other:
            out.append(lit)
            continue
        out += [Literal(lit.predicate, (n,), lit.negated, lit.quote) for n in sorted(graph.entities())
                if n not in other and domain.is_subtype(graph.entity_type(n) or "", type_)]
    return out


def _said_states(words: list[str], start: int, end: int, covered: set[int], lexicon: Lexicon) -> dict[str, bool]:
    """Unary predicate -> the one sign the span's state words give it (not words of a mention nor after a
    determiner: "the dirty mug")."""
    found: dict[str, set[bool]] = {}
    for i in range(start, end):
        if i in covered or (i > 0 and words[i - 1] in DETERMINERS):
            continue
        for predicate, signs in lexicon.states.items():
            found.setdefault(predicate, set()).update(meaning.signs_in(words, i, i + 1, signs))
    return {p: next(iter(signs)) for p, signs in found.items() if len(signs) == 1}


def _placed_after(words: list[str], thing: Mention, mentions: Sequence[Mention], graph: WorldGraph,
                  domain: Domain, end: int) -> bool:
    """Whether a place an item goes to follows it ("leave the book on the desk"; not "keep the TV in the living
    room as it is": a fixture stays where it is)."""
    if not all(_is_kind(graph, domain, n, "item") for n in thing.candidates):
        return False
    for m in mentions:
        if thing.end <= m.start < end and m.candidates and any(
                _is_kind(graph, domain, m.candidates[0], k) for k in ("receptacle", "room", "person")):
            i = m.start - 1
            while i > thing.end and words[i] in DETERMINERS:
                i -= 1
            if words[i] in _TO:
                return True
    return False


def _fits(graph: WorldGraph, domain: Domain, name: str, predicate: str) -> bool:
    declared = domain.predicate(predicate)
    return declared is not None and declared.arity == 1 and domain.is_subtype(graph.entity_type(name) or "",
                                                                               declared.types[0])


def _is_kind(graph: WorldGraph, domain: Domain, name: str, kind: str) -> bool:
    return domain.has_type(kind) and domain.is_subtype(graph.entity_type(name) or "", kind)


# ---- a complaint: what is so, said to have it changed --------------------------------------------------------
def _complaint(task: str, words: list[str], mentions: Sequence[Mention], stated: Sequence[Stated],
               lexicon: Lexicon) -> bool:
    """Whether a request only says what is so, as a complaint ("the light in the hall has been on all day": turn
    it off; "it's dark in the bathroom": turn the light on): no clause asks for anything, no word says what should
    be ("the fridge should be closed"), and every literal is a state a person complains of (one that holds: on,
    open, dirty, ringing; being off only for a light said dark)."""
    covered = {i for m in mentions for i in range(m.start, m.end)}
    if not stated or _WISHES & set(words) or any(c.verb is not None for c in clauses_of(task, words, covered)):
        return False
    return all(s.fact.predicate in lexicon.states and len(s.fact.args) == 1
               and (s.true or (s.fact.predicate == "light_on" and _DARK & set(words))) for s in stated)


_MODALS = frozenset({"can", "will", "may"})
_SUBJECTS = frozenset({"i", "you", "we", "he", "she", "they", "it"})
"""A modal verb read as a thing ("I can't sleep": not the soda can) is no mention."""
_BRIGHT = frozenset({"bright", "glaring", "blinding", "glare"})
_UNSTOPPED = frozenset({"t", "not", "never", "won", "wont", "doesn", "didn", "can", "cannot"})
_PLACE_KINDS = ("room", "receptacle")


def complaint_reading(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, rules: RuleSet,
                      lexicon: Lexicon, *, speaker: str | None = None) -> RequestReading | None:
    """A request that only says what is wrong, read without the LLM (None when it is not plain enough):

    - one thing and one state that holds ("there's a phone ringing in bedroom 3", "Jessica's phone won't stop
      ringing", "I can't sleep with the bedside lamp on"): that state is to end, for the things of the words (at
      the place named, "in bedroom 3") for which it holds; several of them: the question which;
    - a room said dark or bright ("it's pitch dark in the bathroom", "it's so bright in living room 2"): its one
      light that is off is to be on; every light on there is to be off.

    Nothing is read from a clause that asks for something, nor from words of wishing ("should", "needs")."""
    words = tokens(task)
    mentions = [m for m in mentions if not (m.end - m.start == 1 and words[m.start] in _MODALS and (
        (m.end < len(words) and words[m.end] in {"t", "not"}) or (m.start > 0 and words[m.start - 1] in _SUBJECTS)))]
    covered = {i for m in mentions for i in range(m.start, m.end)}
    if _WISHES & set(words) or any(c.verb is not None and words[c.verb] not in _DARK | _BRIGHT
                                   for c in clauses_of(task, words, covered)):
        return None  # ("it's so bright": "bright" opens a clause after "so", but asks for nothing)
    if (_DARK | _BRIGHT) & set(words):  # "it's so dark in here, I can't find my book": the book says why
        mentions = [m for m in mentions if m.start not in _own_trouble(task, words)]
    kinds = {id(m): _kind_of(graph, domain, m) for m in mentions}
    things = [m for m in mentions if kinds[id(m)] == "thing" and m.qualifies is None]
    places = [m for m in mentions if kinds[id(m)] == "place"]
    if not things:
        return _room_light(words, places, graph, domain, rules, _here(words, speaker, graph, domain, rules))
    if len(things) != 1 or any(kinds[id(m)] == "other" for m in mentions):
        return None
    said: dict[str, set[bool]] = {}
    for i in range(len(words)):
        if i in covered or (i > 0 and words[i - 1] in DETERMINERS):
            continue
        for predicate, signs in lexicon.states.items():
            found = meaning.signs_in(words, i, i + 1, signs)
            if found and i > 1 and words[i - 1] in {"stop", "stops", "quit"} and words[i - 2] in _UNSTOPPED:
                found = {True}  # "won't stop ringing": it is still ringing
            if found:
                said.setdefault(predicate, set()).update(found)
    thing = things[0]
    fitting = {p: signs for p, signs in said.items() if any(_fits(graph, domain, n, p) for n in thing.candidates)}
    if len(fitting) != 1 or fitting[next(iter(fitting))] != {True}:
        return None
    predicate = next(iter(fitting))
    candidates = list(thing.candidates)
    place = next((m for m in places if m.start >= thing.end), None) or next(
        (m for m in reversed(places) if m.end <= thing.start), None)  # "whoever used the bathroom left the light on"
    if place is not None:
        candidates = [n for n in candidates if places_of(graph, rules, n) & set(place.candidates)] or candidates
    now = [n for n in candidates if _fits(graph, domain, n, predicate) and graph.has_fact(Fact(predicate, (n,)))]
    if not now:
        return None
    if len(now) > 1:
        stated = [Stated(Fact(predicate, (n,)), False) for n in now]
        _, question = meaning.resolve(stated[:1], [replace(thing, candidates=tuple(now))], graph, domain, rules,
                                      near=False)
        return RequestReading(ASKED, question=question) if question else None
    return _answer([Stated(Fact(predicate, (now[0],)), False)], (), changes=True)


def _own_trouble(task: str, words: list[str]) -> set[int]:
    """The words of the parts (between commas or stops) of a complaint where the speaker says what they cannot do
    ("I can't even find my book", "I can barely see what I'm chopping"): what they name is no thing to change."""
    out: set[int] = set()
    at = 0
    for part in re.split(r"[,;.!?]", task):
        n = len(tokens(part))
        span = words[at:at + n]
        if span[:1] in (["i"], ["we"]) and ({"can", "cannot", "couldn", "could"} & set(span[:3])):
            out.update(range(at, at + n))
        at += n
    return out if at == len(words) else set()


def _kind_of(graph: WorldGraph, domain: Domain, mention: Mention) -> str:
    if not mention.candidates:
        return "other"
    first = mention.candidates[0]
    if _is_kind(graph, domain, first, "person"):
        return "person"
    if _is_kind(graph, domain, first, "room"):
        return "place"
    if mention.qualifies is not None and _is_kind(graph, domain, first, "receptacle"):
        return "place"
    return "thing"


def _here(words: list[str], speaker: str | None, graph: WorldGraph, domain: Domain, rules: RuleSet) -> str | None:
    """The room of the speaker, when the request says "here" ("it's too bright in here")."""
    if "here" not in words or not speaker or not graph.has_entity(speaker):
        return None
    rooms = [n for n in places_of(graph, rules, speaker) if _is_kind(graph, domain, n, "room")]
    return rooms[0] if len(rooms) == 1 else None


def _room_light(words: list[str], places: Sequence[Mention], graph: WorldGraph, domain: Domain,
                rules: RuleSet, here: str | None = None) -> RequestReading | None:
    dark, bright = bool((_DARK - {"see"}) & set(words)), bool(_BRIGHT & set(words))
    rooms = [m.candidates[0] for m in places if len(m.candidates) == 1
             and _is_kind(graph, domain, m.candidates[0], "room")] or ([here] if here else [])
    if dark == bright or len(rooms) != 1 or not _fits_type(domain, "light_on"):
        return None
    room = rooms[0]
    lights = sorted(n for n in graph.entities() if _fits(graph, domain, n, "light_on")
                    and room in places_of(graph, rules, n))
    if dark:
        off = [n for n in lights if not graph.has_fact(Fact("light_on", (n,)))]
        main = [n for n in off if {"overhead", "ceiling", "main"} & set(tokens(meaning.label(graph, n)))]
        off = main if len(main) == 1 else off  # the room's own light, the one a person would switch on
        if len(off) > 1:  # "it's dark in here" with two lights off and no main one: which is for the person to say
            names = [f"the {meaning.label(graph, n)}" for n in off]
            return RequestReading(ASKED, question=f"Which light should I turn on: {', '.join(names[:-1])} or "
                                                  f"{names[-1]}?")
        if not off:
            return None
        return _answer([Stated(Fact("light_on", (off[0],)), True)], (), changes=True)
    on = [n for n in lights if graph.has_fact(Fact("light_on", (n,)))]
    if not on:
        return None
    return _answer([Stated(Fact("light_on", (n,)), False) for n in on], (), changes=True)


def _fits_type(domain: Domain, predicate: str) -> bool:
    declared = domain.predicate(predicate)
    return declared is not None and declared.arity == 1


_FROM = frozenset({"from", "off", "out"})
_INTO = frozenset({"in", "into", "on", "onto", "inside", "to"})


def group_move(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, rules: RuleSet,
               lexicon: Lexicon) -> RequestReading | None:
    """"Put all the books from the wall shelf on the bookshelf in the living room": each thing of the group that is
    at the place it is taken from is to be at the one place it goes to (None when the request is not just that)."""
    words = tokens(task)
    covered = {i for m in mentions for i in range(m.start, m.end)}
    asking = [c for c in clauses_of(task, words, covered) if c.verb is not None]
    if len(asking) != 1 or words[asking[0].verb] not in lexicon.moves:
        return None
    top = [m for m in mentions if m.qualifies is None]
    groups = [m for m in top if m.plural and m.candidates]
    if len(groups) != 1:
        return None
    group = groups[0]
    places: list[tuple[str, Mention]] = []
    for m in top:
        if m is group:
            continue
        at = m.start - 1
        while at > 0 and words[at] in DETERMINERS:
            at -= 1
        said = words[at] if at >= 0 else ""
        if m.start < group.start or said not in _FROM | _INTO:
            return None
        places.append((said, m))
    sources = [m for said, m in places if said in _FROM]
    targets = [m for said, m in places if said in _INTO]
    if not sources and len(targets) == 2:  # "the books on the wall shelf to the bookshelf": where they are, then go
        sources, targets = targets[:1], targets[1:]
    if len(sources) > 1 or len(targets) != 1 or len(targets[0].candidates) != 1:
        return None
    source, target = (sources[0] if sources else None), targets[0]
    members = list(group.candidates)
    if source is not None:
        at = [p for p in (*source.candidates, *source.broader) if any(p in places_of(graph, rules, n)
                                                                      for n in members)]
        if len(dict.fromkeys(at)) > 1:  # "the drinks from the coffee table" with drinks on two of them: which?
            labels = [f"the {graph.entity_attrs(p).get('label') or p}" for p in dict.fromkeys(at)]
            return RequestReading(ASKED, question=f"Which {source.words} do you mean: {', '.join(labels[:-1])} "
                                                  f"or {labels[-1]}?")
        members = [n for n in members if places_of(graph, rules, n) & set(source.candidates)] or [
            n for n in members if places_of(graph, rules, n) & set(source.broader)]
    stated = []
    for name in members:
        fact = next((f for rule in rules.rules if rule.max == 1 and rule.min
                     for f in meaning.places_for(name, rule, set(target.candidates), graph, domain)), None)
        if fact is None:
            return None
        stated.append(Stated(fact, True))
    if not stated:
        return None
    return _answer(stated, (), changes=any(st.is_change(graph) for st in stated))


_EVERYTHING = frozenset({"everything", "anything"})


def everything_at(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, rules: RuleSet,
                  lexicon: Lexicon) -> list[Stated]:
    """"Turn off everything in living room 2": every thing in the one room named that has a state the request's
    words ask for ("off": lights, TVs, taps), in that state; "close everything" (no place named): every such thing
    of the home that is not in that state yet (none when the request is not just that)."""
    words = tokens(task)
    covered = {i for m in mentions for i in range(m.start, m.end)}
    asking = [c for c in clauses_of(task, words, covered) if c.verb is not None]
    rooms = [m for m in mentions if m.candidates and _is_kind(graph, domain, m.candidates[0], "room")]
    if len(asking) != 1 or len(mentions) > 1 or (mentions and (len(rooms) != 1 or len(rooms[0].candidates) != 1)):
        return []
    wanted = _wanted(words, asking[0].start, asking[0].end, covered, lexicon, domain)
    room = rooms[0].candidates[0] if rooms else None
    stated = [Stated(Fact(p, (n,)), sign) for p, sign in sorted(wanted.items()) for n in sorted(graph.entities())
              if _fits(graph, domain, n, p) and (room is None or room in places_of(graph, rules, n))]
    if room is None:
        stated = [st for st in stated if st.is_change(graph)] or stated
    return stated


def kinds_at(task: str, mentions: Sequence[Mention], graph: WorldGraph, domain: Domain, rules: RuleSet,
             lexicon: Lexicon) -> RequestReading | None:
    """"Turn off all the lights and taps in bathroom 2": each thing of the kinds named in the one room named, in the
    state the request's words ask for, and nothing of other kinds; "all lights and faucets" (no room): every thing
    of each kind, as ``forall``; a single thing listed with them (no room named) is itself ("all the lights and the
    tv"). None when
    the request is not just that: one clause asking, groups of things of one type each (at least one group; the
    rest things named alone) and at most one room."""
    words = tokens(task)
    covered = {i for m in mentions for i in range(m.start, m.end)}
    asking = [c for c in clauses_of(task, words, covered) if c.verb is not None]
    rooms = [m for m in mentions if m.candidates and _is_kind(graph, domain, m.candidates[0], "room")]
    groups = [m for m in mentions if m not in rooms]
    room_at = mentions.index(rooms[0]) if len(rooms) == 1 and len(rooms[0].candidates) == 1 else None
    if len(asking) != 1 or len(rooms) != (room_at is not None) or len(groups) < 2 or not all(
            m.candidates and (m.plural or len(m.candidates) == 1) and m.qualifies in (None, room_at) for m in groups
    ) or not any(m.plural for m in groups) or (rooms and not all(m.plural for m in groups)):
        return None  # ("every light in the house, and the tap in kitchen 3": the room is the tap's)
    wanted = _wanted(words, asking[0].start, asking[0].end, covered, lexicon, domain)
    said = {words[i] for i in range(len(words)) if i not in covered}
    if not all(m.plural for m in groups) and any(
            sum(bool(ws & said) for ws in lexicon.states[p].values()) > 1 for p in wanted):
        return None  # "swap the lights in here - overhead off, vanity on": each its own way
    room = rooms[0].candidates[0] if rooms else None
    stated: list[Stated] = []
    quantified: list[Literal] = []
    for group in groups:
        pool = group.broader or group.alternatives or group.candidates
        types = {graph.entity_type(n) for n in pool}
        own = [Stated(Fact(p, (n,)), sign) for p, sign in sorted(wanted.items()) for n in sorted(pool)
               if _fits(graph, domain, n, p) and (room is None or room in places_of(graph, rules, n))]
        if not own or len(types) != 1:
            return None
        if not group.plural:
            stated += [st for st in own if st.fact.args == group.candidates[:1]]
        elif room is None:
            quantified += [Literal(p, (f"{WILDCARD}{next(iter(types))}",), not sign)
                           for p, sign in sorted(wanted.items()) if any(st.fact.predicate == p for st in own)]
        else:
            stated += own
    changes = any(st.is_change(graph) for st in stated) or not all(holds(lit, graph, domain) for lit in quantified)
    return _answer(stated, quantified, changes=changes)


def _wanted(words: list[str], start: int, end: int, covered: set[int], lexicon: Lexicon,
            domain: Domain) -> dict[str, bool]:
    """Unary predicate -> the sign the state words of a clause ask for ("off": every predicate "off" is a word of)."""
    wanted: dict[str, bool] = {}
    for i in range(start, end):
        if i in covered:
            continue
        for predicate, signs in lexicon.states.items():
            found = meaning.signs_in(words, i, i + 1, signs)
            if len(found) == 1 and _fits_type(domain, predicate):
                wanted[predicate] = next(iter(found))
    return wanted
