//! One entry point for every NKI call (issue 26 item 3).
//!
//! The public surface of a call — its name, parameters, defaults, legacy forms, types and
//! docstring — is one Python definition (`python/tpb/nki/isa.py`), whose annotations say
//! what kind of value each parameter takes. The Python binding converts each argument by
//! that kind into an [`Arg`] (the same converters for every call) and runs the call's
//! [`Lowering`], found here by name. A lowering reads its arguments by position through
//! [`Args`] and emits the call's instructions; it sits beside the instructions it builds, as
//! one row of its module's `LOWERINGS` table (the crate root lists the tables:
//! [`crate::lowering`]), so a new call is its Python definition and its Rust lowering: two
//! files.

use crate::error::NkiError;
use crate::names::Cmp;
use crate::tile::Tile;
use crate::Operand;
use std::sync::Mutex;
use tpb_isa::{AccumCmd, ActFunc, AluOp};
use tpb_sim::StepReport;

/// One argument of a call, converted from the caller's value by the kind its Python
/// definition declares.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Arg {
    /// `None` for an optional parameter.
    Absent,
    /// `True` / `False`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A real number.
    Float(f64),
    /// A tile (or a view of one).
    Tile(Tile),
    /// A number or a `(P, 1)` tile (a scalar operand).
    Operand(Operand),
    /// An ALU operator (`nl.multiply`, `numpy.add`, `"bitwise_and"`).
    Alu(AluOp),
    /// A comparison (`cmp_op`, `comp_op0`).
    Cmp(Cmp),
    /// An activation function (`nl.exp`).
    Act(ActFunc),
    /// An access pattern: `[step, num]` pairs, outermost first.
    Pattern(Vec<[i64; 2]>),
    /// A list of integers (axes, a shuffle mask, a tile position).
    Ints(Vec<i64>),
    /// `nki.isa.reduce_cmd`.
    ReduceCmd(ReduceCmd),
    /// `nki.isa.engine` (of a compute call).
    Engine(NkiEngine),
    /// An enumeration member by name (`oob_mode.error`, `"hwdge"`).
    Choice(String),
}

impl Arg {
    /// What the value is, for a message.
    fn what(&self) -> &'static str {
        match self {
            Arg::Absent => "None",
            Arg::Bool(_) => "a bool",
            Arg::Int(_) => "an int",
            Arg::Float(_) => "a float",
            Arg::Tile(_) => "a tile",
            Arg::Operand(_) => "a scalar operand",
            Arg::Alu(_) => "an ALU operator",
            Arg::Cmp(_) => "a comparison",
            Arg::Act(_) => "an activation function",
            Arg::Pattern(_) => "an access pattern",
            Arg::Ints(_) => "a list of ints",
            Arg::ReduceCmd(_) => "a reduce_cmd",
            Arg::Engine(_) => "an engine",
            Arg::Choice(_) => "an enumeration member",
        }
    }
}

/// A call's arguments in parameter order, with the parameters' names (for messages).
#[derive(Clone, Copy, Debug)]
pub struct Args<'a> {
    names: &'a [&'static str],
    values: &'a [Arg],
}

impl<'a> Args<'a> {
    /// The arguments `values` of the parameters `names` (same length and order).
    pub fn new(names: &'a [&'static str], values: &'a [Arg]) -> Args<'a> {
        Args { names, values }
    }

