"""Parse nccl-tests output (``all_reduce_perf`` and friends) into plain data.

Pure Python, no dependencies. Real logs are messy: ``mpirun --tag-output`` and
``kubectl logs --prefix`` put a tag before every line, NCCL ``INFO`` lines from
every rank are interleaved with the table, the header can be cut off by
``--tail``, and a crashed run has no trailer. The parser therefore reads the
table line by line, recognising rows by their shape (two integers, a data type,
optional reduction op and root, then 8 columns of numbers or ``N/A``), and
collects the NCCL ``INFO`` transport evidence separately.

One log can hold several runs (a script running several collectives); each
``# nThread ...`` header starts a new :class:`NcclRun`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from gpu_fabric.catalog import MACHINES

COLLECTIVES = (
    "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce",
    "sendrecv", "gather", "scatter", "hypercube",
)
DATA_TYPES = frozenset({
    "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double",
    "bfloat16", "fp8_e4m3", "fp8_e5m2", "int", "char", "float16", "float32", "float64",
})
REDUCTION_OPS = frozenset({"sum", "prod", "max", "min", "avg", "none", "premulsum", "mulsum"})

# Transport tags, keyed by the names NCCL prints. NCCL core prints the name a plugin
# registers ("Using network <name>", channel lines "via NET/<name>/<n>"); plugins log
# under their own prefix. The catalog's NCCL profiles pair each registered name
# (``net``, what NCCL_NET pins) with its tag; the aliases below are the other names
# the same transports appear under.
SOCKET = "NET/Socket"
_ALIASES = {
    "Socket": SOCKET,
    # aws-ofi-nccl >= 1.13 registers "Libfabric" unless NCCL_NET asks for "AWS Libfabric",
    # and logs its own lines as "NET/OFI".
    "Libfabric": "NET/OFI",
    "OFI": "NET/OFI",
    # The TCPX plugin registers "GPUDirectTCPX_v7" and logs as "NET/GPUDirectTCPX".
    "GPUDirectTCPX": "NET/GPUDirectTCPX",
}
_BY_LOWER_NAME = {
    name.lower(): tag
    for name, tag in [
        *((m.nccl.net, m.nccl.transport) for m in MACHINES if m.nccl and m.nccl.net),
        *_ALIASES.items(),
    ]
}


def transport_tag(name: str) -> str:
    """``NET/<X>`` for a network name as NCCL or a plugin prints it (case-insensitive,
    like NCCL's own NCCL_NET matching); unknown names keep their own tag."""
    return _BY_LOWER_NAME.get(name.strip().lower(), f"NET/{name.strip()}")


class NotNcclTestsOutput(ValueError):
    """The text holds no nccl-tests result table."""


@dataclass(frozen=True)
class Measurement:
    """One half of a row (out-of-place or in-place). ``None`` where the log says N/A."""

    time_us: float | None
    algbw: float | None
    busbw: float | None
    wrong: int | None


@dataclass(frozen=True)
class Row:
    size: int  # bytes
    count: int  # elements
    type: str
    redop: str | None  # None for tables without the column (alltoall/sendrecv in some versions)
    root: int | None
    out_of_place: Measurement
    in_place: Measurement
    line: int  # 1-based line number in the log


@dataclass(frozen=True)
class RankInfo:
    rank: int
    group: int
    pid: int
    host: str
    device: int
    bus_id: str
    gpu: str


@dataclass(frozen=True)
class TransportEvidence:
    """What NCCL's INFO lines say about the network transport.

    ``selected`` counts "Using network X" lines (one per rank: NCCL's choice);
    ``channels`` counts "via NET/X" channel lines (what connections really use);
    ``seen`` counts any other ``NET/X`` mention (plugin initialisation).
    """

    selected: dict[str, int] = field(default_factory=dict)
    channels: dict[str, int] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)

    @property
    def transports(self) -> list[str]:
        """The transports actually used, best evidence first (empty when unknown)."""
        for source in (self.channels, self.selected):
            if source:
                return sorted(source)
        return []

    @property
    def summary(self) -> str | None:
        """``NET/IB``; ``NET/IB+NET/Socket`` when ranks disagree; None without evidence."""
        used = self.transports
        return "+".join(used) if used else None

    @property
    def socket_fallback(self) -> bool:
        return SOCKET in self.transports


