//! Library half of the `tpb` command-line tool: `.npy` I/O and command implementations.
#![warn(missing_docs)]

pub mod atomic;
pub mod cmd;
pub mod npy;
