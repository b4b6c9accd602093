#!/usr/bin/env bash
# Fuzzes every parser that reads bytes from the network, the kernel or the DNS-SD daemon with
# libFuzzer and AddressSanitizer, each target for a bounded time, and writes FUZZING.md.
#
#   scripts/fuzz.sh [seconds-per-target] [target…]     (default: 60 s, every target)
#   scripts/fuzz.sh --long [target…]                    (each target to 10 million executions,
#                                                        or for one hour if it is slower)
#
# A long run's results go into FUZZING.md's "Long runs" table, one row per target, replacing
# that target's earlier row, so targets can be taken deep one at a time.
#
# Each target is one file in Fuzz/Targets, compiled by swiftc together with the library
# sources it fuzzes (so it reaches their internal types) and -sanitize=fuzzer,address; the
# proxy and TLS targets also link NIOCore (the head gate's NIOEmbedded and NIOHTTP1 too), built unsanitized by SwiftPM in .build-fuzz/nio,
# so coverage is counted in our code only. Every run starts from a scratch copy of
# Fuzz/Corpus/<target> (the committed seeds never grow) and first replays the inputs kept in
# Fuzz/Regressions/<target>. A crash, a leak or a failed invariant is kept in
# .build-fuzz/artifacts/<target>/ and makes the script exit 1.
#
# Needs only the Swift toolchain (its clang runtime ships libFuzzer); runs nothing on the network.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$PWD"

long=""
runs=-1  # libFuzzer's "no limit"
if [ "${1:-}" = "--long" ]; then
    long=1
    shift
    seconds=3600
    runs=10000000
else
    seconds="${1:-60}"
    shift || true
fi
case "$seconds" in
'' | *[!0-9]*) echo "fuzz.sh: seconds must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac

all_targets=(irc-message irc-tag irc-line-framer dnssd-txt-record netservice-txt chat-service-record netlink-message no-proxy-list http-connect socks5 server-hello http-head-gate peer-address-group chat-server-state ats-exceptions certificate-der line-framer length-prefixed-framer tlv-framer delimiter-framer)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi

