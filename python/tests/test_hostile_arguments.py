"""Issue 20 items 12-14, 16 and 17: no panics, one error hierarchy, no silent conversion.

Every mistake below used to escape as a ``PanicException`` (a ``BaseException``), an
``OverflowError``, NumPy's ``ValueError``, an unpicklable fault, or a silently converted
value; each is now a :class:`tpb.Error` (or works).
"""

import multiprocessing
import pickle
import threading

import numpy as np
import pytest

import tpb
from tpb import nki
from tpb.nki import isa as nisa


# ---- item 12: objects shared with callbacks and threads ------------------------------------


def test_an_array_like_that_reads_a_tile_of_the_same_core():
    core = nki.Core()
    src = core.from_numpy(np.arange(8, dtype=np.float32).reshape(2, 4))

    class ReadsATile:
        def __array__(self, dtype=None, copy=None):
            return src.numpy() * 2

    t = core.from_numpy(ReadsATile())
    assert (t.numpy() == np.arange(8, dtype=np.float32).reshape(2, 4) * 2).all()


def test_two_threads_share_one_core_and_one_machine():
    core = nki.Core()
    machine = tpb.Machine()
    tiles = [core.ndarray([128, 512], np.float32) for _ in range(2)]
    errors = []

    def work(k):
        try:
            for _ in range(20):
                nisa.iota(tiles[k], [[1, 512]], offset=k)
                tiles[1 - k].numpy()
                machine.write("sbuf[p0..2]+0x0", np.ones((2, 4), np.float32))
                machine.read("sbuf[p0..2]+0x0:fp32:2x4")
        except BaseException as e:  # noqa: BLE001 - a PanicException is what is tested
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert (tiles[1].numpy()[0] == np.arange(512) + 1).all()


# ---- item 13: a generation that disagrees with the machine ---------------------------------


def test_a_program_for_another_generation_is_refused():
    m = tpb.Machine(gen="cayman")
    prog = ".gen maverick\niota src=0:[[1,4]] out=fp32 dst=sbuf[p1..2]+0x0:[[1,4]]\n"
    with pytest.raises(tpb.UsageError, match="maverick"):
        m.run(prog)
    inst = tpb.decode(tpb.asm(prog, gen="maverick"), gen="maverick")[0]
    with pytest.raises(tpb.UsageError, match="maverick"):
        m.run([inst])
    with pytest.raises(tpb.UsageError, match="maverick"):
        m.step(inst)
    # Nothing ran.
    assert m.retired == 0
    # The same program for cayman runs.
    m.run(".gen cayman\niota src=0:[[1,4]] out=fp32 dst=sbuf[p1..2]+0x0:[[1,4]]\n")
    assert m.retired == 1


def test_validate_refuses_an_instruction_of_another_generation():
    text = "iota src=0:[[1,4]] out=fp32 dst=sbuf[p1..2]+0x0:[[1,4]]"
    inst = tpb.decode(tpb.asm(text, gen="cayman"), gen="cayman")[0]
    assert tpb.validate(inst, gen="cayman") == []
    with pytest.raises(tpb.UsageError, match="cayman"):
        tpb.validate(inst, gen="sunda")
    # Bytes carry no generation: they are decoded for the one asked.
    tpb.validate(inst.encode(), gen="sunda")


# ---- item 14: no silent conversion ---------------------------------------------------------


@pytest.mark.parametrize("value", [2**63, 2**32, -(2**31) - 1, 2**200])
def test_a_register_value_that_32_bits_cannot_hold_is_refused(value):
    for obj in (tpb.Machine(), nki.Core()):
        with pytest.raises(tpb.UsageError, match="32 bits"):
            obj.set_register(0, value)


def test_register_values_that_fit_are_stored():
    m = tpb.Machine()
    m.set_register(0, 2**32 - 1)
    m.set_register(1, -1)
    m.set_register(2, 1.5)
    assert m.registers[:3] == [0xFFFFFFFF, 0xFFFFFFFF, 0x3FC00000]


