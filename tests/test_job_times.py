"""benchmarks/job_times.py: the job time of a run made of several invocations, from its benchmark files."""

from __future__ import annotations

import pytest

from conftest import ROOT


def test_job_seconds_are_summed_per_kind_with_a_total(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from job_times import job_times

    header = "s\th:m:s\tmax_rss\n"
    for rel, seconds in {"select/e/wine/LS/default/rep0.tsv": 2.5, "select/e/zoo/LS/default/rep0.tsv": 2.0,
                         "evaluate/e/wine/LS/default/rep0.tsv": 4.0}.items():
        path = tmp_path / "logs/times" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + f"{seconds}\t0:00:0{int(seconds)}\t100\n")
    table = job_times([tmp_path]).set_index("kind")
    assert table.loc["select"].tolist() == [2, 4.5] and table.loc["evaluate"].tolist() == [1, 4.0]
    assert table.loc["total"].tolist() == [3, 8.5] and table.index[0] == "select"
    with pytest.raises(ValueError, match="no benchmark file"):
        job_times([tmp_path / "empty"])
