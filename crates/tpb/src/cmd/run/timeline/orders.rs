//! Semaphores and events named by what they order (issue 28 item 5): a change is "the
//! instruction that made it → the first instruction whose wait it let through", with source
//! lines (the kernel's, for a program the kernel layer emitted), since an object's number
//! (the emitter's 250–255) means nothing to a kernel author.

use super::super::program::Program;
use tpb_sim::engines::{CounterSample, EngineId, EngineRun, Object};

/// A step for a short label: `matmul L33` (its source line, the kernel's for an emitted
/// program), or `matmul #5` (its program index) without one.
pub fn short(program: &Program, run: &EngineRun, step: usize) -> String {
    let Some(s) = run.steps.get(step) else {
        return format!("step {step}");
    };
    let i = s.inst.index;
    match program.line_of(i) {
        Some(l) => format!("{} L{l}", s.inst.mnemonic),
        None => format!("{} #{i}", s.inst.mnemonic),
    }
}

/// A step in full: `PE #1 matmul (line 33)`, or with the kernel's note.
pub fn long(program: &Program, run: &EngineRun, step: usize) -> String {
    let Some(s) = run.steps.get(step) else {
        return format!("step {step}");
    };
    let site = program
        .site(s.inst.index)
        .map_or(String::new(), |w| format!(" ({w})"));
    format!(
        "{} #{} {}{site}",
        s.engine.label(),
        s.queue_index,
        s.inst.mnemonic
    )
}

/// Whether a change let some other instruction's wait through.
pub fn orders_something(c: &CounterSample) -> bool {
    c.released.is_some_and(|r| Some(r) != c.by)
}

/// The label of a change: `dma_memcpy L28 → matmul L33`, or `dma_memcpy L40 → no wait`
/// when nothing waited on it.
pub fn label(program: &Program, run: &EngineRun, c: &CounterSample) -> String {
    let by =
        c.by.map_or_else(|| c.object.to_string(), |b| short(program, run, b));
    match c.released {
        Some(r) if Some(r) != c.by => format!("{by} → {}", short(program, run, r)),
        _ => format!("{by} → no wait"),
    }
}

/// The tooltip of a change: the object, value and time, who set it and whom it let go.
pub fn detail(program: &Program, run: &EngineRun, c: &CounterSample, at: &str) -> String {
    let mut t = format!("{} = {} at {at}", c.object, c.value);
    if let Some(b) = c.by {
        t += &format!(", set by {}", long(program, run, b));
    }
    match c.released {
        Some(r) if Some(r) != c.by => t += &format!("; lets {} start", long(program, run, r)),
        _ => t += "; no wait relied on it",
    }
    t
}

/// The engines whose instructions change `object` and those whose waits it lets through, in
/// [`EngineId::ALL`] order: `(producers, consumers)`.
fn engines_of(run: &EngineRun, object: Object) -> (Vec<EngineId>, Vec<EngineId>) {
    let mut producers = [false; EngineId::ALL.len()];
    let mut consumers = [false; EngineId::ALL.len()];
    for c in run.counters.iter().filter(|c| c.object == object) {
        let mark = |set: &mut [bool], step: Option<usize>| {
            if let Some(s) = step.and_then(|k| run.steps.get(k)) {
                set[s.engine.index()] = true;
            }
        };
        mark(&mut producers, c.by);
        mark(&mut consumers, c.released.filter(|&r| Some(r) != c.by));
    }
    let pick = |set: [bool; EngineId::ALL.len()]| -> Vec<EngineId> {
        EngineId::ALL
            .into_iter()
            .filter(|e| set[e.index()])
            .collect()
    };
    (pick(producers), pick(consumers))
}

/// A counter track's name: `semaphore 250: PE → ACT, DVE` (the engines that change it → the
/// engines whose waits it lets through).
pub fn track(run: &EngineRun, object: Object) -> String {
    let (producers, consumers) = engines_of(run, object);
    let list = |es: &[EngineId]| -> String {
        if es.is_empty() {
            "none".into()
        } else {
            es.iter().map(|e| e.label()).collect::<Vec<_>>().join(", ")
        }
    };
    format!("{object}: {} → {}", list(&producers), list(&consumers))
}
