"""The ISA surface: tpb.Instruction, tpb.decode, tpb.validate, tpb.asm, tpb.disasm, tpb.pack.

Golden cases come from the shipped examples (docs/cli-isa.md describes every bundle of
examples/causal_mask.bin and examples/bad_bundles.bin), docs/cli.md's `tpb pack` outputs and
crates/tpb/tests/cli_pack.rs (seed 001), and the validator's own rule tests
(crates/tpb-isa/tests/validate.rs; seed 002 for AffineSelect, seed 000 for PtrMulti).
"""

from __future__ import annotations

import numpy as np
import pytest

import tpb
import tpb.nki
from conftest import EXAMPLES

GENS = ["sunda", "cayman", "mariana", "maverick"]
CAUSAL = (EXAMPLES / "causal_mask.bin").read_bytes()
BAD = (EXAMPLES / "bad_bundles.bin").read_bytes()

# seed 002: AffineSelect, the nki-library causal mask, with its source in PSUM.
AFFINE_SELECT_PSUM_SRC = (
    "affine_select dtypes=fp32->bf16 cmp=ge fill_reg=7 pattern=0:[[-1,512]] multiplier=1 "
    "src=psum[p0..128]+0x0:[[1,512]] dst=sbuf[p0..128]+0x800:[[1,512]]"
)


# ---- Instruction -----------------------------------------------------------------------


def test_instruction_decode_properties_and_encode_round_trip():
    """docs/cli-isa.md: causal_mask.bin is ts_arith then two affine_select (0x43, 0x92)."""
    insts = [tpb.Instruction.decode(CAUSAL[i : i + 64]) for i in range(0, 192, 64)]
    assert [i.opcode for i in insts] == [0x43, 0x92, 0x92]
    assert [i.mnemonic for i in insts] == ["ts_arith", "affine_select", "affine_select"]
    assert all(i.gen == "cayman" for i in insts)
    assert b"".join(i.encode() for i in insts) == CAUSAL
    assert b"".join(bytes(i) for i in insts) == CAUSAL
    assert all(isinstance(i.encode(), bytes) for i in insts)


def test_instruction_str_is_the_canonical_disasm_line():
    lines = tpb.disasm(CAUSAL).splitlines()
    assert lines[0] == ".gen cayman"
    insts = tpb.decode(CAUSAL)
    assert [str(i) for i in insts] == lines[1:]
    # docs/cli.md: the third line of `tpb disasm examples/causal_mask.bin`.
    assert str(insts[1]) == (
        "affine_select in_out_dtype=fp32->bfloat16 fill_mode=ge "
        "mask_pattern=0:[[-1,512],[1,1],[1,1],[1,1]] "
        "src_mem_pattern=sbuf[p0..128]+0x0:[[1,512],[1,1]] "
        "dst_mem_pattern=sbuf[p0..128]+0x1000:[[1,512],[1,1]] channel_multiplier=1 "
        "wait_mode=sem_ge_imm wait_idx=1 semaphore_value=0x1"
    )
    assert "affine_select" in repr(insts[1]) and "cayman" in repr(insts[1])


def test_instruction_fields_cover_the_bundle_with_byte_ranges():
    inst = tpb.decode(CAUSAL)[1]
    fields = inst.fields()
    names = [f[0] for f in fields]
    assert names[0] == "opcode"
    assert fields[0] == ("opcode", (0, 1), "0x92")
    for name, (start, end), text in fields:
        assert 0 <= start < end <= 64, name
        assert isinstance(text, str)
    by_name = {f[0]: f for f in fields}
    assert by_name["channel_multiplier"][2] == "1"
    assert by_name["fill_mode"][2] == "ge"
    # The fields tile the 64 bytes without overlap.
    covered = sorted(f[1] for f in fields)
    for (a0, a1), (b0, _) in zip(covered, covered[1:]):
        assert a1 <= b0
    assert sum(e - s for _, (s, e), _ in fields) == 64