    fn name(&self, i: usize) -> &'static str {
        self.names.get(i).copied().unwrap_or("(missing parameter)")
    }

    fn get(&self, i: usize) -> &'a Arg {
        self.values.get(i).unwrap_or(&Arg::Absent)
    }

    /// The error for an argument whose declared kind is not the one the lowering reads: the
    /// Python definition and the Rust lowering disagree.
    fn mismatch(&self, i: usize, want: &str) -> NkiError {
        NkiError::Value {
            argument: self.name(i),
            detail: format!(
                "the lowering reads {want} here but the call's definition declares {} \
                 (the Python definition and the Rust lowering disagree)",
                self.get(i).what()
            ),
        }
    }

    /// A required tile.
    pub fn tile(&self, i: usize) -> Result<&'a Tile, NkiError> {
        match self.get(i) {
            Arg::Tile(t) => Ok(t),
            _ => Err(self.mismatch(i, "a tile")),
        }
    }

    /// An optional tile.
    pub fn tile_opt(&self, i: usize) -> Result<Option<&'a Tile>, NkiError> {
        match self.get(i) {
            Arg::Absent => Ok(None),
            Arg::Tile(t) => Ok(Some(t)),
            _ => Err(self.mismatch(i, "a tile or None")),
        }
    }

    /// An optional scalar operand.
    pub fn operand_opt(&self, i: usize) -> Result<Option<&'a Operand>, NkiError> {
        match self.get(i) {
            Arg::Absent => Ok(None),
            Arg::Operand(o) => Ok(Some(o)),
            _ => Err(self.mismatch(i, "a number, a (P, 1) tile or None")),
        }
    }

    /// A required scalar operand.
    pub fn operand(&self, i: usize) -> Result<&'a Operand, NkiError> {
        self.operand_opt(i)?
            .ok_or_else(|| self.mismatch(i, "a number or a (P, 1) tile"))
    }

    /// An optional ALU operator.
    pub fn alu_opt(&self, i: usize) -> Result<Option<AluOp>, NkiError> {
        match self.get(i) {
            Arg::Absent => Ok(None),
            Arg::Alu(o) => Ok(Some(*o)),
            _ => Err(self.mismatch(i, "an ALU operator")),
        }
    }

    /// A required ALU operator.
    pub fn alu(&self, i: usize) -> Result<AluOp, NkiError> {
        self.alu_opt(i)?
            .ok_or_else(|| self.mismatch(i, "an ALU operator"))
    }

    /// A comparison.
    pub fn comparison(&self, i: usize) -> Result<Cmp, NkiError> {
        match self.get(i) {
            Arg::Cmp(c) => Ok(*c),
            _ => Err(self.mismatch(i, "a comparison")),
        }
    }

    /// An activation function.
    pub fn act(&self, i: usize) -> Result<ActFunc, NkiError> {
        match self.get(i) {
            Arg::Act(f) => Ok(*f),
            _ => Err(self.mismatch(i, "an activation function")),
        }
    }

    /// A bool.
    pub fn flag(&self, i: usize) -> Result<bool, NkiError> {
        match self.get(i) {
            Arg::Bool(b) => Ok(*b),
            _ => Err(self.mismatch(i, "a bool")),
        }
    }

    /// An optional bool.
    pub fn flag_opt(&self, i: usize) -> Result<Option<bool>, NkiError> {
        match self.get(i) {
            Arg::Absent => Ok(None),
            Arg::Bool(b) => Ok(Some(*b)),
            _ => Err(self.mismatch(i, "a bool or None")),
        }
    }

    /// An optional integer.
    pub fn int_opt(&self, i: usize) -> Result<Option<i64>, NkiError> {
        match self.get(i) {
            Arg::Absent => Ok(None),
            Arg::Int(v) => Ok(Some(*v)),
            _ => Err(self.mismatch(i, "an int")),
        }
    }

    /// A required integer.
    pub fn int(&self, i: usize) -> Result<i64, NkiError> {
        self.int_opt(i)?.ok_or_else(|| self.mismatch(i, "an int"))
    }

    /// A required real number.
    pub fn float(&self, i: usize) -> Result<f64, NkiError> {
        match self.get(i) {
            Arg::Float(v) => Ok(*v),
            _ => Err(self.mismatch(i, "a number")),
        }
    }

    /// An access pattern.
    pub fn pattern(&self, i: usize) -> Result<&'a [[i64; 2]], NkiError> {
        match self.get(i) {
            Arg::Pattern(p) => Ok(p),
            _ => Err(self.mismatch(i, "an access pattern")),
        }
    }

    /// A list of integers.
    pub fn ints(&self, i: usize) -> Result<&'a [i64], NkiError> {
        match self.get(i) {
            Arg::Ints(v) => Ok(v),
            _ => Err(self.mismatch(i, "a list of ints")),
        }
    }

    /// A `reduce_cmd`.
    pub fn reduce_cmd(&self, i: usize) -> Result<ReduceCmd, NkiError> {
        match self.get(i) {
            Arg::ReduceCmd(c) => Ok(*c),
            _ => Err(self.mismatch(i, "a reduce_cmd")),
        }
    }

    /// A compute call's `engine`.
    pub fn engine(&self, i: usize) -> Result<NkiEngine, NkiError> {
        match self.get(i) {
            Arg::Engine(e) => Ok(*e),
            _ => Err(self.mismatch(i, "an engine")),
        }
    }

    /// An optional enumeration member's name.
    pub fn choice_opt(&self, i: usize) -> Result<Option<&'a str>, NkiError> {
        match self.get(i) {
            Arg::Absent => Ok(None),
            Arg::Choice(s) => Ok(Some(s)),
            _ => Err(self.mismatch(i, "an enumeration member")),
        }
    }

    /// The error for an argument the lowering does not accept: names the parameter.
    pub fn refuse(&self, i: usize, detail: impl Into<String>) -> NkiError {
        NkiError::Value {
            argument: self.name(i),
            detail: detail.into(),
        }
    }
}

