"""`docchat bench questions` with the scripted model: docchat's plans against today's lookup on
the same generated library, in one run."""

from __future__ import annotations

import json

from docchat.cli import main


def test_the_plans_give_the_model_the_collection_only_the_sides_compared_and_the_exact_figure(capsys):
    assert main(["bench", "questions", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    lookup, docchat = report["lookup (today)"], report["docchat"]
    assert report["questions"] == {"collection": 5, "compare": 5, "table": 6, "lookup": 2}
    # The documents left out when the room runs out are those that hold the least of the question.
    assert docchat["collection_documents_given"] == 1.0 > lookup["collection_documents_given"]
    assert docchat["compare_passages_on_its_sides"] == 1.0 > lookup["compare_passages_on_its_sides"]
    assert docchat["compare_every_side_given"] == 1.0
    # The figure docchat computed, over the data rows only; a lookup finds it only where the sheet states it.
    assert docchat["table_figure_given"] == 1.0 > lookup["table_figure_given"]
    # What the scripted model cannot say is not made up.
    assert docchat["collection_documents_cited"] is None and docchat["table_exact_figure"] is None
    # In a 4,096-token window the contracts' passages do not fit one prompt: docchat quotes each
    # contract itself (issue 54), so no model reads them in rounds, and every one is given.
    small = report["small_window"]
    assert small["docchat"]["collection_documents_given"] == 1.0 > small["lookup (today)"]["collection_documents_given"]
    assert small["docchat"]["rounds"] == 1
    # A figure a sheet could compute does not answer a question about a contract that shares its words.
    assert docchat["lookup_document_given"] == 1.0
    assert docchat["plan_as_its_kind"] == 1.0 and lookup["plan_as_its_kind"] == round(2 / 18, 3)