def test_instruction_equality_includes_the_generation():
    a = tpb.Instruction.decode(CAUSAL[64:128], gen="cayman")
    assert a == tpb.Instruction.decode(CAUSAL[64:128])
    assert a != tpb.Instruction.decode(CAUSAL[64:128], gen="sunda")
    assert a != tpb.Instruction.decode(CAUSAL[128:192])


def test_any_64_bytes_decode_losslessly_on_every_generation(rng):
    """docs/library.md "Library guarantees": decoding is total and lossless."""
    for gen in GENS:
        for _ in range(50):
            raw = rng.integers(0, 256, 64, dtype=np.uint8).tobytes()
            inst = tpb.Instruction.decode(raw, gen=gen)
            assert inst.encode() == raw
            assert isinstance(inst.mnemonic, str)
    # Every opcode byte: the mnemonic is `unknown` exactly when tpb does not model it.
    for op in range(256):
        inst = tpb.Instruction.decode(bytes([op]) + bytes(63))
        assert inst.opcode == op
        assert inst.encode() == bytes([op]) + bytes(63)


def test_opcodes_that_exist_on_some_generations_only():
    """0x87/0x88 are PtrMulti structs on sunda only; 0xBC is opaque on sunda (docs/library.md)."""
    dual = BAD[8 * 64 : 9 * 64]
    assert tpb.Instruction.decode(dual, gen="sunda").mnemonic == "ptr_multi_dual_arith"
    assert tpb.Instruction.decode(dual, gen="cayman").mnemonic == "unknown"
    rs = BAD[9 * 64 : 10 * 64]
    assert tpb.Instruction.decode(rs, gen="cayman").mnemonic == "range_select"
    assert tpb.Instruction.decode(rs, gen="sunda").mnemonic == "unknown"


@pytest.mark.parametrize("n", [0, 63, 65, 128])
def test_instruction_decode_needs_exactly_64_bytes(n):
    with pytest.raises(tpb.UsageError, match=f"64 bytes, got {n}"):
        tpb.Instruction.decode(bytes(n))


# ---- decode ---------------------------------------------------------------------------


def test_decode_program():
    insts = tpb.decode(CAUSAL)
    assert len(insts) == 3 and all(isinstance(i, tpb.Instruction) for i in insts)
    assert tpb.decode(b"") == []
    assert [i.gen for i in tpb.decode(CAUSAL, gen="mariana")] == ["mariana"] * 3


@pytest.mark.parametrize("n", [1, 63, 65, 191])
def test_decode_rejects_a_partial_bundle(n):
    with pytest.raises(tpb.UsageError, match="not a multiple of 64"):
        tpb.decode(bytes(n))


@pytest.mark.parametrize("gen", ["nope", "", "trn9", "CAYMANX"])
def test_unknown_generation_is_a_usage_error(gen):
    for call in (
        lambda: tpb.decode(CAUSAL, gen=gen),
        lambda: tpb.Instruction.decode(CAUSAL[:64], gen=gen),
        lambda: tpb.validate(CAUSAL[:64], gen=gen),
        lambda: tpb.disasm(CAUSAL, gen=gen),
        lambda: tpb.asm("", gen=gen),
        lambda: tpb.pack(128, 0, [[1, 4]], gen=gen),
        lambda: tpb.Machine(gen=gen),
        lambda: tpb.nki.Core(gen=gen),
    ):
        with pytest.raises(tpb.UsageError, match="unknown generation"):
            call()


def test_generation_aliases_are_accepted():
    """docs/syntax.md: `.gen` aliases v2..v5, trn1..trn3 also name the generations."""
    assert tpb.Instruction.decode(CAUSAL[:64], gen="trn2").gen == "cayman"
    assert tpb.Machine(gen="sunda").gen == "sunda"


def test_decode_rejects_non_bytes():
    with pytest.raises(TypeError):
        tpb.decode("not bytes")


# ---- validate ------------------------------------------------------------------------


