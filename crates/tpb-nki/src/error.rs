//! Why an NKI-shaped call could not be emitted or run ([`NkiError`]).

use crate::tile::ViewError;
use tpb_isa::geometry::Space;
use tpb_isa::validate::Report;
use tpb_isa::Instruction;
use tpb_sim::{Fault, HostError};

/// Why an NKI-shaped call could not be emitted or run. Nothing was emitted and no state
/// changed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NkiError {
    /// A tile or operand shape the call cannot take.
    #[error("{operand}: {detail}")]
    Shape {
        /// The argument.
        operand: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The compiler's packer refused the operand's access pattern.
    #[error("{operand}: {detail}")]
    Pack {
        /// The argument.
        operand: &'static str,
        /// The packer's error.
        detail: String,
    },
    /// A `pattern` argument that no DATA4D holds.
    #[error("pattern: {detail}")]
    Pattern {
        /// What is wrong.
        detail: String,
    },
    /// An operator name that is not known, or not usable in this call.
    #[error("{argument}: {detail}")]
    Operator {
        /// The argument.
        argument: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A scalar value the instruction cannot carry.
    #[error("{argument}: {detail}")]
    Value {
        /// The argument.
        argument: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// No room for a tile: names the tile, its size and what is left.
    #[error(
        "cannot allocate {want} bytes per partition in {space} for tile {tile}: {free} of \
         {total} bytes per partition are free{largest}",
        tile = if name.is_empty() { "(unnamed)".to_string() } else { format!("{name:?}") },
        space = space.name(),
        largest = if *largest < *free { format!(" (the largest free block is {largest} bytes)") } else { String::new() }
    )]
    OutOfMemory {
        /// The tile's name (`name=`), or empty.
        name: String,
        /// The largest block that would fit now.
        largest: u64,
        /// The space.
        space: Space,
        /// Bytes per partition asked for.
        want: u64,
        /// Bytes per partition still free.
        free: u64,
        /// Active bytes per partition.
        total: u64,
    },
    /// No register left for a constant.
    #[error("no register left for constant {bits:#010x}: registers 0..={lowest} are the user's")]
    Registers {
        /// The constant's bits.
        bits: u32,
        /// The lowest register tpb may use.
        lowest: u8,
    },
    /// A subscript outside its tile (the out-of-bounds sanitizer).
    #[error("{0}")]
    OutOfBounds(String),
    /// A call or view that needs an instruction or mapping tpb does not have yet.
    #[error("not supported yet: {what}")]
    NotYet {
        /// What is missing (names the instruction).
        what: String,
    },
    /// A form tpb refuses because its semantics are not public, or the ISA has no encoding.
    #[error("not supported: {what}")]
    NotSupported {
        /// What is not supported.
        what: String,
    },
    /// The instruction the call built fails validation on the core's generation.
    #[error("{mnemonic} is invalid on {}: {}", report.gen, first_failure(report))]
    Invalid {
        /// The instruction's mnemonic.
        mnemonic: String,
        /// The instruction as built.
        inst: Box<Instruction>,
        /// Every failing rule.
        report: Report,
    },
    /// The simulator faulted (state unchanged).
    #[error("{0}")]
    Fault(Fault),
    /// A host read or write the machine cannot serve.
    #[error("{0}")]
    Host(#[from] HostError),
}

impl From<ViewError> for NkiError {
    fn from(e: ViewError) -> NkiError {
        match e {
            ViewError::OutOfBounds(_) => NkiError::OutOfBounds(e.to_string()),
            ViewError::NotSupported(what) => NkiError::NotSupported { what },
            ViewError::Invalid(detail) => NkiError::Shape {
                operand: "index",
                detail,
            },
        }
    }
}

fn first_failure(report: &Report) -> String {
    let mut fails = report.failures();
    match (fails.next(), fails.count()) {
        (Some(f), 0) => format!(
            "{}: {} (`{}` = {})",
            f.rule.name, f.rule.clause, f.field, f.value
        ),
        (Some(f), more) => format!(
            "{}: {} (`{}` = {}) and {more} more",
            f.rule.name, f.rule.clause, f.field, f.value
        ),
        (None, _) => "no failing rule".into(),
    }
}
