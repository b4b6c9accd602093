#!/usr/bin/env python3
"""Turns scripts/bench.sh's figures into the table (printed) and Benchmarks/BENCHMARKS.md.

Exits 2 when a run failed outright (a chat run lost, repeated or reordered messages, or the
allocation count rose over its threshold); a goal missed is "missed" in the table, not a failure.
Each ratio with a goal is decided by the rule of Benchmarks/METHOD.md, "Deciding a ratio" (decide()).

  bench-report.py --results FILE --command CMD --sizes TEXT [--alloc-output FILE] [--write PATH]
  bench-report.py --chat-median FILE      # medians of several chatload runs, as "key value" lines
  bench-report.py --chat-pairs FILE BASELINE NAME  # "pair NAME.key N ours theirs" lines, round N with round N
  bench-report.py --undecided FILE NAME...  # exit 0 when a goal row among NAMEs is still undecided
  bench-report.py --alloc-p90 FILE [NAME] # allocations per cycle of benchmark NAME (ReadWriteCycle)
  bench-report.py --self-test             # runs scripts/bench_decide_test.py
"""
import argparse
import collections
import datetime
import math
import os
import platform
import random
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# --- deciding a ratio (Benchmarks/METHOD.md, "Deciding a ratio"; issue 45) ----------------------
# One round's ratio swings from 0.44x to 1.93x on this shared machine, so a median alone cannot
# say whether a ratio near its goal is met: the median of the pairs' ratios comes with a 95%
# bootstrap interval, and only an interval wholly on one side of the goal decides.
RESAMPLES = 10_000
SEED = 45  # fixed, so that the same pairs always give the same interval (45: the number)

Decision = collections.namedtuple("Decision", "median low high verdict pairs")


def decide(pairs, threshold=None, higher_is_better=True, resamples=RESAMPLES, seed=SEED):
    """Decides one ratio from its pairs, [(library, baseline), …], each pair run back to back.

    Returns the median of the pairs' ratios (library ÷ baseline), the 2.5th and 97.5th
    percentiles of the median over `resamples` resamples of the pairs (with replacement, from
    random.Random(seed)), the verdict against `threshold` ("met" when the whole interval is on
    the goal's side, "missed" when it is wholly on the other, "undecided" otherwise, or with
    fewer than 2 pairs; None without a goal), and the number of pairs used. A pair with a
    baseline that is not a positive number, or a value that is not a number, is left out.
    """
    ratios = [ours / theirs for ours, theirs in pairs
              if _number(ours) and _number(theirs) and ours >= 0 and theirs > 0]
    n = len(ratios)
    middle = statistics.median(ratios) if ratios else None
    low = high = None
    if n >= 2:
        rng = random.Random(seed)  # its own generator: no other use of random moves it
        medians = sorted(statistics.median(rng.choices(ratios, k=n)) for _ in range(resamples))
        cut = int(resamples * 0.025)  # 250 of 10,000 medians below the interval, 250 above
        low, high = medians[cut], medians[resamples - 1 - cut]
    verdict = None
    if threshold is not None:
        if low is None:
            verdict = "undecided"  # one pair, or none: no interval to decide with
        elif higher_is_better:
            verdict = "met" if low >= threshold else "missed" if high < threshold else "undecided"
        else:
            verdict = "met" if high <= threshold else "missed" if low > threshold else "undecided"
    return Decision(middle, low, high, verdict, n)


def _number(value):
    return isinstance(value, (int, float)) and math.isfinite(value)


def combine(verdicts, conditions=()):
    """A row's verdict from its ratios' verdicts and its other conditions (no loss, …):
    missed if any is missed, met if all are met, undecided otherwise; "-" with no goal at all."""
    found = [v for v in verdicts if v] + ["met" if ok else "missed" for ok in conditions]
    if not found:
        return "-"
    if "missed" in found:
        return "missed"
    return "met" if all(v == "met" for v in found) else "undecided"


# A goal on one ratio: its label in the table, the figure (library ÷ baseline, pair by pair),
# ">=" when higher is better or "<=" when lower is, and the threshold. op None: a ratio shown
# with its interval but no goal.
Goal = collections.namedtuple("Goal", "label metric op threshold")


def _rate_cpu(rate, cpu):
    return [Goal("rate", rate, ">=", 1.0), Goal("CPU per unit", cpu, "<=", 1.0)]


