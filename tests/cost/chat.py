"""Chat-like memories for the cost tests, made deterministically from a seed.

LoCoMo cannot ship with the tests (its licence), and the scale benchmark's made-up words
(:mod:`benchmarks.common.synthetic_corpus`) trigger none of the rules a store runs on
real text. These turns read like a long-lived agent's store: a few speakers who talk about
their days, say how they feel (episodes), state facts about themselves that the
knowledge-update rules read (where they live and work, their diet, how many pets they
have, their favourites, their plans) and change those facts over time, and repeat
themselves, word for word now and then.
"""

from __future__ import annotations

import random

__all__ = ["SPEAKERS", "chat_turns", "question"]

SPEAKERS = ("Caroline", "Melanie", "Jon", "Gina", "Maria", "Deborah", "Andrew", "Audrey")

_CITIES = (
    "Boston", "Denver", "Seattle", "Austin", "Chicago", "Portland", "Miami", "Atlanta",
    "Phoenix", "Dallas", "Berlin", "Munich", "Lisbon", "Madrid", "Toronto", "Dublin",
    "Oslo", "Vienna", "Prague", "Sydney", "Melbourne", "Nashville", "Tucson", "Raleigh",
)  # fmt: skip
_EMPLOYERS = (
    "Acme", "Globex", "Initech", "Umbrella", "Stark Industries", "Wayne Enterprises",
    "Hooli", "Pied Piper", "Vandelay", "Soylent", "Cyberdyne", "Tyrell", "Monarch",
    "Wonka", "Dunder Mifflin", "Gringotts", "Oscorp", "Massive Dynamic",
)  # fmt: skip
_PETS = ("cats", "dogs", "rabbits", "hamsters", "goldfish", "parrots", "turtles", "guinea pigs")
_COUNTS = ("two", "three", "four", "five", "2", "3", "4", "6")
_FOOD_KINDS = ("food", "book", "movie", "band", "colour", "sport", "season", "game")
_FAVOURITES = (
    "sushi", "pizza", "tacos", "ramen", "jazz", "the Beatles", "blue", "green", "tennis",
    "hiking", "autumn", "spring", "chess", "Dune", "Inception", "Coldplay", "curry",
)  # fmt: skip
_DIETS = ("vegan", "vegetarian", "pescatarian", "gluten-free")
_PLANS = (
    "visit Rome next month", "run a marathon in May", "learn the piano this year",
    "paint the kitchen", "adopt a puppy", "start a pottery class", "go camping in June",
    "take a cooking course", "volunteer at the shelter", "repaint the fence",
)  # fmt: skip

_PEOPLE = (
    "my kids", "my sister", "my mom", "my dad", "my best friend", "my neighbour", "my team",
    "my husband", "my wife", "my cousins", "an old friend", "my coworkers", "my grandma",
)  # fmt: skip
_PLACES = (
    "the park", "the beach", "the lake", "the museum", "the library", "the farmers market",
    "a new cafe downtown", "the mountains", "the community centre", "the gym", "the zoo",
    "the art gallery", "a bookstore", "the old harbour", "the botanical garden",
)  # fmt: skip
_ACTIVITIES = (
    "went for a long walk", "had a picnic", "played board games", "baked bread",
    "painted a landscape", "went swimming", "read a novel", "watched a documentary",
    "tried a new recipe", "went cycling", "did some gardening", "practised yoga",
    "went to a concert", "cleaned the garage", "built a birdhouse", "went fishing",
    "wrote in my journal", "fixed the bike", "went to a pottery workshop", "went bowling",
)  # fmt: skip
_TIMES = (
    "today", "yesterday", "last weekend", "this morning", "on Sunday", "last night",
    "a few days ago", "on Friday evening", "over the holidays", "after work",
)  # fmt: skip
_THOUGHTS = (
    "It reminded me how much I need a break from screens.",
    "The weather was perfect for it.",
    "We talked for hours about everything and nothing.",
    "I think we should do that more often.",
    "It was a bit tiring but worth it.",
    "Everyone seemed to have a good time.",
    "I took lots of photos to remember it.",
    "The traffic on the way back was slow.",
    "I learned a few things I did not expect.",
    "Next time I want to bring a camera.",
    "",
    "",
)
_QUESTIONS = (
    "What do you usually do on weekends?",
    "How is your new project going?",
    "Did you ever try the place I told you about?",
    "Have you been reading anything good lately?",
    "What are you cooking this week?",
    "How are the kids doing at school?",
)
# Strong feelings about an event: episodes (their emotional weight routes them there).
_EXCITED = (
    "I'm so thrilled and proud,", "I'm absolutely ecstatic,", "I'm overjoyed,",
    "I'm so excited,", "I feel so grateful and happy,", "Wow, I'm delighted,",
)  # fmt: skip
_GOOD_NEWS = (
    "we finally won the championship", "I passed the exam", "my sister had a beautiful baby",
    "we celebrated our anniversary", "my friends threw me a surprise party",
    "I accomplished my goal of running ten miles", "I got the promotion",
    "our team won the science fair", "my painting sold at the gallery",
    "we adopted a puppy from the shelter", "my son took his first steps",
    "I finished my first novel", "the whole family came for the holidays",
)  # fmt: skip
_SHAKEN = (
    "I was devastated when", "I was terrified when", "I was heartbroken when",
    "I was furious and upset when", "I was so shocked and scared when",
)  # fmt: skip
_BAD_NEWS = (
    "my old dog died", "the storm flooded our basement", "I failed the driving test",
    "we had a terrible accident on the highway", "my grandmother passed away",
    "I got fired from my job", "our house was broken into", "my best friend moved away",
    "the doctor called with awful news", "I lost my wallet at the airport",
)  # fmt: skip


