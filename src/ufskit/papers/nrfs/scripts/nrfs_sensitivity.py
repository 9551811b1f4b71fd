"""Rule nrfs_sensitivity: NMI of every Table I method (added ones too) as one generator option of the synthetic data
moves."""

from ufskit.experiments import resolve_params
from ufskit.papers import with_in_paper
from ufskit.papers.nrfs.calibration import sensitivity
from ufskit.runlog import start
from ufskit.seeds import derive_seed
from ufskit.synthetic import N_CLUSTERS

log = start(snakemake.log[0], snakemake.threads)
p = snakemake.params
methods = {m: (None if spec is None else {**spec, "params": resolve_params(spec["params"], n_classes=N_CLUSTERS)})
           for m, spec in p.methods.items()}
setting = p.sensitivity
frame = sensitivity(dict(p.base), setting["sweeps"], methods,
                    data_seeds=[derive_seed(p.seed, "data", i) for i in range(setting["data_seeds"])],
                    kmeans={"n_init": setting["kmeans_starts"], "max_iter": 100}, seed=p.seed)
# a method added by extra_methods: in_paper False (drawn, not in the robustness claim)
frame = with_in_paper(frame, {m: spec or {} for m, spec in p.methods.items()})
frame.to_csv(snakemake.output[0], index=False)
log.info("%d sweep points x %d methods", frame.groupby(["parameter", "value"]).ngroups, len(methods))
