"""Two small invented documents, a trust agreement and a cookery book, one passage per section."""

from __future__ import annotations

TRUST = "harbour-trust-agreement"
COOKERY = "kitchen-notebook"

TRUST_PASSAGES = [
    ("Recitals", "This Trust Agreement is made between Margaret Holloway as Settlor and Northgate "
     "Fiduciary Ltd as Trustee, to hold the Harbour Family Trust Fund for the Beneficiaries."),
    ("1.1 Definitions", "In this Agreement, Business Day means a day other than a Saturday, a "
     "Sunday or a public holiday on which banks are open for general business in London."),
    ("1.2 Determination Date", "The Determination Date is the last Business Day of each calendar "
     "quarter. On the Determination Date the Trustee values the Trust Fund at market prices."),
    ("1.3 Distribution Date", "A Distribution Date falls ten Business Days after each "
     "Determination Date; income is paid to the Income Beneficiaries on that day."),
    ("2. Powers of the Trustee", "The Trustee may invest the Trust Fund in any asset as if it were "
     "absolutely entitled, and may delegate investment management to a regulated adviser."),
    ("3. Beneficiaries", "The Beneficiaries are the children and grandchildren of the Settlor, "
     "together with any charity the Trustee adds by deed during the Trust Period."),
    ("4. Accounts", "The Trustee shall keep proper accounts of the Trust Fund and have them "
     "audited each year by an independent firm of chartered accountants."),
    ("5. Fees", "The Trustee is entitled to an annual fee of 0.4 per cent of the value of the "
     "Trust Fund, calculated on the first Determination Date of each year."),
    ("Schedule, item 1", "Schedule, item 1: the ordinary shares in Holloway Shipping Ltd and "
     "its subsidiaries, custodian reference ZX-4741."),
    ("Schedule, item 2", "Schedule, item 2: government gilts and treasury bills, custodian "
     "reference ZX-4471."),
    ("Schedule, item 3", "Schedule, item 3: the freehold of the house in Whitby, custodian "
     "reference ZX-1447."),
    ("7. Retirement of Trustees", "A Trustee may retire on three months' written notice to the "
     "Settlor, provided that a replacement trustee has been appointed by deed."),
    ("8. Notices", "Any notice under this Agreement must be in writing and delivered by hand or "
     "sent by recorded post to the address of the recipient set out above."),
    ("9. Amendment", "This Agreement may be amended by deed signed by the Trustee with the "
     "written consent of the Settlor during her lifetime."),
    ("10. Termination", "The Trust ends on the eightieth anniversary of this Agreement, when the "
     "Trust Fund is divided equally among the Beneficiaries then living."),
    ("11. Governing Law", "This Agreement is governed by the laws of England and Wales, and the "
     "courts of England have exclusive jurisdiction over any dispute arising from it."),
    ("About this copy", "This copy of the agreement was printed for the Trustee's records and "
     "bound in a green cover; the original is kept in a safe deposit box."),
]

COOKERY_PASSAGES = [
    ("Foreword", "These recipes come from thirty years of Sunday lunches; most feed four people "
     "and need nothing more than a good oven and a heavy pan."),
    ("Oven temperatures", "A fan oven runs hotter than a conventional one, so lower the dial by "
     "twenty degrees and check the dish ten minutes early."),
    ("Bread", "Mix strong flour, yeast, salt and warm water, knead for ten minutes, then leave "
     "the dough to rise in a warm place until it has doubled in size."),
    ("Shaping the loaf", "Knock back the risen dough, shape it into a tight round, and let it "
     "prove for forty minutes before baking at 220 degrees."),
    ("Roast chicken", "Rub the chicken with butter and salt, roast for twenty minutes per pound "
     "plus twenty, and rest it under foil for fifteen minutes before carving."),
    ("Chicken stock", "Simmer the roast carcass with onion, carrot, celery and a bay leaf for "
     "three hours, skimming the surface, then strain and chill overnight."),
    ("Shortcrust pastry", "Rub cold butter into plain flour until it looks like breadcrumbs, "
     "add a little iced water, and chill the pastry for half an hour."),
    ("Custard", "Warm the milk with a vanilla pod, whisk it into egg yolks and sugar, and stir "
     "over a low heat until the custard coats the back of a spoon."),
    ("Pickled onions", "Soak small onions in brine overnight, pack them into sterilised jars and "
     "cover with spiced vinegar; they are ready after a month."),
    ("Gravy", "Pour off most of the fat from the roasting tin, stir in flour, then add stock "
     "gradually and boil until the gravy thickens."),
    ("Knife skills", "Keep knives sharp and hold the food with your fingertips curled under, so "
     "the blade rests against your knuckles as you slice."),
    ("Apple crumble", "Cover sliced apples with a crumble of flour, butter and brown sugar and "
     "bake for forty minutes until golden and bubbling at the edges."),
    ("Storing leftovers", "Cool cooked food within two hours, keep it covered in the fridge, and "
     "eat it within three days or freeze it in labelled portions."),
    ("Seasonal vegetables", "Buy vegetables in season: asparagus in May, runner beans in August, "
     "and parsnips after the first frost, when they taste sweeter."),
    ("About this copy", "This copy of the notebook was printed for the family kitchen and bound "
     "in a green cover; the original is kept in a drawer by the stove."),
]


def markdown(passages: list[tuple[str, str]]) -> bytes:
    """The passages as a Markdown file: each a section under its label, so each one chunk."""
    return "\n\n".join(f"## {label}\n\n{text}" for label, text in passages).encode()


def chunk_ids(document_id: str, passages: list[tuple[str, str]]) -> list[str]:
    """Chunk ids for indexing the passages directly, without the store: "<document>#<n>"."""
    return [f"{document_id}#{n}" for n in range(len(passages))]
