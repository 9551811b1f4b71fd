"""Rule nrfs_claims: a verdict with its numbers for every NRFS claim the run can check."""

import pandas as pd

from ufskit.intermediates import read_csv, read_npz, read_parquet
from ufskit.papers import claims_frame, paper_rows
from ufskit.papers import nrfs as P
from ufskit.papers.nrfs.calibration import claim_robustness
from ufskit.runlog import start
from ufskit.tables import write_markdown

start(snakemake.log[0])
inp = snakemake.input
names = set(inp.keys())
claims = []  # (id in config/published/claims.csv, claim, verdict, evidence)
if "table1" in names:
    claims.append(("NRFS/T1", "Table I: NRFS picks f1-f4 and reaches NMI 1.0; the others stay at or below 0.50",
                   *P.claim_table1(paper_rows(read_csv(inp.table1)))))
    s = read_npz(inp.sampling, "sampling archive")
    claims.append(("NRFS/Fig4", "Fig. 4: the sampling keeps representatives and drops the noisy instances",
                   *P.claim_sampling(s["noise_indices"], s["removed"], s["representatives"])))
if "sensitivity" in names:
    claims.append(("NRFS/Robust", ("Sec. I-II: NRFS resists noisy features and noisy instances where the baselines "
                                   "fail (synthetic data, swept generator options)"),
                   *claim_robustness(paper_rows(read_csv(inp.sensitivity)))))
if "fig5" in names:
    kmeans_all = pd.concat([read_parquet(p) for p in inp.kmeans_all], ignore_index=True)
    claims.append(("NRFS/Fig5", ("Fig. 5: NRFS above LS, SPEC, MCFS, NDFS and all-feature K-means; > 10% above MCFS "
                                 "on microarray and > 25% on text on average"),
                   *P.claim_fig5(paper_rows(read_csv(inp.fig5)), kmeans_all, snakemake.params.groups)))
    claims.append(("NRFS/Fig6", "Fig. 6: NRFS is stable across q", *P.claim_fig6(read_csv(inp.fig6))))
    claims.append(("NRFS/Fig7", ("Fig. 7: NRFS with sampling is 57% faster than without, comparable to MCFS and over "
                                 "2.5x faster than NDFS"), *P.claim_fig7(paper_rows(read_csv(inp.fig7)))))
write_markdown(P.claims_markdown([c[1:] for c in claims]), snakemake.output.md, snakemake.output.html)
records = [dict(zip(("id", "claim", "verdict", "numbers"), c)) for c in claims]
claims_frame(records).to_csv(snakemake.output.csv, index=False)
