"""The simulator surface: tpb.Machine, tpb.RunReport, tpb.Warning, tpb.Fault.

Behaviour under test is docs/cli.md's "`tpb run` — the reference simulator" section and its
simulator assumptions (§21 initial state, §25 reads before writes, §37 uninitialised reads);
regions follow docs/cli-run.md.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tpb
from conftest import (
    ALL_DTYPES,
    REGION_NAMES,
    assert_bits_equal,
    random_bits,
    random_values,
    region,
)

# Iota then a TensorScalarArith that halves it (docs/syntax.md syntax).
IOTA = (
    "iota out_dtype=fp32 src_data_pattern=0:[[1,8]] "
    "dst_mem_pattern=sbuf[p0..4]+0x0:[[1,8]] channel_multiplier=8"
)
HALVE = (
    "ts_arith src=sbuf[p0..4]+0x0:[[1,8]] in=fp32 out=fp32 op0=mult imm0=0.5 "
    "dst=sbuf[p0..4]+0x100:[[1,8]]"
)
IOTA_VALUES = np.arange(32, dtype=np.float32).reshape(4, 8)

# A cayman SBUF partition: 224 KiB active (assumptions.md item 1).
CAYMAN_SBUF_BYTES = 0x38000
WHOLE_SBUF = f"sbuf[p0..128]+0x0:uint8:128x{CAYMAN_SBUF_BYTES}"


# ---- write / read --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_write_read_every_dtype_bit_exact(dtype, rng):
    m = tpb.Machine()
    a = random_bits(rng, (16, 3, 5), dtype)
    m.write("sbuf[p0..16]+0x400", a)
    got = m.read(region("sbuf", 16, 0x400, dtype, (16, 3, 5)))
    assert got.dtype == np.dtype(dtype)
    assert_bits_equal(got, a)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_read_accepts_numpy_dtype_names(dtype, rng):
    m = tpb.Machine()
    a = random_values(rng, (4, 6), dtype)
    m.write("psum[p0..4]+0x80", a)
    got = m.read(f"psum[p0..4]+0x80:{np.dtype(dtype).name}:4x6")
    assert_bits_equal(got, a)


def test_read_returns_ml_dtypes_for_bf16_and_fp8():
    m = tpb.Machine()
    m.write("sbuf[p0..2]+0x0", np.zeros((2, 4), np.uint8))
    assert m.read("sbuf[p0..2]+0x0:bf16:2x2").dtype == ml_dtypes.bfloat16
    assert m.read("sbuf[p0..2]+0x0:fp8_exp3:2x4").dtype == ml_dtypes.float8_e3m4
    assert m.read("sbuf[p0..2]+0x0:fp8_exp4:2x4").dtype == ml_dtypes.float8_e4m3
    assert m.read("sbuf[p0..2]+0x0:fp8_exp5:2x4").dtype == ml_dtypes.float8_e5m2


def test_rows_are_partitions_and_reinterpretation_is_raw_bytes():
    m = tpb.Machine()
    a = np.arange(8, dtype=np.uint32).reshape(4, 2) | np.uint32(0x3F800000)
    m.write("sbuf[p2..6]+0x10", a)
    # Partition 3, bytes 0x10..0x18 hold row 1.
    assert_bits_equal(m.read("sbuf[p3..4]+0x10:uint32:1x2"), a[1:2])
    assert_bits_equal(m.read("sbuf[p2..6]+0x10:fp32:4x2"), a.view(np.float32))
    assert_bits_equal(m.read("sbuf[p2..6]+0x10:uint8:4x8"), a.view(np.uint8).reshape(4, 8))


def test_elements_spread_over_partitions_partition_major():
    """docs/cli-run.md "Layout": N elements over P partitions, partition-major."""
    m = tpb.Machine()
    a = np.arange(12, dtype=np.float32)
    m.write("sbuf[p0..4]+0x0", a.reshape(2, 6))
    assert_bits_equal(m.read("sbuf[p0..4]+0x0:fp32:4x3"), a.reshape(4, 3))
    assert_bits_equal(m.read("sbuf[p1..2]+0x0:fp32:3"), a[3:6])
    m.write("sbuf[p5..6]+0x0", np.float32(7.5))  # a 0-d array is one element
    assert m.read("sbuf[p5..6]+0x0:fp32:1")[0] == 7.5


def test_write_converts_non_contiguous_and_big_endian_arrays():
    m = tpb.Machine()
    a = np.arange(24, dtype=np.float32).reshape(6, 4).T  # (4, 6), not C-contiguous
    m.write("sbuf[p0..4]+0x0", a)
    assert_bits_equal(m.read("sbuf[p0..4]+0x0:fp32:4x6"), np.ascontiguousarray(a))
    b = np.arange(8, dtype=">i4").reshape(2, 4)
    m.write("sbuf[p0..2]+0x100", b)
    assert_bits_equal(m.read("sbuf[p0..2]+0x100:int32:2x4"), b.astype("<i4"))
    # Array-likes go through numpy.asarray: a list of float32 rows is float32 ...
    rows = [np.float32([1, 2]), np.float32([3, 4])]
    m.write("sbuf[p0..2]+0x200", rows)
    assert_bits_equal(m.read("sbuf[p0..2]+0x200:fp32:2x2"), np.float32(rows))
    with pytest.raises(tpb.DtypeError, match="int64"):  # ... a list of Python ints is int64
        m.write("sbuf[p0..2]+0x200", [[1, 2], [3, 4]])


def test_write_with_a_matching_suffix_and_mismatching_one():
    m = tpb.Machine()
    m.write("sbuf[p0..4]+0x0:fp32:4x3", np.ones((4, 3), np.float32))
    with pytest.raises(tpb.RegionError, match="bfloat16"):
        m.write("sbuf[p0..4]+0x0:bf16:4x3", np.ones((4, 3), np.float32))


@pytest.mark.parametrize(
    "dtype", [np.float64, np.int64, np.uint64, np.bool_, np.complex64, object]
)
def test_write_refuses_non_datapath_dtypes(dtype):
    m = tpb.Machine()
    with pytest.raises(tpb.DtypeError) as info:
        m.write("sbuf[p0..4]+0x0", np.zeros((4, 2), dtype=dtype))
    assert isinstance(info.value, TypeError)
    assert "not a TPB datapath dtype" in str(info.value)


def test_float64_message_says_how_to_fix_it():
    with pytest.raises(tpb.DtypeError, match=r"astype\(numpy.float32\)"):
        tpb.Machine().write("sbuf[p0..4]+0x0", np.zeros((4, 2)))


def test_fp8_e4m3_variant_must_match_the_machine():
    """assumptions.md item 15: FP8_EXP4 is IEEE-like E4M3 by default, finite-only with fn."""
    a = np.array([[1.5, -240.0]], dtype=ml_dtypes.float8_e4m3fn)
    with pytest.raises(tpb.DtypeError, match="fp8_e4m3"):
        tpb.Machine().write("sbuf[p0..1]+0x0", a)
    m = tpb.Machine(fp8_e4m3="fn")
    m.write("sbuf[p0..1]+0x0", a)
    got = m.read("sbuf[p0..1]+0x0:fp8_exp4:1x2")
    assert got.dtype == ml_dtypes.float8_e4m3fn
    assert_bits_equal(got, a)
    with pytest.raises(tpb.DtypeError):
        m.write("sbuf[p0..1]+0x0", a.astype(ml_dtypes.float8_e4m3))
    with pytest.raises(tpb.UsageError, match="fp8_e4m3"):
        tpb.Machine(fp8_e4m3="ocp")


BAD_READS = [
    ("sbuf[p0..129]+0x0:fp32:129x1", "outside 0..128"),
    ("sbuf[p0..4]+0x100", "needs its dtype and shape"),
    ("sbuf[p0..4]+0x100:fp32:4x3x", "not a dimension"),
    ("xbuf[p0..4]:fp32:4x1", "unknown space"),
    (f"sbuf[p0..4]+{CAYMAN_SBUF_BYTES - 1:#x}:fp32:4x4", "outside the 0x38000 active bytes"),
    ("sbuf[p0..4]+0x0:fp64:4x1", "unknown dtype `fp64`"),
    ("psum[p0..4]+0x3ff0:fp32:4x8", "psum"),
    ("sbuf[p0..4]+0x0:fp32:5x3", ""),
    ("", ""),
    ("sbuf[p4..2]+0x0:fp32:2x1", ""),
    ("sbuf[p0..4]+0x0:fp32:4x99999999999999999999", ""),
]


@pytest.mark.parametrize("text,message", BAD_READS)
def test_bad_read_regions_are_region_errors(text, message):
    m = tpb.Machine()
    with pytest.raises(tpb.RegionError, match=message.replace("[", r"\[") or None) as info:
        m.read(text)
    assert isinstance(info.value, ValueError) and isinstance(info.value, tpb.Error)


def test_bad_write_regions_are_region_errors():
    m = tpb.Machine()
    for text, array in [
        ("sbuf[p0..4]+0x0", np.zeros((5, 3), np.float32)),
        ("sbuf[p120..130]+0x0", np.zeros((10, 3), np.float32)),
        (f"sbuf[p0..4]+{CAYMAN_SBUF_BYTES - 4:#x}", np.zeros((4, 2), np.float32)),
        ("psum[p0..4]+0x0", np.zeros((4, 5000), np.float32)),
        ("nowhere", np.zeros((4, 2), np.float32)),
    ]:
        with pytest.raises(tpb.RegionError):
            m.write(text, array)


def test_maverick_has_no_psum():
    with pytest.raises(tpb.RegionError, match="maverick has no psum"):
        tpb.Machine(gen="maverick").write("psum[p0..4]+0x0", np.zeros((4, 4), np.float32))


def test_active_bytes_differ_per_generation():
    """assumptions.md item 1: 192/224/256/512 KiB SBUF per partition."""
    for gen, kib in [("sunda", 192), ("cayman", 224), ("mariana", 256), ("maverick", 512)]:
        m = tpb.Machine(gen=gen)
        m.write(f"sbuf[p0..1]+{kib * 1024 - 4:#x}", np.ones((1, 1), np.float32))
        with pytest.raises(tpb.RegionError):
            m.write(f"sbuf[p0..1]+{kib * 1024 - 2:#x}", np.ones((1, 1), np.float32))


def test_a_new_machine_reads_zero():
    """assumptions.md item 21: SBUF/PSUM start as zero bytes."""
    m = tpb.Machine()
    assert not m.read("sbuf[p0..128]+0x0:uint32:128x16").any()
    assert not m.read("psum[p0..128]+0x0:uint32:128x16").any()
    assert m.registers == [0] * 64
    assert m.retired == 0
    assert m.gen == "cayman"


# ---- registers and semaphores ---------------------------------------------------------


def test_set_register_ints_floats_and_bounds():
    m = tpb.Machine()
    m.set_register(3, 5)
    m.set_register(4, -1)  # two's complement
    m.set_register(5, 1.5)  # FP32 bits
    m.set_register(6, -3.4028235e38)
    m.set_register(7, 0xFFFFFFFF)
    m.set_register(8, float("-inf"))
    regs = m.registers
    assert regs[3:9] == [5, 0xFFFFFFFF, 0x3FC00000, 0xFF7FFFFF, 0xFFFFFFFF, 0xFF800000]
    for value in [2**32, -(2**31) - 1, 1e39, "x", None]:
        with pytest.raises(tpb.UsageError):
            m.set_register(3, value)
    for n in [64, 1000]:
        with pytest.raises(tpb.UsageError, match="outside 0..64"):
            m.set_register(n, 1)
    # A negative register number is an argument mistake like any other (issue 20 item 16).
    with pytest.raises(tpb.UsageError, match="negative"):
        m.set_register(-1, 1)
    assert m.registers[3] == 5  # failed calls changed nothing


def test_semaphores():
    m = tpb.Machine()
    m.set_semaphore(7, -3)
    assert m.semaphore(7) == -3
    assert m.semaphore(255) == 0
    with pytest.raises(tpb.UsageError):
        m.semaphore(256)


# ---- run / step ------------------------------------------------------------------------


def test_run_text_and_report():
    m = tpb.Machine()
    report = m.run(IOTA + "\n" + HALVE)
    assert isinstance(report, tpb.RunReport)
    assert report.instructions == 2
    assert report.warnings == []
    assert report.elements == 64
    assert report.bytes_written == 256
    assert len(report.trace) == 2 and "iota" in report.trace[0]
    assert m.retired == 2
    assert_bits_equal(m.read("sbuf[p0..4]+0x0:fp32:4x8"), IOTA_VALUES)
    assert_bits_equal(m.read("sbuf[p0..4]+0x100:fp32:4x8"), IOTA_VALUES * np.float32(0.5))


def test_reg_directive_spellings_agree_with_tpb_run():
    # Issue 16 item 5: Machine.run reads `.reg` with the parser `tpb run` uses, so every
    # spelling `tpb run` accepts sets the same register here.
    one = 0x3F800000
    for line in [".reg 7 = 1.0", ".reg 7=1.0", ".reg 7 1.0", ".reg r7 = 1.0", ".reg reg[7] 1.0"]:
        m = tpb.Machine()
        m.run(line + "\n" + IOTA)
        assert m.registers[7] == one, line
    for bad in [".reg 64 = 1", ".reg 7", ".reg 7 = 1e39"]:
        with pytest.raises(tpb.AsmError):
            tpb.Machine().run(bad + "\n" + IOTA)


def test_run_bytes_instructions_and_step_agree():
    code = tpb.asm(IOTA + "\n" + HALVE)
    insts = tpb.decode(code)
    results = []
    for program in [code, insts, tuple(insts), IOTA + "\n" + HALVE]:
        m = tpb.Machine()
        assert m.run(program).instructions == 2
        results.append(m.read("sbuf[p0..4]+0x100:fp32:4x8"))
    m = tpb.Machine()
    assert m.step(insts[0]).instructions == 1
    assert m.step(code[64:]).instructions == 1
    results.append(m.read("sbuf[p0..4]+0x100:fp32:4x8"))
    m = tpb.Machine()
    m.step(IOTA)
    m.step(HALVE)
    results.append(m.read("sbuf[p0..4]+0x100:fp32:4x8"))
    for r in results:
        assert_bits_equal(r, IOTA_VALUES * np.float32(0.5))


def test_step_takes_exactly_one_instruction():
    m = tpb.Machine()
    code = tpb.asm(IOTA + "\n" + HALVE)
    with pytest.raises(tpb.UsageError, match="one instruction, not 2"):
        m.step(code)
    with pytest.raises(tpb.UsageError, match="not 0"):
        m.step(b"")
    assert m.retired == 0


def test_run_bad_programs_are_usage_or_asm_errors():
    m = tpb.Machine()
    with pytest.raises(tpb.UsageError, match="not a multiple of 64"):
        m.run(bytes(63))
    with pytest.raises(tpb.UsageError, match="not a multiple of 64"):
        m.run(bytes(65))
    with pytest.raises(tpb.UsageError):
        m.run(5)
    with pytest.raises(tpb.UsageError):
        m.run([b"short"])
    with pytest.raises(tpb.AsmError):
        m.run("iota bogus=1")
    assert m.retired == 0


def test_uninitialised_read_is_a_warning():
    """assumptions.md item 37: one warning per operand per instruction."""
    m = tpb.Machine()
    report = m.run(HALVE)
    (w,) = report.warnings
    assert isinstance(w, tpb.Warning)
    assert (w.index, w.mnemonic, w.kind) == (0, "ts_arith", "uninitialised-read")
    assert "src_mem_pattern" in w.message and "32 uninitialised elements" in w.message
    assert "uninitialised-read" in str(w)
    assert m.retired == 1


def test_strict_turns_the_warning_into_a_fault_that_changes_nothing():
    m = tpb.Machine(strict=True)
    before = m.read("sbuf[p0..4]+0x100:uint32:4x8")
    with pytest.raises(tpb.Fault) as info:
        m.run(HALVE)
    e = info.value
    assert isinstance(e, RuntimeError) and isinstance(e, tpb.Error)
    assert (e.index, e.kind, e.mnemonic) == (0, "strict", "ts_arith")
    assert "uninitialised" in e.cause
    assert m.retired == 0
    assert_bits_equal(m.read("sbuf[p0..4]+0x100:uint32:4x8"), before)
    # Initialised input: strict runs it.
    m.write("sbuf[p0..4]+0x0", IOTA_VALUES)
    assert m.run(HALVE).warnings == []


# Faults: an invalid instruction (validated before it runs) and one whose access runs past
# the partition at run time.
INVALID_ACCUMULATE = (
    "ts_arith src=sbuf[p0..4]+0x0:[[1,8]] in=fp32 out=fp32 op0=mult imm0=0.5 "
    "accumulator_cmd=accumulate dst=sbuf[p0..4]+0x0:[[1,8]]"
)
PAST_THE_END = (
    f"ts_arith src=sbuf[p0..4]+0x0:[[1,64]] in=fp32 out=fp32 op0=mult imm0=0.5 "
    f"dst=sbuf[p0..4]+{CAYMAN_SBUF_BYTES - 0x40:#x}:[[1,64]]"
)


@pytest.mark.parametrize(
    "bad,kind", [(INVALID_ACCUMULATE, "invalid"), (PAST_THE_END, "out-of-range")]
)
def test_a_fault_names_the_instruction_and_changes_no_state(bad, kind):
    m = tpb.Machine()
    m.set_register(9, 1.25)
    m.write("sbuf[p0..4]+0x0", IOTA_VALUES)
    m.write(f"sbuf[p0..4]+{CAYMAN_SBUF_BYTES - 0x40:#x}", np.ones((4, 16), np.float32))
    code = tpb.asm(HALVE + "\n" + bad, validate=False)
    m.run(code[:64])
    # The instruction before the faulting one runs; the faulting one changes nothing.
    with pytest.raises(tpb.Fault) as info:
        m.run(code)
    e = info.value
    assert e.index == 1 and e.kind == kind and e.mnemonic == "ts_arith"
    assert e.cause and e.cause in str(e)
    if kind == "invalid":
        assert [f.rule for f in e.findings] == ["has_zero_accum_cmd_field"]
    else:
        assert e.findings == []
    # State now: the same as after running only the first instruction twice.
    ref = tpb.Machine()
    ref.set_register(9, 1.25)
    ref.write("sbuf[p0..4]+0x0", IOTA_VALUES)
    ref.write(f"sbuf[p0..4]+{CAYMAN_SBUF_BYTES - 0x40:#x}", np.ones((4, 16), np.float32))
    ref.run(code[:64])
    ref.run(code[:64])
    assert_bits_equal(m.read(WHOLE_SBUF), ref.read(WHOLE_SBUF))
    assert m.registers == ref.registers
    assert m.retired == ref.retired == 2


def test_a_faulting_step_changes_no_byte_of_sbuf():
    m = tpb.Machine()
    m.write("sbuf[p0..4]+0x0", IOTA_VALUES)
    before = m.read(WHOLE_SBUF)
    for bad in (INVALID_ACCUMULATE, PAST_THE_END):
        with pytest.raises(tpb.Fault) as info:
            m.step(tpb.asm(bad, validate=False))
        assert info.value.index == 0
    assert_bits_equal(m.read(WHOLE_SBUF), before)
    assert m.retired == 0
    # The would-be destination is still uninitialised (the shadow did not change either).
    report = m.run(
        "ts_arith src=sbuf[p0..4]+0x0:[[1,8]] in=fp32 out=fp32 op0=mult imm0=1.0 "
        "dst=sbuf[p0..4]+0x40:[[1,8]]"
    )
    assert report.warnings == []


def test_a_fault_carries_findings_for_invalid_instructions():
    m = tpb.Machine()
    with pytest.raises(tpb.Fault) as info:
        m.run(tpb.asm(INVALID_ACCUMULATE, validate=False))
    (f,) = info.value.findings
    assert isinstance(f, tpb.Finding) and f.field == "accumulator_cmd"


def test_machine_repr():
    assert "cayman" in repr(tpb.Machine())
