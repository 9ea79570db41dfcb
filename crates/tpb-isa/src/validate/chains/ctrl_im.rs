//! `CTRL_IM`: `is_valid_load_mask_select` (0x69) (isa-facts-dve-pool §14.2):
//! `has_zero_pram_offset && has_valid_masksel_data && ctrl_im_reserved_zero &&
//! ctrl_imm_ptr_select_zero`.

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::wire::CtrlIm;
use crate::wire::View;
use Confidence::Observed;

rule!(
    LMS_PRAM,
    "has_zero_pram_offset",
    "param_ram_offset == 0",
    "isa-facts-dve-pool §14.2",
    Observed
);
rule!(
    LMS_DATA,
    "has_valid_masksel_data",
    "every one of the 32 immediate bytes is < 64 or == 255 (valid_masksel_byte)",
    "isa-facts-dve-pool §14.2",
    Observed
);
rule!(
    LMS_RESERVED,
    "ctrl_im_reserved_zero",
    "reserved0 is zero",
    "isa-facts-dve-pool §14.2",
    Observed
);
rule!(
    LMS_PTR_SELECT,
    "ctrl_imm_ptr_select_zero",
    "imm_ptr_select == 0",
    "isa-facts-dve-pool §14.2",
    Observed
);

/// `valid_masksel_byte(b)`.
pub(crate) const fn valid_masksel_byte(b: u8) -> bool {
    b < 64 || b == 255
}

pub(super) fn check<const M: u8>(cx: &mut Ctx<M>, s: &View<'_, CtrlIm>) -> Flow {
    cx.check(&LMS_PRAM, s.param_ram_offset().is_zero(), || {
        detail(
            at!(CtrlIm.param_ram_offset),
            crate::wire::field::hex(&s.param_ram_offset().0),
            "0",
        )
    })?;
    let table = s.immediate().0;
    // The offending entries are listed only when a report is kept (the verdict allocates
    // nothing).
    cx.check(
        &LMS_DATA,
        table.iter().all(|&b| valid_masksel_byte(b)),
        || {
            let bad: Vec<String> = table
                .iter()
                .enumerate()
                .filter(|(_, &b)| !valid_masksel_byte(b))
                .map(|(i, b)| format!("[{i}] = {b}"))
                .collect();
            detail(at!(CtrlIm.immediate), bad.join(", "), "0..=63 or 255")
        },
    )?;
    reserved_zero(cx, &LMS_RESERVED, at!(CtrlIm.reserved0), &s.reserved0().0)?;
    cx.check(&LMS_PTR_SELECT, s.imm_ptr_select() == 0, || {
        detail(at!(CtrlIm.imm_ptr_select), s.imm_ptr_select(), "0")
    })?;
    Ok(())
}
