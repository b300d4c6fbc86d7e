"""A scenario suite of profile changes for :mod:`benchmarks.knowledge.updates`, written for
zenbrain (English and German): each scenario is a short history of one user's statements,
days apart, with the statement that is current, those it made outdated, and distractors
that must stay current (the same subject with another attribute, a hypothetical, someone
else's fact, a question)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SCENARIOS", "Scenario"]


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    turns: tuple[tuple[int, str], ...]  # (day, text)
    question: str
    current: int  # index into turns
    outdated: tuple[int, ...]
    must_stay_current: tuple[int, ...]


def _s(
    name: str,
    question: str,
    current: int,
    outdated: tuple[int, ...],
    keep: tuple[int, ...],
    *turns: tuple[int, str],
) -> Scenario:
    return Scenario(name, tuple(turns), question, current, outdated, keep)


SCENARIOS: tuple[Scenario, ...] = (
    _s(
        "moved-city",
        "Where do I live?",
        3,
        (0,),
        (1, 2, 4),
        (0, "I live in Hamburg with my partner."),
        (10, "If I moved to Lisbon I would learn to surf."),
        (20, "My sister lives in Vienna."),
        (40, "I moved to Berlin last month and love the new flat."),
        (41, "Do you think Munich is nicer than Cologne?"),
    ),
    _s(
        "new-employer",
        "Where do I work?",
        2,
        (0,),
        (1, 3),
        (0, "I work at Siemens as an engineer."),
        (5, "My brother works at Bosch."),
        (30, "I just joined Zalando as a data engineer."),
        (31, "I might join a startup one day."),
    ),
    _s(
        "diet-changed",
        "What is my diet? Am I vegetarian?",
        2,
        (0,),
        (1, 3),
        (0, "I'm vegetarian and I cook a lot of lentils."),
        (3, "My husband is not vegetarian at all."),
        (50, "I'm vegan now, no more cheese for me."),
        (51, "I love cooking curries on weekends."),
    ),
    _s(
        "count-grows",
        "How many sessions of the support group did I attend?",
        2,
        (0,),
        (1,),
        (0, "I attended three sessions of the support group so far."),
        (60, "I attended my first yoga class today."),
        (150, "That was my fifth session of the support group."),
    ),
    _s(
        "preference-reversed",
        "Do I like coffee?",
        2,
        (0,),
        (1, 3),
        (0, "I love coffee, especially espresso in the morning."),
        (2, "My colleague Tom loves green tea."),
        (40, "I don't like coffee anymore, it makes me jittery."),
        (41, "I love tea with honey."),
    ),
    _s(
        "plan-cancelled",
        "Am I going on the trip to Japan?",
        2,
        (0,),
        (1, 3),
        (0, "I'm planning a trip to Japan in April."),
        (10, "If the flights get cheaper I would visit Korea too."),
        (30, "I cancelled my trip to Japan because of work."),
        (31, "My friend Lena booked a trip to Japan."),
    ),
    _s(
        "pets-count",
        "How many cats do I have?",
        2,
        (0,),
        (1,),
        (0, "I have two cats, Miso and Tofu."),
        (5, "My neighbour has four cats."),
        (90, "I have three cats now since we adopted Nori."),
    ),
    _s(
        "relationship",
        "Am I married?",
        2,
        (0,),
        (1,),
        (0, "I'm engaged to Sam and we are planning the wedding."),
        (10, "My best friend got divorced last year."),
        (200, "I got married in June, it was a wonderful day."),
    ),
    _s(
        "favourite-colour",
        "What is my favourite colour?",
        2,
        (0,),
        (1,),
        (0, "My favorite color is blue."),
        (1, "My favorite food is ramen."),
        (100, "My favorite color is now green, like the forest."),
    ),
    _s(
        "deadline-moved",
        "When is the project deadline?",
        2,
        (0,),
        (1,),
        (0, "The project deadline is April 1."),
        (3, "The budget is 5000 dollars."),
        (20, "The project deadline is now April 15 after the client's request."),
    ),
    _s(
        "occupation",
        "What is my job?",
        1,
        (0,),
        (2,),
        (0, "I work as a nurse at the city hospital."),
        (120, "I work as a teacher now, I retrained last year."),
        (121, "Would I be happier working as a chef?"),
    ),
    _s(
        "no-longer-lives",
        "Do I still live in Paris?",
        1,
        (0,),
        (2,),
        (0, "I live in Paris near the canal."),
        (50, "I don't live in Paris anymore."),
        (51, "Anna: I live in Paris too."),
    ),
    # German
    _s(
        "umzug",
        "Wo wohne ich?",
        3,
        (0,),
        (1, 2),
        (0, "Ich wohne in Hamburg in der Nähe vom Hafen."),
        (10, "Wenn ich nach München ziehen würde, hätte ich die Berge näher."),
        (20, "Meine Schwester wohnt in Wien."),
        (40, "Ich bin nach Leipzig gezogen und wohne jetzt in der Südvorstadt."),
    ),
    _s(
        "neuer-arbeitgeber",
        "Wo arbeite ich?",
        2,
        (0,),
        (1,),
        (0, "Ich arbeite bei der Telekom im Vertrieb."),
        (5, "Mein Bruder arbeitet bei SAP."),
        (30, "Ich arbeite jetzt bei Bosch in Stuttgart."),
    ),
    _s(
        "ernaehrung",
        "Wie ernähre ich mich? Bin ich Vegetarier?",
        2,
        (0,),
        (1,),
        (0, "Ich bin Vegetarier seit der Schulzeit."),
        (2, "Mein Mann isst gern Fleisch."),
        (60, "Ich bin jetzt Veganer und trinke Hafermilch."),
    ),
    _s(
        "katzen",
        "Wie viele Katzen habe ich?",
        2,
        (0,),
        (1,),
        (0, "Ich habe zwei Katzen."),
        (3, "Meine Nachbarin hat fünf Katzen."),
        (80, "Ich habe jetzt drei Katzen, Nori ist dazugekommen."),
    ),
    _s(
        "kaffee",
        "Mag ich Kaffee?",
        2,
        (0,),
        (1,),
        (0, "Ich mag Kaffee am Morgen."),
        (1, "Ich mag Tee am Abend."),
        (30, "Ich mag keinen Kaffee mehr, er bekommt mir nicht."),
    ),
    _s(
        "reise-abgesagt",
        "Fahre ich nach Japan?",
        2,
        (0,),
        (1,),
        (0, "Ich plane eine Reise nach Japan im Frühling."),
        (5, "Falls es billiger wird, würde ich auch nach Korea fliegen."),
        (30, "Ich habe die Reise nach Japan abgesagt."),
    ),
    _s(
        "sitzungen",
        "Wie oft war ich bei der Selbsthilfegruppe?",
        2,
        (0,),
        (1,),
        (0, "Ich habe drei Sitzungen der Selbsthilfegruppe besucht."),
        (10, "Heute war mein erster Yogakurs."),
        (100, "Das war meine fünfte Sitzung der Selbsthilfegruppe."),
    ),
    _s(
        "lieblingsfarbe",
        "Was ist meine Lieblingsfarbe?",
        1,
        (0,),
        (2,),
        (0, "Meine Lieblingsfarbe ist Blau."),
        (50, "Meine Lieblingsfarbe ist jetzt Grün."),
        (51, "Mein Lieblingsessen ist Ramen."),
    ),
)