@dataclass
class NcclRun:
    """One nccl-tests run: header, rows and trailer."""

    collective: str | None = None
    header: dict[str, str] = field(default_factory=dict)
    nccl_version: str | None = None
    tests_version: str | None = None
    ranks: list[RankInfo] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    out_of_bounds: int | None = None
    out_of_bounds_ok: bool | None = None
    avg_busbw: float | None = None
    min_bw_failed: bool = False
    transport: TransportEvidence = field(default_factory=TransportEvidence)
    skipped_lines: list[int] = field(default_factory=list)  # row-like lines we could not read
    bad_wrong: list[str] = field(default_factory=list)  # rows whose #wrong is not a count

    # -- header facts ---------------------------------------------------------
    def _header_int(self, key: str) -> int | None:
        value = self.header.get(key)
        return int(value) if value is not None and value.isdigit() else None

    @property
    def n_threads(self) -> int | None:
        return self._header_int("nThread")

    @property
    def n_gpus(self) -> int | None:
        return self._header_int("nGpus")

    @property
    def min_bytes(self) -> int | None:
        return self._header_int("minBytes")

    @property
    def max_bytes(self) -> int | None:
        return self._header_int("maxBytes")

    @property
    def hosts(self) -> list[str]:
        """Distinct hosts of the rank lines, in rank order."""
        return list(dict.fromkeys(r.host for r in self.ranks))

    @property
    def ranks_per_host(self) -> dict[str, int]:
        return dict(Counter(r.host for r in self.ranks))

    @property
    def has_header(self) -> bool:
        return bool(self.header)

    @property
    def finished(self) -> bool:
        """True when the trailer was printed (the run was not cut off)."""
        return self.avg_busbw is not None or self.out_of_bounds is not None

    @property
    def total_wrong(self) -> int:
        return sum(
            m.wrong or 0 for r in self.rows for m in (r.out_of_place, r.in_place)
        )


# -- line cleaning ---------------------------------------------------------------
_PREFIXES = (
    re.compile(r"^\[\d+,\d+\]<(?:stdout|stderr)>:\s?"),  # mpirun --tag-output
    re.compile(r"^\[pod/[^\]]+\]\s?"),  # kubectl logs --prefix
    re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?\s"),  # timestamps
    re.compile(r"^\[1,\d+\]:\s?"),  # older tag form
)


def clean(line: str) -> str:
    """The line without log prefixes (mpirun tags, kubectl pod prefix, timestamps)."""
    line = line.rstrip("\r\n")
    changed = True
    while changed:
        changed = False
        for pattern in _PREFIXES:
            stripped = pattern.sub("", line, count=1)
            if stripped != line:
                line, changed = stripped, True
    return line


# -- patterns -------------------------------------------------------------------
_HEADER = re.compile(r"#\s*nThread\s+\d+")
_HEADER_PAIRS = re.compile(
    r"(nThread|nGpus|minBytes|maxBytes|step:|warmup iters:|iters:|agg iters:|validation:|"
    r"graph:)\s*(\S+)"
)
_RANK = re.compile(
    r"#\s*Rank\s+(\d+)\s+Group\s+(\d+)\s+Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+"
    r"\[([^\]]*)\]\s*(.*)$"
)
_NCCL_VERSION = re.compile(r"NCCL version (\S+)")
_TESTS_VERSION = re.compile(r"nccl-tests version (\S+)")
_TEST_START = re.compile(r"Collective test starting:\s*(\w+?)(?:_perf)?\b")
_PERF_BINARY = re.compile(r"\b(" + "|".join(COLLECTIVES) + r")_perf(?:_mpi)?\b")
_SCRIPT_T = re.compile(r"run_nccl_tests\.sh\b.*?\s-t\s+(\w+)")
# The trailer, as nccl-tests prints it (src/common.cu at v2.16.9, lines 1265-1266;
# src/util.cu writeResultFooter on master):
#   "# Out of bounds values : %d %s"  with "FAILED" exactly when the count is not 0;
#   "# Avg bus bandwidth    : %g %s"  with "" when NCCL_TESTS_MIN_BW is unset, else "OK"
#                                     or "FAILED" (average under 0.9 x NCCL_TESTS_MIN_BW).
# %g prints a NaN or an infinity as "nan", "-nan", "inf", "-inf".
_OOB = re.compile(r"#\s*Out of bounds values\s*:\s*(\d+)")
_AVG = re.compile(
    r"#\s*Avg bus bandwidth\s*:\s*([-+]?(?:nan|inf)|[0-9.eE+-]+|N/A)(?:\s+(OK|FAILED))?"
)
_USING_NETWORK = re.compile(r"NCCL INFO Using network (.+?)\s*$")
# The name may contain spaces ("AWS Libfabric"); the channel number follows it.
_VIA_NET = re.compile(r"\bvia NET/([^/]+?)/\d")
_NET_TAG = re.compile(r"\bNET/(\w+)")