# Every comparison that scripts/bench.sh runs in pairs, by the name of its pairs (`pair NAME.metric
# …` lines), with the goals of issue 9. bench.sh asks --undecided about these names.
GOALS = {
    "bulk.vs_nio": [Goal("raw NIO", "bytes_per_second", ">=", 0.9)],
    "bulk.vs_nio_bytebuffer": [Goal("raw NIO", "bytes_per_second", None, None)],
    "bulk.vs_nio_pool": [Goal("raw NIO", "bytes_per_second", None, None)],
    "bulk.vs_asyncchannel_pool": _rate_cpu("bytes_per_second", "cpu_seconds_per_gib"),
    "bulk.vs_asyncchannel_executor": _rate_cpu("bytes_per_second", "cpu_seconds_per_gib"),
    "rtt.vs_nio": [Goal("rate", "per_second", ">=", 0.9), Goal("p99", "p99_us", "<=", 1.2)],
    "rtt.vs_nio_pool": [Goal("rate", "per_second", None, None), Goal("p99", "p99_us", None, None)],
    "rtt.vs_asyncchannel_pool": _rate_cpu("per_second", "cpu_us"),
    "rtt.vs_asyncchannel_executor": _rate_cpu("per_second", "cpu_us"),
    "framed.vs_asyncchannel_pool": _rate_cpu("per_second", "cpu_us"),
    "framed.vs_asyncchannel_executor": _rate_cpu("per_second", "cpu_us"),
    "framed.lines_vs_delimiter": _rate_cpu("per_second", "cpu_us"),
    "fanout.vs_asyncchannel_pool": _rate_cpu("per_second", "cpu_us"),
    "fanout.vs_asyncchannel_executor": _rate_cpu("per_second", "cpu_us"),
    "bulk.vs_asyncchannel_pool_timeout": _rate_cpu("bytes_per_second", "cpu_seconds_per_gib"),
    "bulk.vs_asyncchannel_executor_timeout": _rate_cpu("bytes_per_second", "cpu_seconds_per_gib"),
    "rtt.vs_asyncchannel_pool_timeout": _rate_cpu("per_second", "cpu_us"),
    "rtt.vs_asyncchannel_executor_timeout": _rate_cpu("per_second", "cpu_us"),
    "fanout.vs_asyncchannel_pool_timeout": _rate_cpu("per_second", "cpu_us"),
    "fanout.vs_asyncchannel_executor_timeout": _rate_cpu("per_second", "cpu_us"),
    "writecost.vs_nio": [Goal("CPU per write", "cpu_ns", "<=", 1.2)],
    "writecost.vs_nio_timeout": [Goal("CPU per write", "cpu_ns", None, None)],
    "tls.vs_openssl_pair": [Goal("the pair", "bytes_per_second", ">=", 0.7)],
    "stk-fanout": [Goal("CPU", "server_cpu_seconds_per_million", "<=", 1.0),
                   Goal("rate", "deliveries_per_second", ">=", 1.0)],
    "stk-openloop": [Goal("CPU", "server_cpu_seconds_per_million", "<=", 1.0),
                     Goal("rate", "deliveries_per_second", None, None)],
    "stk-latency": [Goal("p50", "p50_us", "<=", 1.0), Goal("p99", "p99_us", "<=", 1.0),
                    Goal("CPU", "server_cpu_seconds_per_million", "<=", 1.0)],
    "net-stk3": [Goal("CPU", "server_cpu_seconds_per_million", "<=", 1.0),
                 Goal("rate", "deliveries_per_second", ">=", 1.0)],
}

# The counts that do not depend on the machine's noise, per unit: scripts/bench.sh measures
# them for each side of a pair (read-class and write-class system calls from /proc/PID/io, and
# context switches). (label, metric of the pairs)
PROCESS_COUNTS = [("reads", "read_calls"), ("writes", "write_calls"), ("context switches", "context_switches")]
SERVER_COUNTS = [("reads", "server_read_calls_per_thousand"), ("writes", "server_write_calls_per_thousand"),
                 ("context switches", "server_context_switches_per_thousand")]
# The chat figures paired round by round (--chat-pairs).
CHAT_PAIRED = ["deliveries_per_second", "server_cpu_seconds_per_million", "p50_us", "p99_us"] + [
    metric for _, metric in SERVER_COUNTS]


def ratio_verdicts(r, name):
    """The verdicts of comparison NAME's goals, from its pairs in `r`."""
    return [decide(r.pairs_of(f"{name}.{goal.metric}"), goal.threshold, goal.op == ">=").verdict
            for goal in GOALS.get(name, []) if goal.op]


def undecided(path, names):
    """Whether a goal row among `names` is undecided on the pairs in the results file `path`:
    scripts/bench.sh then runs more pairs, up to its cap."""
    r = read_results(path)
    return any(combine(ratio_verdicts(r, name)) == "undecided" for name in names)


class Results(dict):
    """The figures by name, and each comparison's pairs by name (`pair NAME N LIBRARY BASELINE`)."""

    def __init__(self):
        super().__init__()
        self.pairs = {}

    def pairs_of(self, name):
        return [(ours, theirs) for _, ours, theirs in self.pairs.get(name, [])]

    def has_pairs(self, comparison):
        return any(name.startswith(comparison + ".") for name in self.pairs)


def read_results(path):
    values = Results()
    with open(path) as file:
        for line in file:
            parts = line.split()
            try:
                if len(parts) == 2:
                    values[parts[0]] = float(parts[1])
                elif len(parts) == 5 and parts[0] == "pair":
                    values.pairs.setdefault(parts[1], []).append(
                        (int(parts[2]), float(parts[3]), float(parts[4])))
            except ValueError:
                pass
    return values


def chat_median(path):
    runs = chat_values(path)
    for key, values in sorted(runs.items()):
        if key == "ok":
            print(key, min(values))  # every run must be clean
        elif key in ("errors", "dropped"):
            print(key, sum(values))  # over every round
        elif key == "delivered_fraction":
            print(key, min(values))  # the worst round
        else:
            print(key, statistics.median(values))
    print("runs", len(runs.get("ok", [])))


