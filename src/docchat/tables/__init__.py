"""Tables as people keep them (issue 55), pure: text and numbers in, SQL and figures out.

- `reading`: a table's rows typed (numbers as people write them, dates, empty dashes), its
  subtotal and total rows told from its data;
- `naming`: the question put in the table's own words first (abbreviations, a compound's noun,
  the encoder's nearest column, "died" of Survived), with `row_names` for a row's name said
  otherwise ("George Donner" of `Donner, George`) and `places` for a state's postal code;
- `query`: the figure a question asks of a kept table, written as read-only SQL over its data
  rows, with `dates`, `numbers`, `ranges`, `rows` and `values` for the conditions a question
  states, `pairs` for two figures set against each other and `columns` for the columns it names;
- `linking`: how sure a reading is (the words of the question it left unread);
- `model_query`: what the served model is shown of the tables, and what it wrote, read.

Where tables come from is each kind of file's (docchat.documents.kinds; PDF pages through
docchat.documents.pdf_tables); the kept tables are run by the SheetTables adapter
(docchat.store.sheet_tables), and figures are the Figures port's (docchat.services.figures).
"""
