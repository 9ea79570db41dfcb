//! The runtime's lowering of the host-only DMA pseudo instructions (isa-facts-pe-act-dma §3.6,
//! `translate_one_pseudo_dge_instr_v2`): a 0xD4 PSEUDO_DMA_DIRECT2D becomes the real DMA
//! instruction its `dge_op` names before the device sees the stream.
//!
//! - `dge_op == 0` (DIRECT2D): a 0xB8 DMAMEMCPY with the same fields (byte 15 becomes
//!   `compute_op` = none); no extension record.
//! - `dge_op == 1` (INDIRECT1D): the runtime requires a 0xDA PSEUDO_EXTENSION right after it
//!   ("Pseudo dma indirect1d instruction must be followed by extension") and builds a 0xBB.
//!   How the 2-D pattern and the upper address words map onto INDIRECT1D is not public, so
//!   tpb checks the pairing and refuses the build, naming that.
//! - `dge_op == 2 / 3`: the v3 dispatcher builds 0xBD / 0xF1; its field mapping is not public:
//!   refused.
//! - any other value: the runtime's "Unsupported dynamic dma opcode %u".
//!
//! A `PSEUDO_ADDR8` that is a NEFF variable id (marker 0x10) needs the NEFF's variable table,
//! which a bare instruction stream does not carry: refused.

use crate::gen::Gen;
use crate::opcode::Opcode;
use crate::tables::{DgeComputeOp, DgeOpcode};
use crate::wire::{Addr8Form, Body, DmaDirect2d, Instruction, PseudoDmaDirect2d};
use thiserror::Error;

/// Why a pseudo instruction could not be lowered. Indices are program positions.
#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum LowerError {
    /// A 0xD4 with `dge_op` INDIRECT1D not followed by a 0xDA (the runtime's own message).
    #[error(
        "instruction #{index}: Pseudo dma indirect1d instruction must be followed by extension"
    )]
    MissingExtension {
        /// The 0xD4.
        index: usize,
    },
    /// A 0xDA that does not follow a 0xD4 with `dge_op` INDIRECT1D.
    #[error(
        "instruction #{index}: a PSEUDO_EXTENSION (0xDA) must follow a 0xD4 with dge_op indirect1d"
    )]
    StrayExtension {
        /// The 0xDA.
        index: usize,
    },
    /// A `dge_op` outside DGE_OPCODE (the runtime's own message).
    #[error("instruction #{index}: Unsupported dynamic dma opcode {dge_op}")]
    UnknownDgeOp {
        /// The 0xD4.
        index: usize,
        /// Its byte 15.
        dge_op: u8,
    },
    /// An address that is a NEFF variable id.
    #[error("instruction #{index}: {operand} is a NEFF variable id (PSEUDO_ADDR8 marker 0x10); lowering it needs the NEFF's variable table, which a bare instruction stream does not carry")]
    Variable {
        /// The 0xD4.
        index: usize,
        /// `src` or `dst`.
        operand: &'static str,
    },
    /// A lowering whose field mapping is not public.
    #[error(
        "instruction #{index}: lowering a pseudo DMA with dge_op {dge_op} is not supported: {why}"
    )]
    NotPublic {
        /// The 0xD4.
        index: usize,
        /// The `dge_op`.
        dge_op: DgeOpcode,
        /// The missing fact.
        why: &'static str,
    },
}

/// The DMAMEMCPY a DIRECT2D pseudo becomes (header and EVENTS kept, opcode 0xB8).
pub fn direct2d_of(p: &PseudoDmaDirect2d, inst: &Instruction) -> Instruction {
    let mut out = *inst;
    out.header.opcode = Opcode::DMA_MEMCPY;
    out.body = Body::DmaDirect2d(DmaDirect2d {
        dma_configs: p.dma_configs,
        semaphore: p.semaphore,
        sem_increment: p.sem_increment,
        compute_op: DgeComputeOp::NONE,
        src: p.src,
        src_elem_size: p.src_elem_size,
        src_bound_reg: p.src_bound_reg,
        dst_bound_reg: p.dst_bound_reg,
        dst: p.dst,
        dst_elem_size: p.dst_elem_size,
        in_dtype: p.in_dtype,
        out_dtype: p.out_dtype,
    });
    out
}