def chat_rounds(path):
    """The figures of each chatload run in a file, by the round number that scripts/bench.sh
    writes before each run (`ROUND n`)."""
    rounds = {}
    number = 0
    with open(path) as file:
        for line in file:
            line = line.strip()
            marker = re.match(r"^ROUND (\d+)$", line)
            if marker:
                number = int(marker.group(1))
                continue
            match = re.match(r"^RESULT (\S+) (\S+)$", line)
            if match:
                rounds.setdefault(number, {})[match.group(1)] = float(match.group(2))
    # The server's counts over a run (scripts/bench.sh's server_* lines), per 1,000 deliveries.
    for figures in rounds.values():
        for key in ("server_read_calls", "server_write_calls", "server_context_switches"):
            if key in figures and figures.get("deliveries"):
                figures[f"{key}_per_thousand"] = figures[key] / figures["deliveries"] * 1000
    return rounds


def chat_values(path):
    """Each key's values over the runs in a file, in the order of the rounds."""
    values = {}
    for _, figures in sorted(chat_rounds(path).items()):
        for key, value in figures.items():
            values.setdefault(key, []).append(value)
    return values


def chat_pairs(path, baseline_path, name):
    """One server's round N with the baseline's round N, as `pair NAME.key N ours theirs` lines
    for the results: scripts/bench.sh runs the two servers of a round back to back, in ABBA order.
    A round that one side did not report is left out."""
    ours, theirs = chat_rounds(path), chat_rounds(baseline_path)
    for key in CHAT_PAIRED:
        for n in sorted(set(ours) & set(theirs)):
            if key in ours[n] and key in theirs[n]:
                print(f"pair {name}.{key} {n} {ours[n][key]!r} {theirs[n][key]!r}")


def alloc_p90(path, name="ReadWriteCycle"):
    """The p90 of mallocCountTotal per iteration of benchmark NAME, from
    `swift package benchmark --format markdown` (each benchmark under a `### NAME` heading)."""
    text = open(path).read() if os.path.exists(path) else ""
    # Under each heading, a markdown table whose header names the percentiles, rows like
    # | Malloc (total) (K) * | 28 | 28 | ... | samples |
    header = None
    current = None
    for line in text.splitlines():
        if line.startswith("### "):
            current = line[4:].strip()
            header = None
            continue
        if current != name:
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if "p90" in cells:
            header = cells
            continue
        if header and cells and cells[0].lower().startswith("malloc (total)") and len(cells) == len(header):
            value = float(cells[header.index("p90")].replace(",", ""))
            scale = 1000.0 if "(K)" in cells[0] else 1.0  # (K): per thousand iterations
            # With --scale (K) means the figures are already per iteration; without it they
            # are per thousand. The tool prints "(K)" in the second case.
            return value / scale if "*" not in cells[0] else value
    return float("nan")


def fmt(value, unit=""):
    if value is None or value != value:
        return "n/a"
    if unit == "MB/s":
        return f"{value / 1e6:,.0f} MB/s"
    if unit == "us":
        return f"{value:,.0f} µs"
    if unit == "/s":
        return f"{value:,.0f}/s"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "B":
        return f"{value:,.0f} B"
    if unit == "ns":
        return f"{value:,.0f} ns"
    return f"{value:,.3g}"


def count(value):
    """A count per unit: whole numbers from 1,000 up, else three significant digits."""
    if value is None or value != value:
        return "n/a"
    return f"{value:,.0f}" if value >= 1000 else f"{value:.3g}"


def pairs_text(numbers):
    """ "10 pairs", or what is missing."""
    numbers = sorted(set(numbers))
    if numbers == [0]:
        return "no pairs recorded"
    if numbers == [1]:
        return "1 pair: too few for an interval"
    return ", ".join(map(str, numbers)) + " pairs"


def side(r, name, metric, which, old_key=None):
    """The median of one side of comparison NAME's pairs (0: the library, 1: the baseline), or,
    in a results file written before pairs, the figure recorded under `old_key`."""
    pairs = r.pairs_of(f"{name}.{metric}")
    if pairs:
        return statistics.median(pair[which] for pair in pairs)
    return r.get(old_key) if old_key else None


def decided(r, name, old=None):
    """The ratio cell of comparison NAME and the verdicts of its goals: for each ratio
    "median [low, high] verdict", then the number of pairs. `old` ({metric: (ratio, key of its
    _low/_high)}) gives the figures of a results file written before pairs: shown, with
    "no pairs recorded", and undecided."""
    old = old or {}
    parts, verdicts, numbers = [], [], []
    for goal in GOALS[name]:
        d = decide(r.pairs_of(f"{name}.{goal.metric}"), goal.threshold, goal.op == ">=")
        label = f"{goal.label} " if goal.label else ""
        if d.pairs >= 2:
            # More digits when an end would round to the threshold: "[0.90x, …] undecided"
            # against ">= 0.9x" would read as a contradiction.
            digits = 2
            while goal.threshold is not None and digits < 4 and any(
                    end != goal.threshold and round(end, digits) == round(goal.threshold, digits)
                    for end in (d.low, d.high)):
                digits += 1
            text = (f"{label}{fmt(d.median, 'x')} "
                    f"[{d.low:.{digits}f}x, {d.high:.{digits}f}x]")
        elif d.pairs == 1:
            text = f"{label}{fmt(d.median, 'x')}"
        else:
            value, spread_key = old.get(goal.metric, (None, None))
            low, high = (r.get(f"{spread_key}_low"), r.get(f"{spread_key}_high")) if spread_key else (None, None)
            spread = f" ({fmt(low, 'x')}–{fmt(high, 'x')} by round)" if low is not None and high is not None else ""
            text = f"{label}{fmt(value, 'x')}{spread}"
        if d.verdict:
            text += f" {d.verdict}"
        parts.append(text)
        verdicts.append(d.verdict)
        numbers.append(d.pairs)
    return f"{', '.join(parts)}; {pairs_text(numbers)}", verdicts


