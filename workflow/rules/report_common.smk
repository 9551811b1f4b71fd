# The registered papers' rules files (the paper folders of ufskit/papers and of config `paper_folders`, registered
# in common.smk), the helpers of the papers' rules (used in their output sections, so included before them) and the input functions of the
# scorecard (workflow/rules/report.smk).

from ufskit import captions as CAPTIONS
from ufskit import scorecard as SCORECARD
from ufskit.papers import benchmark as BENCHMARK

PAPER_RULES = [str(spec.rules) for spec in PAPERS.registry().values()]  # each paper's rules.smk: the Snakefile's
PAPERS.check_experiments(config["experiments"])  # each experiment's paper registered, its role one of the paper's
# short names ("IVFS", not the citation): the report's navigation bar widens to its longest category over the page
REPORT_CATEGORIES = {p: title.split(" (")[0] for p, title in PAPERS.titles().items()}


def published(paper, file):
    """A published file of the paper (in its folder's published/): an input of the rules printing it beside the run."""
    return str(PAPERS.registry()[paper].path(file))


def paper_report(path, paper, caption):
    """`path` marked for `snakemake --report`: under the paper's category, one subcategory per results folder,
    with the caption captions/<caption>.rst of the paper's folder (saying what it shows and which paper element
    it reproduces), one of the paper's tables and figures (ufskit.papers PaperSpec)."""
    captions = PAPERS.registry()[paper].captions
    if caption not in captions:
        raise ValueError(
            f"paper {paper!r}: caption {caption!r} is none of its tables' and figures' {sorted(captions)}."
        )
    category = benchmark_title if paper == "benchmark" else REPORT_CATEGORIES[paper]
    return report(
        path,
        caption=str(PAPERS.registry()[paper].caption(caption)),
        category=category,
        subcategory=os.path.dirname(path),
    )


def benchmark_title(wildcards):
    """The title of a benchmark folder (ufskit.papers.benchmark.title): its report category, `params.title` of its
    rules (the headings of its tables and figures, its captions)."""
    return BENCHMARK.title(wildcards.report, report_experiments(wildcards.report), config["protocol"])


def report_run(wildcards):
    """`params.run` of the paper rules with an output in the report, printed by its caption (ufskit.captions).

    What produced the results folder - protocol, datasets, methods and settings, counts, repetitions.
    """
    folder = getattr(wildcards, "report", None) or wildcards.folder
    return CAPTIONS.run_facts(config, report_experiments(folder))


# ---- the scorecard ------------------------------------------------------------------------

SCORECARD_PUBLISHED = sorted({published(paper, block.file) for paper, block in SCORECARD.published_blocks()})
SCORECARD_CLAIMS = [str(p) for p in SCORECARD.claim_lists()]
# out-of-tolerance numbers -> group, reason, doc: each scored paper's groups.csv (in its folder), when it has one
SCORECARD_GROUPS = [str(p) for p in SCORECARD.group_files()]


def report_summaries(report):
    """Prepared-data summaries of the datasets of a report folder's experiments (their n, d and classes)."""
    paths = {}
    for name in report_experiments(report):
        chain = config["experiments"][name]["preprocess"]
        for dataset in experiment_datasets(name):
            paths.setdefault(dataset, f"resources/prepared/{chain}/{dataset}.json")
    return list(paths.values())


def scorecard_kinds(paper):
    """The CSV outputs of a paper's report folder that the scorecard reads: those its readers name, and claims."""
    return {*PAPERS.registry()[paper].readers, "claims"}


def scorecard_sources():
    """Paper -> one entry per report folder of the paper in this run: the tables and claims it built, summaries."""
    sources = {paper: [] for paper in PAPERS.scored()}
    reports = sorted({(report_dir(n), config["experiments"][n]["paper"]) for n in config["run"]})
    for report, paper in reports:
        if paper not in sources:
            continue
        files = {
            Path(t).stem: t
            for t in PAPER_TARGETS[paper](report)
            if t.endswith(".csv") and Path(t).stem in scorecard_kinds(paper)
        }
        reading = READING_FOLDERS.get(report, {})
        sources[paper].append(
            {
                "report": report,
                "files": files,
                "summaries": report_summaries(report),
                "reading": reading.get("reading", READINGS.MAIN),
                "base": reading.get("base", ""),
            }
        )
    return sources


def scorecard_beside():
    """Paper -> reading -> {published metric: main-table metric} of the selected readings computed beside the main one."""
    beside = {}
    for name in READINGS.selected(config):
        reading = config["readings"][name]
        if "beside" in reading:
            beside.setdefault(reading["paper"], {})[name] = dict(reading["beside"])
    return beside


def scorecard_inputs(wildcards):
    """Every file the scorecard reads from this run's results."""
    return sorted(
        {
            path
            for entries in scorecard_sources().values()
            for entry in entries
            for path in [*entry["files"].values(), *entry["summaries"]]
        }
    )
