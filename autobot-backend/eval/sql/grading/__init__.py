"""One run: ask each question through a candidate, grade its rows, sum the costs, name the cohort."""
