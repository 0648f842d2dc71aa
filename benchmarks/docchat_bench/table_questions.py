"""The questions of `docchat bench tables`, written for issue 55 over the real tables in
tables_data/ (tables_data/SOURCES.md says where each comes from and under what terms). None is
taken from a public table-QA data set. Each question's right answer is computed here by pandas,
from the same data, independently of docchat: a number, the label that ranks first, or a figure
per value.

Each question carries its shape, so the bench can say which shapes docchat reads: count, sum,
average, min, max, ranked (the label with the highest or lowest figure), per (a figure per
value), difference, top (a top-N list), lookup (one cell), first (the first or last N rows),
date (a year or month of a date column), negation, range, distinct.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

Truth = Callable[[pd.DataFrame], object]


@dataclass(frozen=True)
class Question:
    table: str  # a file of tables_data/, without ".csv"
    text: str
    shape: str
    truth: Truth


def _ranked(by: str, column: str, how: str = "sum", lowest: bool = False) -> Truth:
    def truth(frame: pd.DataFrame) -> object:
        figures = frame.groupby(by)[column].agg(how)
        return str(figures.idxmin() if lowest else figures.idxmax())
    return truth


def _per(by: str, column: str, how: str = "sum") -> Truth:
    return lambda frame: {str(k): float(v) for k, v in frame.groupby(by)[column].agg(how).items()}


def _top(by: str, column: str, n: int) -> Truth:
    return lambda frame: [str(k) for k in frame.groupby(by)[column].sum().nlargest(n).index]


Q = Question
QUESTIONS: tuple[Question, ...] = (
    # mtcars (a PDF): Motor Trend's 32 cars of 1973-74.
    Q("mtcars", "What is the average mpg?", "average", lambda f: f["mpg"].mean()),
    Q("mtcars", "How many cars have 8 cyl?", "count", lambda f: int((f["cyl"] == 8).sum())),
    Q("mtcars", "What is the highest hp?", "max", lambda f: f["hp"].max()),
    Q("mtcars", "How many cars have more than 200 hp?", "range", lambda f: int((f["hp"] > 200).sum())),
    Q("mtcars", "What is the mpg of the Mazda RX4?", "lookup", lambda f: f.loc[f["car"] == "Mazda RX4", "mpg"].iloc[0]),
    Q("mtcars", "What is the total hp of the first 3 cars?", "first", lambda f: f["hp"].head(3).sum()),
    Q("mtcars", "What is the lowest wt?", "min", lambda f: f["wt"].min()),
    # USArrests (a PDF over two pages): arrests per 100,000 residents by state, 1973.
    Q("usarrests", "What is the average Murder rate?", "average", lambda f: f["Murder"].mean()),
    Q("usarrests", "Which State has the highest Assault?", "ranked", _ranked("State", "Assault", "max")),
    Q("usarrests", "Which State has the lowest UrbanPop?", "ranked", _ranked("State", "UrbanPop", "min", lowest=True)),
    Q("usarrests", "What is the Murder rate in Texas?", "lookup", lambda f: f.loc[f["State"] == "Texas", "Murder"].iloc[0]),
    Q("usarrests", "How many states have an UrbanPop above 80?", "range", lambda f: int((f["UrbanPop"] > 80).sum())),
    Q("usarrests", "What is the total Assault of the last 5 states?", "first", lambda f: f["Assault"].tail(5).sum()),
    # women (Markdown): heights and weights of American women aged 30-39.
    Q("women", "What is the average weight?", "average", lambda f: f["weight"].mean()),
    Q("women", "What is the highest weight?", "max", lambda f: f["weight"].max()),
    Q("women", "How many women have a height above 65?", "range", lambda f: int((f["height"] > 65).sum())),
    Q("women", "What is the total weight?", "sum", lambda f: f["weight"].sum()),
    # trees (HTML): girth, height and volume of 31 felled black cherry trees.
    Q("trees", "What is the average Volume?", "average", lambda f: f["Volume"].mean()),
    Q("trees", "What is the maximum Height?", "max", lambda f: f["Height"].max()),
    Q("trees", "How many trees have a Girth of more than 15?", "range", lambda f: int((f["Girth"] > 15).sum())),
    Q("trees", "What is the total Volume?", "sum", lambda f: f["Volume"].sum()),
    Q("trees", "What is the smallest Girth?", "min", lambda f: f["Girth"].min()),
    # PlantGrowth (Markdown): dried plant weights under a control and two treatments.
    Q("plantgrowth", "What is the average weight of the ctrl group?", "average",
      lambda f: f.loc[f["group"] == "ctrl", "weight"].mean()),
    Q("plantgrowth", "Which group has the highest average weight?", "ranked", _ranked("group", "weight", "mean")),
    Q("plantgrowth", "What is the average weight per group?", "per", _per("group", "weight", "mean")),
    Q("plantgrowth", "How many plants are in the trt1 group?", "count", lambda f: int((f["group"] == "trt1").sum())),
    Q("plantgrowth", "What is the total weight of plants not in the ctrl group?", "negation",
      lambda f: f.loc[f["group"] != "ctrl", "weight"].sum()),
    # InsectSprays (HTML): insects counted on plots treated with six sprays.
    Q("insectsprays", "What is the total count for spray C?", "sum", lambda f: f.loc[f["spray"] == "C", "count"].sum()),
    Q("insectsprays", "Which spray has the lowest total count?", "ranked", _ranked("spray", "count", "sum", lowest=True)),
    Q("insectsprays", "What is the total count per spray?", "per", _per("spray", "count")),
    Q("insectsprays", "How many different sprays are there?", "distinct", lambda f: int(f["spray"].nunique())),
    Q("insectsprays", "How many more insects were counted with spray A than with spray B?", "difference",
      lambda f: f.loc[f["spray"] == "A", "count"].sum() - f.loc[f["spray"] == "B", "count"].sum()),
    Q("insectsprays", "What are the top 2 sprays by count?", "top", _top("spray", "count", 2)),
    # ToothGrowth (a workbook): tooth length of guinea pigs by supplement and dose.
    Q("toothgrowth", "What is the average len for supp OJ?", "average", lambda f: f.loc[f["supp"] == "OJ", "len"].mean()),
    Q("toothgrowth", "What is the average len per supp?", "per", _per("supp", "len", "mean")),
    Q("toothgrowth", "How many rows have a dose of 2?", "count", lambda f: int((f["dose"] == 2).sum())),
    Q("toothgrowth", "What is the maximum len?", "max", lambda f: f["len"].max()),
    # warpbreaks (a CSV): breaks per loom by wool and tension.
    Q("warpbreaks", "What is the total number of breaks for wool A?", "sum",
      lambda f: f.loc[f["wool"] == "A", "breaks"].sum()),
    Q("warpbreaks", "Which tension has the most breaks?", "ranked", _ranked("tension", "breaks")),
    Q("warpbreaks", "What is the average breaks per tension?", "per", _per("tension", "breaks", "mean")),
    Q("warpbreaks", "How many more breaks does wool A have than wool B?", "difference",
      lambda f: f.loc[f["wool"] == "A", "breaks"].sum() - f.loc[f["wool"] == "B", "breaks"].sum()),
    Q("warpbreaks", "What is the highest number of breaks?", "max", lambda f: f["breaks"].max()),
    # chickwts (a Word document): chick weights after six weeks by feed.
    Q("chickwts", "What is the average weight of chicks fed casein?", "average",
      lambda f: f.loc[f["feed"] == "casein", "weight"].mean()),
    Q("chickwts", "Which feed has the highest average weight?", "ranked", _ranked("feed", "weight", "mean")),
    Q("chickwts", "How many chicks were fed soybean?", "count", lambda f: int((f["feed"] == "soybean").sum())),
    Q("chickwts", "How many different feeds are there?", "distinct", lambda f: int(f["feed"].nunique())),
    Q("chickwts", "What is the lowest weight?", "min", lambda f: f["weight"].min()),
    # airquality (a CSV with NA for missing values): New York, May to September 1973.
    Q("airquality", "What is the average Ozone?", "average", lambda f: f["Ozone"].mean()),
    Q("airquality", "What is the highest Temp in Month 7?", "max", lambda f: f.loc[f["Month"] == 7, "Temp"].max()),
    Q("airquality", "How many days have a Temp above 90?", "range", lambda f: int((f["Temp"] > 90).sum())),
    Q("airquality", "What is the average Wind?", "average", lambda f: f["Wind"].mean()),
    Q("airquality", "What is the maximum Ozone?", "max", lambda f: f["Ozone"].max()),
    # esoph (a workbook): a case-control study of oesophageal cancer in Ille-et-Vilaine.
    Q("esoph", "What is the total ncases?", "sum", lambda f: f["ncases"].sum()),
    Q("esoph", "What is the total ncontrols for agegp 75+?", "sum", lambda f: f.loc[f["agegp"] == "75+", "ncontrols"].sum()),
    Q("esoph", "Which agegp has the most ncases?", "ranked", _ranked("agegp", "ncases")),
    Q("esoph", "What is the total ncases per alcgp?", "per", _per("alcgp", "ncases")),
    # Orange (a PDF): growth of five orange trees.
    Q("orange", "What is the maximum circumference?", "max", lambda f: f["circumference"].max()),
    Q("orange", "What is the average circumference?", "average", lambda f: f["circumference"].mean()),
    Q("orange", "How many measurements have an age above 1000?", "range", lambda f: int((f["age"] > 1000).sum())),
    # Iowa electricity (a workbook, a date a year): net generation by source, thousand MWh.
    Q("iowa-electricity", "What was the total net_generation in 2010?", "date",
      lambda f: f.loc[f["year"].str.startswith("2010"), "net_generation"].sum()),
    Q("iowa-electricity", "What is the total net_generation for Renewables?", "sum",
      lambda f: f.loc[f["source"] == "Renewables", "net_generation"].sum()),
    Q("iowa-electricity", "Which source has the highest total net_generation?", "ranked",
      _ranked("source", "net_generation")),
    Q("iowa-electricity", "What was the net_generation of Nuclear Energy in 2005?", "date",
      lambda f: f.loc[(f["source"] == "Nuclear Energy") & f["year"].str.startswith("2005"), "net_generation"].sum()),
    # Seattle weather (a CSV of 1,461 days, 2012-2015).
    Q("seattle-weather", "What was the total precipitation in 2014?", "date",
      lambda f: f.loc[f["date"].str.startswith("2014"), "precipitation"].sum()),
    Q("seattle-weather", "What was the highest temp_max in 2013?", "date",
      lambda f: f.loc[f["date"].str.startswith("2013"), "temp_max"].max()),
    Q("seattle-weather", "How many days had the weather snow?", "count", lambda f: int((f["weather"] == "snow").sum())),
    Q("seattle-weather", "What was the average wind in March 2015?", "date",
      lambda f: f.loc[f["date"].str.startswith("2015-03"), "wind"].mean()),
    Q("seattle-weather", "How many days had more than 30 precipitation?", "range",
      lambda f: int((f["precipitation"] > 30).sum())),
    # barley (HTML): yields of ten varieties at six sites, 1931 and 1932.
    Q("barley", "What is the total yield at Waseca?", "sum", lambda f: f.loc[f["site"] == "Waseca", "yield"].sum()),
    Q("barley", "Which site has the highest total yield?", "ranked", _ranked("site", "yield")),
    Q("barley", "Which variety has the lowest average yield?", "ranked", _ranked("variety", "yield", "mean", lowest=True)),
    Q("barley", "What is the average yield per year?", "per", _per("year", "yield", "mean")),
    Q("barley", "What is the total yield outside Crookston?", "negation",
      lambda f: f.loc[f["site"] != "Crookston", "yield"].sum()),
    # Palmer penguins (a CSV with NA): three species on three islands.
    Q("penguins", "How many penguins are of the species Gentoo?", "count", lambda f: int((f["species"] == "Gentoo").sum())),
    Q("penguins", "What is the average body_mass_g of Adelie penguins?", "average",
      lambda f: f.loc[f["species"] == "Adelie", "body_mass_g"].mean()),
    Q("penguins", "Which island has the most penguins?", "ranked", lambda f: str(f["island"].value_counts().idxmax())),
    Q("penguins", "What is the maximum flipper_length_mm?", "max", lambda f: f["flipper_length_mm"].max()),
    Q("penguins", "How many penguins live on Biscoe or Dream?", "count",
      lambda f: int(f["island"].isin(["Biscoe", "Dream"]).sum())),
    Q("penguins", "How many penguins are not on Torgersen?", "negation", lambda f: int((f["island"] != "Torgersen").sum())),
    # The second set, written after the reader was changed for the first and asked once before
    # any change it prompted (docs/perf/tables.md gives both runs).
    Q("mtcars", "How many cars have 4 gears?", "count", lambda f: int((f["gear"] == 4).sum())),
    Q("mtcars", "What is the average hp of cars with 6 cyl?", "average", lambda f: f.loc[f["cyl"] == 6, "hp"].mean()),
    Q("mtcars", "Which car has the highest mpg?", "ranked", _ranked("car", "mpg", "max")),
    Q("mtcars", "How many cars have an mpg of at least 25?", "range", lambda f: int((f["mpg"] >= 25).sum())),
    Q("mtcars", "What is the average qsec per cyl?", "per", _per("cyl", "qsec", "mean")),
    Q("usarrests", "What is the total Assault across all states?", "sum", lambda f: f["Assault"].sum()),
    Q("usarrests", "How many states have a Murder rate below 5?", "range", lambda f: int((f["Murder"] < 5).sum())),
    Q("usarrests", "What is the UrbanPop of California?", "lookup",
      lambda f: f.loc[f["State"] == "California", "UrbanPop"].iloc[0]),
    Q("usarrests", "Which State has the lowest Murder rate?", "ranked", _ranked("State", "Murder", "min", lowest=True)),
    Q("women", "What is the weight of women with a height of 60?", "lookup",
      lambda f: f.loc[f["height"] == 60, "weight"].iloc[0]),
    Q("women", "What is the lowest height?", "min", lambda f: f["height"].min()),
    Q("trees", "What is the average Height of trees with a Volume above 30?", "range",
      lambda f: f.loc[f["Volume"] > 30, "Height"].mean()),
    Q("trees", "How many trees are there?", "count", lambda f: len(f)),
    Q("plantgrowth", "What is the lowest weight in the trt2 group?", "min",
      lambda f: f.loc[f["group"] == "trt2", "weight"].min()),
    Q("plantgrowth", "How many different groups are there?", "distinct", lambda f: int(f["group"].nunique())),
    Q("insectsprays", "What is the average count for spray F?", "average",
      lambda f: f.loc[f["spray"] == "F", "count"].mean()),
    Q("insectsprays", "What is the highest count?", "max", lambda f: f["count"].max()),
    Q("insectsprays", "What is the total count excluding spray A?", "negation",
      lambda f: f.loc[f["spray"] != "A", "count"].sum()),
    Q("toothgrowth", "What is the average len for supp VC with a dose of 0.5?", "average",
      lambda f: f.loc[(f["supp"] == "VC") & (f["dose"] == 0.5), "len"].mean()),
    Q("toothgrowth", "What is the lowest len?", "min", lambda f: f["len"].min()),
    Q("toothgrowth", "Which supp has the highest average len?", "ranked", _ranked("supp", "len", "mean")),
    Q("warpbreaks", "What is the total breaks for tension H?", "sum", lambda f: f.loc[f["tension"] == "H", "breaks"].sum()),
    Q("warpbreaks", "What is the average breaks for wool B with tension M?", "average",
      lambda f: f.loc[(f["wool"] == "B") & (f["tension"] == "M"), "breaks"].mean()),
    Q("warpbreaks", "How many looms had more than 40 breaks?", "range", lambda f: int((f["breaks"] > 40).sum())),
    Q("chickwts", "What is the total weight per feed?", "per", _per("feed", "weight")),
    Q("chickwts", "What is the highest weight of chicks fed horsebean?", "max",
      lambda f: f.loc[f["feed"] == "horsebean", "weight"].max()),
    Q("chickwts", "Which feed has the lowest average weight?", "ranked", _ranked("feed", "weight", "mean", lowest=True)),
    Q("airquality", "What is the average Temp in Month 5?", "average", lambda f: f.loc[f["Month"] == 5, "Temp"].mean()),
    Q("airquality", "What is the average Temp per Month?", "per", _per("Month", "Temp", "mean")),
    Q("airquality", "What is the lowest Wind?", "min", lambda f: f["Wind"].min()),
    Q("airquality", "Which Month has the highest average Ozone?", "ranked", _ranked("Month", "Ozone", "mean")),
    Q("esoph", "What is the total ncontrols?", "sum", lambda f: f["ncontrols"].sum()),
    Q("esoph", "How many rows have agegp 25-34?", "count", lambda f: int((f["agegp"] == "25-34").sum())),
    Q("orange", "What is the average circumference of Tree 3?", "average",
      lambda f: f.loc[f["Tree"] == 3, "circumference"].mean()),
    Q("orange", "Which Tree has the highest average circumference?", "ranked", _ranked("Tree", "circumference", "mean")),
    Q("iowa-electricity", "What was the total net_generation for Fossil Fuels after 2010?", "date",
      lambda f: f.loc[(f["source"] == "Fossil Fuels") & (f["year"] > "2010-12-31"), "net_generation"].sum()),
    Q("iowa-electricity", "What is the highest net_generation of Renewables?", "max",
      lambda f: f.loc[f["source"] == "Renewables", "net_generation"].max()),
    Q("seattle-weather", "How many days had the weather sun in 2015?", "date",
      lambda f: int(((f["weather"] == "sun") & f["date"].str.startswith("2015")).sum())),
    Q("seattle-weather", "What was the lowest temp_min in 2012?", "date",
      lambda f: f.loc[f["date"].str.startswith("2012"), "temp_min"].min()),
    Q("seattle-weather", "What was the total precipitation per weather?", "per", _per("weather", "precipitation")),
    Q("barley", "What is the average yield of the variety Trebi?", "average",
      lambda f: f.loc[f["variety"] == "Trebi", "yield"].mean()),
    Q("barley", "What is the total yield in 1932?", "sum", lambda f: f.loc[f["year"] == 1932, "yield"].sum()),
    Q("barley", "How many different sites are there?", "distinct", lambda f: int(f["site"].nunique())),
    Q("penguins", "What is the average bill_length_mm per species?", "per", _per("species", "bill_length_mm", "mean")),
    Q("penguins", "How many penguins were recorded in 2008?", "count", lambda f: int((f["year"] == 2008).sum())),
    Q("penguins", "Which species has the highest average body_mass_g?", "ranked", _ranked("species", "body_mass_g", "mean")),
    Q("penguins", "What is the lowest body_mass_g of Chinstrap penguins?", "min",
      lambda f: f.loc[f["species"] == "Chinstrap", "body_mass_g"].min()),
)
