"""The eighth set of `docchat bench tables`' questions, held out: 10 more real tables no reader was
tuned on (tables_data/SOURCES.md), seven questions each, asked as a person with the table open
would ask them. Their right answers are computed by pandas from the same data, as the other
sets' are (table_questions.py, whose QUESTIONS ends with these: import them from there, as this
module takes its helpers from it).
"""

from __future__ import annotations

from docchat_bench.table_questions import Question, Truth, _cell, _counted, _per, _ranked, _top


def Q8(table: str, text: str, shape: str, truth: Truth) -> Question:
    return Question(table, text, shape, truth, "eighth")


EIGHTH: tuple[Question, ...] = (
    # Global temperature anomalies, 1880-2018, and carbon emissions, 1751-2014 (a PDF): year, the anomaly
    # combined, on land and over the ocean (degrees Celsius), carbon emissions (millions of metric tons).
    Q8("temp-carbon", "What was the global temperature anomaly in 1998?", "lookup",
       _cell("year", 1998, "temp_anomaly")),
    Q8("temp-carbon", "Which year was the warmest on record?", "ranked", _ranked("year", "temp_anomaly", "max")),
    Q8("temp-carbon", "What is the most carbon emitted in a single year?", "max",
       lambda f: f["carbon_emissions"].max()),
    Q8("temp-carbon", "In how many years was the ocean anomaly above 0.5 degrees?", "range",
       lambda f: int((f["ocean_anomaly"] > 0.5).sum())),
    Q8("temp-carbon", "What was the average temperature anomaly during the 1990s?", "date",
       lambda f: f.loc[f["year"].between(1990, 1999), "temp_anomaly"].mean()),
    Q8("temp-carbon", "How much more carbon was emitted in 2010 than in 1960?", "difference",
       lambda f: _cell("year", 2010, "carbon_emissions")(f) - _cell("year", 1960, "carbon_emissions")(f)),
    Q8("temp-carbon", "How many times as much carbon was emitted in 2000 as in 1900?", "ratio",
       lambda f: _cell("year", 2000, "carbon_emissions")(f) / _cell("year", 1900, "carbon_emissions")(f)),
    # Parade magazine's What People Earn, 2005 (a PDF): earnings in dollars, age, gender, state, celebrity.
    Q8("parade-2005", "How many different states do the people in the survey come from?", "distinct",
       lambda f: int(f["state"].nunique())),
    Q8("parade-2005", "What is the most anyone in the survey earned?", "max", lambda f: f["earnings"].max()),
    Q8("parade-2005", "Which state has the most people in the survey?", "ranked",
       lambda f: str(f["state"].value_counts().idxmax())),
    Q8("parade-2005", "What are the average earnings of the men and of the women?", "per",
       _per("gender", "earnings", "mean")),
    Q8("parade-2005", "How many people earned less than $30,000?", "range",
       lambda f: int((f["earnings"] < 30000).sum())),
    Q8("parade-2005", "What did the people from California earn altogether?", "sum",
       lambda f: f.loc[f["state"] == "CA", "earnings"].sum()),
    Q8("parade-2005", "What are the average earnings of the people who are not celebrities?", "negation",
       lambda f: f.loc[f["celebrity"] != "yes", "earnings"].mean()),
    # The Stanford heart transplant study (Markdown): id, year accepted (68 for 1968), age, survived, days
    # alive, prior surgery, transplant (control or treatment), days waited (NA for no transplant).
    Q8("heart-transplant", "How many patients were still alive when the study ended?", "count",
       lambda f: int((f["survived"] == "alive").sum())),
    Q8("heart-transplant", "What was the average age of the patients who received a transplant?", "average",
       lambda f: f.loc[f["transplant"] == "treatment", "age"].mean()),
    Q8("heart-transplant", "What was the longest anyone waited for a transplant?", "max", lambda f: f["wait"].max()),
    Q8("heart-transplant", "How many patients were accepted into the program in 1971?", "date",
       lambda f: int((f["acceptyear"] == 71).sum())),
    Q8("heart-transplant", "How many patients had not had prior surgery?", "negation",
       lambda f: int((f["prior"] != "yes").sum())),
    Q8("heart-transplant", "What was the average survival time of the control and of the treatment group?", "per",
       _per("transplant", "survtime", "mean")),
    Q8("heart-transplant", "How many patients were younger than 40?", "range", lambda f: int((f["age"] < 40).sum())),
    # Murders recorded in Greater London, January 2006 to September 2011 (Markdown): victim's forename, age,
    # date, year, borough.
    Q8("london-murders", "How many murders were there in 2008?", "date", lambda f: int((f["year"] == 2008).sum())),
    Q8("london-murders", "Which borough had the most murders?", "ranked",
       lambda f: str(f["borough"].value_counts().idxmax())),
    Q8("london-murders", "What was the average age of the first 50 victims listed?", "first",
       lambda f: f["age"].head(50).mean()),
    Q8("london-murders", "How many of the victims were under 18?", "range", lambda f: int((f["age"] < 18).sum())),
    Q8("london-murders", "How many murders happened outside Lambeth?", "negation",
       lambda f: int((f["borough"] != "Lambeth").sum())),
    Q8("london-murders", "Which 3 boroughs saw the most murders?", "top", _counted("borough", 3)),
    Q8("london-murders", "How many murders were recorded in March 2010?", "date",
       lambda f: int(f["date"].str.startswith("2010-03").sum())),
    # Major League Baseball salaries, 2010 (HTML): player, team, position, salary in thousands of dollars.
    Q8("mlb-salaries", "What was Derek Jeter's salary?", "lookup", _cell("player", "Derek Jeter", "salary")),
    Q8("mlb-salaries", "Which team had the biggest payroll?", "ranked", _ranked("team", "salary", "sum")),
    Q8("mlb-salaries", "How many times bigger was the Yankees' payroll than the Pittsburgh Pirates'?", "ratio",
       lambda f: f.loc[f["team"] == "New York Yankees", "salary"].sum()
       / f.loc[f["team"] == "Pittsburgh Pirates", "salary"].sum()),
    Q8("mlb-salaries", "What was the average salary of a catcher?", "average",
       lambda f: f.loc[f["position"] == "Catcher", "salary"].mean()),
    Q8("mlb-salaries", "Who were the 3 highest-paid players?", "top", _top("player", "salary", 3)),
    Q8("mlb-salaries", "How many players were paid $10 million or more?", "range",
       lambda f: int((f["salary"] >= 10000).sum())),
    Q8("mlb-salaries", "What was the total payroll of the Boston Red Sox?", "sum",
       lambda f: f.loc[f["team"] == "Boston Red Sox", "salary"].sum()),
    # Guerry's moral statistics of the 86 departments of France, about 1830 (HTML): region, department,
    # crime, literacy (%), donations, births, suicides, main city size, ranks, area (km²), population in 1831
    # (thousands).
    Q8("guerry", "What was the literacy rate in Seine?", "lookup", _cell("Department", "Seine", "Literacy")),
    Q8("guerry", "Which department had the highest literacy rate?", "ranked",
       _ranked("Department", "Literacy", "max")),
    Q8("guerry", "What was the total 1831 population of the departments in the north region?", "sum",
       lambda f: f.loc[f["Region"] == "N", "Pop1831"].sum()),
    Q8("guerry", "What is the average literacy rate in each region?", "per", _per("Region", "Literacy", "mean")),
    Q8("guerry", "How many departments have a large main city?", "count",
       lambda f: int((f["MainCity"] == "3:Lg").sum())),
    Q8("guerry", "What is the area of the smallest department?", "min", lambda f: f["Area"].min()),
    Q8("guerry", "How many departments had a literacy rate below 30 percent?", "range",
       lambda f: int((f["Literacy"] < 30).sum())),
    # Australian opinion polls between the 2004 and 2007 federal elections (a workbook, dates as dates): the
    # parties' shares (%), sample size, pollster and mode, start and end dates, source, remark.
    Q8("australian-polls", "How many polls did Newspoll conduct?", "count",
       lambda f: int((f["org"] == "Newspoll").sum())),
    Q8("australian-polls", "What was Labor's highest share in any poll?", "max", lambda f: f["ALP"].max()),
    Q8("australian-polls", "What was the Greens' average share across all the polls?", "average",
       lambda f: f["Green"].mean()),
    Q8("australian-polls", "What was Labor's average share for each polling organisation?", "per",
       _per("org", "ALP", "mean")),
    Q8("australian-polls", "How many polls started in 2006?", "date",
       lambda f: int(f["startDate"].str.startswith("2006").sum())),
    Q8("australian-polls", "In how many polls was Labor above 50 percent?", "range",
       lambda f: int((f["ALP"] > 50).sum())),
    Q8("australian-polls", "What was the Liberals' average share in the last 10 polls?", "first",
       lambda f: f["Lib"].tail(10).mean()),
    # Intel and AMD processors released 2010-2020 (a workbook): company, name, codename, cores, threads, base and
    # boost clock (GHz), socket, process (nm), L3 cache (MB), TDP (watts), release date.
    Q8("cpus", "What is the lowest TDP of any processor in the list?", "min", lambda f: f["tdp"].min()),
    Q8("cpus", "What is the largest number of cores a processor has?", "max", lambda f: f["cores"].max()),
    Q8("cpus", "What is the average base clock of the Intel processors?", "average",
       lambda f: f.loc[f["company"] == "Intel", "base_clock"].mean()),
    Q8("cpus", "How many processors came out in 2015?", "date",
       lambda f: int(f["released"].str.startswith("2015").sum())),
    Q8("cpus", "Which codename covers the most processors?", "ranked",
       lambda f: str(f["codename"].value_counts().idxmax())),
    Q8("cpus", "How many processors have a TDP of 65 watts or less?", "range", lambda f: int((f["tdp"] <= 65).sum())),
    Q8("cpus", "How many different sockets are there?", "distinct", lambda f: int(f["socket"].nunique())),
    # US airports (a CSV): FAA code, name, latitude, longitude, altitude (feet), GMT offset, daylight saving
    # rule, time zone.
    Q8("airports", "What is the altitude of DEN?", "lookup", _cell("faa", "DEN", "alt")),
    Q8("airports", "Which airport is the highest?", "ranked", _ranked("name", "alt", "max")),
    Q8("airports", "How many airports are in the America/Anchorage time zone?", "count",
       lambda f: int((f["tzone"] == "America/Anchorage").sum())),
    Q8("airports", "How many airports don't follow the standard US daylight saving rule (A)?", "negation",
       lambda f: int((f["dst"] != "A").sum())),
    Q8("airports", "How many airports sit above 5,000 feet?", "range", lambda f: int((f["alt"] > 5000).sum())),
    Q8("airports", "Which 3 time zones have the most airports?", "top", _counted("tzone", 3)),
    Q8("airports", "How much higher is Denver International than La Guardia?", "difference",
       lambda f: _cell("faa", "DEN", "alt")(f) - _cell("faa", "LGA", "alt")(f)),
    # US midterm elections, 1899-2019 as the table dates them (a Word document): year, president, party,
    # unemployment rate, change in the president's party's House seats (%).
    Q8("midterms-house", "What was the unemployment rate in 1935?", "lookup", _cell("year", 1935, "unemp")),
    Q8("midterms-house", "In which year did the president's party lose the largest share of its House seats?", "ranked",
       _ranked("year", "house_change", "min", lowest=True)),
    Q8("midterms-house", "In how many midterms did the president's party gain seats?", "range",
       lambda f: int((f["house_change"] > 0).sum())),
    Q8("midterms-house", "What was the average percentage change in House seats under Democratic and under "
       "Republican presidents?", "per", _per("party", "house_change", "mean")),
    Q8("midterms-house", "How many of the midterms were held with a Republican in the White House?", "count",
       lambda f: int((f["party"] == "Republican").sum())),
    Q8("midterms-house", "What was the lowest unemployment rate at any midterm?", "min", lambda f: f["unemp"].min()),
    Q8("midterms-house", "What was the average unemployment rate at the midterms before 1950?", "date",
       lambda f: f.loc[f["year"] < 1950, "unemp"].mean()),
)
