//! Builders shared by the integration tests: addresses, descriptors, host I/O in f32.
#![allow(dead_code)]

use tpb_isa::geometry::Space;
use tpb_isa::wire::{Addr4, Data4d, Tensor};
use tpb_isa::{Dtype, Gen, Instruction, Opcode};
use tpb_sim::{HostTensor, Machine};

/// An immediate SBUF address.
pub fn sbuf(gen: Gen, p: u32, off: u32) -> Addr4 {
    Addr4::at(gen, Space::Sbuf, p, off).expect("sbuf address")
}

/// An immediate PSUM address.
pub fn psum(gen: Gen, p: u32, off: u32) -> Addr4 {
    Addr4::at(gen, Space::Psum, p, off).expect("psum address")
}

/// A descriptor from (step, num) pairs, innermost first; missing slots `{1, 1}`.
pub fn tensor<const N: usize>(a: Addr4, pairs: &[(i16, u16)]) -> Tensor<N> {
    let mut t = Tensor::<N> {
        start_addr: a,
        ..Default::default()
    };
    for (i, &(s, n)) in pairs.iter().enumerate() {
        t.step_elem[i] = s;
        t.num_elem[i] = n;
    }
    t
}

/// A DATA4D from a base and (step, num) pairs, innermost first.
pub fn data4d(base: i32, pairs: &[(i16, u16)]) -> Data4d {
    let mut d = Data4d {
        base,
        ..Default::default()
    };
    for (i, &(s, n)) in pairs.iter().enumerate() {
        d.step_elem[i] = s;
        d.num_elem[i] = n;
    }
    d
}

/// A fresh instruction of `opcode` for `gen`.
pub fn inst(op: u8, gen: Gen) -> Instruction {
    Instruction::new(Opcode(op), gen)
}

/// Writes rows of f32 (one row per partition) as `dtype` elements converted by `enc`.
pub fn write_rows(
    m: &mut Machine,
    space: Space,
    p0: u32,
    off: u64,
    dtype: Dtype,
    rows: &[Vec<u32>],
) {
    let size = dtype.size().unwrap();
    let epp = rows[0].len() as u64;
    let mut bytes = Vec::new();
    for r in rows {
        for &x in r {
            bytes.extend_from_slice(&x.to_le_bytes()[..size]);
        }
    }
    let t = HostTensor::at(space, p0..p0 + rows.len() as u32)
        .offset(off)
        .elements(dtype, epp);
    m.write_tensor(&t, &bytes).unwrap();
}

/// Reads rows of raw element bits.
pub fn read_rows(
    m: &Machine,
    space: Space,
    p0: u32,
    np: u32,
    off: u64,
    dtype: Dtype,
    epp: u64,
) -> Vec<Vec<u32>> {
    let size = dtype.size().unwrap();
    let t = HostTensor::at(space, p0..p0 + np)
        .offset(off)
        .elements(dtype, epp);
    let b = m.read_tensor(&t).unwrap();
    b.chunks(size * epp as usize)
        .map(|row| {
            row.chunks(size)
                .map(|e| {
                    let mut w = [0u8; 4];
                    w[..size].copy_from_slice(e);
                    u32::from_le_bytes(w)
                })
                .collect()
        })
        .collect()
}

/// f32 rows → bit rows.
pub fn f32_rows(rows: &[Vec<f32>]) -> Vec<Vec<u32>> {
    rows.iter()
        .map(|r| r.iter().map(|x| x.to_bits()).collect())
        .collect()
}

/// A small deterministic generator (xorshift64) for the randomised differential tests: the
/// same seed gives the same cases on every machine. Tests add their own value helpers in
/// `impl Rng` blocks of their own.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}
