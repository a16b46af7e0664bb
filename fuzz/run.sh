#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ in a build directory and runs each for a while.
#
#   fuzz/run.sh [--no-build] [--fresh] BUILD_DIR [SECONDS_PER_TARGET] [TARGET...]
#
# BUILD_DIR is configured first when it is not yet a CMake build directory (clang preset,
# PARLEY_BUILD_FUZZERS=ON, without tests, tools, examples and benchmarks). SECONDS_PER_TARGET
# defaults to 60; TARGETs default to all ten (fuzz-jinja fuzz-jinja-compiled fuzz-yaml
# fuzz-stream fuzz-json fuzz-commands fuzz-mcp fuzz-tokens fuzz-batch fuzz-schema). Each target runs alone (one process, -seed fixed) on its
# seed corpus (BUILD_DIR/fuzz/seeds/NAME, written from the test data by make_seeds.py) and its
# growing corpus (BUILD_DIR/fuzz/corpus/NAME, kept between runs). Crash, leak, time-out and
# out-of-memory inputs are written to BUILD_DIR/fuzz/artifacts/. Prints one line per target (its
# executions and outcome) and exits with 1 when any target found something.
#
# --no-build: run what BUILD_DIR holds without configuring or building (the seeds must have been
# written, as the ctest fixture fuzz-seeds does). --fresh: start from the seed corpus alone, in an
# emptied BUILD_DIR/fuzz/fresh/NAME, so that a run does not depend on earlier runs (the ctest
# runs of the clang-asan preset use both).
#
# Environment: PARLEY_FUZZ_SEED (default 1), PARLEY_FUZZ_TIMEOUT (seconds per input, default
# 60: generous, as a loaded CI machine may give a run a fraction of a core),
# PARLEY_FUZZ_RSS_MB (default 2048),
# PARLEY_FUZZ_BUILD_JOBS (default 1), PARLEY_SHARED_DIR (the shared test data, for a new build
# directory; default ../shared).
set -euo pipefail

build=1
fresh=0
while [[ $# -gt 0 && "$1" == --* && "$1" != --help ]]; do
    case "$1" in
        --no-build) build=0 ;;
        --fresh) fresh=1 ;;
        *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
    shift
done
if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
source_dir="$(dirname "$here")"
build_dir="$1"
seconds="${2:-60}"
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(fuzz-jinja fuzz-jinja-compiled fuzz-yaml fuzz-stream fuzz-json fuzz-commands fuzz-mcp fuzz-tokens fuzz-batch fuzz-schema)
fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [[ "$seconds" -lt 1 ]]; then
    echo "run.sh: SECONDS_PER_TARGET must be a positive integer, got '$seconds'" >&2
    exit 2
fi

seed="${PARLEY_FUZZ_SEED:-1}"
timeout="${PARLEY_FUZZ_TIMEOUT:-60}"
rss_mb="${PARLEY_FUZZ_RSS_MB:-2048}"
jobs="${PARLEY_FUZZ_BUILD_JOBS:-1}"

# The longest input of each target, in bytes.
max_len_of() {
    case "$1" in
        fuzz-jinja | fuzz-jinja-compiled) echo 8192 ;;
        fuzz-stream) echo 16384 ;;
        fuzz-commands) echo 4096 ;;
        fuzz-mcp) echo 16384 ;;
        *) echo 8192 ;;
    esac
}

if [[ $build -eq 1 && ! -f "$build_dir/CMakeCache.txt" ]]; then
    shared="${PARLEY_SHARED_DIR:-$source_dir/../shared}"
    cmake -S "$source_dir" --preset clang -B "$build_dir" -DPARLEY_BUILD_FUZZERS=ON \
        -DPARLEY_BUILD_TESTS=OFF -DPARLEY_BUILD_TOOLS=OFF -DPARLEY_BUILD_EXAMPLES=OFF \
        -DPARLEY_BUILD_BENCHMARKS=OFF -DPARLEY_INSTALL=OFF -DPARLEY_SHARED_DIR="$shared"
fi
if [[ $build -eq 1 ]]; then
    cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}" parley-fuzz-seeds
fi

fuzz_dir="$build_dir/fuzz"
mkdir -p "$fuzz_dir/artifacts" "$fuzz_dir/logs"
failed=0
summary=()
for t in "${targets[@]}"; do
    if [[ ! -x "$fuzz_dir/$t" || ! -d "$fuzz_dir/seeds/$t" ]]; then
        echo "run.sh: $fuzz_dir/$t or its seeds ($fuzz_dir/seeds/$t) are missing" >&2
        exit 2
    fi
    if [[ $fresh -eq 1 ]]; then
        corpus="$fuzz_dir/fresh/$t"
        rm -rf "$corpus"
    else
        corpus="$fuzz_dir/corpus/$t"
    fi
    mkdir -p "$corpus"
    log="$fuzz_dir/logs/$t.log"
    args=(-seed="$seed" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss_mb"
          -max_len="$(max_len_of "$t")" -print_final_stats=1 -artifact_prefix="$fuzz_dir/artifacts/$t-")
    if [[ -f "$fuzz_dir/dict/$t.dict" ]]; then args+=(-dict="$fuzz_dir/dict/$t.dict"); fi
    echo "== $t: ${seconds} s"
    status=0
    "$fuzz_dir/$t" "${args[@]}" "$corpus" "$fuzz_dir/seeds/$t" >"$log" 2>&1 || status=$?
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    artifact="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)"
    if [[ $status -eq 0 ]]; then
        line="$t: ok, ${execs:-?} executions in ${seconds} s, corpus $(ls "$corpus" | wc -l) inputs"
    else
        failed=1
        what="$(grep -m 1 -E '^==[0-9]+==ERROR|^SUMMARY|ERROR: libFuzzer|runtime error|disagree' "$log" || true)"
        line="$t: FAILED (exit $status) after ${execs:-?} executions: ${what:-see the log}"
        line+="; input: ${artifact:-none}; log: $log"
        tail -n 40 "$log" >&2
    fi
    echo "$line"
    summary+=("$line")
done

echo
echo "fuzzing summary (seed $seed, ${seconds} s per target):"
printf '  %s\n' "${summary[@]}"
exit $failed