def _fact(rng: random.Random) -> str:
    """A statement about the speaker that the knowledge-update rules read."""
    kind = rng.randrange(9)
    if kind == 0:
        return f"I live in {rng.choice(_CITIES)} now."
    if kind == 1:
        return f"I moved to {rng.choice(_CITIES)} {rng.choice(('last month', 'in spring'))}."
    if kind == 2:
        return f"I work at {rng.choice(_EMPLOYERS)}."
    if kind == 3:
        return f"I just started working at {rng.choice(_EMPLOYERS)}, it's a new chapter."
    if kind == 4:
        return f"I have {rng.choice(_COUNTS)} {rng.choice(_PETS)}."
    if kind == 5:
        return f"My favourite {rng.choice(_FOOD_KINDS)} is {rng.choice(_FAVOURITES)}."
    if kind == 6:
        return f"I'm {rng.choice(_DIETS)} now."
    if kind == 7:
        return f"I'm planning to {rng.choice(_PLANS)}."
    return f"I live in {rng.choice(_CITIES)} and I work at {rng.choice(_EMPLOYERS)}."


def _feeling(rng: random.Random) -> str:
    """A turn about an event that moved the speaker, good or bad."""
    if rng.random() < 0.6:
        return f"{rng.choice(_EXCITED)} {rng.choice(_GOOD_NEWS)} {rng.choice(_TIMES)}!"
    return f"{rng.choice(_SHAKEN)} {rng.choice(_BAD_NEWS)} {rng.choice(_TIMES)}, it was awful."


def _everyday(rng: random.Random) -> str:
    """A turn about someone's day: no claim, no strong feeling."""
    kind = rng.randrange(4)
    if kind == 0:
        sentence = f"I {rng.choice(_ACTIVITIES)} with {rng.choice(_PEOPLE)} {rng.choice(_TIMES)}."
    elif kind == 1:
        sentence = (
            f"We went to {rng.choice(_PLACES)} {rng.choice(_TIMES)} and {rng.choice(_ACTIVITIES)}."
        )
    elif kind == 2:
        who, did = rng.choice(_PEOPLE).capitalize(), rng.choice(_ACTIVITIES)
        sentence = f"{who} {did} at {rng.choice(_PLACES)}."
    else:
        return rng.choice(_QUESTIONS)
    return f"{sentence} {rng.choice(_THOUGHTS)}".strip()


def chat_turns(count: int, seed: int) -> list[str]:
    """``count`` turns "Speaker: text": 55% everyday talk, 20% facts about the speaker
    (which change over time), 15% strong feelings (episodes, some of them repeated with
    another speaker), 10% a repeat of an earlier turn word for word."""
    rng = random.Random(seed)
    turns: list[str] = []
    for _ in range(count):
        draw = rng.random()
        if draw < 0.10 and turns:
            turns.append(rng.choice(turns))
            continue
        if draw < 0.30:
            text = _fact(rng)
        elif draw < 0.45:
            text = _feeling(rng)
        else:
            text = _everyday(rng)
        turns.append(f"{rng.choice(SPEAKERS)}: {text}")
    return turns


def question(seed: int) -> str:
    """A recall query as an agent asks one about its user."""
    rng = random.Random(seed)
    return rng.choice(
        (
            f"Where does {rng.choice(SPEAKERS)} live now?",
            f"Who does {rng.choice(SPEAKERS)} work for?",
            f"What did {rng.choice(SPEAKERS)} do at {rng.choice(_PLACES)}?",
            f"How many {rng.choice(_PETS)} does {rng.choice(SPEAKERS)} have?",
            f"What is {rng.choice(SPEAKERS)}'s favourite {rng.choice(_FOOD_KINDS)}?",
        )
    )
