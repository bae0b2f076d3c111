//! Invents one scholarly paper, technical report or slide deck: title,
//! authors with affiliations, the venue's masthead and dates, its DOI, and
//! a body with references whose years and DOIs are traps. People, places
//! and publishers come from `invent`; labels from `lang::paper_labels`.
//! How it is typeset is `paper_tex.rs` (pdflatex) or `paper_lopdf.rs`.

use serde_json::{Value, json};
use unicode_normalization::UnicodeNormalization;

use super::fonts::Fonts;
use super::invent::{self, Person, cap};
use super::lang::{self, Lang, paper_labels};
use super::latex::Tex;
use super::pages::{Field, Printed};
use super::rng::Rng;
use super::{paper_lopdf, paper_tex};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Paper,
    Report,
    Slides,
}

impl Kind {
    pub fn key(self) -> &'static str {
        match self {
            Kind::Paper => "paper",
            Kind::Report => "report",
            Kind::Slides => "slides",
        }
    }
}

/// Where a paper appeared, which decides its masthead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Venue {
    Journal,
    Proceedings,
    Preprint,
    Manuscript,
}

#[derive(Clone, Debug)]
pub struct Author {
    /// As printed, and the truth form.
    pub name: String,
    /// Indexes into `Paper::affiliations`.
    pub affs: Vec<usize>,
    pub email: Option<String>,
    pub orcid: Option<String>,
    pub corresponding: bool,
    pub equal: bool,
}

impl Author {
    /// Superscript marks: affiliation numbers, "*" for the corresponding
    /// author, "†" for equal contribution.
    pub fn marks(&self, numbered: bool) -> Vec<String> {
        let mut m: Vec<String> = if numbered {
            self.affs.iter().map(|a| (a + 1).to_string()).collect()
        } else {
            vec![]
        };
        if self.corresponding {
            m.push("*".into());
        }
        if self.equal {
            m.push("\u{2020}".into());
        }
        m
    }
}

#[derive(Clone, Debug)]
pub struct Paper {
    pub id: String,
    pub kind: Kind,
    pub venue: Venue,
    pub lang: Lang,
    pub title: String,
    pub subtitle: Option<String>,
    pub authors: Vec<Author>,
    pub affiliations: Vec<String>,
    /// The truth year: publication, not submission, not the references.
    pub year: Option<i32>,
    /// Other years a reader may fairly take (a preprint stamp's).
    pub alt_years: Vec<i32>,
    /// The printed line that carries the truth year, looked for on page 1.
    pub year_form: Option<String>,
    /// Lines above the title: journal, volume and pages, proceedings.
    pub masthead: Vec<String>,
    /// "Research Article" and the like.
    pub label: Option<String>,
    /// "Received … / Accepted … / Published …".
    pub dates: Vec<String>,
    pub doi: Option<String>,
    /// The DOI as printed ("doi:10.…", "https://doi.org/10.…").
    pub doi_line: Option<String>,
    /// Truth publisher, when a line names it.
    pub publisher: Option<String>,
    /// First-page footnotes: corresponding author, copyright, licence.
    pub footnotes: Vec<String>,
    pub running_head: Option<String>,
    /// A sideways preprint identifier in the left margin.
    pub stamp: Option<String>,
    /// A date (or "Draft of …") under the authors.
    pub date_line: Option<String>,
    /// Reports: "Technical Report TR-2019-07".
    pub report_line: Option<String>,
    /// Slides: the event.
    pub event: Option<String>,
    pub abstract_head: String,
    pub abstract_text: String,
    pub keywords: Option<String>,
    pub sections: Vec<(String, Vec<String>)>,
    pub ref_head: String,
    pub references: Vec<String>,
}