def test_valid_instructions_give_no_findings():
    for inst in tpb.decode(CAUSAL):
        assert tpb.validate(inst) == []
        assert tpb.validate(inst.encode()) == []
        assert tpb.validate(bytearray(inst.encode())) == []


# docs/cli-isa.md: examples/bad_bundles.bin, one bundle per kind of failure (cayman).
BAD_RULES = [
    {("has_valid_neuron_header", "header.inst_word_len")},
    {("has_valid_neuron_header", "header.opcode")},
    {("has_valid_neuron_events", "events.wait_mode")},
    {
        ("has_valid_active_channel_range", "num_active_channels"),
        ("start_addr_active_channels", "src_mem_pattern.start_addr"),
        ("start_addr_active_channels", "dst_mem_pattern.start_addr"),
    },
    {("is_valid_dtype", "in_dtype")},
    {("s3d3_ts_reserved_zero", "reserved0")},
    {("addr_aligned_dtype", "src_mem_pattern.start_addr")},
    {("has_valid_src_slices_tsm_singular", "src_mem_pattern.num_elem[3]")},
    {("has_valid_neuron_header", "header.opcode")},
    set(),
]


@pytest.mark.parametrize("index", range(10))
def test_bad_bundles_report_their_rule(index):
    bundle = BAD[index * 64 : (index + 1) * 64]
    found = tpb.validate(bundle)
    assert {(f.rule, f.field) for f in found} == BAD_RULES[index]


def test_finding_attributes():
    """seed 000 §5a: PtrMultiArith with W = 9 fails has_valid_src_slices_tsm_singular."""
    (f,) = tpb.validate(BAD[7 * 64 : 8 * 64])
    assert isinstance(f, tpb.Finding)
    assert f.rule == "has_valid_src_slices_tsm_singular"
    assert f.field == "src_mem_pattern.num_elem[3]"
    assert f.byte_range == (30, 32)
    assert f.value == "9"
    assert f.allowed == "1..=8"
    assert f.source.startswith("seed 000")
    assert f.confidence == "HIGH/OBSERVED"
    assert f.lint is False
    assert f.clause
    assert "has_valid_src_slices_tsm_singular" in str(f) and "9" in str(f)
    assert "has_valid_src_slices_tsm_singular" in repr(f)


def test_finding_byte_range_points_at_the_field():
    (f,) = tpb.validate(BAD[:64])
    assert f.byte_range == (1, 2)
    assert BAD[1] == 0x11 and f.value == "0x11"


def test_affine_select_psum_source_is_valid_on_sunda_only():
    """seed 002 §7: PSUM operands are allowed only on sunda (validate.rs seed002_psum_only_on_sunda)."""
    bundle = tpb.asm(AFFINE_SELECT_PSUM_SRC, gen="sunda")
    assert tpb.validate(bundle, gen="sunda") == []
    for gen in ["cayman", "mariana"]:
        found = tpb.validate(bundle, gen=gen)
        assert [(f.rule, f.field) for f in found] == [
            ("tensor_start_addr_valid", "src_mem_pattern.start_addr")
        ]
        (f,) = found
        assert f.byte_range == (36, 40)
        assert "psum" in f.value
        assert gen in f.allowed


def test_validate_per_generation_opcodes():
    """docs/cli-isa.md bad_bundles #8 (0x87 sunda only) and #9 (0xBC cayman+)."""
    dual, rs = BAD[8 * 64 : 9 * 64], BAD[9 * 64 : 10 * 64]
    assert tpb.validate(dual, gen="sunda") == []
    assert tpb.validate(rs, gen="sunda")[0].rule == "has_valid_neuron_header"
    for gen in ["cayman", "mariana", "maverick"]:
        assert [f.rule for f in tpb.validate(dual, gen=gen)] == ["has_valid_neuron_header"]
        assert tpb.validate(rs, gen=gen) == []


