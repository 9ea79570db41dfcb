//! tpb reference simulator.
