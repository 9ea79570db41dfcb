//! Typed construction: build an instruction from its opcode and its struct's fields, with no
//! hand-written bytes. [`op`] holds one constant per modelled opcode typed by the struct it
//! binds, so pairing an opcode with the wrong body does not compile.

use super::Addr4;
use super::{Body, BodyStruct, Events, Header, Instruction, Tensor, INST_WORD_LEN};
use crate::gen::Gen;
use crate::opcode::{Opcode, StructKind};
use std::marker::PhantomData;
use thiserror::Error;

/// An opcode whose operand struct `B` is known at compile time (see [`op`]).
#[derive(Debug)]
pub struct TypedOpcode<B> {
    opcode: Opcode,
    body: PhantomData<fn() -> B>,
}

impl<B> Clone for TypedOpcode<B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B> Copy for TypedOpcode<B> {}

impl<B: BodyStruct> TypedOpcode<B> {
    const fn new(opcode: Opcode) -> TypedOpcode<B> {
        TypedOpcode {
            opcode,
            body: PhantomData,
        }
    }

    /// The opcode byte.
    pub const fn opcode(self) -> Opcode {
        self.opcode
    }
}

macro_rules! typed_ops {
    ($( $(#[$attr:meta])* $C:ident = $v:literal, $hn:literal, $disp:literal, $mn:literal, $e:ident, $m:ident, $g:ident, $fam:ident($sv:ident), $exec:expr, $src:literal; )*) => {
        /// One constant per modelled opcode, typed by its operand struct (from the opcode
        /// table): `op::IOTA` is a `TypedOpcode<D4Iota>`.
        pub mod op {
            use super::*;
            $( $(#[$attr])* #[doc = $disp] pub const $C: TypedOpcode<crate::wire::family_body::$fam> = TypedOpcode::new(Opcode::$C); )*
        }
    };
}
crate::for_each_opcode!(typed_ops);

/// Why [`Instruction::from_parts`] refused an opcode/body pair.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The opcode is not modelled on the generation (it would decode as opaque bytes).
    #[error("opcode {opcode} ({}) is not modelled on {gen}", opcode.describe())]
    NotOnGeneration {
        /// The opcode.
        opcode: Opcode,
        /// The generation.
        gen: Gen,
    },
    /// The body is not the struct the opcode binds.
    #[error("opcode {opcode} binds {}, not {}", want.header_name(), got.map_or("an opaque body", StructKind::header_name))]
    WrongStruct {
        /// The opcode.
        opcode: Opcode,
        /// The struct it binds.
        want: StructKind,
        /// The struct given.
        got: Option<StructKind>,
    },
}

impl Instruction {
    /// Builds an instruction from a typed opcode and its struct: header word length 0x10, no
    /// events (add them with [`Instruction::with_events`]). The body type is fixed by the
    /// opcode, so a mismatch is a compile error.
    ///
    /// ```
    /// use tpb_isa::wire::{op, Addr4, DtypePair, S2d2TsAs, Tensor2};
    /// use tpb_isa::{geometry::Space, AffineSelectCmp, Dtype, Gen, Instruction};
    ///
    /// // The nki causal mask: keep x where 0 - 1·i + 1·p >= 0, else fill with reg 7 (seed 002 §3).
    /// let gen = Gen::Cayman;
    /// let src = Addr4::at(gen, Space::Sbuf, 0, 0x0).unwrap();
    /// let dst = Addr4::at(gen, Space::Sbuf, 0, 0x1000).unwrap();
    /// let mut body = S2d2TsAs {
    ///     num_active_channels: 128,
    ///     in_out_dtype: DtypePair::new(Dtype::FP32, Dtype::BFLOAT16),
    ///     fill_mode: AffineSelectCmp::GREATER_THAN_EQ,
    ///     fill_reg: 7,
    ///     src_mem_pattern: Tensor2::with_pattern(src, &[(1, 512)]).unwrap(),
    ///     dst_mem_pattern: Tensor2::with_pattern(dst, &[(1, 512)]).unwrap(),
    ///     channel_multiplier: 1,
    ///     ..Default::default()
    /// };
    /// body.mask_pattern.step_elem[0] = -1;
    /// body.mask_pattern.num_elem[0] = 512;
    /// let inst = Instruction::build(op::TENSOR_SCALAR_AFFINE_SELECT, body);
    /// assert!(tpb_isa::validate::is_valid(&inst, gen));
    /// assert_eq!(Instruction::decode(&inst.encode(), gen), inst);
    /// ```
    pub fn build<B: BodyStruct>(opcode: TypedOpcode<B>, body: B) -> Instruction {
        Instruction {
            header: Header {
                opcode: opcode.opcode,
                inst_word_len: INST_WORD_LEN,
                ..Default::default()
            },
            events: Events::default(),
            body: body.into(),
        }
    }

    /// The same instruction with `events` (the pre-execute wait and post-execute update).
    pub fn with_events(self, events: Events) -> Instruction {
        Instruction { events, ..self }
    }

    /// Builds an instruction from an opcode chosen at run time and a body, checking that
    /// the opcode is modelled on `gen` and binds the body's struct.
    ///
    /// ```
    /// use tpb_isa::wire::{BuildError, D4Iota, S2d2Rs};
    /// use tpb_isa::{Gen, Instruction, Opcode};
    /// assert!(Instruction::from_parts(Opcode::IOTA, D4Iota::default(), Gen::Cayman).is_ok());
    /// assert!(matches!(
    ///     Instruction::from_parts(Opcode::IOTA, S2d2Rs::default(), Gen::Cayman),
    ///     Err(BuildError::WrongStruct { .. })
    /// ));
    /// assert!(Instruction::from_parts(Opcode::RANGE_SELECT, S2d2Rs::default(), Gen::Sunda).is_err());
    /// ```
    pub fn from_parts(
        opcode: Opcode,
        body: impl Into<Body>,
        gen: Gen,
    ) -> Result<Instruction, BuildError> {
        let info = opcode
            .info(gen)
            .ok_or(BuildError::NotOnGeneration { opcode, gen })?;
        let body = body.into();
        if body.kind() != Some(info.kind) {
            return Err(BuildError::WrongStruct {
                opcode,
                want: info.kind,
                got: body.kind(),
            });
        }
        let mut inst = Instruction::new(opcode, gen);
        inst.body = body;
        Ok(inst)
    }
}

impl<const N: usize> Tensor<N> {
    /// A descriptor at `start_addr` with `(step, count)` pairs, innermost first; slots not
    /// given are `(1, 1)`. `None` if more than `N` pairs are given.
    ///
    /// ```
    /// use tpb_isa::wire::{Addr4, Tensor2};
    /// let t = Tensor2::with_pattern(Addr4::register(3), &[(1, 64), (64, 2)]).unwrap();
    /// assert_eq!((t.step_elem, t.num_elem, t.element_count()), ([1, 64], [64, 2], 128));
    /// assert!(Tensor2::with_pattern(Addr4::register(3), &[(1, 1); 3]).is_none());
    /// ```
    pub fn with_pattern(start_addr: Addr4, pattern: &[(i16, u16)]) -> Option<Tensor<N>> {
        if pattern.len() > N {
            return None;
        }
        let mut t = Tensor {
            start_addr,
            ..Default::default()
        };
        for (i, &(step, num)) in pattern.iter().enumerate() {
            t.step_elem[i] = step;
            t.num_elem[i] = num;
        }
        Some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::OPCODES;

    #[test]
    fn every_row_builds_through_from_parts_and_refuses_other_structs() {
        for row in OPCODES {
            let op = Opcode(row.value);
            for gen in Gen::ALL {
                let body = Body::default_for(Some(row.kind));
                let built = Instruction::from_parts(op, body, gen);
                assert_eq!(built.is_ok(), row.gens.contains(gen), "{op} {gen}");
                if let Ok(i) = built {
                    assert_eq!(i, Instruction::new(op, gen));
                }
                for &other in StructKind::ALL.iter().filter(|&&k| k != row.kind) {
                    let e = Instruction::from_parts(op, Body::default_for(Some(other)), gen);
                    assert!(e.is_err(), "{op} accepted {other:?}");
                }
            }
        }
    }
}

#[cfg(test)]
mod totality {
    use super::super::{Bytes, Data4d, DtypePair, F32Bits, Field, ImmVal, Tensor2, Tensor4};
    use crate::opcode::Opcode;
    use crate::tables::AluOp;

    /// Reads from every prefix of the field's bytes (zero-filled) and writes into every short
    /// buffer (truncated): never a panic, and the full-length read round-trips.
    fn total<T: Field>() {
        let full: Vec<u8> = (1..=T::SIZE as u8).collect();
        for n in 0..=T::SIZE + 2 {
            let mut b = full.clone();
            b.resize(n, 0);
            let v = T::read(&b);
            let mut out = vec![0u8; n];
            v.write(&mut out);
            assert_eq!(&out[..n.min(T::SIZE)], &b[..n.min(T::SIZE)]);
        }
    }

    #[test]
    fn field_read_and_write_are_total_on_short_input() {
        total::<u8>();
        total::<i32>();
        total::<u32>();
        total::<Bytes<5>>();
        total::<Opcode>();
        total::<AluOp>();
        total::<DtypePair>();
        total::<F32Bits>();
        total::<ImmVal>();
        total::<Tensor2>();
        total::<Tensor4>();
        total::<Data4d>();
    }
}