/// ASCII letters of a name, for e-mail addresses.
fn ascii(s: &str) -> String {
    s.nfkd()
        .filter(|c| c.is_ascii_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

const TOPICS: [&str; 14] = [
    "Applied Geophysics",
    "Computational Linguistics",
    "Soil Science",
    "Machine Learning",
    "Numerical Methods",
    "Environmental Modelling",
    "Quantitative Finance",
    "Software Engineering",
    "Marine Ecology",
    "Statistical Computing",
    "Transport Research",
    "Signal Processing",
    "Information Retrieval",
    "Materials Chemistry",
];

fn acronym(rng: &mut Rng) -> String {
    let c = [
        "B", "C", "D", "F", "G", "K", "L", "M", "N", "P", "R", "S", "T", "V", "Z",
    ];
    let v = ["A", "E", "I", "O", "U"];
    let mut s = String::new();
    for _ in 0..rng.range(1, 2) {
        s.push_str(c[rng.below(c.len())]);
        s.push_str(v[rng.below(v.len())]);
        if rng.chance(0.6) {
            s.push_str(c[rng.below(c.len())]);
        }
    }
    s
}

fn title_en(rng: &mut Rng) -> (String, Option<String>) {
    let method = *rng.pick(&[
        "Graph Neural Networks",
        "Sparse Regression",
        "Bayesian Optimisation",
        "Finite Volume Schemes",
        "Random Projections",
        "Kernel Density Estimation",
        "Mixed-Integer Programming",
        "Transformer Models",
        "Particle Filters",
        "Spectral Clustering",
        "Gaussian Processes",
        "Model Predictive Control",
        "Variational Autoencoders",
        "Boosted Trees",
        "Agent-Based Simulation",
    ]);
    let task = *rng.pick(&[
        "Soil Moisture Estimation",
        "Traffic Forecasting",
        "Anomaly Detection",
        "Crop Yield Prediction",
        "Code Search",
        "Speech Enhancement",
        "Seismic Inversion",
        "Entity Linking",
        "Load Balancing",
        "Rainfall Nowcasting",
        "Fault Localisation",
        "Image Segmentation",
        "Portfolio Selection",
        "Dialect Identification",
        "Sediment Transport Modelling",
    ]);
    let domain = *rng.pick(&[
        "Sensor Networks",
        "Coastal Wetlands",
        "Distributed Storage",
        "Low-Resource Languages",
        "Urban Freight",
        "Alpine Catchments",
        "Electricity Markets",
        "Historical Newspapers",
        "Small Satellites",
        "Open-Source Repositories",
    ]);
    let adj = *rng.pick(&[
        "Scalable",
        "Robust",
        "Efficient",
        "Interpretable",
        "Adaptive",
        "Lightweight",
        "Uncertainty-Aware",
        "Data-Driven",
        "Fast",
        "Provably Stable",
    ]);
    let prop = *rng.pick(&[
        "Convergence",
        "Stability",
        "Robustness",
        "Sample Complexity",
        "Limits",
        "Identifiability",
    ]);
    let title = match rng.below(7) {
        0 => format!("{adj} {task} with {method}"),
        1 => format!("{method} for {task} in {domain}"),
        2 => format!("On the {prop} of {method}"),
        3 => format!("Towards {adj} {task}"),
        4 => format!(
            "A {} of {task} in {domain}",
            rng.pick(&[
                "Comparative Study",
                "Case Study",
                "Survey",
                "Large-Scale Evaluation",
                "Systematic Review"
            ])
        ),
        5 => format!("{task} Revisited"),
        _ => format!("What {method} Can and Cannot Tell Us about {domain}"),
    };
    if rng.chance(0.15) {
        // "ACRONYM: what it does"
        return (acronym(rng), Some(format!("{adj} {task} with {method}")));
    }
    let place = invent::place_name(rng, Lang::En);
    let sub = rng.chance(0.3).then(|| match rng.below(5) {
        0 => format!("A Case Study in {domain}"),
        1 => format!("Evidence from {place}"),
        2 => "Theory and Experiments".to_string(),
        3 => "A Benchmark and Baselines".to_string(),
        _ => format!("Lessons from {} Years of {domain}", rng.range(3, 30)),
    });
    (title, sub)
}

fn title_of(rng: &mut Rng, lang: Lang) -> (String, Option<String>) {
    let place = invent::place_name(rng, lang);
    match lang {
        Lang::En => title_en(rng),
        Lang::De => {
            let task = *rng.pick(&[
                "Schätzung der Bodenfeuchte",
                "Vorhersage des Verkehrsaufkommens",
                "Erkennung von Anomalien in Messreihen",
                "Segmentierung von Luftbildern",
                "Lokalisierung von Softwarefehlern",
                "Analyse historischer Zeitungen",
                "Modellierung des Sedimenttransports",
            ]);
            let method = *rng.pick(&[
                "neuronaler Netze",
                "dünnbesetzter Regression",
                "Gaußscher Prozesse",
                "gemischt-ganzzahliger Optimierung",
                "agentenbasierter Simulation",
            ]);
            let t = match rng.below(4) {
                0 => format!("Zur {task}"),
                1 => format!("{task} mit Hilfe {method}"),
                2 => format!("Ein Beitrag zur {task}"),
                _ => format!("Untersuchungen zur {task} in {place}"),
            };
            let s = rng.chance(0.3).then(|| {
                rng.pick(&[
                    "Eine Fallstudie".to_string(),
                    "Theorie und Experimente".to_string(),
                    format!("Ergebnisse aus {place}"),
                ])
                .clone()
            });
            (t, s)
        }
        Lang::Fr => {
            let task = *rng.pick(&[
                "l'estimation de l'humidité des sols",
                "la prévision du trafic urbain",
                "la détection d'anomalies",
                "la segmentation d'images aériennes",
                "la localisation de fautes logicielles",
                "l'analyse de journaux anciens",
            ]);
            let method = *rng.pick(&[
                "réseaux de neurones",
                "régression parcimonieuse",
                "processus gaussiens",
                "simulation multi-agents",
            ]);
            let t = match rng.below(4) {
                0 => format!("Sur {task}"),
                1 => format!(
                    "Une méthode {} pour {task}",
                    rng.pick(&["robuste", "rapide", "adaptative", "économe"])
                ),
                2 => format!("{} par {method}", cap(task)),
                _ => format!("Contribution à {task}"),
            };
            let s = rng.chance(0.3).then(|| {
                rng.pick(&[
                    "Une étude de cas".to_string(),
                    "Théorie et expériences".to_string(),
                    format!("Le cas de {place}"),
                ])
                .clone()
            });
            (t, s)
        }
        Lang::Ru => {
            let task = *rng.pick(&[
                "оценки влажности почвы",
                "прогнозирования трафика",
                "обнаружения аномалий",
                "сегментации изображений",
                "анализа исторических газет",
            ]);
            let t = match rng.below(3) {
                0 => format!("Метод {task}"),
                1 => format!("О задаче {task}"),
                _ => format!("Алгоритм {task} на основе нейронных сетей"),
            };
            let s = rng
                .chance(0.25)
                .then(|| rng.pick(&["Теория и эксперимент", "Обзор"]).to_string());
            (t, s)
        }
    }
}

/// A person's name as a paper prints it: full, or with initials.
fn author_name(p: &Person, initials: bool) -> String {
    let given = if initials {
        p.given
            .split([' ', '-'])
            .filter_map(|g| g.chars().next())
            .map(|c| format!("{c}."))
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        p.given.clone()
    };
    match &p.particle {
        Some(part) => format!("{given} {part} {}", p.family),
        None => format!("{given} {}", p.family),
    }
}

fn affiliation(rng: &mut Rng, lang: Lang) -> String {
    let l = paper_labels(lang);
    let place = invent::place_name(rng, lang);
    let city = rng.pick(invent::cities(lang)).to_string();
    let fam = invent::family_name(rng, lang);
    match rng.below(5) {
        0 | 1 => format!(
            "{}, {}, {city}",
            rng.pick(l.department),
            rng.pick(l.university).replace("{}", &place)
        ),
        2 => format!("{}, {city}", rng.pick(l.university).replace("{}", &place)),
        3 => format!("{}, {city}", rng.pick(l.institute).replace("{}", &fam)),
        _ => {
            // Affiliations of another language turn up in every paper.
            let other = *rng.pick(&[Lang::En, Lang::De, Lang::Fr]);
            let lo = paper_labels(other);
            format!(
                "{}, {}",
                lo.university
                    .first()
                    .unwrap()
                    .replace("{}", &invent::place_name(rng, other)),
                rng.pick(invent::cities(other))
            )
        }
    }
}

fn date(rng: &mut Rng, lang: Lang, year: i32) -> String {
    let day = rng.range(1, 28);
    let m = lang::month(rng, lang);
    match lang {
        Lang::En if rng.chance(0.5) => format!("{m} {day}, {year}"),
        Lang::En => format!("{day} {m} {year}"),
        Lang::De => format!("{day}. {m} {year}"),
        Lang::Fr => format!("{day} {m} {year}"),
        Lang::Ru => format!("{day:02}.{:02}.{year}", rng.range(1, 12)),
    }
}

fn initials(s: &str) -> String {
    let i: String = s
        .split_whitespace()
        .filter(|w| w.len() > 3)
        .filter_map(|w| w.chars().find(|c| c.is_ascii_alphabetic()))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if i.is_empty() { "j".into() } else { i }
}

fn doi_for(rng: &mut Rng, abbr: &str, year: i32, vol: i64) -> String {
    let reg = rng.range(50000, 69999);
    match rng.below(4) {
        0 => format!(
            "10.{reg}/j.{abbr}.{year}.{:02}.{:03}",
            rng.range(1, 12),
            rng.range(1, 999)
        ),
        1 => format!("10.{reg}/{abbr}.{year}.{}", rng.range(1000, 99999)),
        2 => format!(
            "10.{reg}/s{}-{:03}-{:05}-{}",
            rng.range(10000, 49999),
            year % 100,
            rng.range(100, 9999),
            rng.range(0, 9)
        ),
        _ => format!("10.{reg}/{abbr}.v{vol:03}.i{:02}", rng.range(1, 12)),
    }
}

fn doi_line(rng: &mut Rng, doi: &str) -> String {
    match rng.below(5) {
        0 => format!("doi:{doi}"),
        1 => format!("DOI {doi}"),
        2 => format!("https://doi.org/{doi}"),
        3 => format!("DOI: {doi}"),
        _ => format!("http://dx.doi.org/{doi}"),
    }
}

fn journal_name(rng: &mut Rng, lang: Lang) -> String {
    let topic = *rng.pick(&TOPICS);
    let place = invent::place_name(rng, lang);
    match lang {
        Lang::De => format!(
            "Zeitschrift für {}",
            rng.pick(&[
                "Angewandte Informatik",
                "Geowissenschaften",
                "Statistik",
                "Verkehrsforschung"
            ])
        ),
        Lang::Fr => format!(
            "{} de {}",
            rng.pick(&["Revue", "Cahiers", "Annales"]),
            rng.pick(&["l'informatique", "géosciences", "statistique appliquée"])
        ),
        Lang::Ru => format!(
            "{} {}",
            rng.pick(&["Вестник", "Журнал"]),
            rng.pick(&["прикладной информатики", "геофизики", "статистики"])
        ),
        Lang::En => match rng.below(6) {
            0 => format!("Journal of {topic}"),
            1 => format!("{place} Journal of {topic}"),
            2 => format!("Annals of {topic}"),
            3 => format!("{topic} Letters"),
            4 => format!("International Journal of {topic} Research"),
            _ => format!("Transactions on {topic}"),
        },
    }
}

fn reference(rng: &mut Rng, lang: Lang, n: usize, year: i32) -> String {
    let k = rng.range(1, 3) as usize;
    let people: Vec<Person> = (0..k).map(|_| invent::person(rng, lang)).collect();
    let y = year - rng.range(0, 25) as i32;
    let (t, _) = title_of(rng, lang);
    let j = journal_name(rng, lang);
    let vol = rng.range(1, 90);
    let p1 = rng.range(1, 900);
    let p2 = p1 + rng.range(5, 30);
    let doi = doi_for(rng, &initials(&j), y, vol);
    let inits = |p: &Person| -> String {
        p.given
            .split([' ', '-'])
            .filter_map(|g| g.chars().next())
            .map(|c| format!("{c}."))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match rng.below(3) {
        0 => {
            let names: Vec<String> = people
                .iter()
                .map(|p| format!("{}, {}", p.family, inits(p)))
                .collect();
            format!(
                "{} ({y}). {t}. {j}, {vol}({}), {p1}\u{2013}{p2}. https://doi.org/{doi}",
                names.join(", "),
                rng.range(1, 12)
            )
        }
        1 => {
            let names: Vec<String> = people
                .iter()
                .map(|p| format!("{} {}", inits(p), p.family))
                .collect();
            format!(
                "[{}] {}. {t}. In Proc. {}, pages {p1}\u{2013}{p2}, {y}.",
                n + 1,
                names.join(" and "),
                j.replace("Journal", "Conference")
            )
        }
        _ => {
            let names: Vec<String> = people
                .iter()
                .map(|p| format!("{} {}", p.family, inits(p).replace(['.', ' '], "")))
                .collect();
            format!(
                "{}: {t}. {j} {vol}, {p1}\u{2013}{p2} ({y}). doi:{doi}",
                names.join(", ")
            )
        }
    }
}

fn paragraph(rng: &mut Rng, lang: Lang, cites: &[(String, i32)], numeric: bool) -> String {
    let n = rng.range(3, 6);
    let mut s = Vec::new();
    for _ in 0..n {
        let mut sent = lang::sentence(rng, lang);
        if !cites.is_empty() && rng.chance(0.4) {
            sent.pop();
            let i = rng.below(cites.len());
            if numeric {
                sent.push_str(&format!(" [{}].", i + 1));
            } else {
                let (fam, y) = &cites[i];
                sent.push_str(&format!(" ({fam}, {y})."));
            }
        }
        s.push(sent);
    }
    s.join(" ")
}

/// Invents paper `id` of the given kind.
pub fn invent(rng: &mut Rng, id: String, kind: Kind, lang: Lang) -> Paper {
    let l = paper_labels(lang);
    let (title, subtitle) = title_of(rng, lang);
    let n_authors = match kind {
        Kind::Slides => rng.range(1, 3) as usize,
        Kind::Report => rng.range(1, 5) as usize,
        Kind::Paper => [1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 8, 12][rng.below(12)],
    };
    let n_affs = (rng.range(1, 4) as usize).min(n_authors);
    let affiliations: Vec<String> = (0..n_affs).map(|_| affiliation(rng, lang)).collect();
    let initial_style = lang != Lang::Ru && rng.chance(0.3);
    let corr = rng.below(n_authors);
    let equal = rng.chance(0.15);
    let domain = rng
        .pick(&["edu", "ac.uk", "de", "fr", "org", "com"])
        .to_string();
    let mut authors = Vec::new();
    for i in 0..n_authors {
        let p = invent::person(rng, lang);
        let short = initial_style && rng.chance(0.8);
        let name = author_name(&p, short);
        let mut affs = vec![if i < n_affs { i } else { rng.below(n_affs) }];
        if n_affs > 1 && rng.chance(0.15) {
            let other = rng.below(n_affs);
            if other != affs[0] {
                affs.push(other);
            }
        }
        let email = rng.chance(0.4).then(|| {
            let g = ascii(&p.given);
            let f = ascii(&p.family);
            let user = match rng.below(3) {
                0 => format!("{g}.{f}"),
                1 => format!("{}{f}", g.chars().next().unwrap_or('x')),
                _ => f.clone(),
            };
            format!(
                "{user}@{}.{domain}",
                ascii(&invent::place_name(rng, Lang::En))
            )
        });
        let orcid = rng.chance(0.15).then(|| {
            format!(
                "0000-000{}-{:04}-{:04}",
                rng.range(1, 3),
                rng.range(0, 9999),
                rng.range(0, 9999)
            )
        });
        authors.push(Author {
            name,
            affs,
            email,
            orcid,
            corresponding: n_authors > 1 && i == corr && rng.chance(0.7),
            equal: equal && i < 2,
        });
    }
    let y = rng.range(1995, 2025) as i32;
    let venue = match kind {
        Kind::Paper => [
            Venue::Journal,
            Venue::Proceedings,
            Venue::Preprint,
            Venue::Manuscript,
        ][rng.weighted(&[0.45, 0.2, 0.17, 0.18])],
        _ => Venue::Manuscript,
    };
    let journal = journal_name(rng, lang);
    let abbr = initials(&journal);
    let vol = rng.range(1, 120);
    let no = rng.range(1, 12);
    let p1 = rng.range(1, 2400);
    let p2 = p1 + rng.range(8, 30);
    let mut masthead = Vec::new();
    let mut label = None;
    let mut dates = Vec::new();
    let mut doi = None;
    let mut publisher = None;
    let mut footnotes = Vec::new();
    let mut running_head = None;
    let mut stamp = None;
    let mut date_line = None;
    let mut report_line = None;
    let mut event = None;
    let mut year = Some(y);
    let mut year_form = None;
    let mut alt_years = Vec::new();
    let publisher_name = invent::publisher_name(rng, lang);
    let copyright = |rng: &mut Rng, who: Option<&str>| -> String {
        match who {
            Some(p) => match rng.below(3) {
                0 => format!("\u{a9} {y} {p}. All rights reserved."),
                1 => format!("\u{a9} The Author(s) {y}. Published by {p}."),
                _ => format!("Copyright \u{a9} {y} {p}"),
            },
            None => format!(
                "\u{a9} {y} The {}",
                if authors.len() > 1 {
                    "Authors"
                } else {
                    "Author"
                }
            ),
        }
    };
    match (kind, venue) {
        (Kind::Paper, Venue::Journal) => {
            let issue = match rng.below(4) {
                0 => format!("Vol. {vol}, No. {no}, pp. {p1}\u{2013}{p2}, {y}"),
                1 => format!("{journal} {vol} ({y}) {p1}\u{2013}{p2}"),
                2 => format!("Volume {vol}, Issue {no}, {y}, Pages {p1}\u{2013}{p2}"),
                _ => format!("{y}, {vol}({no}): {p1}\u{2013}{p2}"),
            };
            if !issue.starts_with(&journal) {
                masthead.push(journal.clone());
            }
            masthead.push(issue.clone());
            year_form = Some(issue.clone());
            label = rng.chance(0.5).then(|| rng.pick(l.article).to_string());
            if rng.chance(0.7) {
                let sub_y = y - rng.range(0, 1) as i32;
                dates.push(format!("{} {}", l.received, date(rng, lang, sub_y)));
                if rng.chance(0.4) {
                    dates.push(format!("{} {}", l.revised, date(rng, lang, sub_y)));
                }
                dates.push(format!("{} {}", l.accepted, date(rng, lang, y)));
                if rng.chance(0.6) {
                    dates.push(format!("{} {}", l.published, date(rng, lang, y)));
                }
            }
            if rng.chance(0.85) {
                doi = Some(doi_for(rng, &abbr, y, vol));
            }
            let who = rng.chance(0.5).then_some(publisher_name.as_str());
            footnotes.push(copyright(rng, who));
            if who.is_some() {
                publisher = Some(publisher_name.clone());
            }
            running_head = Some(match rng.below(3) {
                0 => format!("{journal} {vol} ({y})"),
                1 => title.clone(),
                _ => format!(
                    "{} et al.",
                    authors[0].name.split_whitespace().last().unwrap_or("")
                ),
            });
        }
        (Kind::Paper, Venue::Proceedings) => {
            let nth = rng.range(2, 40);
            let suffix = match nth % 10 {
                1 if nth != 11 => "st",
                2 if nth != 12 => "nd",
                3 if nth != 13 => "rd",
                _ => "th",
            };
            let short = acronym(rng);
            let city = rng.pick(invent::cities(Lang::En)).to_string();
            let line = match rng.below(3) {
                0 => format!(
                    "Proceedings of the {nth}{suffix} International Conference on {} ({short} {y}), {city}",
                    rng.pick(&TOPICS)
                ),
                1 => format!("{short} '{:02}, {city}, {y}", y % 100),
                _ => format!(
                    "In: Proceedings of the {} Workshop, {city}, {}",
                    rng.pick(&TOPICS),
                    date(rng, Lang::En, y)
                ),
            };
            year_form = Some(line.clone());
            if rng.chance(0.5) {
                masthead.push(line);
            } else {
                footnotes.push(line);
            }
            if rng.chance(0.5) {
                doi = Some(doi_for(rng, &short.to_lowercase(), y, nth));
            }
            if rng.chance(0.3) {
                let assoc = format!("Association for {}", rng.pick(&TOPICS));
                footnotes.push(format!("\u{a9} {y} {assoc}"));
                publisher = Some(assoc);
            }
        }
        (Kind::Paper, Venue::Preprint) => {
            let sy = y + if rng.chance(0.3) { 1 } else { 0 };
            let m = rng.range(1, 12);
            let cat = rng.pick(&[
                "cs.LG",
                "cs.CL",
                "stat.ME",
                "physics.geo-ph",
                "q-fin.ST",
                "cs.SE",
            ]);
            let mon = [
                "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
            ][m as usize - 1];
            let s = format!(
                "arXiv:{:02}{m:02}.{:05}v{}  [{cat}]  {} {mon} {sy}",
                sy % 100,
                rng.range(1, 29999),
                rng.range(1, 4),
                rng.range(1, 28)
            );
            if sy != y {
                // Posted after publication: the stamp's year is fair too.
                alt_years.push(sy);
                let line = format!("Published in {journal}, {y}");
                year_form = Some(line.clone());
                footnotes.push(line);
            } else {
                year_form = Some(format!("{mon} {sy}"));
                if rng.chance(0.4) {
                    footnotes.push("Preprint. Under review.".into());
                }
            }
            stamp = Some(s);
        }
        (Kind::Paper, Venue::Manuscript) => {
            if rng.chance(0.6) {
                let d = date(rng, lang, y);
                let line = if lang == Lang::En && rng.chance(0.4) {
                    format!("Draft of {d}")
                } else {
                    d
                };
                year_form = Some(line.clone());
                date_line = Some(line);
            } else {
                year = None;
            }
        }
        (Kind::Report, _) => {
            let inst = match rng.below(3) {
                0 => rng
                    .pick(l.university)
                    .replace("{}", &invent::place_name(rng, lang)),
                1 => rng
                    .pick(l.institute)
                    .replace("{}", &invent::family_name(rng, lang)),
                _ => format!(
                    "{}, {}",
                    rng.pick(l.department),
                    rng.pick(l.university)
                        .replace("{}", &invent::place_name(rng, lang))
                ),
            };
            report_line = Some(match rng.below(3) {
                0 => format!("{} TR-{y}-{:02}", rng.pick(l.report), rng.range(1, 40)),
                1 => format!("{} No. {y}/{:03}", rng.pick(l.report), rng.range(1, 200)),
                _ => format!("{} {}", rng.pick(l.report), rng.range(100, 999)),
            });
            let d = if rng.chance(0.5) {
                format!("{} {y}", lang::month(rng, lang))
            } else {
                date(rng, lang, y)
            };
            year_form = Some(d.clone());
            date_line = Some(d);
            masthead.push(inst.clone());
            publisher = Some(inst);
            if rng.chance(0.2) {
                doi = Some(doi_for(rng, "tr", y, 1));
            }
        }
        (Kind::Slides, _) => {
            let city = rng.pick(invent::cities(lang)).to_string();
            let ev = match rng.below(3) {
                0 => format!("{} Workshop on {}", acronym(rng), rng.pick(&TOPICS)),
                1 => format!("Research Seminar, {}", affiliation(rng, lang)),
                _ => format!("{} {y}", acronym(rng)),
            };
            let d = date(rng, lang, y);
            let line = format!("{ev}, {city}, {d}");
            year_form = Some(line.clone());
            event = Some(line);
        }
    }
    let doi_printed = doi.as_ref().map(|d| doi_line(rng, d));
    if let Some(a) = authors.iter().find(|a| a.corresponding) {
        let contact = a
            .email
            .clone()
            .unwrap_or_else(|| format!("{}@example.org", ascii(&a.name)));
        footnotes.insert(0, format!("* {}: {} ({contact})", l.corresponding, a.name));
    }
    if kind == Kind::Paper && rng.chance(0.2) {
        footnotes.push("This is an open access article under the CC BY licence.".into());
    }
    let n_refs = rng.range(6, 16) as usize;
    let references: Vec<String> = (0..n_refs).map(|i| reference(rng, lang, i, y)).collect();
    let numeric = references.iter().any(|r| r.starts_with('['));
    let cites: Vec<(String, i32)> = (0..n_refs)
        .map(|_| (invent::family_name(rng, lang), y - rng.range(0, 20) as i32))
        .collect();
    let mut heads: Vec<&str> = l.sections.to_vec();
    let keep = rng.range(3, heads.len().min(5) as i64) as usize;
    heads.truncate(keep);
    let sections = heads
        .iter()
        .map(|h| {
            let paras = (0..rng.range(1, 2))
                .map(|_| paragraph(rng, lang, &cites, numeric))
                .collect();
            (h.to_string(), paras)
        })
        .collect();
    let kw: Vec<String> = (0..rng.range(3, 6))
        .map(|_| lang::filler_words(lang).0[rng.below(10)].to_string())
        .collect();
    Paper {
        id,
        kind,
        venue,
        lang,
        title,
        subtitle,
        authors,
        affiliations,
        year,
        alt_years,
        year_form,
        masthead,
        label,
        dates,
        doi,
        doi_line: doi_printed,
        publisher,
        footnotes,
        running_head,
        stamp,
        date_line,
        report_line,
        event,
        abstract_head: rng.pick(l.abstract_).to_string(),
        abstract_text: paragraph(rng, lang, &[], false),
        keywords: rng
            .chance(0.6)
            .then(|| format!("{}: {}", rng.pick(l.keywords), kw.join(", "))),
        sections,
        ref_head: rng.pick(l.references).to_string(),
        references,
    }
}

/// The printed truth values every producer marks on page 1.
pub fn printed_on_first_page(p: &Paper, title_page: usize) -> Vec<Printed> {
    let mut out = Vec::new();
    let mut mark = |field: Field, key: &str, form: &str| {
        out.push(Printed {
            field,
            key: key.to_string(),
            page: title_page,
            form: form.to_string(),
            picture: false,
        })
    };
    mark(Field::Title, &p.title, &p.title);
    if let Some(s) = &p.subtitle {
        mark(Field::Subtitle, s, s);
    }
    for a in &p.authors {
        mark(Field::Authors, &a.name, &a.name);
    }
    if let (Some(y), Some(f)) = (p.year, &p.year_form) {
        mark(Field::Year, &y.to_string(), f);
    }
    if let Some(d) = &p.doi {
        mark(Field::Doi, d, d);
    }
    if let Some(pb) = &p.publisher {
        mark(Field::Publisher, pb, pb);
    }
    out
}

/// A generated paper, written.
pub struct Generated {
    pub paper: Paper,
    pub printed: Vec<Printed>,
    pub pdf: Vec<u8>,
    pub producer: String,
    /// Page sizes in points (for the scanned variant).
    pub sizes: Vec<(f32, f32)>,
    pub notes: Vec<String>,
}

/// Invents a paper, report or slide deck and typesets it: pdflatex
/// (article class, or beamer for slides) for a share of the Latin-script
/// ones when `tex` is given, else lopdf.
pub fn generate(
    rng: &mut Rng,
    id: &str,
    kind: Kind,
    fonts: &Fonts,
    tex: Option<&Tex>,
) -> Generated {
    let weights = if fonts.has_unicode() {
        [0.7, 0.1, 0.1, 0.1]
    } else {
        [0.75, 0.125, 0.125, 0.0]
    };
    let lang = [Lang::En, Lang::De, Lang::Fr, Lang::Ru][rng.weighted(&weights)];
    let paper = invent(rng, id.to_string(), kind, lang);
    let mut notes = Vec::new();
    let use_tex = tex.filter(|_| lang != Lang::Ru && rng.chance(0.6));
    if let Some(tex) = use_tex {
        let epoch = (paper.year.unwrap_or(2015) as i64 - 1970) * 31_557_600;
        match paper_tex::render(rng, &paper, tex, epoch) {
            Ok((pdf, producer)) => {
                let sizes = page_sizes(&pdf);
                return Generated {
                    printed: printed_on_first_page(&paper, 0),
                    paper,
                    pdf,
                    producer,
                    sizes,
                    notes,
                };
            }
            Err(e) => notes.push(format!("(pdflatex failed, lopdf used: {e})")),
        }
    }
    let (pdf, sizes, producer) = paper_lopdf::render(rng, &paper, fonts);
    Generated {
        printed: printed_on_first_page(&paper, 0),
        paper,
        pdf,
        producer,
        sizes,
        notes,
    }
}

/// Page sizes of a PDF, from its MediaBoxes.
fn page_sizes(pdf: &[u8]) -> Vec<(f32, f32)> {
    let Ok(doc) = lopdf::Document::load_mem(pdf) else {
        return vec![];
    };
    doc.get_pages()
        .values()
        .map(|id| {
            let b = doc
                .get_dictionary(*id)
                .ok()
                .and_then(|d| d.get(b"MediaBox").ok())
                .and_then(|o| o.as_array().ok())
                .map(|a| {
                    a.iter()
                        .map(|v| v.as_float().unwrap_or(0.0))
                        .collect::<Vec<f32>>()
                })
                .unwrap_or_else(|| vec![0.0, 0.0, 612.0, 792.0]);
            (b[2] - b[0], b[3] - b[1])
        })
        .collect()
}

/// The truth record of a generated paper, in the corpus schema.
pub fn truth(g: &Generated, file: &str, condition: &str, source: &str) -> Value {
    let p = &g.paper;
    let has = |f: Field| g.printed.iter().any(|x| x.field == f);
    let mut seen = serde_json::Map::new();
    for f in Field::ALL {
        if has(f) {
            seen.insert(f.key().into(), json!("front p1"));
        }
    }
    let mut notes = g.notes.clone();
    if p.kind == Kind::Paper {
        notes.push(format!("Layout: {:?}.", p.venue).to_lowercase());
    }
    if !p.dates.is_empty() {
        notes.push("Received/accepted dates are printed; the truth year is publication.".into());
    }
    if p.stamp.is_some() {
        notes.push("A sideways preprint stamp is in the left margin.".into());
    }
    notes.push("Years and DOIs in the references belong to other works.".into());
    let mut rec = json!({
        "file": file,
        "doc": p.id,
        "kind": p.kind.key(),
        "condition": condition,
        "truth": {
            "title": p.title,
            "subtitle": p.subtitle,
            "authors": p.authors.iter().map(|a| a.name.clone()).collect::<Vec<_>>(),
            "publisher": p.publisher,
            "year": p.year,
            "edition": Value::Null,
            "isbn": [],
            "doi": p.doi,
            "loc": Value::Null,
        },
        "seen": seen,
        "source": source,
        "lang": p.lang.code(),
        "notes": notes.join(" "),
    });
    if !p.alt_years.is_empty() {
        rec["alt"] = json!({ "year": p.alt_years });
    }
    rec
}
