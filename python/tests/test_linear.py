"""tfspec.LinearLayout (extension X2, issue 32): construction from bases, text and Triton's object,
the ops, the conversions. Expected values derived by hand in the comments; Triton's own class is the
independent check where it is installed (skipped, with the reason, where it is not)."""
import pytest

import tfspec

# One warp of the SM80 mma.sync 16x8 accumulator (Triton's order: register, then lane): thread
# `lane` holds c0,c1 at row lane/4, cols 2*(lane%4)+{0,1}, and c2,c3 eight rows below.
MMA = tfspec.LinearLayout([("register", [[0, 1], [8, 0]]), ("lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]])],
                          [("dim0", 16), ("dim1", 8)])


def test_construction_and_evaluation():
    # lane 5 = group 1, thread-in-group 1; register 1 -> c1 at row 1, col 2*1+1 = 3
    assert MMA.apply(lane=5, register=1) == {"dim0": 1, "dim1": 3}
    # flat index 1 + 4*5 = 21, flat value 1 + 16*3 = 49
    assert MMA(21) == 49
    assert MMA.size() == 128 and MMA.kind == "linear"
    assert tfspec.LinearLayout(str(MMA)) == MMA
    assert tfspec.LinearLayout(MMA.to_json()) == MMA
    assert MMA.in_dims == [("register", 4), ("lane", 32)]
    with pytest.raises(TypeError):
        tfspec.LinearLayout("4:1")
    with pytest.raises(ValueError):
        MMA.apply(lane=32)


def test_ops_have_tritons_meaning():
    # compose: x -> y (1, 2) then y -> z (1, 1): x=1 -> 1, x=2 -> 1
    a = tfspec.LinearLayout([("x", [[1], [2]])], [("y", 4)])
    b = tfspec.LinearLayout([("y", [[1], [1]])], [("z", 2)])
    assert a.compose(b).bases == [("x", [[1], [1]])]
    # x=[(1),(1)] -> y=2: not injective (3 -> 0), surjective, not invertible; pseudo-inverse y=1 -> x=1
    n = tfspec.LinearLayout([("x", [[1], [1]])], [("y", 2)])
    assert not n.is_injective() and n.is_surjective() and not n.is_invertible()
    assert n.pseudo_invert().bases == [("y", [[1]])]
    with pytest.raises(tfspec.SpecError) as e:
        n.invert()
    assert e.value.rule == "linear-not-invertible"
    # identity1D(4, i, o1) * identity1D(8, i, o2) = (x % 4, x / 4) (Triton's documentation)
    p = tfspec.LinearLayout([("i", [[1], [2]])], [("o1", 4)]) * tfspec.LinearLayout([("i", [[1], [2], [4]])], [("o2", 8)])
    assert all(p.apply(i=x) == {"o1": x % 4, "o2": x // 4} for x in range(32))
    # the inverse of the mma layout maps each (row, col) back to its (register, lane)
    inv = MMA.invert()
    assert inv.apply(dim0=1, dim1=3) == {"register": 1, "lane": 5}


def test_conversions_and_equivalence():
    # CuTe's SM80 16x8 C TV layout (thread, value) -> m + 16 n is the mma layout with lane first
    cute_c = "((4,8),(2,2)):((32,1),(16,8))"
    assert MMA.transpose_ins(["lane", "register"]).equivalent(cute_c)["equivalent"]
    r = MMA.equivalent(cute_c)
    assert r["equivalent"] is False and r["counterexample"] == {"index": 1, "a": 16, "b": 32}
    conv = tfspec.LinearLayout.from_cute(cute_c, ins=[("lane", 32), ("register", 4)], outs=[("dim0", 16), ("dim1", 8)])
    assert conv == MMA.transpose_ins(["lane", "register"])
    # Sw<3,4,3> over 1024 offsets: bits 7,8,9 also flip 4,5,6 -> bases 144, 288, 576
    sw = tfspec.LinearLayout.from_cute("Sw<3,4,3> o 0 o 1024:1")
    assert [v[0] for v in sw.bases[0][1]] == [1, 2, 4, 8, 16, 32, 64, 144, 288, 576]
    assert str(sw.to_cute()) == "Sw<3,4,3> o 0 o 1024:1"


def test_triton_objects_both_ways():
    ll = pytest.importorskip("triton._C.libtriton.linear_layout", reason="triton is not installed (python3 -m pip install triton)")
    t = MMA.to_triton()
    assert isinstance(t, ll.LinearLayout)
    assert t.apply({"lane": 5, "register": 1}) == {"dim0": 1, "dim1": 3}  # Triton's own apply, the hand value
    assert tfspec.LinearLayout.from_triton(t) == MMA
    assert tfspec.LinearLayout.from_triton(t.invert()) == MMA.invert()


class GluonLikeDistributed:  # gluon's DistributedLinearLayout, duck-typed: the attributes from_triton reads
    def __init__(self, reg_bases, lane_bases, warp_bases, block_bases, shape):
        self.reg_bases, self.lane_bases, self.warp_bases, self.block_bases, self.shape = reg_bases, lane_bases, warp_bases, block_bases, shape


# The mma.sync 16x8 tile of MMA above as gluon writes it: reg_bases [dim0, dim1] pairs; one warp, one CTA.
MMA_REG, MMA_LANE = [[0, 1], [8, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]


def test_gluon_distributed_linear_layout_duck_typed():
    ll = tfspec.LinearLayout.from_triton(GluonLikeDistributed(MMA_REG, MMA_LANE, [], [], [16, 8]))
    assert [n for n, _ in ll.in_dims] == ["register", "lane", "warp", "block"]
    assert ll.apply(lane=5, register=1) == {"dim0": 1, "dim1": 3}  # MMA's hand value: row 5 // 4, col 2 * (5 % 4) + 1
    assert ll.out_dims == [("dim0", 16), ("dim1", 8)]
    # a second warp below the first (warp basis: row 16) on a 32 x 8 tile
    two = tfspec.LinearLayout.from_triton(GluonLikeDistributed(MMA_REG, MMA_LANE, [[16, 0]], [], [32, 8]))
    assert two.apply(lane=5, register=1, warp=1) == {"dim0": 17, "dim1": 3}
    with pytest.raises(ValueError):  # a basis of rank 1 on a rank-2 shape
        tfspec.LinearLayout.from_triton(GluonLikeDistributed([[1]], MMA_LANE, [], [], [16, 8]))
    with pytest.raises(TypeError):
        tfspec.LinearLayout.from_triton(object())


def _gluon():
    try:
        from triton.experimental.gluon import language as ttgl
    except ImportError as e:
        print("skipped: triton's gluon is not importable (python3 -m pip install triton): %s" % e)
        pytest.skip("triton's gluon is not importable: %s" % e)
    return ttgl


def test_gluon_layout_objects_as_a_new_user_gives_them():
    ttgl = _gluon()
    d = ttgl.DistributedLinearLayout(reg_bases=MMA_REG, lane_bases=MMA_LANE, warp_bases=[], block_bases=[], shape=[16, 8])
    assert tfspec.LinearLayout.from_triton(d).apply(lane=5, register=1) == {"dim0": 1, "dim1": 3}
    # SharedLinearLayout: offsets 1, 2 step dim1, offset 4 steps dim0: a 2 x 4 row-major tile (shape [2, 4])
    s = tfspec.LinearLayout.from_triton(ttgl.SharedLinearLayout(offset_bases=[[0, 1], [0, 2], [1, 0]], block_bases=[], alignment=16))
    assert s.out_dims == [("dim0", 2), ("dim1", 4)]
    assert s.apply(offset=6) == {"dim0": 1, "dim1": 2}
    # BlockedLayout [1, 8] x [8, 4] x [4, 1] on 32 x 32 (hand): registers step dim1 by 1, 2, 4; lanes dim1
    # by 8, 16 then dim0 by 1, 2, 4; warps dim0 by 8, 16. Triton's own conversion must agree.
    b = ttgl.BlockedLayout(size_per_thread=[1, 8], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0])
    with pytest.raises(TypeError):  # a blocked layout needs the tensor's shape
        tfspec.LinearLayout.from_triton(b)
    bl = tfspec.LinearLayout.from_triton(b, shape=[32, 32])
    assert dict(bl.bases)["register"] == [[0, 1], [0, 2], [0, 4]]
    assert dict(bl.bases)["lane"] == [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]
    assert dict(bl.bases)["warp"] == [[8, 0], [16, 0]]
    # Triton's mma v2 layout on one warp's 16 x 8 tile is the hand MMA
    mma = ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8])
    got = tfspec.LinearLayout.from_triton(mma, shape=[16, 8])
    assert dict(got.bases)["register"] == MMA_REG and dict(got.bases)["lane"] == MMA_LANE
