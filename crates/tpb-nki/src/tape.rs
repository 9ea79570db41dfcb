//! What a core did to its machine, in order: HBM placements, host writes, register writes,
//! don't-care marks and the instructions as they ran — the record a kernel's replay
//! ([`crate::Replay`]) and the scheduled re-run start from.

use std::ops::Range;
use tpb_isa::geometry::Space;
use tpb_isa::Instruction;
use tpb_sim::{HostTensor, MemAccess};

/// The HBM bytes of a host tensor: its rows one after another ([`HostTensor::len`]);
/// `None` for an on-chip one, or a size that does not fit.
pub(crate) fn hbm_range(t: &HostTensor) -> Option<Range<u64>> {
    let end = t.byte_offset.checked_add(t.len()?)?;
    (t.space == Space::Hbm).then_some(t.byte_offset..end)
}

fn overlap(a: &Range<u64>, b: &Range<u64>) -> bool {
    a.start < b.end && b.start < a.end
}

/// One change a core made to its machine.
#[derive(Clone, Debug)]
pub(crate) enum Effect {
    /// A host write of these bytes.
    Write(HostTensor, Vec<u8>),
    /// A register write (the user's `set_register`, a call's constant, or its undo).
    Register(usize, u32),
    /// Bytes a mask declared don't-care ([`Core::mark_masked_out`]).
    Initialised(HostTensor),
    /// An HBM tensor placed ([`tpb_sim::Machine::place_tensor`]: how its bytes are held,
    /// which nothing observes).
    Place(HostTensor),
    /// An instruction as the machine ran it (before the waits the program adds), with its
    /// index in the emitted program.
    Step(usize, Instruction),
}

impl Effect {
    /// The memory the record of this effect holds.
    fn held_bytes(&self) -> usize {
        std::mem::size_of::<Effect>()
            + match self {
                Effect::Write(_, bytes) => bytes.len(),
                _ => 0,
            }
    }
}

/// The most memory a tape holds past its first instruction: a core used for millions of
/// calls (a long-lived `Core`, a huge kernel) keeps only the effects before its first
/// instruction (what the scheduled re-run needs) and is not replayable.
const MAX_TAPE_BYTES: usize = 256 << 20;

/// The effects so far, and why they cannot be replayed, if they cannot.
#[derive(Clone, Debug)]
pub(crate) struct Tape {
    effects: Vec<Effect>,
    /// Bytes the effects hold ([`Effect::held_bytes`]).
    held: usize,
    /// The most bytes the effects may hold past the first instruction.
    limit: usize,
    /// The effects after the first instruction were dropped (the limit was passed).
    dropped: bool,
    /// HBM byte ranges an instruction wrote (sorted by start, possibly overlapping).
    hbm_written: Vec<Range<u64>>,
    /// The first thing that made the run depend on more than the tape.
    opaque: Option<&'static str>,
    /// The machine was changed directly ([`Tape::note_direct_change`]).
    direct: bool,
    /// Elements the instructions processed, over all channels.
    elements: u64,
}

impl Default for Tape {
    fn default() -> Tape {
        Tape::with_limit(MAX_TAPE_BYTES)
    }
}

impl Tape {
    /// An empty tape that holds at most `limit` bytes past its first instruction.
    pub(crate) fn with_limit(limit: usize) -> Tape {
        Tape {
            effects: Vec::new(),
            held: 0,
            limit,
            dropped: false,
            hbm_written: Vec::new(),
            opaque: None,
            direct: false,
            elements: 0,
        }
    }

    /// Records an effect; past the limit, only the effects before the first instruction
    /// stay, and the tape is no longer replayable.
    pub(crate) fn push(&mut self, effect: Effect) {
        if self.dropped {
            return;
        }
        self.held += effect.held_bytes();
        self.effects.push(effect);
        if self.held <= self.limit {
            return;
        }
        if let Some(first) = self
            .effects
            .iter()
            .position(|e| matches!(e, Effect::Step(..)))
        {
            self.effects.truncate(first);
            self.effects.shrink_to_fit();
            self.held = self.effects.iter().map(Effect::held_bytes).sum();
            self.hbm_written = Vec::new();
            self.dropped = true;
            self.make_opaque(
                "its record would hold more than 256 MiB (instructions and host writes)",
            );
        }
    }

    /// Counts a step's elements (what a replay of the tape costs, roughly).
    pub(crate) fn note_elements(&mut self, elements: u64) {
        if self.dropped {
            return;
        }
        self.elements = self.elements.saturating_add(elements);
    }