def _number(token: str) -> float | None:
    if token.upper() == "N/A":
        return None
    return float(token)


def _is_number(token: str) -> bool:
    if token.upper() == "N/A":
        return True
    try:
        float(token)
    except ValueError:
        return False
    return True


def _is_int(token: str) -> bool:
    return token.lstrip("-").isdigit()


class WrongCountError(ValueError):
    """A ``#wrong`` column that is not a count (negative, fractional): a damaged log."""


def _wrong(token: str, line: int) -> int | None:
    """``#wrong``: N/A, or a non-negative whole number (nccl-tests counts wrong
    elements); ``-1`` or ``0.5`` would let a sum of rows hide real errors."""
    if token.upper() == "N/A":
        return None
    if not token.isascii() or not token.isdigit():
        raise WrongCountError(f"line {line}: #wrong '{token[:20]}' is not a non-negative "
                              "whole number")
    return int(token)


def _measurement(tokens: list[str], line: int = 0) -> Measurement:
    time_us, algbw, busbw = (_number(t) for t in tokens[:3])
    return Measurement(time_us, algbw, busbw, _wrong(tokens[3], line))


def parse_row(text: str, line: int = 0) -> Row | None:
    """A table row, or None if the text is not one. Raises ValueError for a damaged row."""
    tokens = text.split()
    for start in range(len(tokens) - 2):
        if (
            _is_int(tokens[start]) and _is_int(tokens[start + 1])
            and tokens[start + 2] in DATA_TYPES
        ):
            break
    else:
        return None
    rest = tokens[start + 3:]
    redop: str | None = None
    root: int | None = None
    if len(rest) >= 2 and rest[0] in REDUCTION_OPS and _is_int(rest[1]):
        redop, root = rest[0], int(rest[1])
        rest = rest[2:]
    if len(rest) != 8 or not all(_is_number(t) for t in rest):
        raise ValueError(f"line {line}: row with {len(rest)} measurement columns, expected 8")
    return Row(
        size=int(tokens[start]),
        count=int(tokens[start + 1]),
        type=tokens[start + 2],
        redop=redop,
        root=root,
        out_of_place=_measurement(rest[:4], line),
        in_place=_measurement(rest[4:], line),
        line=line,
    )


def _collective_name(name: str) -> str | None:
    """``all_reduce`` for ``all_reduce``, ``all_reduce_perf`` and ``all_reduce_perf_mpi``
    (binaries built with ``NAME_SUFFIX=_mpi``, nccl-tests README "Build")."""
    name = name.removesuffix("_mpi").removesuffix("_perf")
    return name if name in COLLECTIVES else None