/// Lowers every pseudo DMA of a program for `gen`; other instructions pass unchanged.
pub fn lower_pseudo(insts: &[Instruction], gen: Gen) -> Result<Vec<Instruction>, LowerError> {
    let mut out = Vec::with_capacity(insts.len());
    let mut i = 0;
    while i < insts.len() {
        let inst = &insts[i];
        match (&inst.body, inst.opcode()) {
            (Body::PseudoDmaDirect2d(p), _) => {
                for (operand, a) in [("src", p.src.addr), ("dst", p.dst.addr)] {
                    if a.form() == Addr8Form::Variable {
                        return Err(LowerError::Variable { index: i, operand });
                    }
                }
                let op = p.dge_op;
                if !op.defined_on(gen) {
                    return Err(LowerError::UnknownDgeOp {
                        index: i,
                        dge_op: op.0,
                    });
                }
                match op {
                    DgeOpcode::DIRECT2D => out.push(direct2d_of(p, inst)),
                    DgeOpcode::INDIRECT1D => {
                        let ext = insts.get(i + 1).map(|n| n.opcode());
                        if ext != Some(Opcode::PSEUDO_EXTENSION) {
                            return Err(LowerError::MissingExtension { index: i });
                        }
                        return Err(LowerError::NotPublic {
                            index: i,
                            dge_op: op,
                            why: "how the 2-D pattern and the extension's upper address \
                                  words map onto DMA_INDIRECT1D is not public \
                                  (isa-facts-pe-act-dma §3.6)",
                        });
                    }
                    _ => {
                        return Err(LowerError::NotPublic {
                            index: i,
                            dge_op: op,
                            why: "the v3 dispatcher's field mapping onto DMA_TRANSPOSE / \
                                  DMA_GATHER_TRANSPOSE is not public (isa-facts-pe-act-dma §3.6)",
                        })
                    }
                }
            }
            (Body::PseudoDmaExt(_), _) => return Err(LowerError::StrayExtension { index: i }),
            _ => out.push(*inst),
        }
        i += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{asm, AsmOptions};
    use crate::validate::validate;

    fn prog(s: &str) -> Vec<Instruction> {
        asm(s, &AsmOptions::new(Gen::Cayman)).unwrap().insts()
    }

    // §3.6 step 2: dge_op 0 becomes a real 0xB8 with the same fields, valid on the device.
    #[test]
    fn direct2d_pseudo_becomes_dmamemcpy() {
        let p = prog(
            "pseudo_dma_direct2d dge_op=direct2d semaphore=5 sem_increment=1 \
             src=hbm+0x0:[[512,4],[0,1]] src_elem_size=512 dst=sbuf[p0]+0x0:[[262144,4],[0,1]] \
             dst_elem_size=512 in_dtype=fp32 out_dtype=fp32 wait_mode=sem_ge_imm wait_idx=2 \
             semaphore_value=1",
        );
        let l = lower_pseudo(&p, Gen::Cayman).unwrap();
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].opcode(), Opcode::DMA_MEMCPY);
        assert_eq!(l[0].events, p[0].events);
        let mut want = p[0].encode();
        want[0] = 0xB8;
        assert_eq!(l[0].encode(), want, "only the opcode byte changes");
        assert!(validate(&l[0], Gen::Cayman).is_valid());
    }

    // §3.6 steps 3–5: the extension pairing, the runtime's messages, variable ids.
    #[test]
    fn other_pseudo_forms_are_refused_with_the_runtime_messages() {
        let ind = "pseudo_dma_direct2d dge_op=indirect1d src=hbm+0x0:[[4,1],[0,1]] \
                   src_elem_size=4 dst=hbm+0x10:[[4,1],[0,1]] dst_elem_size=4 in_dtype=fp32 \
                   out_dtype=fp32";
        let e = lower_pseudo(&prog(ind), Gen::Cayman).unwrap_err();
        assert_eq!(e, LowerError::MissingExtension { index: 0 });
        assert!(e.to_string().contains("must be followed by extension"));
        let with_ext = prog(&format!("{ind}\npseudo_extension tile_src_rows=16"));
        assert!(matches!(
            lower_pseudo(&with_ext, Gen::Cayman),
            Err(LowerError::NotPublic { .. })
        ));
        let stray = prog("pseudo_extension tile_src_rows=16");
        assert_eq!(
            lower_pseudo(&stray, Gen::Cayman),
            Err(LowerError::StrayExtension { index: 0 })
        );
        let mut bad = prog(&ind.replace("indirect1d", "direct2d"));
        if let Body::PseudoDmaDirect2d(p) = &mut bad[0].body {
            p.dge_op = DgeOpcode(7);
        }
        let e = lower_pseudo(&bad, Gen::Cayman).unwrap_err();
        assert_eq!(
            e.to_string(),
            "instruction #0: Unsupported dynamic dma opcode 7"
        );
        if let Body::PseudoDmaDirect2d(p) = &mut bad[0].body {
            p.dge_op = DgeOpcode::DIRECT2D;
            p.src.addr = crate::wire::Addr8(0x10 << 56 | 3);
        }
        assert!(matches!(
            lower_pseudo(&bad, Gen::Cayman),
            Err(LowerError::Variable { operand: "src", .. })
        ));
        // Sunda's DGE_OPCODE has only direct2d and indirect1d.
        let t = prog(&ind.replace("indirect1d", "transpose"));
        assert!(matches!(
            lower_pseudo(&t, Gen::Sunda),
            Err(LowerError::UnknownDgeOp { dge_op: 2, .. })
        ));
    }
}
