"""The ninth set of `docchat bench tables`' questions, held out: 10 more real tables no reader was
tuned on (tables_data/SOURCES.md), seven questions each, asked as a person with the table open
would ask them. Their right answers are computed by pandas from the same data, as the other
sets' are (table_questions.py, whose QUESTIONS ends with these: import them from there, as this
module takes its helpers from it).
"""

from __future__ import annotations

from docchat_bench.table_questions import Question, Truth, _cell, _cell_at, _counted, _per, _ranked, _top


def Q9(table: str, text: str, shape: str, truth: Truth) -> Question:
    return Question(table, text, shape, truth, "ninth")


NINTH: tuple[Question, ...] = (
    # The Aviation Safety Network's yearly statistics, 1942-2019 (a PDF): year, airliner accidents, airliner
    # fatalities, corporate jet accidents, corporate jet fatalities, hijackings, hijacking fatalities.
    Q9("aviation-safety", "How many people were killed in airliner accidents in 1985?", "lookup",
       _cell("year", 1985, "airfatal")),
    Q9("aviation-safety", "Which year saw the most hijackings?", "ranked", _ranked("year", "hijack", "max")),
    Q9("aviation-safety", "How many airliner fatalities were there altogether in the 1970s?", "date",
       lambda f: f.loc[f["year"].between(1970, 1979), "airfatal"].sum()),
    Q9("aviation-safety", "What is the highest number of airliner accidents recorded in a single year?", "max",
       lambda f: f["airacc"].max()),
    Q9("aviation-safety", "In how many years were there fewer than 20 airliner accidents?", "range",
       lambda f: int((f["airacc"] < 20).sum())),
    Q9("aviation-safety", "How many fewer people died in airliner crashes in 2019 than in 1972?", "difference",
       lambda f: _cell("year", 1972, "airfatal")(f) - _cell("year", 2019, "airfatal")(f)),
    Q9("aviation-safety", "How many times as many airliner accidents were there in 1950 as in 2010?", "ratio",
       lambda f: _cell("year", 1950, "airacc")(f) / _cell("year", 2010, "airacc")(f)),
    # Polls of the 2008 US presidential race, 29 August to 30 September 2008 (a PDF): pollster, dates
    # polled, midpoint (month/day), days after the Democratic convention, sample size, population (A all adults,
    # LV likely voters, RV registered voters), McCain and Obama (%), margin (Obama minus McCain, points).
    Q9("polls-2008", "How many of the polls were Gallup's?", "count", lambda f: int((f["PollTaker"] == "Gallup").sum())),
    Q9("polls-2008", "Which polling firm put out the most polls?", "ranked",
       lambda f: str(f["PollTaker"].value_counts().idxmax())),
    Q9("polls-2008", "On average, what share of the vote did Obama get in these polls?", "average",
       lambda f: f["Obama"].mean()),
    Q9("polls-2008", "How many different polling organisations are there?", "distinct",
       lambda f: int(f["PollTaker"].nunique())),
    Q9("polls-2008", "What was Obama's average margin among all adults, likely voters and registered voters?", "per",
       _per("Pop", "Margin", "mean")),
    Q9("polls-2008", "How many polls had their midpoint in August?", "date",
       lambda f: int(f["MidDate"].str.startswith("8/").sum())),
    Q9("polls-2008", "In how many polls was Obama not ahead of McCain?", "negation",
       lambda f: int((f["Obama"] <= f["McCain"]).sum())),
    # Where the members of Congress stood on the anti-piracy bills SOPA and PIPA, as ProPublica compiled it
    # (Markdown): name (last, first), party (D, R, I), state, money in 2010 from groups for the bills and from
    # groups against them (dollars), years in Congress, stance, chamber (house or senate).
    Q9("sopa-pipa", "How many senators backed PIPA?", "count",
       lambda f: int(((f["chamber"] == "senate") & (f["stance"] == "yes")).sum())),
    Q9("sopa-pipa", "Which member of Congress got the most money from the groups supporting the bills?", "ranked",
       _ranked("name", "money_pro", "max")),
    Q9("sopa-pipa", "What was the average amount the bills' opponents gave to Democrats, to Republicans and to "
       "independents?", "per", _per("party", "money_con", "mean")),
    Q9("sopa-pipa", "How much did the groups for the bills give New York's legislators in total?", "sum",
       lambda f: f.loc[f["state"] == "NY", "money_pro"].sum()),
    Q9("sopa-pipa", "Which 3 states have the most members in the list?", "top", _counted("state", 3)),
    Q9("sopa-pipa", "How many legislators have served in Congress for 30 years or more?", "range",
       lambda f: int((f["years"] >= 30).sum())),
    Q9("sopa-pipa", "How many of the legislators are not Democrats?", "negation",
       lambda f: int((f["party"] != "D").sum())),
    # Australian tourist accommodation by state and territory, a quarter a row, 1998 Q1 to 2016 Q2 (Markdown):
    # quarter (`2010 Q1`), state, takings (millions of Australian dollars), occupancy (% of rooms), CPI.
    Q9("aus-accommodation", "What were Victoria's total takings in 2015?", "date",
       lambda f: f.loc[f["Date"].str.startswith("2015") & (f["State"] == "Victoria"), "Takings"].sum()),
    Q9("aus-accommodation", "Which state or territory had the highest average occupancy?", "ranked",
       _ranked("State", "Occupancy", "mean")),
    Q9("aus-accommodation", "What were the total takings of each state over the whole period?", "per",
       _per("State", "Takings", "sum")),
    Q9("aus-accommodation", "What is the highest room occupancy rate in the table?", "max",
       lambda f: f["Occupancy"].max()),
    Q9("aus-accommodation", "What was the occupancy rate in Tasmania in the first quarter of 2010?", "lookup",
       _cell_at({"Date": "2010 Q1", "State": "Tasmania"}, "Occupancy")),
    Q9("aus-accommodation", "In how many quarters was Queensland's occupancy above 70 percent?", "range",
       lambda f: int(((f["State"] == "Queensland") & (f["Occupancy"] > 70)).sum())),
    Q9("aus-accommodation", "How many times larger were New South Wales' total takings than Tasmania's?", "ratio",
       lambda f: f.loc[f["State"] == "New South Wales", "Takings"].sum()
       / f.loc[f["State"] == "Tasmania", "Takings"].sum()),
    # The 308 stations of the Paris Métro, February 2023 (HTML): name, caption, Métro lines, RER, tramway,
    # Transilien and other connections, passenger entries in 2021, latitude, longitude, arrondissement or town.
    Q9("paris-metro", "How many passengers entered Châtelet in 2021?", "lookup", _cell("name", "Châtelet", "passengers")),
    Q9("paris-metro", "Which Métro station is the busiest?", "ranked", _ranked("name", "passengers", "max")),
    Q9("paris-metro", "How many stations have a connection to the RER?", "count",
       lambda f: int(f["connect_rer"].notna().sum())),
    Q9("paris-metro", "What are the 3 busiest stations by entries?", "top", _top("name", "passengers", 3)),
    Q9("paris-metro", "How many stations had fewer than a million entries?", "range",
       lambda f: int((f["passengers"] < 1_000_000).sum())),
    Q9("paris-metro", "How many entries were there in total at the stations with no RER connection?", "negation",
       lambda f: f.loc[f["connect_rer"].isna(), "passengers"].sum()),
    Q9("paris-metro", "What was the average number of entries per station?", "average",
       lambda f: f["passengers"].mean()),
    # NBA players of the 2018-19 season (HTML): first name, last name, team, team abbreviation, position, jersey
    # number, height (inches).
    Q9("nba-players", "How tall is the average player, in inches?", "average", lambda f: f["height"].mean()),
    Q9("nba-players", "How tall is the tallest player in the league?", "max", lambda f: f["height"].max()),
    Q9("nba-players", "How many players are on the Lakers' roster?", "count",
       lambda f: int((f["team"] == "Lakers").sum())),
    Q9("nba-players", "Which team has the tallest players on average?", "ranked", _ranked("team", "height", "mean")),
    Q9("nba-players", "What's the average height for each position?", "per", _per("position", "height", "mean")),
    Q9("nba-players", "How many players are 7 feet tall or taller?", "range", lambda f: int((f["height"] >= 84).sum())),
    Q9("nba-players", "What jersey number does Steven Adams wear?", "lookup",
       _cell_at({"first_name": "Steven", "last_name": "Adams"}, "number")),
    # Houses sold in Duke Forest, Durham, North Carolina, November 2020 (a workbook): address, sale price (dollars),
    # bedrooms, bathrooms, area (square feet), type, year built, heating, cooling, parking, lot (acres), HOA fee,
    # listing's address on the web.
    Q9("duke-forest", "What was the average sale price of a house?", "average", lambda f: f["price"].mean()),
    Q9("duke-forest", "How big is the largest house, in square feet?", "max", lambda f: f["area"].max()),
    Q9("duke-forest", "How many of the houses were built in the 1950s?", "date",
       lambda f: int(f["year_built"].between(1950, 1959).sum())),
    Q9("duke-forest", "What was the average price by number of bedrooms?", "per", _per("bed", "price", "mean")),
    Q9("duke-forest", "What did 2709 Mcdowell Rd sell for?", "lookup",
       _cell("address", "2709 Mcdowell Rd, Durham, NC 27705", "price")),
    Q9("duke-forest", "How many houses have central air?", "count", lambda f: int((f["cooling"] == "central").sum())),
    Q9("duke-forest", "The most expensive house sold for how many times the price of the cheapest?", "ratio",
       lambda f: f["price"].max() / f["price"].min()),
    # Exxon Mobil's stock, a month a row, newest first, January 2006 to February 2014 (a workbook, dates as dates):
    # date, open, high, low, close (dollars), volume (shares), adjusted close.
    Q9("exxon-stock", "What was Exxon's average closing price in 2008?", "date",
       lambda f: f.loc[f["date"].str.startswith("2008"), "close"].mean()),
    Q9("exxon-stock", "What's the highest price the stock reached?", "max", lambda f: f["high"].max()),
    Q9("exxon-stock", "What was the stock's lowest trading price over the whole period?", "min",
       lambda f: f["low"].min()),
    Q9("exxon-stock", "What was the average close over the first 12 months listed?", "first",
       lambda f: f["close"].head(12).mean()),
    Q9("exxon-stock", "By how much did the closing price rise from January 2006 to January 2014?", "difference",
       lambda f: _cell("date", "2014-01-02", "close")(f) - _cell("date", "2006-01-03", "close")(f)),
    Q9("exxon-stock", "In how many months did the stock close above $90?", "range",
       lambda f: int((f["close"] > 90).sum())),
    Q9("exxon-stock", "What was the average monthly trading volume?", "average", lambda f: f["volume"].mean()),
    # Finishers of the Get it Dunn run, Menomonie, Wisconsin, 2017 and 2018 (a CSV): race date, race (5k or
    # half-marathon), bib number, first name, last initial, sex, age, city, state, time (minutes).
    Q9("dunn-run", "How many runners finished a race in 2018?", "date",
       lambda f: int(f["date"].str.startswith("2018").sum())),
    Q9("dunn-run", "What was the fastest half-marathon time, in minutes?", "min",
       lambda f: f.loc[f["race"] == "half-marathon", "run_time_minutes"].min()),
    Q9("dunn-run", "How many different states did the runners come from?", "distinct",
       lambda f: int(f["state"].nunique())),
    Q9("dunn-run", "What was the average finishing time in each race?", "per", _per("race", "run_time_minutes", "mean")),
    Q9("dunn-run", "Which city did the most runners come from?", "ranked",
       lambda f: str(f["city"].value_counts().idxmax())),
    Q9("dunn-run", "How many people ran the 5k in under 25 minutes?", "range",
       lambda f: int(((f["race"] == "5k") & (f["run_time_minutes"] < 25)).sum())),
    Q9("dunn-run", "How many of the half-marathon runners weren't women?", "negation",
       lambda f: int(((f["race"] == "half-marathon") & (f["sex"] != "F")).sum())),
    # New textbooks for a sample of UCLA courses, priced at the UCLA bookstore and on Amazon (a Word document):
    # department, course, ISBN, bookstore price, Amazon price (dollars), more books required (Y/N), difference
    # (bookstore minus Amazon).
    Q9("ucla-textbooks", "What is the average new price at the UCLA bookstore?", "average",
       lambda f: f["ucla_new"].mean()),
    Q9("ucla-textbooks", "What's the biggest markup of the bookstore over Amazon?", "max", lambda f: f["diff"].max()),
    Q9("ucla-textbooks", "For how many books was the bookstore cheaper than Amazon?", "range",
       lambda f: int((f["ucla_new"] < f["amaz_new"]).sum())),
    Q9("ucla-textbooks", "What did the Econ 101 book cost on Amazon?", "lookup",
       _cell_at({"dept_abbr": "Econ", "course": "101"}, "amaz_new")),
    Q9("ucla-textbooks", "What would the Mgmt books cost altogether on Amazon?", "sum",
       lambda f: f.loc[f["dept_abbr"] == "Mgmt", "amaz_new"].sum()),
    Q9("ucla-textbooks", "Which department's textbook was the most expensive at the UCLA bookstore?", "ranked",
       _ranked("dept_abbr", "ucla_new", "max")),
    Q9("ucla-textbooks", "What is the total bookstore price of the first 5 books listed?", "first",
       lambda f: f["ucla_new"].head(5).sum()),
)
