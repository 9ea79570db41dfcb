//! The PE instructions tpb decodes but does not run (isa-facts-pe-act-dma §1.10; issue 29
//! item 22): each run is refused as not supported, naming the fact that is missing.

use tpb_isa::text::{asm, AsmOptions};
use tpb_isa::Gen;
use tpb_sim::{Config, FaultCause, Machine};

// §1.10.1–§1.10.4: PE_REG_WRITE, LDTAGS and CONV_LUT_LOAD are public by name only; the sparse
// format, the seed PRNG and the MX scale order are not public.
#[test]
fn other_pe_instructions_are_refused_with_the_missing_fact() {
    for (gen, text, fact) in [
        (Gen::Cayman, "pe_reg_write", "§1.10.2"),
        (Gen::Cayman, "load_tags", "§1.10.2"),
        (Gen::Cayman, "matmul_sparse", "sparse format"),
        (Gen::Cayman, "conv_lut_load", "§1.10.2"),
        (
            Gen::Mariana,
            "pe_manage_seed num_active_rows=16 num_active_cols=128",
            "PRNG",
        ),
        (Gen::Mariana, "load_weights_mx", "block scales"),
        (Gen::Mariana, "matmul_mx", "§1.10.4"),
    ] {
        let a = asm(text, &AsmOptions::new(gen)).expect("assembles");
        let inst = a.instructions().next().expect("one").inst;
        let mut m = Machine::new(Config::new(gen));
        let err = m.step(&inst).expect_err("refused");
        match &err.cause {
            FaultCause::Unsupported { what } => {
                assert!(what.contains(fact), "{text}: {what}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}
