#!/usr/bin/env python3
"""Turns scripts/bench.sh's figures into the table (printed) and Benchmarks/BENCHMARKS.md.

Exits 2 when a run failed outright (a chat run lost, repeated or reordered messages, or the
allocation count rose over its threshold); a goal missed is a MISS in the table, not a failure.

  bench-report.py --results FILE --command CMD --sizes TEXT [--alloc-output FILE] [--write PATH]
  bench-report.py --chat-median FILE      # medians of several chatload runs, as "key value" lines
  bench-report.py --chat-ratios FILE BASELINE  # lowest and highest per-round ratios of two servers' runs
  bench-report.py --alloc-p90 FILE        # allocations per cycle from the benchmark tool's output
"""
import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_results(path):
    values = {}
    with open(path) as file:
        for line in file:
            parts = line.split()
            if len(parts) == 2:
                try:
                    values[parts[0]] = float(parts[1])
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
    return rounds


def chat_values(path):
    """Each key's values over the runs in a file, in the order of the rounds."""
    values = {}
    for _, figures in sorted(chat_rounds(path).items()):
        for key, value in figures.items():
            values.setdefault(key, []).append(value)
    return values


def chat_ratios(path, baseline_path):
    """The lowest and highest ratio of one server's round to the baseline's round of the same
    number, for the figures the table compares: how far one round strays from the median."""
    ours, theirs = chat_rounds(path), chat_rounds(baseline_path)
    for key in ("server_cpu_seconds_per_million", "deliveries_per_second", "p50_us", "p99_us"):
        ratios = [ours[n][key] / theirs[n][key] for n in sorted(set(ours) & set(theirs))
                  if key in ours[n] and theirs[n].get(key)]
        if ratios:
            print(f"{key}_ratio_low", min(ratios))
            print(f"{key}_ratio_high", max(ratios))


def alloc_p90(path):
    """The p90 of mallocCountTotal per iteration from `swift package benchmark --format markdown`."""
    text = open(path).read() if os.path.exists(path) else ""
    # A markdown table whose header names the percentiles, rows like
    # | Malloc (total) (K) * | 28 | 28 | ... | samples |
    header = None
    for line in text.splitlines():
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
    return f"{value:,.3g}"


def verdict(ok):
    if ok is None:
        return "n/a"
    return "PASS" if ok else "MISS"


