//! Personal and corporate names as the exports need them: records hold
//! "First Last" strings, while BibTeX wants "von Last, Jr, First", CSL-JSON
//! `family`/`given` with particles, RIS "Last, First" and OPF a `file-as`.
//! One split, shared by every format, so they never disagree.
//!
//! The particle and suffix lists are the file-naming ones (`name.rs`),
//! plus [`SURNAME_PREFIXES`]: words that open a multi-word surname in the
//! languages that write them capitalised ("El Morabity", "Ó Laoghaire",
//! "Ní Bhriain"), which a reference manager must not cut off.

use crate::name::{is_cjk, is_particle, is_suffix};

/// Words that begin a surname of several words, beyond the particles of
/// file naming: Arabic `El`/`Al`/`Abu`/`bint`, Irish `Ó`/`Ní`/`Nic`/`Uí`/
/// `Ua`, Italian `dei`/`degli`/`dello`, German `vom`/`zum`/`zur`, Dutch
/// `op`/`'t`. Compared in lower case.
pub const SURNAME_PREFIXES: &[&str] = &[
    "el", "al", "abu", "bint", "ó", "ní", "nic", "uí", "ua", "dei", "degli", "dello", "vom", "zum",
    "zur", "op", "'t",
];

/// A word that belongs to the surname after it ("van", "de", "El", "Ó").
fn is_surname_prefix(word: &str) -> bool {
    is_particle(word) || SURNAME_PREFIXES.contains(&word.to_lowercase().as_str())
}

/// One author, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Person {
    /// An organisation ("World Health Organization", "R Core Team"):
    /// never split, never reordered.
    Corporate(String),
    Personal(Personal),
}

/// A personal name in the parts reference managers use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Personal {
    /// "Ludwig", "Beatrice L."; empty for a mononym or a CJK name written
    /// without a space.
    pub given: String,
    /// Lower-case particles before the family name ("van", "de la"). A
    /// capitalised particle ("De Morgan") is part of the family name.
    pub particle: String,
    pub family: String,
    /// "Jr.", "III".
    pub suffix: String,
}

/// Words that make a name an organisation's. Whole words, any case.
const CORPORATE_WORDS: &[&str] = &[
    "association",
    "agency",
    "board",
    "bureau",
    "center",
    "centre",
    "college",
    "commission",
    "committee",
    "company",
    "consortium",
    "corporation",
    "corp",
    "council",
    "department",
    "foundation",
    "group",
    "inc",
    "institute",
    "institution",
    "laboratory",
    "library",
    "ltd",
    "ministry",
    "museum",
    "office",
    "organisation",
    "organization",
    "press",
    "project",
    "society",
    "team",
    "university",
];

/// Splits one record author ("First Last", "Last, First", "Ludwig van
/// Beethoven", "Martin Luther King Jr.", "村上春樹", "World Health
/// Organization").
pub fn split(name: &str) -> Person {
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let words: Vec<&str> = name.split(' ').collect();
    let corporate = words.iter().any(|w| {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        CORPORATE_WORDS.contains(&w.as_str())
    }) || name.contains('&');
    if corporate {
        return Person::Corporate(name);
    }
    if name.chars().any(is_cjk) {
        // Family name first; with a space the rest is the given name.
        let (family, given) = name.split_once(' ').unwrap_or((&name, ""));
        return Person::Personal(Personal {
            family: family.to_string(),
            given: given.to_string(),
            ..Personal::default()
        });
    }
    // "Last, First" and "Last, Jr., First" as well as "First Last, Jr.".
    let parts: Vec<&str> = name.split(',').map(str::trim).collect();
    let (main, given_after, mut suffix) = match parts.as_slice() {
        [main] => (*main, None, String::new()),
        [main, s] if is_suffix(s) => (*main, None, s.to_string()),
        [last, first] => (*last, Some(*first), String::new()),
        [last, s, first, ..] => (*last, Some(*first), s.to_string()),
        [] => ("", None, String::new()),
    };
    let mut words: Vec<&str> = main.split(' ').filter(|w| !w.is_empty()).collect();
    if given_after.is_none() {
        while words.len() > 1 && words.last().is_some_and(|w| is_suffix(w)) {
            let s = words.pop().unwrap_or_default();
            suffix = if suffix.is_empty() {
                s.to_string()
            } else {
                format!("{s} {suffix}")
            };
        }
    }
    let (given, rest): (Vec<&str>, Vec<&str>) = match given_after {
        // "Last, First": every word before the comma is the surname part.
        Some(first) => (first.split(' ').collect(), words),
        None => {
            let Some(mut start) = words.len().checked_sub(1) else {
                return Person::Personal(Personal::default());
            };
            // Never eat the first word: "De Morgan" alone is a surname.
            while start > 1 && is_surname_prefix(words[start - 1]) {
                start -= 1;
            }
            (words[..start].to_vec(), words[start..].to_vec())
        }
    };
    // Leading lower-case particles of the surname part ("van der Berg").
    let lower =
        |w: &&&str| w.chars().next().is_some_and(char::is_lowercase) && is_surname_prefix(w);
    let n_particles = rest.iter().take_while(lower).count().min(rest.len() - 1);
    Person::Personal(Personal {
        given: given.join(" "),
        particle: rest[..n_particles].join(" "),
        family: rest[n_particles..].join(" "),
        suffix,
    })
}

