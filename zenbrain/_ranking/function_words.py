"""English and German function words, as index terms: the words a large collection holds in
nearly every document, so BM25 gives them almost no weight there.

The tokenizer already leaves the commonest out of the index (:data:`zenbrain.text.STOPWORDS`);
the words here stay indexed, so a query made of nothing else ("what was it", "wie geht es")
still finds what holds them. What this list changes is a query's weights: in a store of a
dozen memories every word is rare, and "when" found in one procedure would weigh as much as
"python" found in one fact. Ranking weighs a function word by :data:`FUNCTION_WORD_WEIGHT`
of its IDF, whatever the store's size (docs/benchmarks.md, "Recall across layers").

The list is this project's own: question words, pronouns, auxiliaries and modals,
prepositions, conjunctions, determiners and common adverbs of both languages. Words that
are content words in the other language ("hat", "war", "bin", "man", "kind", "gift") are
left out.
"""

from __future__ import annotations

from zenbrain.text import tokenize

__all__ = ["FUNCTION_WORDS", "FUNCTION_WORD_WEIGHT", "is_function_word"]

# docs/benchmarks.md, "Recall across layers", table "Function words".
FUNCTION_WORD_WEIGHT = 0.25

_ENGLISH = """
when where why whose whenever wherever whatever whichever however whether a about above
across after afterwards against ago along already although always among another anybody
anyone anything anyway anywhere around away because before behind below beside besides
between beyond both cannot could did didn does doesn doing done down during each either
else elsewhere enough ever every everybody everyone everything everywhere few for further
had hadn has hasn have haven having hence her hers herself him himself how i im isn itself
ive least less let lets many maybe me meanwhile mine more moreover most mostly much my
myself neither never nevertheless nobody none noone nor nothing now nowhere often once
only onto other others otherwise ought ours ourselves own per perhaps quite rather really
same seem seemed seems several shall shan she should shouldn since some somebody someone
something sometime sometimes somewhere soon still such than that thats the theirs
themselves thence there thereby therefore these they this those though through throughout
thus till to together toward towards under unless until upon us usually via was wasn we
were weren what whats whereas which while who whom will with within without would wouldn
yet you youre yours yourself yourselves able actually almost bit even please yes dont cant
youve theyre hes shes its of
"""

_GERMAN = """
wann warum weshalb wieso weswegen woher wohin womit wofür worauf worüber wovon wozu welche
welcher welches welchem welchen wessen wem wen ab aber alle allem allen aller alles also
am andere anderem anderen anderer anderes auch auf aus bei beide beiden beim bereits bis
bisher bist bitte da dabei dadurch dafür dagegen daher dahin damals damit danach daneben
dann daran darauf daraus darin darum darüber davon davor dazu dein deine deinem deinen
deiner dem demnach den denen denn dennoch der deren derer des deshalb dessen dich die dies
diese diesem diesen dieser dieses dir doch dort du durch eben ebenso ein eine einem einen
einer eines einige einigem einigen einiger einiges einmal er es etwa etwas euch euer eure
eurem euren eurer für gar gegen gehabt gewesen habe haben hatte hatten hier hin hinter ich
ihm ihn ihnen ihr ihre ihrem ihren ihrer im immer in ins ist ja je jede jedem jeden jeder
jedes jedoch jemand jetzt kann kannst kaum kein keine keinem keinen keiner können könnte
mal manche manchem manchen mancher mehr mein meine meinem meinen meiner meist mich mir mit
muss musste müssen nach nachdem neben nein nicht nichts noch nun nur ob oben oder ohne
schon sehr sei seid sein seine seinem seinen seiner seit selbst sich sie sind so sogar
solche solchem solchen solcher soll sollen sollte sondern sonst über um und uns unser
unsere unserem unseren unserer unter viel viele vielleicht vom von vor war waren warst was
weil weiter wenn wer werde werden wie wieder wir wird wirst wo wollen wollte worden wurde
wurden würde zu zum zur zwar zwischen ganz wohl eigentlich
"""

FUNCTION_WORDS: frozenset[str] = frozenset(tokenize(f"{_ENGLISH} {_GERMAN}"))


def is_function_word(term: str) -> bool:
    """Whether an index term is an English or German function word."""
    return term in FUNCTION_WORDS