def test_lints_are_reported_only_on_request():
    """assumptions.md item 2: the quadrant placement rule is a lint, never a failure."""
    code = tpb.asm(
        "iota out_dtype=fp32 src_data_pattern=0:[[1,8]] dst_mem_pattern=sbuf[p10..20]+0x0:[[1,8]]"
    )
    assert tpb.validate(code) == []
    lints = tpb.validate(code, lints=True)
    assert lints and all(f.lint for f in lints)


def test_validate_bad_arguments():
    with pytest.raises(tpb.UsageError, match="64 bytes"):
        tpb.validate(bytes(63))
    with pytest.raises(tpb.UsageError, match="64 bytes"):
        tpb.validate(bytes(65))
    with pytest.raises(tpb.UsageError, match="tpb.Instruction or 64 bytes"):
        tpb.validate(3.5)


# ---- asm ------------------------------------------------------------------------------


def test_asm_assembles_and_validates():
    code = tpb.asm(AFFINE_SELECT_PSUM_SRC, gen="sunda")
    assert isinstance(code, bytes) and len(code) == 64
    assert tpb.decode(code, gen="sunda")[0].mnemonic == "affine_select"
    # A `.gen` line overrides the caller's generation.
    assert tpb.asm(".gen sunda\n" + AFFINE_SELECT_PSUM_SRC, gen="cayman") == code
    assert tpb.asm("") == b""
    assert tpb.asm("# only a comment\n\n") == b""


def test_asm_error_is_value_error_and_tpb_error_listing_every_error():
    """docs/cli.md: `tpb asm bad.tpb` reports both errors, at 1:22 and 2:6."""
    with pytest.raises(tpb.AsmError) as info:
        tpb.asm("affine_select dtypes=fp33->bf16\niota bogus=1\n")
    e = info.value
    assert isinstance(e, ValueError) and isinstance(e, tpb.Error)
    assert [(line, col) for line, col, _ in e.errors] == [(1, 22), (2, 6)]
    assert "unknown dtype `fp33`" in e.errors[0][2]
    assert "unknown field `bogus`" in e.errors[1][2]
    assert "2 assembly error(s)" in str(e)


def test_asm_validation_failures_are_asm_errors_unless_disabled():
    with pytest.raises(tpb.AsmError) as info:
        tpb.asm(AFFINE_SELECT_PSUM_SRC, gen="cayman")
    ((line, col, msg),) = info.value.errors
    assert line == 1 and col >= 1
    assert "tensor_start_addr_valid" in msg
    raw = tpb.asm(AFFINE_SELECT_PSUM_SRC, gen="cayman", validate=False)
    assert len(raw) == 64
    assert tpb.validate(raw)[0].rule == "tensor_start_addr_valid"


def test_asm_errors_on_later_lines_keep_their_line_numbers():
    text = "\n".join(
        [
            "# header",
            "iota out_dtype=fp32 src_data_pattern=0:[[1,8]] dst_mem_pattern=sbuf[p0..4]+0x0:[[1,8]]",
            "ts_arith op0=frobnicate",
            "nosuchop x=1",
        ]
    )
    with pytest.raises(tpb.AsmError) as info:
        tpb.asm(text)
    assert [e[0] for e in info.value.errors] == [3, 4]


def test_asm_refuses_non_text():
    with pytest.raises(TypeError):
        tpb.asm(b"iota")


# ---- disasm ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["causal_mask.bin", "bad_bundles.bin"])
@pytest.mark.parametrize("gen", GENS)
def test_disasm_asm_round_trip_on_shipped_examples(name, gen):
    """docs/cli.md: asm(disasm(b)) == b for every 64 bytes on every generation."""
    data = (EXAMPLES / name).read_bytes()
    text = tpb.disasm(data, gen=gen)
    assert text.splitlines()[0] == f".gen {gen}"
    assert tpb.asm(text, gen=gen, validate=False) == data
    # Canonical: disassembling again gives the same text.
    assert tpb.disasm(tpb.asm(text, gen=gen, validate=False), gen=gen) == text


