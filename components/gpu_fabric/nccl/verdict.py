"""Judge a parsed nccl-tests run against the machine catalog.

The verdict looks only at rows of at least 1 GiB (small messages measure latency,
not the fabric; the "Avg bus bandwidth" line mixes both and is reported but never
judged). Numbers come from :mod:`gpu_fabric.catalog`:

* line rate: the fabric NICs the ranks of one node use x Gbps per NIC / 8
  (``Machine.line_rate_for``);
* floor: the catalog's 2-node busbw floor, scaled by the share of NICs used
  (``Machine.floor_for``);
* expected transport: the machine's NCCL profile (``NET/IB``, ``NET/OFI``...).

Efficiency (peak / line rate) is reported unclipped: all_reduce can exceed 100%
when NCCL reduces inside the node over NVLink first.

Two floors: on a machine whose nodes share a multi-node NVLink domain (GB200/GB300
NVL72) a run whose nodes all fit in one domain moves its data over NVLink (MNNVL), not
the network, so it is judged against the NVLink floor (the catalog's per-GPU NVLink
bandwidth, ``Machine.nvlink``); a run over more nodes than a domain holds, or every run
on other machines, against the network floor. ``floor`` picks one on purpose
(``nccl-report --floor``); the verdict says which floor it judged and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from gpu_fabric.catalog import Machine
from gpu_fabric.nccl.parser import SOCKET, NcclRun, busbw_factor

GIB = 2**30
NETWORK = "network"
NVLINK = "nvlink"
FLOORS = ("auto", NETWORK, NVLINK)
# busbw/algbw may differ from the collective's factor by rounding of the printed values.
FACTOR_TOLERANCE = 0.05


class VerdictInputError(ValueError):
    """The question cannot be asked (machine without fabric, bad GPU count...)."""


@dataclass(frozen=True)
class Verdict:
    collective: str | None
    machine: str
    nodes: int
    gpus_per_node: int
    ranks: int
    rows: int
    large_rows: int
    peak_out_of_place: float | None
    peak_in_place: float | None
    avg_busbw: float | None
    line_rate: float
    floor: float | None
    wrong: int
    transport: str | None
    expected_transport: str | None
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Which floor was judged ("network" or "nvlink") and why.
    floor_kind: str = NETWORK
    floor_reason: str = ""

    @property
    def peak(self) -> float | None:
        """The better of the out-of-place and in-place peaks (what the floor is judged on)."""
        found = [p for p in (self.peak_out_of_place, self.peak_in_place) if p is not None]
        return max(found) if found else None

    @property
    def efficiency(self) -> float | None:
        if self.peak is None or not self.line_rate:
            return None
        return self.peak / self.line_rate

    @property
    def passed(self) -> bool:
        return not self.reasons

    def to_json(self) -> dict[str, Any]:
        """The stable ``nccl-report --json`` shape (bandwidths in GB/s, null where unknown)."""
        return {
            "collective": self.collective,
            "nodes": self.nodes,
            "ranks": self.ranks,
            "rows": self.rows,
            "peak_busbw": {
                "out_of_place": finite_or_none(self.peak_out_of_place),
                "in_place": finite_or_none(self.peak_in_place),
            },
            "avg_busbw": finite_or_none(self.avg_busbw),
            "line_rate": self.line_rate,
            "efficiency": finite_or_none(
                None if self.efficiency is None else round(self.efficiency, 4)
            ),
            "floor": self.floor,
            "floor_kind": self.floor_kind,
            "floor_reason": self.floor_reason,
            "wrong": self.wrong,
            "transport": self.transport,
            "passed": self.passed,
            "reasons": list(self.reasons),
        }


def _peak(run: NcclRun, in_place: bool) -> float | None:
    values = [
        (r.in_place if in_place else r.out_of_place).busbw
        for r in run.rows if r.size >= GIB
    ]
    found = [v for v in values if v is not None and math.isfinite(v)]
    return max(found) if found else None


def _gpus_per_node(run: NcclRun, machine: Machine, given: int | None) -> int:
    if given is not None:
        gpus = given
    elif run.ranks and not _excerpt(run):
        gpus = max(run.ranks_per_host.values())
    else:
        gpus = machine.gpus
    if not 1 <= gpus <= machine.gpus:
        raise VerdictInputError(
            f"--gpus-per-node: {machine.name} has {machine.gpus} GPUs per node; "
            f"expected 1..{machine.gpus}, got {gpus}"
        )
    return gpus


def _excerpt(run: NcclRun) -> bool:
    """The log lists fewer rank lines than its highest rank implies: a published excerpt
    (coreweave/nccl-tests README shows only the last "#  Rank 71" line of 72)."""
    return bool(run.ranks) and len(run.ranks) < max(r.rank for r in run.ranks) + 1


def judged_floor(
    machine: Machine, nodes: int, gpus: int, choice: str = "auto"
) -> tuple[str, float, float | None, str]:
    """(kind, line rate, floor, why) the run is judged against: the NVLink domain when its
    nodes fit in one (``auto``) or when asked (``nvlink``), else the network."""
    if choice not in FLOORS:
        raise VerdictInputError(f"--floor must be one of {', '.join(FLOORS)}, got {choice!r}")
    network = (NETWORK, machine.line_rate_for(gpus), machine.floor_for(gpus))
    domain = machine.nvlink
    if domain is None:
        if choice == NVLINK:
            raise VerdictInputError(
                f"--floor nvlink: {machine.name} has no multi-node NVLink domain in the "
                "catalog (its NVLink stays inside the node); use --floor network or auto"
            )
        return (*network, f"{machine.name} has no multi-node NVLink domain: ranks on "
                f"different nodes talk over the {machine.fabric.value} network")
    per_domain = domain.nodes(machine.gpus)
    where = (f"one NVLink domain ({domain.gpus} GPUs, {per_domain} nodes of "
             f"{machine.name})")
    if choice == NETWORK:
        return (*network, f"--floor network: judged as a run across NVLink domains ({where}), "
                "whose traffic between domains crosses the network")
    if nodes > per_domain:
        if choice == NVLINK:
            raise VerdictInputError(
                f"--floor nvlink: {nodes} nodes do not fit in one NVLink domain ({where}); "
                "use --floor network or auto"
            )
        return (*network, f"{nodes} nodes are more than {where} holds: traffic between "
                "domains crosses the network")
    why = (f"{nodes} node(s) fit in {where}, and NCCL runs multi-node NVLink (MNNVL) "
           "inside a domain, so the network is not what this run measures"
           + ("" if choice == NVLINK else
              " (pass --floor network if its nodes were placed across domains)"))
    return NVLINK, domain.gb_per_s_per_gpu, domain.floor, why


def judge(
    run: NcclRun, machine: Machine, *, nodes: int, gpus_per_node: int | None = None,
    floor: str = "auto",
) -> Verdict:
    """The verdict of ``run`` on ``nodes`` nodes of ``machine`` (``floor``: auto, network
    or nvlink, :func:`judged_floor`)."""
    if not machine.has_fabric:
        raise VerdictInputError(
            f"--machine: {machine.name} has no scale-out fabric in the catalog, so there is "
            "no line rate to judge a multi-node run against"
        )
    if nodes < 1:
        raise VerdictInputError(f"--nodes must be >= 1, got {nodes}")
    gpus = _gpus_per_node(run, machine, gpus_per_node)
    ranks = (len(run.ranks) if not _excerpt(run) else 0) or nodes * gpus
    reasons: list[str] = []
    warnings: list[str] = []

    large = [r for r in run.rows if r.size >= GIB]
    peak_oop, peak_ip = _peak(run, in_place=False), _peak(run, in_place=True)
    floor_kind, line_rate, floor_value, floor_reason = judged_floor(
        machine, nodes, gpus, floor)
    expected = machine.nccl.transport if machine.nccl else None

    # -- coverage -------------------------------------------------------------
    if nodes < 2:
        reasons.append(
            f"only {nodes} node: a single-node run never crosses the fabric (run on >= 2 nodes)"
        )
    hosts = run.hosts
    if _excerpt(run):
        warnings.append(
            f"the log lists {len(run.ranks)} of at least {max(r.rank for r in run.ranks) + 1} "
            "rank lines (an excerpt): nodes and GPUs per node not counted from it"
        )
    elif hosts and len(hosts) < nodes:
        reasons.append(
            f"too few nodes: the log's ranks ran on {len(hosts)} host(s) "
            f"({', '.join(hosts)}), expected {nodes}"
        )
    if not large:
        biggest = max(r.size for r in run.rows)
        reasons.append(
            f"no row >= 1 GiB (largest: {biggest} B): run with -e 1G or more "
            "(a truncated run also ends early)"
        )
    elif not run.finished:
        reasons.append(
            "the run did not finish: no trailer ('# Out of bounds values' / "
            "'# Avg bus bandwidth'), so it crashed or the log was cut off"
        )
    # -- correctness ----------------------------------------------------------
    wrong = run.total_wrong
    if wrong:
        bad = sum(
            1 for r in run.rows
            if (r.out_of_place.wrong or 0) + (r.in_place.wrong or 0) > 0
        )
        reasons.append(f"{wrong} wrong result(s) in {bad} row(s): data corruption (#wrong > 0)")
    reasons += [f"{text}: the log was damaged or edited" for text in run.bad_wrong]
    reasons += rank_identity_problems(run)
    if run.out_of_bounds_ok is False:
        reasons.append(f"nccl-tests reports {run.out_of_bounds} out-of-bounds values (FAILED)")
    if run.min_bw_failed:
        reasons.append("nccl-tests FAILED its NCCL_TESTS_MIN_BW check")
    # -- figures nccl-tests could not have measured ----------------------------
    reasons += impossible_figures(run, line_rate, nodes)
    # -- bandwidth ------------------------------------------------------------
    skipped = floor_value is not None and run.collective not in FLOOR_COLLECTIVES | {None}
    if skipped:
        warnings.append(
            f"the catalog's floor of {machine.name} is an all_reduce busbw; no {run.collective} "
            "floor is known, so its bandwidth is not judged (run all_reduce, all_gather or "
            "reduce_scatter for a bandwidth verdict)"
        )
        floor_value = None
    # Out-of-place and in-place are judged each (an in-place path 10x slower hid behind a
    # good out-of-place peak); N/A in-place columns are not a measurement.
    what = "NVLink floor" if floor_kind == NVLINK else "floor"
    rate = "NVLink bandwidth per GPU" if floor_kind == NVLINK else "line rate"
    for place, peak in (("out-of-place", peak_oop), ("in-place", peak_ip)):
        if peak is not None and floor_value is not None and peak < floor_value:
            reasons.append(
                f"below floor: {place} peak busbw {peak:.2f} GB/s over rows >= 1 GiB is "
                f"under the {floor_value:.2f} GB/s {what} of {machine.name} with {gpus} GPU(s) "
                f"per node ({peak / line_rate:.0%} of the {line_rate:g} GB/s {rate})"
            )
    if floor_value is None and not skipped:
        warnings.append(f"{machine.name} has no busbw floor in the catalog: bandwidth not judged")
    # -- transport ------------------------------------------------------------
    transport = run.transport.summary
    if run.transport.socket_fallback:
        reasons.append(
            f"socket fallback: NCCL used {SOCKET} (TCP) on a {machine.fabric.value} fabric "
            f"that should use {expected}; the fabric NICs or the NCCL plugin are missing"
        )
    elif transport is not None and expected is not None and transport != expected:
        net = machine.nccl.net if machine.nccl else None
        reasons.append(
            f"wrong transport: NCCL used {transport}, {machine.name} should use {expected}"
            + (f" (pin it with NCCL_NET={net})" if net else "")
        )
    if transport is None:
        warnings.append(
            "transport unknown: no NCCL INFO lines in the log (run with NCCL_DEBUG=INFO to "
            "catch a silent fallback to TCP sockets)"
        )
    # -- consistency ----------------------------------------------------------
    if run.collective is None:
        warnings.append("collective unknown (header cut off?): pass --collective NAME")
    else:
        warnings += _factor_warnings(run, run.collective, ranks)
    if run.skipped_lines:
        warnings.append(
            f"{len(run.skipped_lines)} damaged row(s) skipped (lines "
            f"{', '.join(map(str, run.skipped_lines[:5]))})"
        )
    return Verdict(
        collective=run.collective,
        machine=machine.name,
        nodes=nodes,
        gpus_per_node=gpus,
        ranks=ranks,
        rows=len(run.rows),
        large_rows=len(large),
        peak_out_of_place=peak_oop,
        peak_in_place=peak_ip,
        avg_busbw=run.avg_busbw,
        line_rate=line_rate,
        floor=floor_value,
        wrong=wrong,
        transport=transport,
        expected_transport=expected,
        reasons=reasons,
        warnings=warnings,
        floor_kind=floor_kind,
        floor_reason=floor_reason,
    )


# The collectives the catalog's floors hold for. Every busbw_floor row is an all_reduce
# figure (catalog/*.py floor_basis "... all_reduce at 2 GiB ...") or derived from the
# line rate; NVIDIA/nccl-tests doc/PERFORMANCE.md defines busbw of all_gather and
# reduce_scatter (factor (n-1)/n, ring algorithms like all_reduce's) so that it is
# compared with the same hardware bandwidth. alltoall, sendrecv, broadcast and reduce
# move data in other patterns (alltoall crosses the fabric for (n-1)/n of every rank's
# buffer at once): an all_reduce floor says nothing about them, so they are reported
# but not judged until the catalog has their own floors.
FLOOR_COLLECTIVES = frozenset({"all_reduce", "all_gather", "reduce_scatter"})


def rank_identity_problems(run: NcclRun) -> list[str]:
    """One run has one set of ranks, each on one host: rank numbers repeating (two
    single-node runs interleaved in one log looked like one 2-node run) mean the log is
    not one run. Missing rank lines are allowed: published excerpts list only some
    (:func:`_excerpt`)."""
    if not run.ranks:
        return []
    hosts: dict[int, list[str]] = {}
    for info in run.ranks:
        hosts.setdefault(info.rank, []).append(info.host)
    found: list[str] = []
    repeated = {r: h for r, h in hosts.items() if len(h) > 1}
    if repeated:
        rank, where = min(repeated.items())
        found.append(
            f"rank {rank} appears {len(where)} times (on {', '.join(sorted(set(where)))}): "
            "the log holds more than one run's ranks, not one multi-node run; judge each "
            "run's own log"
        )
    return found


# busbw is normalised to the bandwidth each rank's links carry ("PERFORMANCE.md"
# in NVIDIA/nccl-tests: busbw reflects "how optimally the hardware is used").
# Across nodes that is the per-GPU network line rate; in-network reduction
# (SHARP/NVLS) can raise all_reduce busbw to about twice the link rate. A
# multi-node figure above this multiple of the line rate was not measured.
MAX_LINE_RATE_MULTIPLE = 3.0


def impossible_figures(run: NcclRun, line_rate: float, nodes: int) -> list[str]:
    """Reasons for figures no run can produce: NaN, infinity, negative, far above line rate.

    Such a log was damaged or edited, or nccl-tests divided by a zero time; its
    verdict cannot rest on them, so the run fails and says which row.
    """
    found: list[str] = []
    for row in run.rows:
        for place, m in (("out-of-place", row.out_of_place), ("in-place", row.in_place)):
            for name, value in (("time", m.time_us), ("algbw", m.algbw), ("busbw", m.busbw)):
                if value is None:
                    continue
                if not math.isfinite(value):
                    found.append(f"impossible figure: line {row.line} ({row.size} B) {place} "
                                 f"{name} is {value} (not a number nccl-tests can measure)")
                elif value < 0:
                    found.append(f"impossible figure: line {row.line} ({row.size} B) {place} "
                                 f"{name} is negative ({value})")
            if (nodes >= 2 and m.busbw is not None and math.isfinite(m.busbw)
                    and m.busbw > MAX_LINE_RATE_MULTIPLE * line_rate):
                found.append(
                    f"impossible figure: line {row.line} ({row.size} B) {place} busbw "
                    f"{m.busbw:g} GB/s is over {MAX_LINE_RATE_MULTIPLE:g}x the {line_rate:g} "
                    "GB/s line rate a multi-node run can reach"
                )
    avg = run.avg_busbw
    if avg is not None and (not math.isfinite(avg) or avg < 0):
        found.append(f"impossible figure: '# Avg bus bandwidth' is {avg}")
    return found


def finite_or_none(value: float | None) -> float | None:
    """JSON has no NaN or infinity: an impossible figure is reported as null."""
    return value if value is not None and math.isfinite(value) else None


def _factor_warnings(run: NcclRun, collective: str, ranks: int) -> list[str]:
    """Warn when busbw/algbw does not match the collective's factor for this rank count."""
    factor = busbw_factor(collective, ranks)
    worst: tuple[float, int] | None = None
    for row in run.rows:
        for m in (row.out_of_place, row.in_place):
            if m.algbw and m.busbw and m.algbw >= 1.0:
                ratio = m.busbw / m.algbw
                if abs(ratio - factor) > FACTOR_TOLERANCE * max(factor, 0.01):
                    worst = worst or (ratio, row.line)
    if worst is None:
        return []
    return [
        f"busbw/algbw = {worst[0]:.3f} on line {worst[1]}, but {collective} over {ranks} "
        f"ranks has factor {factor:.3f}: wrong --collective, --nodes or --gpus-per-node?"
    ]