def counts(r, name, unit, kinds=PROCESS_COUNTS):
    """The counts cell: the medians of each side's counts per unit over comparison NAME's pairs,
    "reads 1.01 / 1.00, … per round trip" (library / baseline); "-" when none were recorded."""
    found = []
    for label, metric in kinds:
        if r.pairs_of(f"{name}.{metric}"):
            found.append(f"{label} {count(side(r, name, metric, 0))} / {count(side(r, name, metric, 1))}")
    return f"{', '.join(found)} per {unit}" if found else "-"


def rows(r):
    g = r.get
    out = []

    def ratio(a, b):
        return a / b if a is not None and b else None

    def present(name, old_key):
        return r.has_pairs(name) or old_key in r

    if present("bulk.vs_nio", "bulk.ratio"):
        ours = side(r, "bulk.vs_nio", "bytes_per_second", 0, "bulk.library.bytes_per_second")
        nio = side(r, "bulk.vs_nio", "bytes_per_second", 1, "bulk.nio.bytes_per_second")
        text, verdicts = decided(r, "bulk.vs_nio", {"bytes_per_second": (g("bulk.ratio"), None)})
        out.append([
            "bulk transfer, 64 KiB writes",
            fmt(ours, "MB/s"),
            f"raw NIO {fmt(nio, 'MB/s')}; iperf3 {fmt(g('bulk.iperf3.bytes_per_second'), 'MB/s')}",
            f"{text}; iperf3 {fmt(ratio(ours, g('bulk.iperf3.bytes_per_second')), 'x')} (medians, not paired)",
            ">= 0.9x raw NIO",
            combine(verdicts),
            counts(r, "bulk.vs_nio", "GiB"),
        ])
        for name, variant, label in [
            ("bulk.vs_nio_bytebuffer", "library_bytebuffer",
             "bulk, 64 KiB ByteBuffer writes (no copy into the channel's buffer)"),
            ("bulk.vs_nio_pool", "library_pool", "bulk, driven from the cooperative pool"),
        ]:
            if present(name, f"bulk.ratio_{variant}"):
                text, _ = decided(r, name, {"bytes_per_second": (g(f"bulk.ratio_{variant}"), None)})
                out.append([
                    label,
                    fmt(side(r, name, "bytes_per_second", 0, f"bulk.{variant}.bytes_per_second"), "MB/s"),
                    f"raw NIO {fmt(side(r, name, 'bytes_per_second', 1, 'bulk.nio.bytes_per_second'), 'MB/s')}",
                    text,
                    "none: for comparison",
                    "-",
                    counts(r, name, "GiB"),
                ])
    for name, variant, label, goal in [
        ("rtt.vs_nio", "library", "round trips, 64 bytes", ">= 0.9x rate, p99 <= 1.2x"),
        ("rtt.vs_nio_pool", "library_pool", "round trips, driven from the cooperative pool", "none: for comparison"),
    ]:
        suffix = "" if variant == "library" else f"_{variant}"
        if not present(name, f"rtt.rate_ratio{suffix}"):
            continue

        def latency(which, key):
            return (f"{fmt(side(r, name, 'per_second', which, f'rtt.{key}.per_second'), '/s')}, "
                    f"p50 {fmt(side(r, name, 'p50_us', which, f'rtt.{key}.p50_us'), 'us')}, "
                    f"p99 {fmt(side(r, name, 'p99_us', which, f'rtt.{key}.p99_us'), 'us')}")

        text, verdicts = decided(r, name, {"per_second": (g(f"rtt.rate_ratio{suffix}"), None),
                                           "p99_us": (g(f"rtt.p99_ratio{suffix}"), None)})
        out.append([
            label,
            latency(0, variant),
            f"raw NIO {latency(1, 'nio')}",
            text,
            goal,
            combine(verdicts),
            counts(r, name, "round trip"),
        ])
    # The library against the baseline a user would pick instead: NIOAsyncChannel, placed alike.
    for workload, label, unit, per in [
        ("bulk", "bulk, 64 KiB ByteBuffer writes", "MB/s", "GiB"),
        ("rtt", "round trips, 64 bytes", "/s", "round trip"),
        ("framed", "framed messages one way, 64 bytes after a 4-byte length (NIOAsyncChannel: "
         "swift-nio-extras' LengthFieldBasedFrameDecoder)", "/s", "message"),
        ("fanout", "fan-out, one writer to 50 connections, 64-byte messages", "/s", "message"),
    ]:
        for placement, where, ours, theirs, timed in [
            ("pool", "from the cooperative pool", "library_pool", "asyncchannel_pool", False),
            ("executor", "on the event loop's executor", "library", "asyncchannel", False),
            ("pool", "from the cooperative pool", "library_pool", "asyncchannel_pool", True),
            ("executor", "on the event loop's executor", "library", "asyncchannel", True),
        ]:
            name = f"{workload}.vs_asyncchannel_{placement}" + ("_timeout" if timed else "")
            if timed:
                where += ", a 5 s timeout on every library read and write"
            if not (r.has_pairs(name) if timed else present(name, f"{name}.rate_ratio")):
                continue
            if workload == "bulk":
                ours = ("library_pool" if placement == "pool" else "library") + "_bytebuffer"
            rate_key = "bytes_per_second" if workload == "bulk" else "per_second"
            cpu_key = "cpu_seconds_per_gib" if workload == "bulk" else "cpu_us"
            text, verdicts = decided(r, name, {rate_key: (g(f"{name}.rate_ratio"), f"{name}.rate_ratio"),
                                               cpu_key: (g(f"{name}.cpu_ratio"), f"{name}.cpu_ratio")})
            out.append([
                f"{label}, {where}, against NIOAsyncChannel",
                f"{fmt(side(r, name, rate_key, 0, f'{workload}.{ours}.{rate_key}'), unit)}, "
                f"CPU {fmt(side(r, name, cpu_key, 0, f'{workload}.{ours}.{cpu_key}'))}",
                f"NIOAsyncChannel {fmt(side(r, name, rate_key, 1, f'{workload}.{theirs}.{rate_key}'), unit)}, "
                f"CPU {fmt(side(r, name, cpu_key, 1, f'{workload}.{theirs}.{cpu_key}'))}",
                text,
                ">= 1x rate, <= 1x CPU per unit",
                combine(verdicts),
                counts(r, name, per),
            ])
    if present("framed.lines_vs_delimiter", "framed.lines_vs_delimiter.rate_ratio"):
        name = "framed.lines_vs_delimiter"
        text, verdicts = decided(r, name, {
            "per_second": (g(f"{name}.rate_ratio"), f"{name}.rate_ratio"),
            "cpu_us": (g(f"{name}.cpu_ratio"), f"{name}.cpu_ratio")})
        out.append([
            "64-byte lines read from the cooperative pool, as LineFramer messages",
            f"{fmt(side(r, name, 'per_second', 0, 'framed.library_lines.per_second'), '/s')}, "
            f"CPU {fmt(side(r, name, 'cpu_us', 0, 'framed.library_lines.cpu_us'))}",
            f"readData(upToAndIncluding:) {fmt(side(r, name, 'per_second', 1, 'framed.library_delimiter.per_second'), '/s')}, "
            f"CPU {fmt(side(r, name, 'cpu_us', 1, 'framed.library_delimiter.cpu_us'))}",
            text,
            ">= 1x rate, <= 1x CPU per line",
            combine(verdicts),
            counts(r, name, "line"),
        ])
    for name, variant, label, goal in [
        ("writecost.vs_nio", "library", "one 64-byte write, flushed, on the writer's loop, no timeout", "<= 1.2x CPU"),
        ("writecost.vs_nio_timeout", "library_timeout", "the same write with a 5 s timeout", "none: for comparison"),
    ]:
        if not r.pairs_of(f"{name}.cpu_ns"):
            continue
        text, verdicts = decided(r, name)
        out.append([
            label,
            f"CPU {fmt(side(r, name, 'cpu_ns', 0), 'ns')} per write",
            f"raw NIO writeAndFlush: CPU {fmt(side(r, name, 'cpu_ns', 1), 'ns')} per write",
            text,
            goal,
            combine(verdicts),
            counts(r, name, "write"),
        ])
    if present("tls.vs_openssl_pair", "tls.library.bytes_per_second"):
        ours = side(r, "tls.vs_openssl_pair", "bytes_per_second", 0, "tls.library.bytes_per_second")
        pair = side(r, "tls.vs_openssl_pair", "bytes_per_second", 1, "tls.openssl_pair.bytes_per_second")
        speed = ratio(ours, g("tls.openssl_speed.bytes_per_second"))
        text, verdicts = decided(r, "tls.vs_openssl_pair", {"bytes_per_second": (ratio(ours, pair), None)})
        out.append([
            "TLS bulk after STARTTLS",
            fmt(ours, "MB/s"),
            f"s_server/s_client {fmt(pair, 'MB/s')}; openssl speed aes-128-gcm {fmt(g('tls.openssl_speed.bytes_per_second'), 'MB/s')}",
            f"{text}; openssl speed {fmt(speed, 'x')} (not paired)",
            ">= 0.7x the pair",
            combine(verdicts),
            "-",
        ])
    if "idle.listener.bytes_per_connection" in r:
        listener = g("idle.listener.bytes_per_connection")
        clients = g("idle.clients.bytes_per_connection")
        out.append([
            "idle connections",
            f"listener {fmt(listener, 'B')}/conn; client tasks {fmt(clients, 'B')}/conn",
            f"listener RSS before {fmt(g('idle.listener.rss_before_bytes'), 'B')}",
            f"listener {listener / 1024:.1f} KiB, clients {clients / 1024:.1f} KiB per connection",
            "<= 10 KiB per connection",
            combine([], [listener <= 10240 and clients <= 10240]),
            "-",
        ])
    if "alloc.check_status" in r:
        status = int(g("alloc.check_status"))
        out.append([
            "allocations per read+write cycle",
            f"{fmt(g('alloc.per_cycle'))} mallocs (p90)",
            f"threshold {fmt(g('alloc.threshold'))} (Benchmarks/Thresholds)",
            {0: "within its 10% tolerance", 4: "improved", 2: "regressed"}.get(status, f"check exit {status}"),
            "no rise over the threshold",
            combine([], [status in (0, 4)]),
            f"mallocs {fmt(g('alloc.per_cycle'))} per cycle (p90)",
        ])

    if "alloc.bytebuffer_per_cycle" in r and "alloc.asyncchannel_per_cycle" in r:
        ours, theirs = g("alloc.bytebuffer_per_cycle"), g("alloc.asyncchannel_per_cycle")
        # Counts, not times: the same every round, so the goal is decided without an interval.
        out.append([
            "allocations per 64-byte ByteBuffer write + read cycle, against NIOAsyncChannel",
            f"{fmt(ours)} mallocs (p90)",
            f"NIOAsyncChannel {fmt(theirs)} mallocs (p90)",
            f"{ours - theirs:+.0f} over NIOAsyncChannel",
            "<= NIOAsyncChannel's + 2",
            combine([], [ours <= theirs + 2]),
            f"mallocs {fmt(ours)} against {fmt(theirs)} per cycle (p90)",
        ])

    def chat_counts(name):
        return counts(r, name, "1,000 deliveries (the server's)", SERVER_COUNTS)

    if "stk-fanout.deliveries" in r and "ngircd-fanout.deliveries" in r:
        stk_cpu, ng_cpu = g("stk-fanout.server_cpu_seconds_per_million"), g("ngircd-fanout.server_cpu_seconds_per_million")
        stk_rate, ng_rate = g("stk-fanout.deliveries_per_second"), g("ngircd-fanout.deliveries_per_second")
        clean = g("stk-fanout.ok") == 1 and g("ngircd-fanout.ok") == 1
        text, verdicts = decided(r, "stk-fanout", {
            "server_cpu_seconds_per_million": (ratio(stk_cpu, ng_cpu), "stk-fanout.server_cpu_seconds_per_million_ratio"),
            "deliveries_per_second": (ratio(stk_rate, ng_rate), "stk-fanout.deliveries_per_second_ratio")})
        out.append([
            "chat fan-out, 200 clients, 10 senders",
            f"{fmt(stk_rate, '/s')} deliveries, {stk_cpu:.2f} CPU s per million, load {fmt(g('stk-fanout.load_cpu_seconds'))} CPU s, {'no loss' if g('stk-fanout.ok') == 1 else 'LOSS/ERRORS'}",
            f"ngIRCd {fmt(ng_rate, '/s')}, {ng_cpu:.2f} CPU s per million, load {fmt(g('ngircd-fanout.load_cpu_seconds'))} CPU s, {'no loss' if g('ngircd-fanout.ok') == 1 else 'LOSS/ERRORS'}",
            text,
            "CPU <= ngIRCd's, rate >= ngIRCd's, no loss",
            combine(verdicts, [g("stk-fanout.ok") == 1]),
            chat_counts("stk-fanout"),
        ])
        if not clean:
            out[-1][3] += " (a run lost, repeated or reordered messages)"
    if "stk-openloop.deliveries" in r and "ngircd-openloop.deliveries" in r:
        def flood(name):
            return (f"{fmt(g(name + '.deliveries_per_second'), '/s')} deliveries, "
                    f"{g(name + '.server_cpu_seconds_per_million'):.2f} CPU s per million, "
                    f"{fmt(100 * g(name + '.delivered_fraction'))} % delivered in the worst round, "
                    f"{int(g(name + '.dropped'))} clients dropped in all rounds")
        stk_cpu, ng_cpu = g("stk-openloop.server_cpu_seconds_per_million"), g("ngircd-openloop.server_cpu_seconds_per_million")
        stk_rate, ng_rate = g("stk-openloop.deliveries_per_second"), g("ngircd-openloop.deliveries_per_second")
        whole = g("stk-openloop.dropped") == 0 and g("stk-openloop.delivered_fraction") == 1 and g("stk-openloop.ok") == 1
        text, verdicts = decided(r, "stk-openloop", {
            "server_cpu_seconds_per_million": (ratio(stk_cpu, ng_cpu), "stk-openloop.server_cpu_seconds_per_million_ratio"),
            "deliveries_per_second": (ratio(stk_rate, ng_rate), "stk-openloop.deliveries_per_second_ratio")})
        out.append([
            "chat open-loop flood, 200 clients, 10 senders writing as fast as TCP takes it",
            "chat-server " + flood("stk-openloop"),
            "ngIRCd " + flood("ngircd-openloop"),
            text,
            "no client dropped, every message, CPU <= ngIRCd's",
            combine(verdicts, [whole]),
            chat_counts("stk-openloop"),
        ])
    if "stk-latency.p50_us" in r and "ngircd-latency.p50_us" in r:
        text, verdicts = decided(r, "stk-latency", {
            "p50_us": (ratio(g("stk-latency.p50_us"), g("ngircd-latency.p50_us")), "stk-latency.p50_us_ratio"),
            "p99_us": (ratio(g("stk-latency.p99_us"), g("ngircd-latency.p99_us")), "stk-latency.p99_us_ratio"),
            "server_cpu_seconds_per_million": (
                ratio(g("stk-latency.server_cpu_seconds_per_million"), g("ngircd-latency.server_cpu_seconds_per_million")),
                "stk-latency.server_cpu_seconds_per_million_ratio")})
        out.append([
            "chat latency, 1,000 messages/s",
            f"p50 {fmt(g('stk-latency.p50_us'), 'us')}, p99 {fmt(g('stk-latency.p99_us'), 'us')}, {g('stk-latency.server_cpu_seconds_per_million'):.2f} CPU s per million, {'no loss' if g('stk-latency.ok') == 1 else 'LOSS/ERRORS'}",
            f"ngIRCd p50 {fmt(g('ngircd-latency.p50_us'), 'us')}, p99 {fmt(g('ngircd-latency.p99_us'), 'us')}, {g('ngircd-latency.server_cpu_seconds_per_million'):.2f} CPU s per million",
            text,
            "p50, p99 and CPU per delivery <= ngIRCd's",
            combine(verdicts, [g("stk-latency.ok") == 1]),
            chat_counts("stk-latency"),
        ])
        if "floor-latency.p50_us" in r:
            out.append([
                "chat latency, the SwiftNIO floor (nio-chat-floor: a raw SwiftNIO relay, no protocol)",
                f"chat-server p50 {fmt(g('stk-latency.p50_us'), 'us')}, {fmt(g('stk-latency.server_cpu_seconds_per_million'))} CPU s per million",
                f"floor p50 {fmt(g('floor-latency.p50_us'), 'us')}, p99 {fmt(g('floor-latency.p99_us'), 'us')}, {fmt(g('floor-latency.server_cpu_seconds_per_million'))} CPU s per million, {'no loss' if g('floor-latency.ok') == 1 else 'LOSS/ERRORS'}",
                f"chat-server p50 {fmt(ratio(g('stk-latency.p50_us'), g('floor-latency.p50_us')), 'x')}, CPU {fmt(ratio(g('stk-latency.server_cpu_seconds_per_million'), g('floor-latency.server_cpu_seconds_per_million')), 'x')} of the floor's; floor p50 {fmt(ratio(g('floor-latency.p50_us'), g('ngircd-latency.p50_us')), 'x')}, CPU {fmt(ratio(g('floor-latency.server_cpu_seconds_per_million'), g('ngircd-latency.server_cpu_seconds_per_million')), 'x')} of ngIRCd's (ratios of medians, not paired)",
                "none: for comparison",
                "-",
                "-",
            ])
    if "net-stk3.deliveries" in r and "net-ngircd3.deliveries" in r:
        def network(name):
            relays = ""
            if f"{name}.relay_cpu_seconds_per_million" in r:
                relays = (f", and {g(name + '.relay_cpu_seconds_per_million'):.2f} in the relays that keep ngIRCd's "
                          "links uncompressed (not counted: Benchmarks/linkrelay)")
            return (f"{fmt(g(name + '.deliveries_per_second'), '/s')} deliveries, "
                    f"{g(name + '.server_cpu_seconds_per_million'):.2f} CPU s per million summed over the servers{relays}, "
                    f"{'no loss' if g(name + '.ok') == 1 else 'LOSS/ERRORS'}")
        stk_cpu, ng_cpu = g("net-stk3.server_cpu_seconds_per_million"), g("net-ngircd3.server_cpu_seconds_per_million")
        stk_rate, ng_rate = g("net-stk3.deliveries_per_second"), g("net-ngircd3.deliveries_per_second")
        text, verdicts = decided(r, "net-stk3", {
            "server_cpu_seconds_per_million": (ratio(stk_cpu, ng_cpu), "net-stk3.server_cpu_seconds_per_million_ratio"),
            "deliveries_per_second": (ratio(stk_rate, ng_rate), "net-stk3.deliveries_per_second_ratio")})
        out.append([
            "chat network, 3 linked servers, 200 clients each, 10 senders",
            "3 chat-servers " + network("net-stk3"),
            "3 ngIRCd " + network("net-ngircd3"),
            text,
            "CPU <= ngIRCd's, rate >= ngIRCd's, no loss",
            combine(verdicts, [g("net-stk3.ok") == 1]),
            counts(r, "net-stk3", "1,000 deliveries (summed over the servers)", SERVER_COUNTS),
        ])
        if "net-stk1.deliveries" in r and "net-ngircd1.deliveries" in r:
            out.append([
                "chat network: what linking costs (3 linked servers against 1, same load per server)",
                f"chat-server CPU per delivery {fmt(ratio(stk_cpu, g('net-stk1.server_cpu_seconds_per_million')), 'x')}, "
                f"rate {fmt(ratio(stk_rate, g('net-stk1.deliveries_per_second')), 'x')} of one server's",
                f"ngIRCd CPU per delivery {fmt(ratio(ng_cpu, g('net-ngircd1.server_cpu_seconds_per_million')), 'x')}, "
                f"rate {fmt(ratio(ng_rate, g('net-ngircd1.deliveries_per_second')), 'x')} of one server's",
                f"one server: chat-server {fmt(g('net-stk1.deliveries_per_second'), '/s')}, ngIRCd {fmt(g('net-ngircd1.deliveries_per_second'), '/s')} (ratios of medians, not paired)",
                "none: for comparison",
                "-",
                "-",
            ])
    return out


