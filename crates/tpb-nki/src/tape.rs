//! What a core did to its machine, in order: host writes, register writes, don't-care
//! marks and the instructions as they ran — the record a kernel's replay
//! ([`crate::Replay`]) and the scheduled re-run start from.

use std::ops::Range;
use tpb_isa::geometry::Space;
use tpb_isa::Instruction;
use tpb_sim::{HostTensor, MemAccess};

/// One change a core made to its machine.
#[derive(Clone, Debug)]
pub(crate) enum Effect {
    /// A host write of these bytes.
    Write(HostTensor, Vec<u8>),
    /// A register write (the user's `set_register`, a call's constant, or its undo).
    Register(usize, u32),
    /// Bytes a mask declared don't-care ([`Core::mark_masked_out`]).
    Initialised(HostTensor),
    /// An instruction as the machine ran it (before the waits the program adds), with its
    /// index in the emitted program.
    Step(usize, Instruction),
}

/// The effects so far, and why they cannot be replayed, if they cannot.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tape {
    effects: Vec<Effect>,
    /// HBM byte ranges an instruction wrote (sorted by start, possibly overlapping).
    hbm_written: Vec<Range<u64>>,
    /// The first thing that made the run depend on more than the tape.
    opaque: Option<&'static str>,
    /// Elements the instructions processed, over all channels.
    elements: u64,
}

impl Tape {
    pub(crate) fn push(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// Counts a step's elements (what a replay of the tape costs, roughly).
    pub(crate) fn note_elements(&mut self, elements: u64) {
        self.elements = self.elements.saturating_add(elements);
    }

    /// Elements the instructions processed, over all channels.
    pub(crate) fn elements(&self) -> u64 {
        self.elements
    }

    /// Records the HBM bytes a step wrote (from its access list).
    pub(crate) fn note_writes(&mut self, accesses: &[MemAccess]) {
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

    /// Whether an instruction wrote into these HBM bytes.
    pub(crate) fn wrote_hbm(&self, bytes: &Range<u64>) -> bool {
        self.hbm_written
            .iter()
            .any(|w| w.start < bytes.end && bytes.start < w.end)
    }

    pub(crate) fn into_effects(self) -> Vec<Effect> {
        self.effects
    }
}
