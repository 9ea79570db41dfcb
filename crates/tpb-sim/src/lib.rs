//! # tpb-sim — bit-exact reference simulator for the TPB instruction slice
#![warn(missing_docs)]

pub mod numerics;
