"""The import report says each note once, naming every place it holds for."""

from __future__ import annotations

from coursesite.importers.reportnotes import grouped_notes


def test_a_note_said_at_two_lesson_lines_of_one_cell_is_one_line():
    """QuantEcon's bivariate_dist calls yf.download twice in one cell: the network note was
    said twice, word for word, but for the lesson line."""
    said = "step 29 reads the network (yf.download()): save the data beside the lesson"
    notes = [
        f"line 804, lesson line 792: {said}",
        "line 51: another note",
        f"line 804, lesson line 795: {said}",
    ]
    assert grouped_notes(notes) == [
        f"line 804, lesson line 792, lesson line 795: {said}",
        "line 51: another note",
    ]


def test_notes_that_differ_in_their_text_stay_apart():
    notes = ["line 3: step 1 reads the network (a)", "line 3: step 1 reads the network (b)"]
    assert grouped_notes(notes) == notes
