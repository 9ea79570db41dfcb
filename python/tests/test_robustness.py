"""Untrusted input never crashes the binding: random region strings, assembly text, bundles
and NKI arguments raise Python exceptions (tpb.Error or the builtin the argument type
implies), never a Rust panic (pyo3's PanicException, a BaseException) or a hang. Seeded, so
a failure reproduces; docs/library.md "Library guarantees": library code never panics."""

from __future__ import annotations

import random

import numpy as np
import pytest

import tpb
import tpb.nki as nki

GENS = ["sunda", "cayman", "mariana", "maverick"]
ALLOWED = (tpb.Error, ValueError, TypeError, OverflowError)


def must_not_panic(call):
    try:
        call()
    except ALLOWED:
        pass
    except BaseException as e:  # PanicException derives from BaseException
        pytest.fail(f"{type(e).__name__}: {e}")


def test_random_region_strings():
    r = random.Random(9)
    pieces = ["sbuf", "psum", "[p", "..", "]", "+", "0x", ":", "fp32", "bf16", "x", "-",
              "128", "0", "4294967296", "99999999999999999999", "int8", "p", "\u00ef", "\0",
              " ", ",", "e", "1", "ffffffff"]
    m = tpb.Machine()
    for _ in range(1500):
        text = "".join(r.choice(pieces) for _ in range(r.randint(0, 12)))
        must_not_panic(lambda: m.read(text))
        must_not_panic(lambda: m.write(text, np.zeros((4, 2), np.float32)))


def test_random_assembly_text():
    r = random.Random(9)
    tokens = ["affine_select", "iota", "ts_arith", "range_select", "ptr_multi_arith", ".gen",
              ".bundle", "sunda", "src=", "dst=", "sbuf[p0..128]+0x0", ":[[1,512]]", "[[",
              "]]", ",", "-", "=", "0x", "fill_reg=", "64", "cmp=", "ge", "\n", "#", ";", " ",
              "9999999999999999999999", "nan", "inf", "dtypes=", "fp32->bf16", "pattern=",
              "0:[[-1,512]]", "psum[p0..300]", "raw=", "ff" * 52, "\u00e9", "reg[70]"]
    for _ in range(1500):
        text = "".join(r.choice(tokens) for _ in range(r.randint(0, 20)))
        gen = r.choice(GENS)
        must_not_panic(lambda: tpb.asm(text, gen=gen, validate=r.random() < 0.5))


def test_random_bundles_decode_validate_disasm_and_run():
    rng = np.random.default_rng(9)
    opcodes = [0x43, 0x44, 0x4F, 0x53, 0x54, 0x5F, 0x70, 0x71, 0x7E, 0x87, 0x88, 0x92, 0x98, 0xBC]
    machines = {g: tpb.Machine(gen=g) for g in GENS}
    for i in range(600):
        raw = bytearray(rng.integers(0, 256, 64, dtype=np.uint8).tobytes())
        raw[0] = opcodes[i % len(opcodes)]
        raw[1] = 0x10 if i % 3 else raw[1]  # mostly a valid inst_word_len
        raw = bytes(raw)
        gen = GENS[i % 4]

        def everything():
            inst = tpb.Instruction.decode(raw, gen=gen)
            str(inst), inst.fields(), tpb.validate(raw, gen=gen, lints=True)
            assert tpb.asm(tpb.disasm(raw, gen=gen), gen=gen, validate=False) == raw
            machines[gen].run(raw)

        must_not_panic(everything)


def test_random_nki_arguments():
    r = random.Random(9)
    core = nki.Core()
    src = core.from_numpy(np.ones((4, 8), np.float32))
    dst = core.ndarray((4, 8), np.float32)
    values = [0, 1, -1, 8, 2**15, 2**16, 2**31, 2**32, -(2**40), 1e39, float("nan"), 0.5]
    for _ in range(400):
        pattern = [[r.choice(values), r.choice(values)] for _ in range(r.randint(0, 5))]
        cm, off = r.choice(values), r.choice(values)
        must_not_panic(lambda: nki.isa.iota(dst, pattern, offset=off, channel_multiplier=cm))
        must_not_panic(lambda: nki.isa.affine_select(dst, pattern, cm, src, r.choice(values),
                                                     cmp_op=r.choice(["ge", "gt", "eq", "ne"]),
                                                     offset=off))
        must_not_panic(lambda: nki.isa.tensor_scalar(dst, src, r.choice(["add", "mult", "max"]),
                                                     r.choice(values)))
        shape = [r.choice(values) for _ in range(r.randint(0, 3))]
        must_not_panic(lambda: core.ndarray(shape, np.float32))