    /// Elements the instructions processed, over all channels.
    pub(crate) fn elements(&self) -> u64 {
        self.elements
    }

    /// Records the HBM bytes a step wrote (from its access list).
    pub(crate) fn note_writes(&mut self, accesses: &[MemAccess]) {
        if self.dropped {
            return;
        }
        for a in accesses
            .iter()
            .filter(|a| a.write && a.region.space == Space::Hbm)
        {
            self.hbm_written.push(a.region.bytes.clone());
        }
    }

    /// The run now depends on something the tape does not hold.
    pub(crate) fn make_opaque(&mut self, why: &'static str) {
        self.opaque.get_or_insert(why);
    }

    /// The effects before the first instruction: what the scheduled re-run writes first.
    pub(crate) fn before_first_step(&self) -> impl Iterator<Item = &Effect> {
        self.effects
            .iter()
            .take_while(|e| !matches!(e, Effect::Step(..)))
    }

    /// Why the run depended on more than its effects, if it did.
    pub(crate) fn opaque(&self) -> Option<&'static str> {
        self.opaque
    }

    /// Whether an instruction wrote into these HBM bytes; `None` once the effects past
    /// the first instruction were dropped (the writes are no longer known).
    pub(crate) fn wrote_hbm(&self, bytes: &Range<u64>) -> Option<bool> {
        (!self.dropped).then(|| self.hbm_written.iter().any(|w| overlap(w, bytes)))
    }

    /// How many host writes covered any of these HBM bytes; `None` once effects were
    /// dropped.
    pub(crate) fn host_writes_over(&self, bytes: &Range<u64>) -> Option<usize> {
        (!self.dropped).then(|| {
            self.effects
                .iter()
                .filter(|e| match e {
                    Effect::Write(t, _) => hbm_range(t).is_some_and(|r| overlap(&r, bytes)),
                    _ => false,
                })
                .count()
        })
    }

    /// The machine was changed directly, outside the effects the tape records.
    pub(crate) fn note_direct_change(&mut self) {
        self.direct = true;
        self.make_opaque("the machine was changed directly (Core::machine_mut)");
    }

    /// Whether the machine was changed outside the recorded effects.
    pub(crate) fn direct_changes(&self) -> bool {
        self.direct
    }

    /// The effects, in order.
    pub(crate) fn effects(&self) -> &[Effect] {
        &self.effects
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(n: usize) -> Effect {
        Effect::Write(
            tpb_sim::HostTensor::hbm(0).elements(tpb_isa::Dtype::UINT8, n as u64),
            vec![7; n],
        )
    }

    #[test]
    fn past_its_limit_a_tape_keeps_what_precedes_the_first_instruction_only() {
        let mut t = Tape::with_limit(4096);
        // Host writes before any instruction are all kept, past the limit too: the
        // scheduled re-run replays them.
        t.push(write(3000));
        t.push(write(3000));
        assert_eq!(t.before_first_step().count(), 2);
        assert!(t.opaque().is_none());
        t.push(Effect::Step(
            0,
            tpb_isa::Instruction::decode(&[0; 64], tpb_isa::Gen::Cayman),
        ));
        assert_eq!(t.before_first_step().count(), 2);
        assert!(t.opaque().is_some_and(|w| w.contains("256 MiB")));
        t.push(write(10));
        t.push(Effect::Register(1, 2));
        assert_eq!(t.effects().len(), 2);
        // The instructions' HBM writes are no longer known.
        assert_eq!(t.wrote_hbm(&(0..10)), None);
        assert_eq!(t.host_writes_over(&(0..10)), None);
    }

    #[test]
    fn within_its_limit_a_tape_keeps_everything() {
        let mut t = Tape::with_limit(1 << 20);
        t.push(write(100));
        t.push(Effect::Step(
            0,
            tpb_isa::Instruction::decode(&[0; 64], tpb_isa::Gen::Cayman),
        ));
        t.push(write(100));
        assert!(t.opaque().is_none());
        assert_eq!(t.effects().len(), 3);
        assert_eq!(t.wrote_hbm(&(0..10)), Some(false));
        // Both host writes cover byte 0 of HBM; none reaches byte 100.
        assert_eq!(t.host_writes_over(&(0..1)), Some(2));
        assert_eq!(t.host_writes_over(&(100..200)), Some(0));
        t.note_direct_change();
        assert!(t.direct_changes() && t.opaque().is_some());
    }
}