/// One lowering step that ran one instruction, as the list every lowering returns.
pub(crate) fn one(r: Result<StepReport, NkiError>) -> Result<Vec<StepReport>, NkiError> {
    r.map(|s| vec![s])
}

/// NKI's `reduce_cmd` (`nki.isa.reduce_cmd`): what a call does to the DVE accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceCmd {
    /// `idle` (0): leave the accumulator alone.
    Idle,
    /// `reset` (1): reset only.
    Reset,
    /// `reduce` (2): continue accumulating.
    Reduce,
    /// `reset_reduce` (3): reset, then accumulate.
    ResetReduce,
    /// `load_reduce` (4): load an initial value, then accumulate.
    LoadReduce,
}

impl ReduceCmd {
    /// Parses `idle`, `reset`, `reduce`, `reset_reduce`, `load_reduce` (or 0..=4).
    pub fn parse(s: &str) -> Option<ReduceCmd> {
        Some(match s {
            "idle" | "0" => ReduceCmd::Idle,
            "reset" | "1" => ReduceCmd::Reset,
            "reduce" | "2" => ReduceCmd::Reduce,
            "reset_reduce" | "3" => ReduceCmd::ResetReduce,
            "load_reduce" | "4" => ReduceCmd::LoadReduce,
            _ => return None,
        })
    }

    /// NKI's name of the member.
    pub fn name(self) -> &'static str {
        match self {
            ReduceCmd::Idle => "idle",
            ReduceCmd::Reset => "reset",
            ReduceCmd::Reduce => "reduce",
            ReduceCmd::ResetReduce => "reset_reduce",
            ReduceCmd::LoadReduce => "load_reduce",
        }
    }

    /// The `ACCUM_CMD` wire value (the compiler's map, isa-facts-dve-pool §0.3.1).
    pub fn accum_cmd(self) -> AccumCmd {
        match self {
            ReduceCmd::Idle => AccumCmd::IDLE,
            ReduceCmd::Reset => AccumCmd::ZERO,
            ReduceCmd::Reduce => AccumCmd::ACCUMULATE,
            ReduceCmd::ResetReduce => AccumCmd::ZERO_ACCUMULATE,
            ReduceCmd::LoadReduce => AccumCmd::LOAD_ACCUMULATE,
        }
    }
}

/// The `engine=` argument of the calls that can run on more than one engine (NKI
/// `nki.isa.engine`). tpb runs every call on one machine; the engine only decides what the
/// compiler would emit (the int band on GpSimd, the transpose's instruction).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NkiEngine {
    /// `engine.unknown`: the compiler's choice (decisions §6.3).
    #[default]
    Unknown,
    /// `engine.vector` (DVE).
    Vector,
    /// `engine.gpsimd` (POOL).
    Gpsimd,
    /// `engine.scalar` (ACT).
    Scalar,
    /// `engine.tensor` (PE).
    Tensor,
}

impl NkiEngine {
    /// Parses `unknown`/`vector`/`gpsimd`/`scalar`/`tensor` or the enum's numbers
    /// (`tensor=1`, `scalar=2`, `gpsimd=3`, `vector=5`, `unknown=0`).
    pub fn parse(s: &str) -> Option<NkiEngine> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "unknown" | "0" | "unknown_engine" => NkiEngine::Unknown,
            "vector" | "5" | "vector_engine" => NkiEngine::Vector,
            "gpsimd" | "3" | "gpsimd_engine" => NkiEngine::Gpsimd,
            "scalar" | "2" | "scalar_engine" => NkiEngine::Scalar,
            "tensor" | "1" | "tensor_engine" => NkiEngine::Tensor,
            _ => return None,
        })
    }
}

/// `name` as a `&'static str` for error messages: each distinct parameter name is stored
/// once (the set of names the call definitions use is small and fixed).
pub fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&n) = names.iter().find(|&&n| n == name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(n);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_mismatch_names_the_parameter() {
        let names = [intern("dst"), intern("op0")];
        let values = [Arg::Absent, Arg::Int(3)];
        let a = Args::new(&names, &values);
        let e = a.alu(1).unwrap_err().to_string();
        assert!(
            e.starts_with("op0: the lowering reads an ALU operator"),
            "{e}"
        );
        assert!(a.tile(0).is_err());
        assert_eq!(a.int_opt(1), Ok(Some(3)));
        assert_eq!(intern("dst").as_ptr(), names[0].as_ptr());
    }
}