def rows(r):
    g = r.get
    out = []

    def ratio(a, b):
        return a / b if a is not None and b else None

    def spread(key):
        """" (0.85x–1.30x by round)": the lowest and highest per-round ratio, when recorded."""
        low, high = g(f"{key}_low"), g(f"{key}_high")
        return f" ({fmt(low, 'x')}–{fmt(high, 'x')} by round)" if low is not None and high is not None else ""

    if "bulk.ratio" in r:
        iperf = ratio(g("bulk.library.bytes_per_second"), g("bulk.iperf3.bytes_per_second"))
        out.append([
            "bulk transfer, 64 KiB writes",
            fmt(g("bulk.library.bytes_per_second"), "MB/s"),
            f"raw NIO {fmt(g('bulk.nio.bytes_per_second'), 'MB/s')}; iperf3 {fmt(g('bulk.iperf3.bytes_per_second'), 'MB/s')}",
            f"{fmt(g('bulk.ratio'), 'x')} of raw NIO; {fmt(iperf, 'x')} of iperf3",
            ">= 0.9x raw NIO",
            verdict(g("bulk.ratio") >= 0.9),
        ])
        for name, label in [
            ("library_bytebuffer", "bulk, 64 KiB ByteBuffer writes (no copy into the channel's buffer)"),
            ("library_pool", "bulk, driven from the cooperative pool"),
        ]:
            if f"bulk.ratio_{name}" in r:
                out.append([
                    label,
                    fmt(g(f"bulk.{name}.bytes_per_second"), "MB/s"),
                    "raw NIO, as above",
                    f"{fmt(g(f'bulk.ratio_{name}'), 'x')} of raw NIO",
                    "none: for comparison",
                    "-",
                ])
    if "rtt.rate_ratio" in r:
        out.append([
            "round trips, 64 bytes",
            f"{fmt(g('rtt.library.per_second'), '/s')}, p50 {fmt(g('rtt.library.p50_us'), 'us')}, p99 {fmt(g('rtt.library.p99_us'), 'us')}",
            f"raw NIO {fmt(g('rtt.nio.per_second'), '/s')}, p50 {fmt(g('rtt.nio.p50_us'), 'us')}, p99 {fmt(g('rtt.nio.p99_us'), 'us')}",
            f"rate {fmt(g('rtt.rate_ratio'), 'x')}, p99 {fmt(g('rtt.p99_ratio'), 'x')}",
            ">= 0.9x rate, p99 <= 1.2x",
            verdict(g("rtt.rate_ratio") >= 0.9 and g("rtt.p99_ratio") <= 1.2),
        ])
        if "rtt.rate_ratio_library_pool" in r:
            out.append([
                "round trips, driven from the cooperative pool",
                f"{fmt(g('rtt.library_pool.per_second'), '/s')}, p50 {fmt(g('rtt.library_pool.p50_us'), 'us')}, p99 {fmt(g('rtt.library_pool.p99_us'), 'us')}",
                "raw NIO, as above",
                f"rate {fmt(g('rtt.rate_ratio_library_pool'), 'x')}, p99 {fmt(g('rtt.p99_ratio_library_pool'), 'x')}",
                "none: for comparison",
                "-",
            ])
    # The library against the baseline a user would pick instead: NIOAsyncChannel, placed alike.
    for workload, label, unit in [
        ("bulk", "bulk, 64 KiB ByteBuffer writes", "MB/s"),
        ("rtt", "round trips, 64 bytes", "/s"),
        ("fanout", "fan-out, one writer to 50 connections, 64-byte messages", "/s"),
    ]:
        for placement, where, ours, theirs in [
            ("pool", "from the cooperative pool", "library_pool", "asyncchannel_pool"),
            ("executor", "on the event loop's executor", "library", "asyncchannel"),
        ]:
            key = f"{workload}.vs_asyncchannel_{placement}"
            if f"{key}.rate_ratio" not in r:
                continue
            if workload == "bulk":
                ours = ("library_pool" if placement == "pool" else "library") + "_bytebuffer"
            rate_key = "bytes_per_second" if workload == "bulk" else "per_second"
            cpu_key = "cpu_seconds_per_gib" if workload == "bulk" else "cpu_us"
            rate_ratio, cpu_ratio = g(f"{key}.rate_ratio"), g(f"{key}.cpu_ratio")
            out.append([
                f"{label}, {where}, against NIOAsyncChannel",
                f"{fmt(g(f'{workload}.{ours}.{rate_key}'), unit)}, CPU {fmt(g(f'{workload}.{ours}.{cpu_key}'))}",
                f"NIOAsyncChannel {fmt(g(f'{workload}.{theirs}.{rate_key}'), unit)}, CPU {fmt(g(f'{workload}.{theirs}.{cpu_key}'))}",
                f"rate {fmt(rate_ratio, 'x')}{spread(f'{key}.rate_ratio')}, "
                f"CPU per unit {fmt(cpu_ratio, 'x')}{spread(f'{key}.cpu_ratio')}",
                ">= 1x rate, <= 1x CPU per unit",
                verdict(rate_ratio is not None and cpu_ratio is not None and rate_ratio >= 1 and cpu_ratio <= 1),
            ])
    if "tls.library.bytes_per_second" in r:
        pair = ratio(g("tls.library.bytes_per_second"), g("tls.openssl_pair.bytes_per_second"))
        speed = ratio(g("tls.library.bytes_per_second"), g("tls.openssl_speed.bytes_per_second"))
        out.append([
            "TLS bulk after STARTTLS",
            fmt(g("tls.library.bytes_per_second"), "MB/s"),
            f"s_server/s_client {fmt(g('tls.openssl_pair.bytes_per_second'), 'MB/s')}; openssl speed aes-128-gcm {fmt(g('tls.openssl_speed.bytes_per_second'), 'MB/s')}",
            f"{fmt(pair, 'x')} of the pair; {fmt(speed, 'x')} of openssl speed",
            ">= 0.7x the pair",
            verdict(pair is not None and pair >= 0.7),
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
            verdict(listener <= 10240 and clients <= 10240),
        ])
    if "alloc.check_status" in r:
        status = int(g("alloc.check_status"))
        out.append([
            "allocations per read+write cycle",
            f"{fmt(g('alloc.per_cycle'))} mallocs (p90)",
            f"threshold {fmt(g('alloc.threshold'))} (Benchmarks/Thresholds)",
            {0: "within its 10% tolerance", 4: "improved", 2: "regressed"}.get(status, f"check exit {status}"),
            "no rise over the threshold",
            verdict(status in (0, 4)),
        ])
    if "stk-fanout.deliveries" in r and "ngircd-fanout.deliveries" in r:
        stk_cpu, ng_cpu = g("stk-fanout.server_cpu_seconds_per_million"), g("ngircd-fanout.server_cpu_seconds_per_million")
        stk_rate, ng_rate = g("stk-fanout.deliveries_per_second"), g("ngircd-fanout.deliveries_per_second")
        clean = g("stk-fanout.ok") == 1 and g("ngircd-fanout.ok") == 1
        out.append([
            "chat fan-out, 200 clients, 10 senders",
            f"{fmt(stk_rate, '/s')} deliveries, {stk_cpu:.2f} CPU s per million, load {fmt(g('stk-fanout.load_cpu_seconds'))} CPU s, {'no loss' if g('stk-fanout.ok') == 1 else 'LOSS/ERRORS'}",
            f"ngIRCd {fmt(ng_rate, '/s')}, {ng_cpu:.2f} CPU s per million, load {fmt(g('ngircd-fanout.load_cpu_seconds'))} CPU s, {'no loss' if g('ngircd-fanout.ok') == 1 else 'LOSS/ERRORS'}",
            f"CPU {fmt(ratio(stk_cpu, ng_cpu), 'x')}{spread('stk-fanout.server_cpu_seconds_per_million_ratio')}, "
            f"rate {fmt(ratio(stk_rate, ng_rate), 'x')}{spread('stk-fanout.deliveries_per_second_ratio')} of ngIRCd",
            "CPU <= ngIRCd's, rate >= ngIRCd's, no loss",
            verdict(stk_cpu <= ng_cpu and stk_rate >= ng_rate and g("stk-fanout.ok") == 1),
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
        out.append([
            "chat open-loop flood, 200 clients, 10 senders writing as fast as TCP takes it",
            "chat-server " + flood("stk-openloop"),
            "ngIRCd " + flood("ngircd-openloop"),
            f"CPU {fmt(ratio(stk_cpu, ng_cpu), 'x')}{spread('stk-openloop.server_cpu_seconds_per_million_ratio')}, "
            f"rate {fmt(ratio(stk_rate, ng_rate), 'x')}{spread('stk-openloop.deliveries_per_second_ratio')} of ngIRCd",
            "no client dropped, every message, CPU <= ngIRCd's",
            verdict(whole and stk_cpu <= ng_cpu),
        ])
    if "stk-latency.p50_us" in r and "ngircd-latency.p50_us" in r:
        out.append([
            "chat latency, 1,000 messages/s",
            f"p50 {fmt(g('stk-latency.p50_us'), 'us')}, p99 {fmt(g('stk-latency.p99_us'), 'us')}, {g('stk-latency.server_cpu_seconds_per_million'):.2f} CPU s per million, {'no loss' if g('stk-latency.ok') == 1 else 'LOSS/ERRORS'}",
            f"ngIRCd p50 {fmt(g('ngircd-latency.p50_us'), 'us')}, p99 {fmt(g('ngircd-latency.p99_us'), 'us')}, {g('ngircd-latency.server_cpu_seconds_per_million'):.2f} CPU s per million",
            f"p50 {fmt(ratio(g('stk-latency.p50_us'), g('ngircd-latency.p50_us')), 'x')}{spread('stk-latency.p50_us_ratio')}, "
            f"p99 {fmt(ratio(g('stk-latency.p99_us'), g('ngircd-latency.p99_us')), 'x')}{spread('stk-latency.p99_us_ratio')}, "
            f"CPU {fmt(ratio(g('stk-latency.server_cpu_seconds_per_million'), g('ngircd-latency.server_cpu_seconds_per_million')), 'x')}{spread('stk-latency.server_cpu_seconds_per_million_ratio')} of ngIRCd",
            "p50, p99 and CPU per delivery <= ngIRCd's",
            verdict(g("stk-latency.p50_us") <= g("ngircd-latency.p50_us") and g("stk-latency.p99_us") <= g("ngircd-latency.p99_us") and g("stk-latency.server_cpu_seconds_per_million") <= g("ngircd-latency.server_cpu_seconds_per_million") and g("stk-latency.ok") == 1),
        ])
        if "floor-latency.p50_us" in r:
            out.append([
                "chat latency, the SwiftNIO floor (nio-chat-floor: a raw SwiftNIO relay, no protocol)",
                f"chat-server p50 {fmt(g('stk-latency.p50_us'), 'us')}, {fmt(g('stk-latency.server_cpu_seconds_per_million'))} CPU s per million",
                f"floor p50 {fmt(g('floor-latency.p50_us'), 'us')}, p99 {fmt(g('floor-latency.p99_us'), 'us')}, {fmt(g('floor-latency.server_cpu_seconds_per_million'))} CPU s per million, {'no loss' if g('floor-latency.ok') == 1 else 'LOSS/ERRORS'}",
                f"chat-server p50 {fmt(ratio(g('stk-latency.p50_us'), g('floor-latency.p50_us')), 'x')}, CPU {fmt(ratio(g('stk-latency.server_cpu_seconds_per_million'), g('floor-latency.server_cpu_seconds_per_million')), 'x')} of the floor's; floor p50 {fmt(ratio(g('floor-latency.p50_us'), g('ngircd-latency.p50_us')), 'x')}, CPU {fmt(ratio(g('floor-latency.server_cpu_seconds_per_million'), g('ngircd-latency.server_cpu_seconds_per_million')), 'x')} of ngIRCd's",
                "none: for comparison",
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
        out.append([
            "chat network, 3 linked servers, 200 clients each, 10 senders",
            "3 chat-servers " + network("net-stk3"),
            "3 ngIRCd " + network("net-ngircd3"),
            f"CPU {fmt(ratio(stk_cpu, ng_cpu), 'x')}{spread('net-stk3.server_cpu_seconds_per_million_ratio')}, "
            f"rate {fmt(ratio(stk_rate, ng_rate), 'x')}{spread('net-stk3.deliveries_per_second_ratio')} of ngIRCd",
            "CPU <= ngIRCd's, rate >= ngIRCd's, no loss",
            verdict(stk_cpu <= ng_cpu and stk_rate >= ng_rate and g("net-stk3.ok") == 1),
        ])
        if "net-stk1.deliveries" in r and "net-ngircd1.deliveries" in r:
            out.append([
                "chat network: what linking costs (3 linked servers against 1, same load per server)",
                f"chat-server CPU per delivery {fmt(ratio(stk_cpu, g('net-stk1.server_cpu_seconds_per_million')), 'x')}, "
                f"rate {fmt(ratio(stk_rate, g('net-stk1.deliveries_per_second')), 'x')} of one server's",
                f"ngIRCd CPU per delivery {fmt(ratio(ng_cpu, g('net-ngircd1.server_cpu_seconds_per_million')), 'x')}, "
                f"rate {fmt(ratio(ng_rate, g('net-ngircd1.deliveries_per_second')), 'x')} of one server's",
                f"one server: chat-server {fmt(g('net-stk1.deliveries_per_second'), '/s')}, ngIRCd {fmt(g('net-ngircd1.deliveries_per_second'), '/s')}",
                "none: for comparison",
                "-",
            ])
    return out


def table(rows_):
    header = ["benchmark", "StreamTaskKit", "baseline (same run)", "ratio", "goal", "result"]
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

Every ratio compares StreamTaskKit with a baseline measured in the same invocation on the same
machine; PASS/MISS is against the goal of issue 9.

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
    parser.add_argument("--chat-ratios", nargs=2)
    parser.add_argument("--alloc-p90")
    args = parser.parse_args()
    if args.chat_median:
        chat_median(args.chat_median)
    elif args.chat_ratios:
        chat_ratios(*args.chat_ratios)
    elif args.alloc_p90:
        print(alloc_p90(args.alloc_p90))
    else:
        sys.exit(report(args))


if __name__ == "__main__":
    main()