def table(rows_):
    header = ["benchmark", "StreamTaskKit", "baseline (same run)", "ratio: median [95% interval] verdict; pairs",
              "goal", "result", "counts per unit, ours / baseline (medians)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows_:
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def shell(command):
    try:
        return subprocess.run(command, shell=True, capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:
        return "?"


def failures(r):
    """What makes a run fail outright, apart from goals missed: messages lost, repeated or
    reordered, or allocations risen over the threshold."""
    found = []
    for name in ("stk-fanout", "ngircd-fanout", "stk-latency", "ngircd-latency", "floor-latency", "net-stk3",
                 "net-ngircd3", "net-stk1", "net-ngircd1"):
        if f"{name}.ok" in r and r[f"{name}.ok"] != 1:
            found.append(f"{name}: messages lost, repeated or reordered, or clients dropped")
    if "alloc.check_status" in r and int(r["alloc.check_status"]) not in (0, 4):
        found.append("allocations per cycle rose over Benchmarks/Thresholds")
    return found


def report(args):
    r = read_results(args.results)
    body = table(rows(r))
    print(body)
    failed = failures(r)
    for failure in failed:
        print(f"FAILED: {failure}")
    if args.write:
        write_document(args, r, body)
    return 2 if failed else 0


def write_document(args, r, body):
    cpu = shell("lscpu | sed -n 's/^Model name: *//p'")
    memory = shell("free -h | awk '/^Mem:/ {print $2}'")
    findings_path = os.path.join(ROOT, "Benchmarks", "FINDINGS.md")
    findings = open(findings_path).read().strip() if os.path.exists(findings_path) else ""
    method_path = os.path.join(ROOT, "Benchmarks", "METHOD.md")
    method = open(method_path).read().strip() if os.path.exists(method_path) else ""
    raw = "\n".join(f"{key} {value:g}" for key, value in sorted(r.items()))
    # Every pair too, as recorded, so that an interval can be checked or computed again.
    raw += "".join(f"\npair {name} {n} {ours!r} {theirs!r}"
                   for name, pairs in sorted(r.pairs.items()) for n, ours, theirs in pairs)
    alloc = ""
    if args.alloc_output and os.path.exists(args.alloc_output):
        # Only the tool's table of the run (its output also holds build lines).
        alloc = "\n".join(
            line.strip() for line in open(args.alloc_output) if line.strip().startswith("|"))
    text = f"""# Benchmarks

Written by `scripts/bench.sh` (do not edit by hand: the findings come from
`Benchmarks/FINDINGS.md`, the method from `Benchmarks/METHOD.md`).

- Date: {args.date}
- Command: `{args.command}`
- Machine: `{platform.uname().system} {platform.uname().release} {platform.uname().machine}`, {os.cpu_count()} cores ({cpu}), {memory} memory; shared with other builds
- `uname -a`: `{shell('uname -a')}`
- Toolchain: `{shell('swift --version 2>&1 | head -1')}`
- Sizes: {args.sizes}

Every ratio compares StreamTaskKit with a baseline measured in the same run on the same machine,
the two run back to back in pairs, in ABBA order. A ratio is the median of its pairs' ratios with
a 95% bootstrap interval; a goal of issue 9 is met when the whole interval is on the goal's side,
missed when it is wholly on the other, and undecided otherwise ("Deciding a ratio" below).

{body}

{method}

{findings}

## Raw figures

```
{raw}
```
"""
    if alloc:
        text += f"""
## Allocation benchmark: ordo-one's `benchmark`, mallocs per read+write cycle

{alloc}
"""
    with open(args.write, "w") as file:
        file.write(text)
    print(f"\nwrote {args.write}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--results")
    parser.add_argument("--command", default="scripts/bench.sh")
    parser.add_argument("--sizes", default="")
    parser.add_argument("--date", default=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    parser.add_argument("--alloc-output")
    parser.add_argument("--write")
    parser.add_argument("--chat-median")
    parser.add_argument("--chat-pairs", nargs=3, metavar=("FILE", "BASELINE", "NAME"))
    parser.add_argument("--undecided", nargs="+", metavar=("FILE", "NAME"))
    parser.add_argument("--alloc-p90", nargs="+", metavar=("FILE", "BENCHMARK"))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        test = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_decide_test.py")
        sys.exit(subprocess.run([sys.executable, test]).returncode)
    elif args.chat_median:
        chat_median(args.chat_median)
    elif args.chat_pairs:
        chat_pairs(*args.chat_pairs)
    elif args.undecided:
        # Exit 0 (go on) when a row is undecided; 1 when every row named is decided or has no goal.
        sys.exit(0 if undecided(args.undecided[0], args.undecided[1:]) else 1)
    elif args.alloc_p90:
        print(alloc_p90(*args.alloc_p90[:2]))
    else:
        sys.exit(report(args))


if __name__ == "__main__":
    main()