@pytest.mark.parametrize(
    "dtype, fill",
    [(np.int32, 2**31), (np.uint8, 300), (np.uint8, -1), (np.int8, 1.5), (np.int16, 40000)],
)
def test_a_select_fill_an_integer_tile_cannot_hold_is_refused(dtype, fill):
    core = nki.Core()
    src = core.from_numpy(np.zeros((2, 4), dtype))
    dst = core.ndarray([2, 4], dtype)
    with pytest.raises(tpb.UsageError, match="on_false_value"):
        nisa.select(dst, 0, src, fill)


def test_a_select_fill_an_integer_tile_holds_is_exact():
    core = nki.Core()
    src = core.from_numpy(np.zeros((2, 4), np.int32))
    dst = core.ndarray([2, 4], np.int32)
    nisa.select(dst, 0, src, 2**31 - 1)
    assert (dst.numpy() == 2**31 - 1).all()
    src8 = core.from_numpy(np.zeros((2, 4), np.int8))
    dst8 = core.ndarray([2, 4], np.int8)
    nisa.select(dst8, 0, src8, -128)
    assert (dst8.numpy() == -128).all()


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.uint32])
def test_a_non_fp32_operand_tile_on_the_arithmetic_path_is_refused(dtype):
    core = nki.Core()
    data = core.from_numpy(np.ones((2, 4), np.float32))
    scalar = core.from_numpy(np.full((2, 1), 3, dtype))
    dst = core.ndarray([2, 4], np.float32)
    with pytest.raises(tpb.UsageError, match="float32"):
        nisa.tensor_scalar(dst, data, np.multiply, scalar)
    # A float32 one is read as it is.
    ok = core.from_numpy(np.full((2, 1), 3, np.float32))
    nisa.tensor_scalar(dst, data, np.multiply, ok)
    assert (dst.numpy() == 3).all()


def test_op1_without_operand1_is_refused():
    core = nki.Core()
    data = core.from_numpy(np.ones((2, 4), np.float32))
    dst = core.ndarray([2, 4], np.float32)
    with pytest.raises(tpb.UsageError, match="operand1"):
        nisa.tensor_scalar(dst, data, np.multiply, 2.0, op1=np.add)


def test_an_operand_with_fewer_partitions_than_the_data_is_refused():
    core = nki.Core()
    data = core.from_numpy(np.ones((4, 4), np.float32))
    small = core.from_numpy(np.ones((2, 1), np.float32))
    dst = core.ndarray([4, 4], np.float32)
    with pytest.raises(tpb.UsageError, match="partitions"):
        nisa.tensor_scalar(dst, data, np.multiply, small)


# ---- item 16: every argument mistake is a tpb.Error ----------------------------------------


def argument_mistakes():
    m = tpb.Machine()
    core = nki.Core()
    t = core.ndarray([2, 4], np.float32)
    return [
        lambda: m.set_register(-1, 0),
        lambda: m.set_register(2**64, 0),
        lambda: m.semaphore(-1),
        lambda: m.set_semaphore(-1, 0),
        lambda: m.set_semaphore(0, 2**31),
        lambda: core.set_register(-1, 0),
        lambda: core.ndarray([2**64, 1], np.float32),
        lambda: core.ndarray([-1, 1], np.float32),
        lambda: core.ndarray([1] * 65, np.float32),
        lambda: nisa.iota(t, [[1, 4]], offset=2**64),
        lambda: nisa.iota(t, [[2**64, 4]]),
        lambda: nisa.iota(t, [[1, 4]], channel_multiplier=-(2**70)),
        lambda: nisa.affine_select(t, [[1, 4]], 0, t, 10**400),
        lambda: nisa.range_select(t, t, np.greater, np.less, 0.0, 1.0, range_start=10**400),
        lambda: tpb.pack(2**64, 0, [[1, 4]]),
        lambda: tpb.pack(2, -1, [[1, 4]]),
        lambda: tpb.pack(2, 2**64, [[1, 4]]),
        lambda: tpb.pack(2, 0, [[1, 4]], nd=-1),
        lambda: tpb.pack(2, 0, [[1, 4]], start_partition=-1),
        lambda: tpb.pack((-1, 4), 0, [[1, 4]]),
        lambda: tpb.pack(range(-1, 4), 0, [[1, 4]]),
        lambda: m.read("sbuf[p0..1]+0x0:fp32:" + "x".join(["1"] * 65)),
    ]