impl Person {
    /// "van Beethoven, Ludwig" (RIS `AU`, OPF `file-as`): family first.
    pub fn sort_form(&self) -> String {
        match self {
            Person::Corporate(name) => name.clone(),
            Person::Personal(p) => {
                let mut s = p.last_part();
                if !p.suffix.is_empty() {
                    s = format!("{s}, {}", p.suffix);
                }
                if !p.given.is_empty() {
                    s = format!("{s}, {}", p.given);
                }
                s
            }
        }
    }

    /// The family name with its particle: "van Beethoven".
    pub fn last(&self) -> String {
        match self {
            Person::Corporate(name) => name.clone(),
            Person::Personal(p) => p.last_part(),
        }
    }
}

impl Personal {
    fn last_part(&self) -> String {
        if self.particle.is_empty() {
            self.family.clone()
        } else {
            format!("{} {}", self.particle, self.family)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn personal(given: &str, particle: &str, family: &str, suffix: &str) -> Person {
        Person::Personal(Personal {
            given: given.into(),
            particle: particle.into(),
            family: family.into(),
            suffix: suffix.into(),
        })
    }

    #[test]
    fn names_split_into_reference_manager_parts() {
        let cases = [
            ("Agnes Thornquist", personal("Agnes", "", "Thornquist", "")),
            ("Beatrice L. Hume", personal("Beatrice L.", "", "Hume", "")),
            (
                "Ludwig van Beethoven",
                personal("Ludwig", "van", "Beethoven", ""),
            ),
            ("Jan van der Berg", personal("Jan", "van der", "Berg", "")),
            ("Juan de la Cruz", personal("Juan", "de la", "Cruz", "")),
            (
                "Mohamed El Morabity",
                personal("Mohamed", "", "El Morabity", ""),
            ),
            ("Seán Ó Laoghaire", personal("Seán", "", "Ó Laoghaire", "")),
            ("Aoife Ní Bhriain", personal("Aoife", "", "Ní Bhriain", "")),
            (
                "El Morabity, Mohamed",
                personal("Mohamed", "", "El Morabity", ""),
            ),
            ("Hassan al Sayed", personal("Hassan", "al", "Sayed", "")),
            // A prefix is never the whole name: "Al Gore" keeps his given name.
            ("Al Gore", personal("Al", "", "Gore", "")),
            (
                "Augustus De Morgan",
                personal("Augustus", "", "De Morgan", ""),
            ),
            (
                "Martin Luther King Jr.",
                personal("Martin Luther", "", "King", "Jr."),
            ),
            ("King, Jr., Martin", personal("Martin", "", "King", "Jr.")),
            ("Müller, Jürgen", personal("Jürgen", "", "Müller", "")),
            (
                "Pauline Everard-Stroud",
                personal("Pauline", "", "Everard-Stroud", ""),
            ),
            ("Plato", personal("", "", "Plato", "")),
            ("村上春樹", personal("", "", "村上春樹", "")),
            ("村上 春樹", personal("春樹", "", "村上", "")),
            (
                "World Health Organization",
                Person::Corporate("World Health Organization".into()),
            ),
            ("R Core Team", Person::Corporate("R Core Team".into())),
            ("Smith & Sons", Person::Corporate("Smith & Sons".into())),
        ];
        for (name, want) in cases {
            assert_eq!(split(name), want, "{name}");
        }
    }

    #[test]
    fn sort_forms() {
        assert_eq!(
            split("Ludwig van Beethoven").sort_form(),
            "van Beethoven, Ludwig"
        );
        assert_eq!(
            split("Martin Luther King Jr.").sort_form(),
            "King, Jr., Martin Luther"
        );
        assert_eq!(split("Plato").sort_form(), "Plato");
        assert_eq!(split("R Core Team").sort_form(), "R Core Team");
        assert_eq!(split("Jan van der Berg").last(), "van der Berg");
    }
}
