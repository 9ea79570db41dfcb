//! NKI / NumPy operator names → ISA enums (docs/reference/nki-calls.md, "Operators").
//!
//! NKI passes operators as callables (`nl.multiply`, `numpy.greater_equal`); their names
//! are the NumPy ufunc names. Each maps to one `ALU_OP`; any ISA name `AluOp` knows
//! (`mult`, `is_ge`, `0x06`) is accepted too.

use crate::error::NkiError;
use std::fmt;
use tpb_isa::{ActFunc, AffineSelectCmp, AluOp, CodeEnum};

/// NumPy / `nki.language` operator names and the ALU op each lowers to.
const NUMPY_ALU_NAMES: &[(&str, AluOp)] = &[
    ("add", AluOp::ADD),
    ("subtract", AluOp::SUBTRACT),
    ("multiply", AluOp::MULT),
    ("maximum", AluOp::MAX),
    ("minimum", AluOp::MIN),
    // The legacy reductions' defaults (`reduce_op=np.amax`).
    ("amax", AluOp::MAX),
    ("amin", AluOp::MIN),
    ("divide", AluOp::DIVIDE),
    ("true_divide", AluOp::DIVIDE),
    ("power", AluOp::POW),
    ("mod", AluOp::MOD),
    // `numpy.remainder` / `numpy.fmod` (`nl.mod` / `nl.fmod`): not hardware TensorScalar ops,
    // so the validator refuses them; naming them lets it say why.
    ("remainder", AluOp::MOD),
    ("fmod", AluOp::MOD),
    ("equal", AluOp::IS_EQ),
    ("not_equal", AluOp::IS_NE),
    ("greater", AluOp::IS_GT),
    ("greater_equal", AluOp::IS_GE),
    ("less", AluOp::IS_LT),
    ("less_equal", AluOp::IS_LE),
    ("logical_and", AluOp::LOGICAL_AND),
    ("logical_or", AluOp::LOGICAL_OR),
    ("logical_xor", AluOp::LOGICAL_XOR),
    ("bitwise_and", AluOp::BITWISE_AND),
    ("bitwise_or", AluOp::BITWISE_OR),
    ("bitwise_xor", AluOp::BITWISE_XOR),
    ("invert", AluOp::BITWISE_NOT),
    ("bitwise_not", AluOp::BITWISE_NOT),
    // nki-semantics: `nl.left_shift` is both the arithmetic and the logical left shift
    // (the same bits); `nl.right_shift` is the logical one (arithmetic right: not in NKI).
    ("left_shift", AluOp::LOGICAL_SHIFT_LEFT),
    ("right_shift", AluOp::LOGICAL_SHIFT_RIGHT),
    ("absolute", AluOp::ABSOLUTE_VALUE),
    ("abs", AluOp::ABSOLUTE_VALUE),
    ("rsqrt", AluOp::RSQRT),
    ("square", AluOp::SQUARE),
    ("relu", AluOp::RE_LU),
    ("abs_max", AluOp::ABS_MAX),
    ("abs_min", AluOp::ABS_MIN),
];

/// The ALU op for an operator name: a NumPy ufunc name or an ISA `ALU_OP` name.
pub fn alu_op(name: &str) -> Option<AluOp> {
    NUMPY_ALU_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, op)| op)
        .or_else(|| AluOp::parse_name(name))
}

/// NKI activation `op` names (`nl.exp`, `numpy.tanh`, …) and the ACT function id each lowers
/// to: NKI's activation table (nki-api §3.0) against the compiler's catalog
/// (isa-facts-pe-act-dma §2.9). NumPy spells some differently (`absolute`, `log`).
const ACT_NAMES: &[(&str, ActFunc)] = &[
    ("copy", ActFunc::COPY),
    ("identity", ActFunc::IDENTITY),
    ("square", ActFunc::SQUARE),
    ("sigmoid", ActFunc::SIGMOID),
    ("relu", ActFunc::RELU),
    ("gelu", ActFunc::GELU),
    ("gelu_dx", ActFunc::DERIVATIVE_GELU),
    ("gelu_apprx_tanh", ActFunc::GELU_APPRX_TANH),
    ("gelu_apprx_sigmoid", ActFunc::GELU_APPRX_SIGMOID),
    (
        "gelu_apprx_sigmoid_dx",
        ActFunc::DERIVATIVE_GELU_APPRX_SIGMOID,
    ),
    ("silu", ActFunc::SILU),
    ("silu_dx", ActFunc::DERIVATIVE_SILU),
    ("tanh", ActFunc::TANH),
    ("softplus", ActFunc::SOFTPLUS),
    ("mish", ActFunc::MISH),
    ("erf", ActFunc::ERF),
    ("erf_dx", ActFunc::DERIVATIVE_ERF),
    ("exp", ActFunc::EXP),
    ("sign", ActFunc::SIGN),
    ("abs", ActFunc::ABS),
    ("absolute", ActFunc::ABS),
    ("log", ActFunc::LN),
    ("sin", ActFunc::SIN),
    ("arctan", ActFunc::ARCTAN),
    ("sqrt", ActFunc::SQRT),
    ("rsqrt", ActFunc::RSQRT),
    ("reciprocal", ActFunc::RECIPROCAL),
];

/// Element-wise names NKI has that no ACT function id computes (the catalog of
/// isa-facts-pe-act-dma §2.9 has none of them).
const NO_ACT_ID: &[&str] = &["cos", "tan", "ceil", "floor", "trunc", "negative"];

