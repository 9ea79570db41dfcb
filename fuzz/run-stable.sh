#!/usr/bin/env bash
# Runs one fuzz target with libFuzzer on STABLE Rust, without cargo-fuzz: the same
# sanitizer-coverage flags `cargo fuzz run -s none` passes. Usage:
#   fuzz/run-stable.sh TARGET [SECONDS] [libFuzzer flags…]
# TARGET: asm, asm_disasm_roundtrip, decode_roundtrip, machine_step, npy_region, run_engines or
# region_array. The build is --locked: fuzz/Cargo.lock must be current.
set -euo pipefail
cd "$(dirname "$0")"
target="${1:?usage: run-stable.sh TARGET [SECONDS] [libFuzzer flags…]}"
seconds="${2:-60}"
shift $(( $# >= 2 ? 2 : 1 ))
triple="$(rustc -vV | sed -n 's/^host: //p')"
# --target keeps the flags off build scripts, as cargo-fuzz does.
RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks" \
  cargo build --locked --release --target "$triple" --bin "$target"
mkdir -p "corpus/$target" artifacts
if [ "$target" = asm ] && [ -z "$(ls -A corpus/asm)" ]; then
  # Seed the assembler with every example of the syntax reference.
  awk '/^```tpb/{f=1;n++;next} /^```/{f=0} f{print > ("corpus/asm/doc" n ".tpb")}' ../docs/syntax.md
fi
# Inputs up to 64 KiB for the parsers and programs: a 1 KiB cap hid the unbounded .npy reads
# and the dimension count (issue 20). The bundle targets need a few hundred bytes at most.
case "$target" in
  asm|npy_region|region_array) max_len=65536 ;;
  # 12 instructions of at most 17 bytes after 3 header bytes: longer inputs only add bytes
  # that are never read.
  run_engines) max_len=256 ;;
  *) max_len=1024 ;;
esac
# Machines are allocated zeroed (calloc). glibc raises its mmap threshold after the first
# free of a large block and then serves the next machine from the heap, zeroing tens of MB
# by hand; a fixed threshold keeps every machine a lazily zeroed mapping (4x the runs/s of
# run_engines, which makes fresh machines per input).
export MALLOC_MMAP_THRESHOLD_=1048576
# Saved inputs (fuzz/seeds/TARGET: past failures and hand-made seeds, kept in git) are read
# as a second corpus; what libFuzzer finds goes to the first, corpus/TARGET.
seeds=()
if [ -d "seeds/$target" ]; then seeds=("seeds/$target"); fi
# Where cargo put the binary: fuzz/target, or CARGO_TARGET_DIR / build.target-dir when set.
target_dir="$(cargo metadata --format-version 1 --no-deps --locked |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
exec "${target_dir:-target}/$triple/release/$target" -max_total_time="$seconds" -max_len="$max_len" \
  -artifact_prefix=artifacts/ "$@" "corpus/$target" ${seeds[@]+"${seeds[@]}"}
