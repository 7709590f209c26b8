"""The order-phrase reading (:mod:`eval.sql.corpus.order_words`) on real questions, both ways.

Every phrasing below is a question of Spider's dev set as ``dev.json`` holds it (typos included), with
its position in the file: those that state an order (each gold orders more than one row by what the
words name) must be read as ordered; those that do not (a superlative that picks rows, a top N, "rank"
as a noun, "first name") must not. The issue's own forms, and their families, follow.
"""

from __future__ import annotations

import pytest

from eval.sql.corpus.order_words import states_order

STATES_AN_ORDER = {
    2: "Show name, country, age for all singers ordered by age from the oldest to the youngest.",
    3: "What are the names, countries, and ages for every singer in descending order of age?",
    261: "Sort employee names by their age in ascending order.",
    274: "Sort all the shops by number products in descending order, and return the name, location and district of "
    "each shop.",
    367: "Show all document ids and the number of paragraphs in each document. Order by document id.",
    368: "Return the different document ids along with the number of paragraphs corresponding to each, ordered by id.",
    401: "Show names of teachers and the courses they are arranged to teach in ascending alphabetical order of the "
    "teacher's name.",
    412: "Find the names of the visitors whose membership level is higher than 4, and order the results by the level "
    "from high to low.",
    414: "Find the name and membership level of the visitors whose membership level is higher than 4, and sort by "
    "their age from old to young.",
    455: "List the first and last name of all players in the order of birth date.",
    456: "What are the full names of all players, sorted by birth date?",
    458: "What are the full names of all left handed players, in order of birth date?",
    492: "List the name and tonnage ordered by in descending alphaetical order for the names.",
    527: "List the section_name in reversed lexicographical order.",
    528: "What are the names of the sections in reverse alphabetical order?",
    585: "List the title of all cartoons in alphabetical order.",
    586: "What are the titles of the cartoons sorted alphabetically?",
    591: "list all cartoon titles and their directors ordered by their air date",
    614: "What are all of the episodes ordered by ratings?",
    650: "What are the earnings of poker players, ordered descending by value?",
    664: "What are the names of poker players, ordered ascending by the number of final tables they have made?",
    672: "Return the names of poker players sorted by their earnings descending.",
    680: "What are the names and birth dates of people, ordered by their names in alphabetical order?",
    688: "List the contestant numbers and names, ordered by contestant name descending.",
    829: "Return the record companies of orchestras, sorted descending by the years in which they were founded.",
    851: "What are the major record formats of orchestras, sorted by their frequency?",
}
STATES_NO_ORDER = {
    18: "What is the name and capacity for the stadium with highest average attendance?",
    26: "Which year has most number of concerts?",
    57: "Find the first name of students who have cat or dog pet.",
    437: "Find the average rank of winners in all matches.",
    439: "Find the highest rank of losers in all matches.",
    440: "What is the best rank of losers across all matches?",
    453: "Find the first name and country code of the oldest player.",
    471: "Find the total ranking points for each player and their first name.",
    479: "Find the total number of tours for each ranking date.",
    484: "What are the names and ranks of the three youngest winners across all matches?",
    541: "Which student has enrolled for the most times in any program? List the id, first name, middle name, last "
    "name, the number of enrollments and student id.",
    555: "Who is the first student to register? List the first name, middle name and last name.",
    557: "Who is the earliest graduate of the school? List the first name, middle name and last name.",
    616: "What are 3 most highly rated episodes in the TV series table and what were those ratings?",
    621: 'What is Weekly Rank of TV series with Episode "A Love of a Lifetime"?',
    629: "Find the production code and channel of the most recently aired cartoon .",
    801: "Return the names and surface areas of the 5 largest countries.",
    803: "Return the names of the 3 most populated countries.",
    946: "List the date of each treatment, together with the first name of the professional who operated it.",
    976: "How much does the most recent treatment cost?",
}


def test_forty_real_phrasings_at_least():
    assert len(STATES_AN_ORDER) + len(STATES_NO_ORDER) >= 40
    assert min(len(STATES_AN_ORDER), len(STATES_NO_ORDER)) >= 20


@pytest.mark.parametrize("index", sorted(STATES_AN_ORDER))
def test_a_real_question_that_states_an_order_is_read_as_ordered(index):
    assert states_order(STATES_AN_ORDER[index]), STATES_AN_ORDER[index]


@pytest.mark.parametrize("index", sorted(STATES_NO_ORDER))
def test_a_real_question_that_states_no_order_is_not(index):
    assert not states_order(STATES_NO_ORDER[index]), STATES_NO_ORDER[index]


@pytest.mark.parametrize(
    "text",
    [
        "Show revenue for each month of 2024 in month order.",
        "List the quarters of 2024 in quarter order with their revenue.",
        "List the orders by date.",
        "List the orders by order date, with each order's total.",
        "Show the five latest reviews, newest first.",
        "List the returns, most recent first.",
        "List the customers' names alphabetically.",
        "List the categories from highest to lowest revenue.",
        "List the categories by revenue, lowest to highest.",
        "Show the products from cheapest to most expensive.",
        "Name every supplier, A-Z.",
        "List the stores ranked by floor area.",
        "Arrange the regions by population.",
        "Order them by signup date.",
    ],
)
def test_the_issues_forms_and_their_families_state_an_order(text):
    assert states_order(text)


@pytest.mark.parametrize(
    "text",
    [
        "How many orders were placed by the time the sale ended?",
        "Count the orders grouped by date.",
        "What sort of products sell best?",
        "How many items were in each order?",
        "How many customers ordered in each year?",
        "In order to plan stock, how many units sold in March?",
    ],
)
def test_words_that_only_look_like_an_order_are_not_one(text):
    assert not states_order(text)