@pytest.mark.parametrize("k", range(len(argument_mistakes())))
def test_every_argument_mistake_is_a_tpb_error(k):
    with pytest.raises(tpb.Error):
        argument_mistakes()[k]()


def test_integer_defaults_still_read_as_their_values():
    core = nki.Core()
    t = core.ndarray([2, 4], np.float32)
    nisa.iota(t, [[1, 4]])
    assert (t.numpy()[1] == np.arange(4)).all()
    assert tpb.pack(2, 0, [[1, 4]]).num_active_channels == 2


def fault_in_a_worker(_):
    tpb.Machine(strict=True).run("iota src=0:[[1,4]] out=fp32 dst=sbuf[p0..1]+0x0:[[1,4]] wait_mode=9")


def test_every_tpb_error_pickles_with_its_attributes():
    m = tpb.Machine()
    with pytest.raises(tpb.Fault) as info:
        m.run("iota src=0:[[1,4]] out=fp32 dst=sbuf[p0..1]+0x0:[[1,4]] wait_mode=9")
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is tpb.Fault
    assert str(back) == str(info.value)
    assert (back.index, back.kind, back.mnemonic) == (0, "invalid", info.value.mnemonic)
    assert [str(f) for f in back.findings] == [str(f) for f in info.value.findings]
    assert back.findings[0].rule == info.value.findings[0].rule
    for exc in (tpb.UsageError("u"), tpb.AsmError("a", [(1, 2, "x")]), tpb.RegionError("r")):
        again = pickle.loads(pickle.dumps(exc))
        assert type(again) is type(exc) and str(again) == str(exc)
    # A fault in a worker process arrives as the fault.
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        with pytest.raises(tpb.Fault):
            pool.map(fault_in_a_worker, [0])


def test_machine_write_checks_the_region_before_expanding_a_broadcast_view():
    m = tpb.Machine()
    # 2**43 float32 (32 TiB) as a 4-byte view: a region error, raised before any copy
    # (gathering it first was a MemoryError; 128 x 2**20 took 512 MB before the same error).
    view = np.broadcast_to(np.float32(1), (128, 2**36))
    with pytest.raises(tpb.RegionError):
        m.write("sbuf[p0..128]+0x0", view)
    view = np.broadcast_to(np.float32(2), (2, 4))
    m.write("sbuf[p0..2]+0x0", view)
    assert (m.read("sbuf[p0..2]+0x0:fp32:2x4") == 2).all()


def test_from_numpy_checks_the_space_before_expanding_a_broadcast_view():
    core = nki.Core()
    view = np.broadcast_to(np.float32(1), (128, 2**36))
    with pytest.raises(tpb.UsageError, match="free"):
        core.from_numpy(view)
    # Nothing was allocated: a tile that fits still starts at offset 0.
    assert core.from_numpy(np.broadcast_to(np.float32(2), (2, 4))).offset == 0


# ---- item 17: a partition range with a step ------------------------------------------------


def test_a_partition_range_with_a_step_is_refused():
    with pytest.raises(tpb.UsageError, match="step of 2"):
        tpb.pack(range(0, 128, 2), 0, [[1, 4]])
    assert tpb.pack(range(0, 64), 0, [[1, 4]]).num_active_channels == 64
