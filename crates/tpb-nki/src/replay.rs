//! A kernel's effects on its machine, recorded in order as its calls run, and replayed on a
//! fresh machine with other input bytes: how a kernel traced once runs again without its
//! Python (docs/python.md, "Traced once per signature").
//!
//! The tape holds exactly what changed the machine — host writes, register writes,
//! don't-care marks and the instructions as they were executed — so a replay on the same
//! configuration computes what the eager run computed, bit for bit, for any input bytes.

use crate::core::Core;
use crate::error::NkiError;
use crate::tape::{hbm_range, Effect};
use std::sync::Arc;
use tpb_isa::Instruction;
use tpb_sim::{Config, FaultCause, HostTensor, Machine};

/// A kernel's recorded run, ready to replay with new bytes for its inputs.
#[derive(Clone, Debug)]
pub struct Replay {
    config: Config,
    effects: Arc<[Effect]>,
    /// Per input, the index of the host write that placed it (its recorded bytes are
    /// dropped: every replay brings its own) and its length in bytes.
    inputs: Vec<(usize, usize)>,
    /// Per input, whether an instruction wrote into its bytes.
    written_inputs: Vec<bool>,
    hbm_next: u64,
    /// Elements the recorded instructions processed.
    elements: u64,
}

impl Replay {
    /// The replay of `core`'s run so far, whose inputs are the HBM tensors `inputs` (each
    /// placed by one host write before the first instruction). Refused when the run
    /// depended on more than its effects (a host read of device data, direct machine
    /// access) or an input was not written whole before the first instruction.
    pub fn of(core: &Core, inputs: &[HostTensor]) -> Result<Replay, NkiError> {
        if let Some(why) = core.not_replayable() {
            return Err(not_replayable(why));
        }
        let tape = core.tape();
        let mut at = Vec::with_capacity(inputs.len());
        let mut written = Vec::with_capacity(inputs.len());
        for t in inputs {
            let found = tape
                .before_first_step()
                .position(|e| matches!(e, Effect::Write(w, _) if w == t));
            let Some(k) = found else {
                return Err(not_replayable(
                    "an input was not written whole before the first instruction",
                ));
            };
            at.push(k);
            // Known: a tape whose effects were dropped is opaque (refused above).
            let wrote = hbm_range(t).and_then(|bytes| tape.wrote_hbm(&bytes));
            written.push(wrote.unwrap_or(true));
        }
        let elements = tape.elements();
        // The effects, each input's write without its recorded bytes (every replay brings
        // its own): they are not copied only to be dropped.
        let effects: Vec<Effect> = tape
            .effects()
            .iter()
            .enumerate()
            .map(|(k, e)| match e {
                Effect::Write(t, _) if at.contains(&k) => Effect::Write(*t, Vec::new()),
                e => e.clone(),
            })
            .collect();
        let inputs_at = at
            .iter()
            .map(|&k| match tape.effects().get(k) {
                Some(Effect::Write(_, bytes)) => (k, bytes.len()),
                _ => (k, 0),
            })
            .collect();
        Ok(Replay {
            config: *core.machine().config(),
            effects: effects.into(),
            inputs: inputs_at,
            elements,
            written_inputs: written,
            hbm_next: core.hbm_used(),
        })
    }

    /// Whether an instruction of the run wrote into input `k` (its bytes must be read
    /// back after a replay).
    pub fn input_written(&self, k: usize) -> bool {
        self.written_inputs.get(k).copied().unwrap_or(false)
    }

    /// Elements the run's instructions processed, over all channels: how much work a
    /// replay is, roughly.
    pub fn elements(&self) -> u64 {
        self.elements
    }

    /// The number of instructions the run executed.
    pub fn steps(&self) -> usize {
        self.effects
            .iter()
            .filter(|e| matches!(e, Effect::Step(..)))
            .count()
    }

    /// Replays the run with `inputs` (one byte string per input, each as long as the
    /// recorded one) on a fresh machine of the run's configuration; the returned core holds
    /// the machine after the run (its program is empty: read its tiles).
    pub fn run(&self, inputs: &[&[u8]]) -> Result<Core, NkiError> {
        if inputs.len() != self.inputs.len() {
            return Err(NkiError::Value {
                argument: "inputs",
                detail: format!(
                    "{} inputs given, the recorded run has {}",
                    inputs.len(),
                    self.inputs.len()
                ),
            });
        }
        for (j, (b, &(_, len))) in inputs.iter().zip(&self.inputs).enumerate() {
            if b.len() != len {
                return Err(NkiError::Value {
                    argument: "inputs",
                    detail: format!("input {j} has {} bytes, the recorded run's {len}", b.len()),
                });
            }
        }
        let mut core = Core::replaying(self.config, self.hbm_next);
        let m = core.machine_for_replay();
        for (k, e) in self.effects.iter().enumerate() {
            match e {
                Effect::Write(t, recorded) => {
                    let bytes = match self.inputs.iter().position(|&(i, _)| i == k) {
                        Some(j) => inputs[j],
                        None => recorded.as_slice(),
                    };
                    m.write_tensor(t, bytes)?;
                }
                Effect::Place(t) => _ = m.place_tensor(t)?,
                Effect::Register(n, bits) => m.set_register(*n, *bits)?,
                Effect::Initialised(t) => m.mark_initialised(t)?,
                Effect::Step(index, inst) => {
                    step(m, *index, inst)?;
                }
            }
        }
        Ok(core)
    }
}

/// Runs one recorded instruction (its validation ran when it was recorded, and runs again).
fn step(m: &mut Machine, index: usize, inst: &Instruction) -> Result<(), NkiError> {
    match m.step_at(index, inst) {
        Ok(report) => {
            m.recycle_accesses(report.accesses);
            Ok(())
        }
        Err(fault) => Err(match fault.cause {
            FaultCause::Invalid { report } => NkiError::Invalid {
                mnemonic: fault.inst.mnemonic.to_string(),
                inst: Box::new(*inst),
                report,
            },
            _ => NkiError::Fault(fault),
        }),
    }
}

fn not_replayable(why: &str) -> NkiError {
    NkiError::NotSupported {
        what: format!("replaying this kernel's run: {why}"),
    }
}
