#!/usr/bin/env bash
# Runs one fuzz target with libFuzzer on STABLE Rust, without cargo-fuzz: the same
# sanitizer-coverage flags `cargo fuzz run -s none` passes. Usage:
#   fuzz/run-stable.sh asm|asm_disasm_roundtrip|decode_roundtrip|machine_step|npy_region [SECONDS] [libFuzzer flags…]
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
  cargo build --release --target "$triple" --bin "$target"
mkdir -p "corpus/$target" artifacts
if [ "$target" = asm ] && [ -z "$(ls -A corpus/asm)" ]; then
  # Seed the assembler with every example of the syntax reference.
  awk '/^```tpb/{f=1;n++;next} /^```/{f=0} f{print > ("corpus/asm/doc" n ".tpb")}' ../docs/syntax.md
fi
exec "target/$triple/release/$target" -max_total_time="$seconds" -max_len=1024 \
  -artifact_prefix=artifacts/ "$@" "corpus/$target"