/// The ACT function for an activation `op` name (the NKI / NumPy names of [`ACT_NAMES`], or
/// an ISA `ACTIVATION_FUNC` name such as `derivative_gelu`).
pub fn act_func(name: &str) -> Result<ActFunc, NkiError> {
    let f = ACT_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, f)| f)
        .or_else(|| ActFunc::parse_name(name));
    match f {
        Some(ActFunc::PRELU | ActFunc::LRELU) => Err(NkiError::NotSupported {
            what: format!(
                "activation op {name}: its slope is the Activate imm operand, which NKI's \
                 activation does not take (nl.prelu's relu_param belongs to activate2, whose \
                 op order is not public)"
            ),
        }),
        Some(f) => Ok(f),
        None if NO_ACT_ID.contains(&name) => Err(NkiError::NotSupported {
            what: format!(
                "activation op {name}: no activation function id computes {name} (the \
                 compiler's catalog, isa-facts-pe-act-dma §2.9, has none)"
            ),
        }),
        None => Err(NkiError::Operator {
            argument: "op",
            detail: format!(
                "unknown activation function {name:?} (nl.exp, nl.tanh, numpy.sqrt, …: the \
                 names of NKI's activation table)"
            ),
        }),
    }
}

/// The comparison of an affine value with 0 (`cmp_op` of `affine_select`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `numpy.greater`: keep where `v > 0`.
    Greater,
    /// `numpy.greater_equal`: keep where `v >= 0`.
    GreaterEqual,
    /// `numpy.equal`: keep where `v == 0` (NKI's default).
    Equal,
    /// `numpy.not_equal`: keep where `v != 0`.
    NotEqual,
    /// `numpy.less`: no `AFFINE_SELECT_CMP` value; refused.
    Less,
    /// `numpy.less_equal`: no `AFFINE_SELECT_CMP` value; refused.
    LessEqual,
}

impl Cmp {
    /// Parses a NumPy comparison name (`greater_equal`) or an `AFFINE_SELECT_CMP` name (`ge`).
    pub fn parse(name: &str) -> Option<Cmp> {
        Some(match name {
            "greater" | "gt" | "greater_than" => Cmp::Greater,
            "greater_equal" | "ge" | "greater_than_eq" => Cmp::GreaterEqual,
            "equal" | "eq" => Cmp::Equal,
            "not_equal" | "ne" => Cmp::NotEqual,
            "less" | "lt" => Cmp::Less,
            "less_equal" | "le" => Cmp::LessEqual,
            _ => return None,
        })
    }

    /// The `fill_mode` byte, where the ISA has one (`AFFINE_SELECT_CMP`: GT, GE, EQ, NE).
    pub fn affine_select_cmp(self) -> Option<AffineSelectCmp> {
        match self {
            Cmp::Greater => Some(AffineSelectCmp::GREATER_THAN),
            Cmp::GreaterEqual => Some(AffineSelectCmp::GREATER_THAN_EQ),
            Cmp::Equal => Some(AffineSelectCmp::EQ),
            Cmp::NotEqual => Some(AffineSelectCmp::NOT_EQ),
            Cmp::Less | Cmp::LessEqual => None,
        }
    }

    /// The ALU compare op (`range_select`'s `comp_op0/1`).
    pub fn alu_op(self) -> AluOp {
        match self {
            Cmp::Greater => AluOp::IS_GT,
            Cmp::GreaterEqual => AluOp::IS_GE,
            Cmp::Equal => AluOp::IS_EQ,
            Cmp::NotEqual => AluOp::IS_NE,
            Cmp::Less => AluOp::IS_LT,
            Cmp::LessEqual => AluOp::IS_LE,
        }
    }
}

impl fmt::Display for Cmp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Cmp::Greater => "greater",
            Cmp::GreaterEqual => "greater_equal",
            Cmp::Equal => "equal",
            Cmp::NotEqual => "not_equal",
            Cmp::Less => "less",
            Cmp::LessEqual => "less_equal",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_and_isa_names_resolve() {
        assert_eq!(alu_op("multiply"), Some(AluOp::MULT));
        assert_eq!(alu_op("mult"), Some(AluOp::MULT));
        assert_eq!(alu_op("greater_equal"), Some(AluOp::IS_GE));
        assert_eq!(alu_op("0x06"), Some(AluOp::MULT));
        assert_eq!(alu_op("frobnicate"), None);
    }

    // nki-api §3.0 activation table → isa-facts-pe-act-dma §2.9 ids.
    #[test]
    fn activation_names_resolve_to_catalog_ids() {
        assert_eq!(act_func("exp"), Ok(ActFunc::EXP));
        assert_eq!(act_func("absolute"), Ok(ActFunc::ABS));
        assert_eq!(act_func("log"), Ok(ActFunc::LN));
        assert_eq!(act_func("gelu_dx"), Ok(ActFunc::DERIVATIVE_GELU));
        assert_eq!(act_func("derivative_silu"), Ok(ActFunc::DERIVATIVE_SILU));
        assert!(
            matches!(act_func("cos"), Err(NkiError::NotSupported { what }) if what.contains("§2.9"))
        );
        assert!(matches!(
            act_func("prelu"),
            Err(NkiError::NotSupported { .. })
        ));
        assert!(matches!(
            act_func("frobnicate"),
            Err(NkiError::Operator { .. })
        ));
        for (n, f) in ACT_NAMES {
            assert!(f.name().is_some(), "{n}: {f:?} is not a catalog id");
        }
    }

    #[test]
    fn less_has_no_affine_select_encoding() {
        assert_eq!(
            Cmp::parse("greater_equal").unwrap().affine_select_cmp(),
            Some(AffineSelectCmp::GREATER_THAN_EQ)
        );
        assert_eq!(Cmp::parse("less").unwrap().affine_select_cmp(), None);
        assert_eq!(Cmp::parse("nope"), None);
    }
}