def test_disasm_round_trip_on_random_bundles(rng):
    for gen in GENS:
        data = rng.integers(0, 256, 64 * 20, dtype=np.uint8).tobytes()
        assert tpb.asm(tpb.disasm(data, gen=gen), gen=gen, validate=False) == data


def test_disasm_takes_a_list_of_instructions():
    insts = tpb.decode(CAUSAL)
    assert tpb.disasm(insts) == tpb.disasm(CAUSAL)
    assert tpb.disasm(insts[0]) == tpb.disasm(CAUSAL[:64])


def test_disasm_of_an_unmodelled_opcode_is_a_bundle_line():
    text = tpb.disasm(BAD[64:128])
    assert text.splitlines()[1].startswith(".bundle ")
    assert "not modelled" in text


@pytest.mark.parametrize("n", [1, 63, 65])
def test_disasm_rejects_partial_bundles(n):
    with pytest.raises(tpb.UsageError, match="not a multiple of 64"):
        tpb.disasm(bytes(n))


# ---- pack (seed 001) -------------------------------------------------------------------


def test_pack_readme_example():
    """docs/cli.md `tpb pack --partitions 0..128 --offset 0x400 --dims "[[64,2],[1,64]]" --nd 4`."""
    p = tpb.pack(range(0, 128), 0x400, [[64, 2], [1, 64]], nd=4, space="sbuf", gen="cayman")
    assert isinstance(p, tpb.Packed)
    assert p.kind == "TENSOR4D"
    assert p.descriptor == "sbuf[p0]+0x400:[[1,64],[64,2],[1,1],[1,1]]"
    assert p.num_active_channels == 128
    assert p.active_dims == 3
    assert p.slots == [2, 1, None, None]
    assert p.bytes.hex(" ") == "00 04 00 00 01 00 40 00 01 00 01 00 40 00 02 00 01 00 01 00"
    assert p.start_addr == 0x400
    assert p.step_elem == [1, 64, 1, 1]
    assert p.num_elem == [64, 2, 1, 1]
    assert "TENSOR4D" in repr(p)


def test_pack_partition_argument_forms_agree():
    want = tpb.pack(range(0, 128), 0x400, [[64, 2], [1, 64]]).bytes
    assert tpb.pack(128, 0x400, [[64, 2], [1, 64]]).bytes == want
    assert tpb.pack((0, 128), 0x400, [[64, 2], [1, 64]]).bytes == want


def test_pack_psum_3d_on_sunda():
    """cli_pack.rs psum_3d, seed 001: PSUM folds to 0x2000000 + p * 32 KiB + offset."""
    p = tpb.pack((32, 64), 0, [[-1, 8]], nd=3, space="psum", gen="sunda")
    assert p.kind == "TENSOR3D"
    assert p.descriptor == "psum[p32]+0x0:[[-1,8],[1,1],[1,1]]"
    assert p.num_active_channels == 32
    assert p.start_addr == 0x2100000
    assert p.bytes.hex(" ") == "00 00 10 02 ff ff 01 00 01 00 08 00 01 00 01 00"


def test_pack_start_partition_and_partition_step():
    """assumptions.md item 13: a partition step other than 1 is accepted and has no effect;
    an offset at or beyond the partition stride is rejected; num == 1 dims are dropped."""
    a = tpb.pack(32, 0, [[-1, 8]], nd=3, space="psum", gen="sunda", start_partition=32)
    assert a.bytes == tpb.pack((32, 64), 0, [[-1, 8]], nd=3, space="psum", gen="sunda").bytes
    dims = [[64, 2], [1, 64]]
    assert tpb.pack(128, 0x400, dims, partition_step=2).bytes == tpb.pack(128, 0x400, dims).bytes
    with pytest.raises(tpb.UsageError, match="outside the sbuf partition"):
        tpb.pack(128, 0x40000, [[1, 2]])
    unit = tpb.pack(4, 0, [[1, 1], [1, 1]])
    assert unit.descriptor == "sbuf[p0]+0x0:[[1,1],[1,1],[1,1],[1,1]]"
    assert unit.active_dims == 1 and unit.slots == [None] * 4
    assert tpb.pack(4, 0, []).bytes == unit.bytes


