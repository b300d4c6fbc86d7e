"""Short-term memory: the turns of the current conversation, and what of them is worth keeping.

The coordinator keeps the last :data:`SHORT_TERM_WINDOW` turns of a session.
:func:`worth_remembering` is the rule for which turns of a chat transcript also become
long-term memories (``add_interactions(..., remember=True)``). It is deliberately
conservative, a heuristic without a model, for English and German (any other script is
handled without error, by the same shape rules):

- Only the user's turns (role ``user`` or ``human``): what the assistant said is its own
  output, not knowledge about the user.
- An explicit request to remember ("Remember that…", "Don't forget…", "Keep in mind…",
  "Merk dir…", "Vergiss nicht…", "Denk daran…") is always kept.
- Otherwise the turn is split into sentences, and it is kept when one of them states
  something:
  - questions ("What's the weather like?", "How to make pancakes", "Wie spät ist es?")
    state nothing; a clause before the question that speaks about the user does ("I'm
    vegan, any ideas for dinner?");
  - greetings, thanks, acknowledgements and small talk ("hi there", "thanks!", "ok",
    "sounds good", "alles klar") state nothing: every word is a filler or stopword;
  - one-off task commands to the assistant ("Write me a haiku", "Übersetze das") state
    nothing, unless they set a standing rule ("From now on, always answer in German");
  - any other sentence of at least two words with one content word does: preferences,
    facts about the user or their work, decisions, standing instructions.

A bare one-word answer ("Berlin.") is dropped: without the question it answers it means
nothing on its own.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from zenbrain.text import STOPWORDS, fold, words

__all__ = ["MEMORY_ROLES", "SHORT_TERM_WINDOW", "worth_remembering"]

SHORT_TERM_WINDOW: Final = 50
MEMORY_ROLES: Final = frozenset({"user", "human"})


def _folded_set(text: str) -> frozenset[str]:
    return frozenset(fold(word) for word in text.split())


# Words that carry no information on their own: greetings, thanks, acknowledgements,
# reactions. A sentence made only of these and stopwords is small talk.
_FILLER: Final = _folded_set(
    """
    hi hey hello hiya yo howdy bye goodbye cya see later thanks thank thx ty cheers welcome
    ok okay okey kk alright sure yes yeah yep yup no nope nah cool nice great good awesome
    perfect fine fantastic amazing wonderful excellent brilliant lovely wow oh ah uh hmm hm
    huh lol haha hahaha lmao rofl please pls sorry oops np problem worries morning evening
    afternoon night day got it sounds makes sense right correct exactly true indeed agreed
    understood noted gotcha interesting meant mean well really totally absolutely definitely
    much lot bit again anyway whatever know helps helped helpful appreciate appreciated works
    worked done funny one way quick question everything going doing don doesn didn isn aren
    wasn weren won wouldn couldn shouldn ll ve re other thing stuff today tomorrow tonight
    soon
    hallo servus moin tschüss tschuess ciao danke dankeschön vielen dank bitte sehr gern
    gerne ja jo jep nein ne nee gut super toll klasse prima perfekt schön genau stimmt
    richtig alles klar verstanden passt ach aha achso na guten tag morgen abend nacht gute
    hilft geholfen funktioniert klappt klingt interessant wirklich echt entschuldigung macht
    nichts kein keine problem frage kurze geht dir ihnen läuft bis bald später dann heute
    andere anderen
    こんにちは こんばんは おはよう おはようございます ありがとう ありがとうございます どうも
    はい いいえ うん 了解 了解です なるほど すみません さようなら
    """
)
_QUESTION_START: Final = _folded_set(
    """
    what what's whats how how's why when where where's who who's whom whose which can could
    would will should shall do does did is are was were am have has had may might isn't
    aren't don't doesn't didn't won't wouldn't can't couldn't shouldn't
    wie was warum wieso weshalb weswegen wann wo woher wohin wer wen wem wessen welche
    welcher welches welchen welchem kannst kann können könnt könntest würdest würden
    hast hat habt ist sind bist gibt weißt weisst soll sollte
    """
)
_COMMAND_START: Final = _folded_set(
    """
    write rewrite translate summarize summarise explain describe tell give show list find
    search look generate create draft compose make help fix check calculate compute convert
    suggest recommend continue repeat try stop answer reply
    schreib schreibe übersetze übersetz fasse erkläre erklär beschreibe gib zeig zeige nenne
    finde such suche erstelle mach mache hilf berechne prüfe korrigiere empfiehl schlag
    """
)
_POLITE: Final = _folded_set("please pls kindly bitte mal")
_FIRST_PERSON: Final = _folded_set(
    "i i'm im i've i'd i'll me my mine myself we we're our ours us ich mein meine meinen "
    "meinem meiner mir mich wir unser unsere uns 私 僕 俺 私の"
)
_STANDING_RULE = re.compile(
    r"\b(?:from now on|always|never|every time|in (?:the )?future|going forward|ab jetzt"
    r"|ab sofort|von nun an|immer|nie|niemals|kuenftig|in zukunft)\b"
)
_REMEMBER_REQUEST = re.compile(
    r"(?<!do you )(?<!did you )\bremember\b(?!\?)"
    r"|\b(?:don'?t|do not|never) forget\b|\bkeep in mind\b|\bfor the record\b|^\W*note:?\s"
    r"|\bmerk(?:e|en)? (?:dir|sie sich|euch)\b|\bvergiss (?:das )?nicht\b|\bnicht vergessen\b"
    r"|\bdenk(?:e)? (?:daran|dran)\b|\bim hinterkopf\b|\bnotier(?:e|en)?\b"
)
_SENTENCE_END = re.compile(r"(?<=[.!?。！？…])\s*|\n+")
_CLAUSE_BREAK = re.compile(r"\s*[,;:—–]\s*|\s+-\s+")
_QUESTION_MARKS: Final = ("?", "？", "؟", "⸮")
_UNSPACED_SCRIPTS: Final = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "THAI", "LAO", "KHMER")


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")
    return fold(text)


def _units(token: str) -> int:
    """How many words a token stands for: scripts without spaces pack a phrase into one
    token, so there each two characters count as a word."""
    name = unicodedata.name(token[0], "")
    if name.startswith(_UNSPACED_SCRIPTS):
        return max(1, len(token) // 2)
    return 1


def _tokens(sentence: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:'[^\W_]+)?", sentence)


def _states_something(tokens: list[str]) -> bool:
    """At least two words, one of them neither a stopword nor small talk."""
    total = sum(_units(token) for token in tokens)
    content = [
        token
        for token in tokens
        if token not in _FILLER
        and token not in STOPWORDS
        and not all(len(p) < 2 or p in STOPWORDS or p in _FILLER for p in words(token))
        and (len(token) > 1 or _units(token) > 1)
    ]
    return total >= 2 and bool(content)


def _is_question(sentence: str, tokens: list[str]) -> bool:
    stripped = sentence.rstrip(" \t\"'»«”“)")
    if stripped.endswith(_QUESTION_MARKS):
        return True
    if stripped.rstrip("。").endswith("か"):  # Japanese questions end in か, often unmarked
        return True
    return bool(tokens) and tokens[0] in _QUESTION_START and not stripped.endswith((".", "!"))


def _is_task_command(tokens: list[str], sentence: str) -> bool:
    rest = [token for token in tokens if token not in _POLITE]
    if not rest or rest[0] not in _COMMAND_START:
        return False
    return _STANDING_RULE.search(sentence) is None


def _sentence_informs(sentence: str) -> bool:
    tokens = _tokens(sentence)
    if not tokens:
        return False
    if _is_question(sentence, tokens):
        # "I'm vegan, any ideas for dinner?": a clause about the user before the question.
        clauses = [c for c in _CLAUSE_BREAK.split(sentence) if c.strip()][:-1]
        return any(
            (clause_tokens := _tokens(clause))
            and any(token in _FIRST_PERSON for token in clause_tokens)
            and clause_tokens[0] not in _QUESTION_START
            and _states_something(clause_tokens)
            for clause in clauses
        )
    if _is_task_command(tokens, sentence):
        return False
    return _states_something(tokens)


def worth_remembering(role: str, content: str) -> bool:
    """Whether a chat turn should also become a long-term memory (see the module docstring)."""
    if not isinstance(role, str) or role.strip().casefold() not in MEMORY_ROLES:
        return False
    if not isinstance(content, str) or not content.strip():
        return False
    text = _normalise(content)
    if _REMEMBER_REQUEST.search(text):
        return True
    return any(_sentence_informs(s) for s in _SENTENCE_END.split(text) if s and s.strip())