# -- the parser ----------------------------------------------------------------
def parse_runs(text: str) -> list[NcclRun]:
    """Every nccl-tests run in ``text``. Raises :class:`NotNcclTestsOutput` if there is none."""
    runs: list[NcclRun] = []
    current: NcclRun | None = None
    pending_collective: str | None = None  # from a command line seen before the header
    pending_version: str | None = None
    selected: Counter[str] = Counter()
    channels: Counter[str] = Counter()
    seen: Counter[str] = Counter()

    def start_run() -> NcclRun:
        run = NcclRun(collective=pending_collective, tests_version=pending_version)
        runs.append(run)
        return run

    for number, raw in enumerate(text.splitlines(), start=1):
        line = clean(raw)
        if "NCCL INFO" in line or "NCCL WARN" in line:
            match = _USING_NETWORK.search(line)
            if match:
                selected[transport_tag(match.group(1))] += 1
            via = _VIA_NET.findall(line)
            channels.update(transport_tag(t) for t in via)
            if not via and not match:
                seen.update(transport_tag(t) for t in _NET_TAG.findall(line))
            version = _NCCL_VERSION.search(line)
            if version and current is not None and current.nccl_version is None:
                current.nccl_version = version.group(1)
            continue
        if _HEADER.search(line):
            current = start_run()
            current.header = dict(
                (k.rstrip(":"), v) for k, v in _HEADER_PAIRS.findall(line)
            )
            pending_collective = None
            continue
        match = _TEST_START.search(line)
        if match:
            pending_collective = _collective_name(match.group(1)) or pending_collective
            continue
        match = _TESTS_VERSION.search(line)
        if match:
            pending_version = match.group(1)
            continue
        match = _RANK.search(line)
        if match:
            current = current or start_run()
            current.ranks.append(RankInfo(
                rank=int(match.group(1)), group=int(match.group(2)), pid=int(match.group(3)),
                host=match.group(4), device=int(match.group(5)), bus_id=match.group(6),
                gpu=match.group(7).strip(),
            ))
            continue
        match = _NCCL_VERSION.search(line)
        if match:
            if current is not None and current.nccl_version is None:
                current.nccl_version = match.group(1)
            continue
        match = _OOB.search(line)
        if match and current is not None:
            current.out_of_bounds = int(match.group(1))
            current.out_of_bounds_ok = current.out_of_bounds == 0  # FAILED iff not 0
            continue
        match = _AVG.search(line)
        if match and current is not None:
            current.avg_busbw = _number(match.group(1))
            current.min_bw_failed = match.group(2) == "FAILED"
            continue
        if not line.lstrip().startswith("#"):
            try:
                row = parse_row(line, number)
            except WrongCountError as exc:
                if current is not None:
                    current.bad_wrong.append(str(exc))
                continue
            except ValueError:
                if current is not None:
                    current.skipped_lines.append(number)
                continue
            if row is not None:
                if current is None or current.finished:
                    current = start_run()
                current.rows.append(row)
                continue
        for pattern in (_SCRIPT_T, _PERF_BINARY):
            match = pattern.search(line)
            if match and _collective_name(match.group(1)):
                name = _collective_name(match.group(1))
                if current is not None and not current.rows and current.collective is None:
                    current.collective = name
                else:
                    pending_collective = name
                break

    runs = [r for r in runs if r.rows]
    if not runs:
        raise NotNcclTestsOutput(
            "no nccl-tests result table found: expected rows like "
            "'1073741824  268435456  float  sum  -1  ...  time algbw busbw #wrong' "
            "(the output of all_reduce_perf and the other nccl-tests binaries)"
        )
    evidence = TransportEvidence(dict(selected), dict(channels), dict(seen))
    for run in runs:
        run.transport = evidence
    return runs


def parse(text: str, collective: str | None = None) -> NcclRun:
    """The one run of ``text`` (or the run of ``collective`` when the log holds several).

    ``collective`` also names the collective of a run whose header was cut off.
    """
    if collective is not None and collective not in COLLECTIVES:
        raise ValueError(
            f"collective '{collective}' is not an nccl-tests collective; "
            f"valid: {', '.join(COLLECTIVES)}"
        )
    runs = parse_runs(text)
    if len(runs) > 1:
        known = [r.collective for r in runs]
        if collective is None:
            raise ValueError(
                f"the log holds {len(runs)} runs ({', '.join(c or '?' for c in known)}); "
                "choose one with --collective"
            )
        matching = [r for r in runs if r.collective == collective]
        if not matching:
            raise ValueError(
                f"the log holds no {collective} run; runs: {', '.join(c or '?' for c in known)}"
            )
        return matching[-1]
    run = runs[0]
    if collective is not None:
        if run.collective is not None and run.collective != collective:
            raise ValueError(
                f"--collective {collective} contradicts the log, which ran {run.collective}"
            )
        run.collective = collective
    return run


def busbw_factor(collective: str, ranks: int) -> float:
    """busbw / algbw for a collective over ``ranks`` ranks: the ``factor`` of each
    ``*GetBw`` in nccl-tests src/<collective>.cu (v2.16.9), summarised for the main
    collectives in doc/PERFORMANCE.md "Summary". hypercube's is 1: its algbw already
    counts the (n - 1) peers (src/hypercube.cu HyperCubeGetBw)."""
    if ranks < 1:
        raise ValueError(f"ranks must be >= 1, got {ranks}")
    n = ranks
    factors = {
        "all_reduce": 2 * (n - 1) / n,
        "all_gather": (n - 1) / n,
        "reduce_scatter": (n - 1) / n,
        "alltoall": (n - 1) / n,
        "gather": (n - 1) / n,
        "scatter": (n - 1) / n,
        "broadcast": 1.0,
        "reduce": 1.0,
        "sendrecv": 1.0,
        "hypercube": 1.0,
    }
    if collective not in factors:
        raise ValueError(f"no busbw factor for '{collective}'; valid: {', '.join(factors)}")
    return factors[collective]