def test_pack_explicit_keeps_slots():
    """decisions §1.5 GOTCHA (docs/cli.md): --explicit keeps PtrMulti's W in num_elem[3]."""
    dims = [[16, 4], [16, 1], [8, 2], [1, 8]]
    assert tpb.pack(128, 0, dims).descriptor.endswith(":[[1,8],[8,2],[16,4],[1,1]]")
    assert tpb.pack(128, 0, dims, explicit=True).descriptor.endswith(
        ":[[1,8],[8,2],[16,1],[16,4]]"
    )


@pytest.mark.parametrize("nd", [1, 2, 3, 4])
def test_pack_descriptor_sizes(nd):
    p = tpb.pack(4, 0, [[1, 8]], nd=nd)
    assert p.kind == f"TENSOR{nd}D"
    assert len(p.bytes) == 4 + 4 * nd
    assert len(p.step_elem) == len(p.num_elem) == len(p.slots) == nd


# cli_pack.rs errors_are_one_line: the compiler's exact texts (isa-facts §3.4).
PACK_ERRORS = [
    (
        dict(dims=[[32, 2], [16, 2], [8, 2], [4, 2], [2, 2]]),
        "Illegal ISA memory access dimension: 6, which must be in range of [1, 4]D tensor "
        "for ISA mem pattern",
    ),
    (
        dict(dims=[[16, 2], [8, 2], [4, 2], [2, 2]], nd=3),
        "Illegal ISA memory access dimension 5, which must be in range of [1, 3]D tensor "
        "for ISA mem pattern",
    ),
    (dict(dims=[[40000, 2]]), "Pattern[1] step 40000"),
    (dict(dims=[[1, 2], [1, 0]]), "Pattern[2] num is 0"),
    (dict(dims=[[1, 70000]]), "Pattern[1] num 70000"),
    (dict(dims=[[1, 2]], gen="maverick", space="psum"), "psum is not available on maverick"),
    (dict(dims=[[1, 2]], partitions=(100, 129)), "exceed the 128 partitions"),
    (dict(dims=[[1, 2]], partition_step=-1), "Negative step in Pattern[0] not supported"),
    (dict(dims=[[1, 2]], partitions=0), "partition count"),
    (dict(dims=[[1, 2]], nd=5), "nd=5"),
    (dict(dims=[[1, 2]], space="dram"), "unknown buffer"),
    (dict(dims=[[1, 2]], space="hbm"), "hbm has no ADDR4 address"),
    (dict(dims=[[1, 2]], partitions="x"), "partitions"),
]


@pytest.mark.parametrize("kwargs,message", PACK_ERRORS)
def test_pack_errors_carry_the_compiler_text(kwargs, message):
    kwargs = dict(kwargs)
    partitions = kwargs.pop("partitions", range(0, 128))
    dims = kwargs.pop("dims")
    with pytest.raises(tpb.UsageError) as info:
        tpb.pack(partitions, 0x400, dims, **kwargs)
    assert message in str(info.value)


def test_pack_exact_too_many_dims_text():
    with pytest.raises(tpb.Error) as info:
        tpb.pack(range(0, 128), 0x400, [[32, 2], [16, 2], [8, 2], [4, 2], [2, 2]])
    assert str(info.value) == (
        "Illegal ISA memory access dimension: 6, which must be in range of [1, 4]D tensor "
        "for ISA mem pattern"
    )


@pytest.mark.parametrize("dims", [[[1, 2, 3]], [[1]], [[2**70, 2]], "nope"])
def test_pack_malformed_dims_are_python_errors(dims):
    with pytest.raises((ValueError, TypeError, OverflowError)):
        tpb.pack(128, 0, dims)


def test_pack_negative_offset_is_refused():
    with pytest.raises((ValueError, OverflowError)):
        tpb.pack(128, -1, [[1, 2]])