chat=(Examples/ChatProtocol/*.swift)
txt=(Sources/StreamTaskDNSSD/Service/DNSSDTXTRecord.swift Sources/StreamTaskDNSSD/Errors/DNSSDError.swift
    Sources/StreamTaskDNSSD/Errors/DNSServiceErrorText.swift)
kit=Sources/StreamTaskCore
http=Sources/StreamTaskHTTP
routes=Sources/StreamTaskRoutes
handshake=("$kit/Proxy/ProxyHandshake.swift" "$kit/Proxy/ProxyCredentials.swift" Fuzz/Targets/ProxyFuzzSupport.swift)
server=Examples/ChatServerCore
state=("$server"/ChatServerState*.swift "$server/ChatServerClient.swift" "$server/ChatChannel.swift"
    "$server/ChatServerAction.swift" "$server/ChatServerIdentity.swift" "$kit/Listener/PeerAddressGroup.swift"
    "$server"/Links/ChatServerState*.swift "$server/Links/ChatLinkPeer.swift" "$server/Links/ChatServerLink.swift"
    "$server/Links/ChatNetworkServer.swift" "$server/Links/ChatLinkTraffic.swift")
# The framers, with the machine's rule for reading a frame (FrameScan) and the error they throw.
framing=(Sources/StreamTaskFraming/MessageFramer.swift Sources/StreamTaskFraming/LineFramer.swift
    Sources/StreamTaskFraming/LengthPrefixedFramer.swift Sources/StreamTaskFraming/TypeLengthValueFramer.swift
    Sources/StreamTaskFraming/DelimiterFramer.swift "$kit/Task/FrameScan.swift" "$kit/Task/StreamTaskError.swift"
    Fuzz/Targets/FramerFuzzSupport.swift)
# App Transport Security: its code names StreamTLSConfiguration.Version, and that file's
# certificate, key and pin types (NIOSSL's) are stood in for by TransportSecurityFuzzSupport.
ats=("$kit/TransportSecurity/StreamTransportSecurity.swift" "$kit/TransportSecurity/TransportSecurityHost.swift"
    "$kit/TransportSecurity/TransportSecurityRequirements.swift" "$kit/TransportSecurity/CertificateStrength.swift"
    "$kit/TransportSecurity/DERReader.swift" "$kit/TLS/StreamTLSConfiguration.swift" "$kit/Task/StreamTaskError.swift"
    Fuzz/Targets/TransportSecurityFuzzSupport.swift)

# The harness and library sources of a target, and whether it needs NIOCore.
sources() {
    case "$1" in
    irc-message) echo Fuzz/Targets/IRCMessageFuzz.swift "${chat[@]}" ;;
    irc-tag) echo Fuzz/Targets/IRCTagFuzz.swift "${chat[@]}" ;;
    irc-line-framer) echo Fuzz/Targets/IRCLineFramerFuzz.swift "${chat[@]}" ;;
    dnssd-txt-record) echo Fuzz/Targets/DNSSDTXTRecordFuzz.swift "${txt[@]}" ;;
    netservice-txt) echo Fuzz/Targets/NetServiceTXTFuzz.swift "${txt[@]}" \
        Sources/StreamTaskDNSSD/NetService/NetServiceTXTCoding.swift ;;
    chat-service-record) echo Fuzz/Targets/ChatServiceRecordFuzz.swift "${txt[@]}" "${chat[@]}" ;;
    netlink-message) echo Fuzz/Targets/NetlinkMessageFuzz.swift "$routes/NetlinkMessage.swift" \
        "$routes/Netlink.swift" "$routes/RouteAddress.swift" ;;
    no-proxy-list) echo Fuzz/Targets/NoProxyListFuzz.swift "$kit/Proxy/NoProxyList.swift" \
        "$kit/Support/StringProtocol+Brackets.swift" ;;
    http-connect) echo Fuzz/Targets/HTTPConnectFuzz.swift "$kit/Proxy/HTTPConnectHandshake.swift" \
        "$kit/Support/ByteBuffer+Delimiter.swift" "${handshake[@]}" ;;
    socks5) echo Fuzz/Targets/SOCKS5Fuzz.swift "$kit/Proxy/SOCKS5Handshake.swift" "$kit/Proxy/NoProxyList.swift" \
        "$kit/Support/StringProtocol+Brackets.swift" "${handshake[@]}" ;;
    server-hello) echo Fuzz/Targets/ServerHelloFuzz.swift "$kit/TLS/ServerHelloParser.swift" ;;
    http-head-gate) echo Fuzz/Targets/HTTPHeadGateFuzz.swift "$http/HTTPResponseHeadGate.swift" ;;
    peer-address-group) echo Fuzz/Targets/PeerAddressGroupFuzz.swift "$kit/Listener/PeerAddressGroup.swift" ;;
    chat-server-state) echo Fuzz/Targets/ChatServerStateFuzz.swift "${state[@]}" "${chat[@]}" ;;
    ats-exceptions) echo Fuzz/Targets/ATSExceptionsFuzz.swift "${ats[@]}" \
        "$kit/TransportSecurity/StreamTransportSecurity+Dictionary.swift" ;;
    certificate-der) echo Fuzz/Targets/CertificateDERFuzz.swift "${ats[@]}" ;;
    line-framer) echo Fuzz/Targets/LineFramerFuzz.swift "${framing[@]}" ;;
    length-prefixed-framer) echo Fuzz/Targets/LengthPrefixedFramerFuzz.swift "${framing[@]}" ;;
    tlv-framer) echo Fuzz/Targets/TypeLengthValueFramerFuzz.swift "${framing[@]}" ;;
    delimiter-framer) echo Fuzz/Targets/DelimiterFramerFuzz.swift "${framing[@]}" ;;
    *) echo "fuzz.sh: no target named '$1' (targets: ${all_targets[*]})" >&2; return 1 ;;
    esac
}
needs_nio() {
    case "$1" in
    http-connect | socks5 | server-hello | http-head-gate | *-framer) return 0 ;;
    *) return 1 ;;
    esac
}

out="$root/.build-fuzz"
mkdir -p "$out/bin" "$out/logs"
# Swift's backtracer would otherwise hold every crash for its interactive report.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"

nio_flags=()
prepare_nio() {
    [ ${#nio_flags[@]} -eq 0 ] || return 0
    echo "fuzz.sh: building NIOCore, NIOEmbedded and NIOHTTP1 (unsanitized) in .build-fuzz/nio" >&2
    # NIOEmbedded (EmbeddedChannel, for the head gate) brings NIOCore and the rest it needs;
    # the head gate also names NIOHTTP1's parser errors.
    local module
    for module in NIOEmbedded NIOHTTP1; do
        nice -n 10 swift build --target "$module" --scratch-path "$out/nio" >>"$out/logs/nio-build.log" 2>&1 || {
            tail -20 "$out/logs/nio-build.log" >&2
            return 1
        }
    done
    local bin
    bin="$(swift build --scratch-path "$out/nio" --show-bin-path)"
    mapfile -t nio_flags < <(python3 - "$out/nio/debug.yaml" <<'PY'
import json, sys
# The clang module maps and include paths every module was compiled with (NIOCore's C modules,
# and those NIOEmbedded's dependencies add), each once.
seen = []
for line in open(sys.argv[1]):
    if '"-module-name",' not in line or "args:" not in line:
        continue
    args = json.loads(line.split("args:", 1)[1])
    for i, arg in enumerate(args):
        if arg == "-Xcc" and i + 1 < len(args) and args[i + 1].startswith("-fmodule-map-file="):
            flag = ("-Xcc", args[i + 1])
        elif arg == "-Xcc" and i + 3 < len(args) and args[i + 1] == "-I":
            flag = ("-Xcc", "-I", "-Xcc", args[i + 3])
        else:
            continue
        if flag not in seen:
            seen.append(flag)
for flag in seen:
    for part in flag:
        print(part)
PY
    )
    nio_flags+=(-I "$bin/Modules")
    while IFS= read -r object; do nio_flags+=("$object"); done < <(find "$bin" -path '*.build/*' -name '*.o' | sort)
}

build() {
    local target="$1" module
    module="Fuzz_$(echo "$target" | tr -c 'a-zA-Z0-9\n' '_')"
    local files file
    read -r -a files <<<"$(sources "$target")"
    # The chat server's and the framers' files import the modules compiled into the target here.
    for i in "${!files[@]}"; do
        file="${files[$i]}"
        case "$file" in
        Examples/ChatServerCore/* | Sources/StreamTaskFraming/*)
            mkdir -p "$out/src/$target"
            sed -E '/^import (ChatProtocol|StreamTaskKit|StreamTaskCore)$/d' "$file" >"$out/src/$target/$(basename "$file")"
            files[$i]="$out/src/$target/$(basename "$file")"
            ;;
        esac
    done
    local extra=()
    if needs_nio "$target"; then
        prepare_nio
        extra=("${nio_flags[@]}")
    fi
    # -package-name: the library files declare some members `package`, for the modules beside them.
    nice -n 10 swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -package-name stk \
        -module-name "$module" Fuzz/Targets/FuzzSupport.swift "${files[@]}" "${extra[@]}" \
        -o "$out/bin/$target" 2> >(grep -v "Cannot export local symbol" >&2)
}

status=0
rows=()
long_rows=()
for target in "${targets[@]}"; do
    sources "$target" >/dev/null || exit 2
    echo "fuzz.sh: building $target" >&2
    if ! build "$target"; then
        echo "fuzz.sh: $target did not build" >&2
        rows+=("| $target | build failed | | | | |")
        status=1
        continue
    fi
    artifacts="$out/artifacts/$target"
    work="$out/corpus/$target"
    rm -rf "$work" "$artifacts" && mkdir -p "$work" "$artifacts"
    [ -d "Fuzz/Corpus/$target" ] && cp "Fuzz/Corpus/$target"/* "$work"/ 2>/dev/null || true
    log="$out/logs/$target.log"

    # Regressions first: each input that once failed must pass now.
    regressions=0
    if [ -d "Fuzz/Regressions/$target" ] && [ -n "$(ls -A "Fuzz/Regressions/$target")" ]; then
        regressions=$(ls "Fuzz/Regressions/$target" | wc -l)
        if ! "$out/bin/$target" -artifact_prefix="$artifacts/" "Fuzz/Regressions/$target"/* >"$log.regressions" 2>&1; then
            echo "fuzz.sh: $target fails a kept regression input; see $log.regressions" >&2
            status=1
        fi
    fi

    if [ -n "$long" ]; then
        echo "fuzz.sh: fuzzing $target to $runs executions or ${seconds}s" >&2
    else
        echo "fuzz.sh: fuzzing $target for ${seconds}s" >&2
    fi
    started=$SECONDS
    set +e
    # -timeout: an input that takes over 10 s counts as a hang; -rss_limit_mb: as a memory blow-up.
    timeout $((seconds + 120)) nice -n "${FUZZ_NICE:-10}" "$out/bin/$target" "$work" -max_total_time="$seconds" \
        -runs="$runs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
    rc=$?
    set -e
    elapsed=$((SECONDS - started))
    # What a run finds is kept as a regression input, replayed by every later run until fixed.
    kept=""
    for artifact in "$artifacts"/*; do
        [ -f "$artifact" ] || continue
        mkdir -p "Fuzz/Regressions/$target"
        cp "$artifact" "Fuzz/Regressions/$target/"
        kept="$kept Fuzz/Regressions/$target/$(basename "$artifact")"
    done
    [ -z "$kept" ] || echo "fuzz.sh: $target: kept as regression inputs (commit them with the fix):$kept" >&2
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    coverage=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || true)
    features=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || true)
    corpus=$(echo "$last" | grep -o 'corp: [0-9]*' | grep -o '[0-9]*' || true)
    result="ok"
    if [ "$rc" -ne 0 ]; then
        why=$(grep -m1 -aE 'fuzz invariant failed|SUMMARY|ERROR: libFuzzer' "$log" | tr -d '|`' | cut -c1-100)
        result="**failed** (exit $rc): $why; input in .build-fuzz/artifacts/$target/"
        status=1
    fi
    echo "fuzz.sh: $target: ${executions:-?} executions, cov ${coverage:-?}, ft ${features:-?}, corpus ${corpus:-?}, $result" >&2
    rows+=("| $target | ${executions:-?} | ${speed:-?} | ${coverage:-?} | ${features:-?} | ${corpus:-?} | $regressions | $result |")
    long_rows+=("| $target | $(date -u '+%Y-%m-%d %H:%M') | ${executions:-?} | ${elapsed} | ${speed:-?} | ${coverage:-?} | ${features:-?} | ${corpus:-?} | $result |")
done

if [ -n "$long" ]; then
    # Each target's row replaces its earlier one in the "Long runs" table of FUZZING.md.
    printf '%s\n' "${long_rows[@]}" >"$out/long-rows.md"
    python3 - "$out/long-rows.md" "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(swiftc --version 2>&1 | head -1)" <<'PY'
import sys
start, end = "<!-- fuzz.sh: long -->", "<!-- fuzz.sh: long end -->"
header = ["| target | date (UTC) | executions | seconds | exec/s | cov | ft | corpus | result |",
          "|---|---|---:|---:|---:|---:|---:|---:|---|"]
new = [line for line in open(sys.argv[1]).read().splitlines() if line]
text = open("FUZZING.md").read()
if start not in text:
    text = text.rstrip("\n") + "\n\n" + start + "\n" + end + "\n"
head, rest = text.split(start, 1)
body, tail = rest.split(end, 1)
rows = [line for line in body.splitlines() if line.startswith("| ") and not line.startswith("| target ")]
names = {row.split("|")[1].strip() for row in new}
rows = [row for row in rows if row.split("|")[1].strip() not in names] + new
rows.sort(key=lambda row: row.split("|")[1].strip())
block = ["## Long runs", "",
         "`scripts/fuzz.sh --long [target…]`: each target to 10 million executions, or one hour if it",
         "is slower; the last machine: " + sys.argv[2] + ".", ""] + header + rows
open("FUZZING.md", "w").write(head + start + "\n" + "\n".join(block) + "\n" + end + tail)
PY
    echo "fuzz.sh: long-run rows written to FUZZING.md (section Long runs)" >&2
    exit "$status"
fi

# The results go between the markers in FUZZING.md; the rest of it (findings, notes) is kept.
{
    echo "<!-- fuzz.sh: results -->"
    echo "## Last run"
    echo
    echo "- command: \`scripts/fuzz.sh $seconds${*:+ $*}\`"
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), shared with other builds; load average $(cut -d' ' -f1-3 /proc/loadavg)), $(uname -sr)"
    echo "- toolchain: $(swiftc --version 2>&1 | head -1)"
    echo
    echo "| target | executions | exec/s | cov | ft | corpus | regressions replayed | result |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
    printf '%s\n' "${rows[@]}"
    echo
    echo "\`cov\` is libFuzzer's count of covered edges, \`ft\` its count of features (edges with hit"
    echo "counts), both from the final status line; \`corpus\` the inputs it kept (in a scratch copy:"
    echo "the committed seeds in \`Fuzz/Corpus\` do not grow)."
    echo "<!-- fuzz.sh: end -->"
} >"$out/results.md"
if [ $# -gt 0 ]; then
    echo "fuzz.sh: some targets only: results in .build-fuzz/results.md, FUZZING.md unchanged" >&2
elif [ -f FUZZING.md ] && grep -q '<!-- fuzz.sh: results -->' FUZZING.md; then
    python3 - "$out/results.md" <<'PY'
import sys
text = open("FUZZING.md").read()
head, rest = text.split("<!-- fuzz.sh: results -->", 1)
tail = rest.split("<!-- fuzz.sh: end -->", 1)[1]
open("FUZZING.md", "w").write(head + open(sys.argv[1]).read().rstrip("\n") + tail)
PY
else
    { echo "# Fuzzing"; echo; cat "$out/results.md"; } >FUZZING.md
fi
exit "$status"
