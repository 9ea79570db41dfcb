//! NeuronCore generations and generation sets.

use std::fmt;

/// A NeuronCore generation (isa-facts §11). The default, where a user gives none, is
/// [`Gen::Cayman`] (decisions §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Gen {
    /// NC-v2 (Trn1 / Inf2).
    Sunda,
    /// NC-v3 (Trn2).
    #[default]
    Cayman,
    /// NC-v4 (Trn3); mariana_plus shares its ISA.
    Mariana,
    /// NC-v5 (unshipped; header-level facts only).
    Maverick,
}

impl Gen {
    /// Every generation, oldest first.
    pub const ALL: [Gen; 4] = [Gen::Sunda, Gen::Cayman, Gen::Mariana, Gen::Maverick];

    /// The lowercase codename used on the command line and in `.gen` directives.
    pub const fn name(self) -> &'static str {
        match self {
            Gen::Sunda => "sunda",
            Gen::Cayman => "cayman",
            Gen::Mariana => "mariana",
            Gen::Maverick => "maverick",
        }
    }

    /// Parses a codename (case-insensitive); also accepts `v2`..`v5`, `nc-v2`.., `trn1`..`trn3`.
    pub fn from_name(s: &str) -> Option<Gen> {
        let s = s.trim().to_ascii_lowercase();
        let s = s.strip_prefix("nc-").unwrap_or(&s);
        Some(match s {
            "sunda" | "v2" | "trn1" | "inf2" => Gen::Sunda,
            "cayman" | "v3" | "trn2" => Gen::Cayman,
            "mariana" | "mariana_plus" | "v4" | "trn3" => Gen::Mariana,
            "maverick" | "v5" => Gen::Maverick,
            _ => return None,
        })
    }

    /// This generation as a one-member set.
    pub const fn set(self) -> GenSet {
        GenSet(1 << self as u8)
    }
}

impl fmt::Display for Gen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of generations, used by the tables to say where a value exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GenSet(u8);

impl GenSet {
    /// All four generations.
    pub const ALL: GenSet = GenSet(0b1111);
    /// Sunda only.
    pub const SUNDA: GenSet = GenSet(0b0001);
    /// Cayman and later.
    pub const CAYMAN_UP: GenSet = GenSet(0b1110);
    /// Mariana and later.
    pub const MARIANA_UP: GenSet = GenSet(0b1100);
    /// Maverick only.
    pub const MAVERICK: GenSet = GenSet(0b1000);

    /// The raw bit mask (bit n = generation n, oldest first).
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether `gen` is in the set.
    pub const fn contains(self, gen: Gen) -> bool {
        self.0 & (1 << gen as u8) != 0
    }

    /// The members, oldest first.
    pub fn iter(self) -> impl Iterator<Item = Gen> {
        Gen::ALL.into_iter().filter(move |g| self.contains(*g))
    }
}

impl fmt::Display for GenSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == GenSet::ALL {
            return f.write_str("all generations");
        }
        let names: Vec<&str> = self.iter().map(Gen::name).collect();
        f.write_str(&names.join(", "))
    }
}
