//! EventSemaphore (0xA0): the standalone sync record (isa-facts §1.3). Wait 0 is the EVENTS
//! preamble (checked by `has_valid_neuron_events` like every instruction); the body holds
//! wait 1 and the update, checked with the same enumerations.

use super::super::common::*;
use super::super::{Confidence, Ctx, Flow};
use crate::tables::{CodeEnum, UpdateMode, WaitMode};
use crate::wire::{EventSemaphore, Events, InstView, View};
use Confidence::{Assumed, Inferred};

rule!(
    ES_WAIT1,
    "is_valid_enum",
    "wait1_mode ∈ WAIT_MODE (as the EVENTS wait)",
    "isa-facts §1.3",
    Inferred
);
rule!(
    ES_UPDATE,
    "is_valid_enum",
    "update1_mode ∈ UPDATE_MODE (as the EVENTS update)",
    "isa-facts §1.3",
    Inferred
);
rule!(
    ES_PREAMBLE_UPDATE,
    "event_semaphore_single_update",
    "the EVENTS preamble's update is none (the record's update is at +0x22)",
    "isa-facts §1.3 layout; tpb's choice",
    Assumed
);
rule!(
    ES_RESERVED,
    "event_semaphore_reserved_zero",
    "bytes 12..32 and 44..64 are zero (no field is known there)",
    "isa-facts §1.3 layout; tpb's choice",
    Assumed
);
rule!(
    ES_COMPILER_WAITS,
    "event_semaphore_compiler_waits",
    "the compiler emits only sem_ge_imm / sem_ge_reg waits",
    "isa-facts §1.3 (compiler encoder)",
    Inferred,
    lint
);

#[inline(always)]
pub(super) fn check<const M: u8>(
    cx: &mut Ctx<M>,
    v: &InstView<'_>,
    s: &View<'_, EventSemaphore>,
) -> Flow {
    let gen = cx.gen;
    let e = v.events();
    cx.check(&ES_WAIT1, s.wait1_mode().is_valid(gen), || {
        detail(
            at!(EventSemaphore.wait1_mode),
            s.wait1_mode(),
            enum_names::<WaitMode>(gen),
        )
    })?;
    cx.check(&ES_UPDATE, s.update1_mode().is_valid(gen), || {
        detail(
            at!(EventSemaphore.update1_mode),
            s.update1_mode(),
            enum_names::<UpdateMode>(gen),
        )
    })?;
    cx.check(
        &ES_PREAMBLE_UPDATE,
        e.update_mode() == UpdateMode::NONE && e.update_idx() == 0,
        || {
            detail2(
                at!(Events.update_mode).under("events."),
                at!(Events.update_idx).under("events."),
                format!("{}, {}", e.update_mode(), e.update_idx()),
                "none, 0",
            )
        },
    )?;
    reserved_zero(
        cx,
        &ES_RESERVED,
        at!(EventSemaphore.reserved0),
        &s.reserved0().0,
    )?;
    reserved_zero(
        cx,
        &ES_RESERVED,
        at!(EventSemaphore.reserved1),
        &s.reserved1().0,
    )?;
    for (m, at) in [
        (e.wait_mode(), at!(Events.wait_mode).under("events.")),
        (s.wait1_mode(), at!(EventSemaphore.wait1_mode)),
    ] {
        let ok = matches!(
            m,
            WaitMode::NONE | WaitMode::SEM_GE_IMM | WaitMode::SEM_GE_REG
        );
        cx.check(&ES_COMPILER_WAITS, ok, || {
            detail(at, m, "none, sem_ge_imm, sem_ge_reg")
        })?;
    }
    Ok(())
}
