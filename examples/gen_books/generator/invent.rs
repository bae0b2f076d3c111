//! Invents one book: its people, title, publisher, dates and identifiers.
//! Names are built from syllables, so that no real person is named on
//! purpose; publishers are built from those names; ISBNs are valid but
//! drawn from sparse registrant ranges (see `ident::registrant_block`).

use super::ident::{self, Isbn, Lccn};
use super::lang::Lang;
use super::rng::Rng;

/// A person as printed: given name(s), an optional particle ("van", "de la")
/// and a family name.
#[derive(Clone, Debug)]
pub struct Person {
    pub given: String,
    pub particle: Option<String>,
    pub family: String,
}

impl Person {
    /// "Given particle Family": the truth form.
    pub fn display(&self) -> String {
        match &self.particle {
            Some(p) => format!("{} {} {}", self.given, p, self.family),
            None => format!("{} {}", self.given, self.family),
        }
    }

    /// "Family, Given particle" as in a CIP block.
    pub fn inverted(&self) -> String {
        match &self.particle {
            Some(p) => format!("{}, {} {}", self.family, self.given, p),
            None => format!("{}, {}", self.family, self.given),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Authors,
    Editors,
}

/// One format of this edition, with its own ISBN.
#[derive(Clone, Debug)]
pub struct Format {
    /// Index into `Labels::formats` (hardback, paperback, ebook, PDF).
    pub kind: usize,
    pub isbn: Isbn,
}

/// Another book by the same author: its ISBN is a trap.
#[derive(Clone, Debug)]
pub struct OtherBook {
    pub title: String,
    pub year: i32,
    pub isbn: Isbn,
}

#[derive(Clone, Debug)]
pub struct Book {
    pub id: String,
    pub lang: Lang,
    pub title: String,
    pub subtitle: Option<String>,
    pub creators: Vec<Person>,
    pub role: Role,
    pub translators: Vec<Person>,
    pub illustrator: Option<Person>,
    pub publisher: String,
    pub places: Vec<String>,
    pub address: String,
    /// Year of this edition: the truth year.
    pub year: i32,
    /// Year of the first edition when this is a later one.
    pub first_year: Option<i32>,
    pub reprints: Vec<i32>,
    /// Edition number; `None` for a first edition.
    pub edition: Option<u32>,
    /// A first edition that prints "First edition" / "1. Auflage": its
    /// truth edition is "1".
    pub first_edition_stated: bool,
    pub formats: Vec<Format>,
    /// ISBN of the previous edition, printed as a trap on some copyright pages.
    pub previous_isbn: Option<Isbn>,
    pub lccn: Option<Lccn>,
    pub lccn_ebook: Option<Lccn>,
    pub doi: Option<String>,
    pub also_by: Vec<OtherBook>,
    pub series: Option<String>,
    pub dedicatee: String,
    pub chapters: Vec<String>,
    pub typesetter: String,
    pub printer: String,
    pub copyright_holder: String,
}

pub fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn syllables(rng: &mut Rng, heads: &[&str], tails: &[&str]) -> String {
    let mut s = rng.pick(heads).to_string();
    if rng.chance(0.25) {
        let cyrillic = s.chars().any(|c| ('\u{400}'..='\u{4ff}').contains(&c));
        let links: &[&str] = if cyrillic {
            &["а", "о", "е", "ин", "ар"]
        } else {
            &["a", "e", "i", "o", "el", "an", "er"]
        };
        let link = links[rng.below(links.len())];
        s.push_str(link);
    }
    let tail = tails[rng.below(tails.len())];
    s.push_str(tail);
    cap(&s.to_lowercase())
}

pub fn given_name(rng: &mut Rng, lang: Lang) -> String {
    match lang {
        Lang::En => syllables(
            rng,
            &[
                "Al", "Bri", "Cor", "Dar", "El", "Fen", "Gar", "Hal", "Is", "Jor", "Kel", "Lin",
                "Mar", "Nor", "Os", "Per", "Quin", "Ros", "Sel", "Tam", "Ul", "Ver", "Wyn", "Ari",
                "Bel", "Cal",
            ],
            &[
                "a", "an", "en", "ie", "ine", "is", "o", "on", "wyn", "ette", "ard", "ith", "ora",
                "ric", "iel", "anne",
            ],
        ),
        Lang::De => syllables(
            rng,
            &[
                "An", "Be", "Chri", "Die", "El", "Frie", "Gun", "Han", "Il", "Jo", "Kla", "Lie",
                "Mat", "Nor", "Ot", "Ru", "Sig", "Thil", "Ul", "Wal", "Hei", "Gi",
            ],
            &[
                "na", "bert", "ke", "drun", "se", "mar", "ger", "trud", "lind", "hild", "mund",
                "wig", "ko", "ra", "fried", "linde",
            ],
        ),
        Lang::Fr => syllables(
            rng,
            &[
                "A", "Bé", "Cla", "Do", "É", "Fran", "Gé", "Hé", "I", "Ja", "Lu", "Ma", "Ni", "O",
                "Pa", "Ré", "Si", "Thé", "Va", "Yo", "Au", "Cé",
            ],
            &[
                "line", "rard", "mie", "bert", "lise", "vin", "nic", "tienne", "rine", "leine",
                "lien", "mond", "dine", "çois", "lène", "gèle",
            ],
        ),
        Lang::Ru => syllables(
            rng,
            &[
                "Ар", "Бо", "Вла", "Гле", "Дми", "Ев", "Ил", "Кон", "Лео", "Ми", "Ни", "Ос", "Пав",
                "Ро", "Свя", "Ти", "Яр", "Ва", "Ле",
            ],
            &[
                "кадий",
                "рис",
                "димир",
                "б",
                "трий",
                "гений",
                "ья",
                "стантин",
                "нид",
                "хаил",
                "кита",
                "кар",
                "ел",
                "ман",
                "слав",
                "мофей",
                "лерий",
                "ина",
                "ьяна",
            ],
        ),
    }
}

pub fn family_name(rng: &mut Rng, lang: Lang) -> String {
    let base = match lang {
        Lang::En => syllables(
            rng,
            &[
                "Ash", "Bram", "Cald", "Dun", "Fair", "Gold", "Hart", "Kings", "Lang", "Mer",
                "North", "Pen", "Rad", "Shel", "Thorn", "Wal", "Whit", "Elder", "Brack", "Corm",
                "Tread", "Quill",
            ],
            &[
                "by", "combe", "ford", "ham", "ley", "more", "ridge", "ton", "well", "wick",
                "worth", "stead", "hurst", "gate", "lowe", "bury",
            ],
        ),
        Lang::De => syllables(
            rng,
            &[
                "Bau", "Eck", "Fal", "Grün", "Hol", "Kes", "Lin", "Moos", "Ros", "Schwal", "Stein",
                "Wal", "Zim", "Brun", "Hag", "Korn", "Lau", "Tann",
            ],
            &[
                "bach", "berger", "dorf", "hofer", "mann", "ner", "rath", "feld", "städt", "wald",
                "meier", "linger", "hausen", "eder", "inger",
            ],
        ),
        Lang::Fr => syllables(
            rng,
            &[
                "Beau", "Cha", "Dur", "Fon", "Gar", "La", "Mar", "Mon", "Pe", "Ro", "Ser", "Tes",
                "Vil", "Bré", "Dela", "Lam",
            ],
            &[
                "vert", "bert", "ret", "taine", "nier", "lard", "ceau", "mont", "chet", "rier",
                "zac", "vin", "court", "ville", "lieu",
            ],
        ),
        Lang::Ru => syllables(
            rng,
            &[
                "Бел", "Вор", "Гол", "Дуб", "Жур", "Зот", "Кры", "Лап", "Мор", "Нес", "Пол", "Рыб",
                "Сок", "Тар", "Уш", "Хол", "Чер", "Шуб",
            ],
            &[
                "ов",
                "ев",
                "ин",
                "енко",
                "ский",
                "ицкий",
                "кин",
                "анов",
                "цев",
                "ович",
            ],
        ),
    };
    if lang != Lang::Ru && rng.chance(0.08) {
        let other = family_name(rng, lang);
        return format!("{base}-{other}");
    }
    base
}

pub fn person(rng: &mut Rng, lang: Lang) -> Person {
    // Names of the other Latin-script languages turn up in every book.
    let name_lang = if lang != Lang::Ru && rng.chance(0.2) {
        *rng.pick(&[Lang::En, Lang::De, Lang::Fr])
    } else {
        lang
    };
    let mut given = given_name(rng, name_lang);
    if rng.chance(0.2) {
        let second = given_name(rng, name_lang);
        given = if rng.chance(0.5) && name_lang != Lang::Ru {
            format!("{given} {}.", second.chars().next().unwrap())
        } else if name_lang == Lang::Fr {
            format!("{given}-{second}")
        } else {
            format!("{given} {second}")
        };
    }
    let particle = match name_lang {
        _ if !rng.chance(0.15) => None,
        Lang::En => Some(*rng.pick(&["van", "van der", "van den", "de", "di"])),
        Lang::De => Some(*rng.pick(&["von", "von der", "zu", "van"])),
        Lang::Fr => Some(*rng.pick(&["de", "de la", "du", "des"])),
        Lang::Ru => None,
    };
    Person {
        given,
        particle: particle.map(str::to_string),
        family: family_name(rng, name_lang),
    }
}

pub fn place_name(rng: &mut Rng, lang: Lang) -> String {
    match lang {
        Lang::Ru => syllables(
            rng,
            &["Зареч", "Озёр", "Белогор", "Лесогор", "Камен", "Ясно"],
            &["ск", "ово", "инск", "ец"],
        ),
        _ => syllables(
            rng,
            &[
                "Har", "Elms", "Cal", "West", "Dun", "Ravens", "Ash", "Stow", "Kel", "Bryn", "Mor",
            ],
            &[
                "by", "ford", "mere", "holm", "wick", "dale", "haven", "moor", "field", "port",
            ],
        ),
    }
}

pub fn publisher_name(rng: &mut Rng, lang: Lang) -> String {
    let a = family_name(rng, lang);
    let b = family_name(rng, lang);
    let place = place_name(rng, lang);
    match lang {
        Lang::En => match rng.below(7) {
            0 => format!("{a} & {b}"),
            1 => format!("{place} University Press"),
            2 => format!("{a} Books"),
            3 => format!("{place} Press"),
            4 => format!("{a} and {b} Publishers"),
            5 => format!("{place} House"),
            _ => format!("{a} Academic"),
        },
        Lang::De => match rng.below(5) {
            0 => format!("{a} Verlag"),
            1 => format!("Verlag {a} & {b}"),
            2 => format!("{a} Fachverlag"),
            3 => format!("Edition {a}"),
            _ => format!("{place}er Verlagsanstalt"),
        },
        Lang::Fr => match rng.below(5) {
            0 => format!("Éditions {a}"),
            1 => format!("Presses universitaires de {place}"),
            2 => format!("{a} & Cie"),
            3 => format!("Librairie {a}"),
            _ => format!("Éditions du {place}"),
        },
        Lang::Ru => match rng.below(3) {
            0 => format!("Издательство «{a}»"),
            1 => format!("Издательский дом «{place}»"),
            _ => format!("{a} и партнёры"),
        },
    }
}

pub fn cities(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &[
            "London",
            "New York",
            "Oxford",
            "Boston",
            "Chicago",
            "Edinburgh",
            "Toronto",
            "Melbourne",
            "Cambridge, MA",
            "Dublin",
        ],
        Lang::De => &[
            "Berlin",
            "München",
            "Hamburg",
            "Leipzig",
            "Wien",
            "Zürich",
            "Stuttgart",
            "Heidelberg",
            "Köln",
        ],
        Lang::Fr => &[
            "Paris",
            "Lyon",
            "Bruxelles",
            "Genève",
            "Montréal",
            "Toulouse",
            "Rennes",
            "Lausanne",
        ],
        Lang::Ru => &[
            "Москва",
            "Санкт-Петербург",
            "Новосибирск",
            "Казань",
            "Екатеринбург",
        ],
    }
}

fn title_and_subtitle(rng: &mut Rng, lang: Lang) -> (String, Option<String>) {
    let y1 = rng.range(1600, 1950);
    let y2 = y1 + rng.range(20, 120);
    let (title, subs): (String, Vec<String>) = match lang {
        Lang::En => {
            let adj = rng.pick(&[
                "Silent", "Northern", "Hidden", "Quiet", "Broken", "Lost", "Distant", "Common",
                "Open", "Narrow", "Late", "Early", "Long", "Bright", "Hollow", "Shifting",
                "Second", "Last",
            ]);
            let noun = rng.pick(&[
                "River",
                "Harbour",
                "Archive",
                "Orchard",
                "Lantern",
                "Frontier",
                "Ledger",
                "Garden",
                "Compass",
                "Threshold",
                "Meridian",
                "Chorus",
                "Season",
                "Atlas",
                "Tide",
                "Commons",
                "Workshop",
                "Margin",
            ]);
            let noun2 = rng.pick(&[
                "Salt", "Iron", "Glass", "Paper", "Stone", "Wool", "Timber", "Clay", "Ink", "Bread",
            ]);
            let topic = rng.pick(&[
                "Soil Chemistry",
                "Medieval Trade",
                "Coastal Ecology",
                "Applied Statistics",
                "Urban Planning",
                "Signal Processing",
                "Bookbinding",
                "Glass Chemistry",
                "Rural Sociology",
                "Numerical Analysis",
                "Folk Music",
                "Textile History",
                "Bridge Engineering",
                "Plant Genetics",
                "Maritime Law",
                "Cartography",
                "Beekeeping",
                "Acoustics",
                "Public Finance",
                "Mineralogy",
            ]);
            let topic2 = rng.pick(&[
                "Trade",
                "Memory",
                "Labour",
                "Landscape",
                "Faith",
                "Law",
                "Water",
                "Language",
                "Power",
                "Kinship",
            ]);
            let place = place_name(rng, lang);
            let title = match rng.below(8) {
                0 => format!("The {adj} {noun}"),
                1 => format!("{noun2} and {noun}"),
                2 => format!("The {noun} of {place}"),
                3 => format!("An Introduction to {topic}"),
                4 => format!("Principles of {topic}"),
                5 => format!("A History of {topic}"),
                6 => format!("{topic} in Practice"),
                _ => format!("{adj} {noun2}"),
            };
            (
                title,
                vec![
                    format!("A History of {topic}"),
                    format!("Essays on {topic2} and {topic}"),
                    format!(
                        "{topic2} and {} in {place}",
                        rng.pick(&["Memory", "Trade", "Law", "Kinship"])
                    ),
                    "A Guide for Students and Practitioners".into(),
                    "Theory and Practice".into(),
                    "Methods, Models and Applications".into(),
                    format!("{topic2} in {place}, {y1}\u{2013}{y2}"),
                    format!("Notes from the {noun}"),
                    "A Novel".into(),
                    format!("Stories from {place}"),
                ],
            )
        }
        Lang::De => {
            let gn = rng.pick(&[
                "der Bodenchemie",
                "der Flussschifffahrt",
                "des Buchdrucks",
                "der Statistik",
                "der Stadtplanung",
                "der Signalverarbeitung",
                "des Brückenbaus",
                "der Pflanzengenetik",
                "der Kartografie",
                "der Akustik",
                "der Mineralogie",
                "der Volksmusik",
                "des Seerechts",
                "der Glasherstellung",
                "der Imkerei",
                "der linearen Optimierung",
            ]);
            let fem = rng.pick(&[
                "Grenze",
                "Stadt",
                "Küste",
                "Werkstatt",
                "Ordnung",
                "Brücke",
                "Stimme",
                "Landschaft",
            ]);
            let adjf = rng.pick(&[
                "stille",
                "verborgene",
                "nördliche",
                "lange",
                "offene",
                "letzte",
                "zweite",
                "ferne",
            ]);
            let masc = rng.pick(&[
                "Hafen", "Garten", "Fluss", "Kompass", "Winter", "Weg", "Spiegel",
            ]);
            let title = match rng.below(7) {
                0 => format!("Grundlagen {gn}"),
                1 => format!("Geschichte {gn}"),
                2 => format!("Handbuch {gn}"),
                3 => format!("Lehrbuch {gn}"),
                4 => format!("Die {} {fem}", cap(adjf)),
                5 => format!("Der {} {masc}", cap(adjf)),
                _ => format!("{masc} und {fem}"),
            };
            (
                title,
                vec![
                    "Eine Einführung".into(),
                    "Modelle, Methoden und Anwendungen".into(),
                    format!("Studien zur Geschichte {gn}"),
                    "Ein Lehrbuch für Studium und Praxis".into(),
                    "Roman".into(),
                    "Erzählungen".into(),
                    "Aufsätze und Vorträge".into(),
                    format!("Eine Geschichte {gn}, {y1}\u{2013}{y2}"),
                ],
            )
        }
        Lang::Fr => {
            let t = rng.pick(&[
                "la chimie des sols",
                "la statistique appliquée",
                "la phonétique",
                "l'acoustique",
                "la cartographie",
                "la géologie alpine",
                "l'apiculture",
                "la reliure",
                "la musique populaire",
                "la navigation fluviale",
                "l'urbanisme",
                "la botanique",
                "la minéralogie",
                "l'économie rurale",
            ]);
            let nm = rng.pick(&[
                "Le Jardin",
                "Le Port",
                "Le Fleuve",
                "Le Silence",
                "Le Seuil",
                "Le Passage",
            ]);
            let am = rng.pick(&["oublié", "lointain", "intérieur", "secret", "du nord"]);
            let nf = rng.pick(&[
                "La Maison",
                "La Frontière",
                "La Rive",
                "La Mémoire",
                "La Saison",
            ]);
            let af = rng.pick(&["oubliée", "lointaine", "intérieure", "secrète", "du nord"]);
            let title = match rng.below(6) {
                0 => format!("Introduction à {t}"),
                1 => format!("Histoire de {t}"),
                2 => format!("Manuel de {t}"),
                3 => format!("{nm} {am}"),
                4 => format!("{nf} {af}"),
                _ => format!("Initiation à {t}"),
            };
            (
                title,
                vec![
                    "Une introduction".into(),
                    "Théorie et pratique".into(),
                    "Essai".into(),
                    "Roman".into(),
                    "Nouvelles".into(),
                    "Méthodes et applications".into(),
                    format!("Études sur {t}"),
                    "Cours et exercices corrigés".into(),
                    format!("Histoire de {t}, {y1}\u{2013}{y2}"),
                ],
            )
        }
        Lang::Ru => {
            let gn = rng.pick(&[
                "почвоведения",
                "статистики",
                "картографии",
                "акустики",
                "минералогии",
                "градостроительства",
                "судоходства",
                "пчеловодства",
                "переплётного дела",
                "теории сигналов",
            ]);
            let title = match rng.below(4) {
                0 => format!("Основы {gn}"),
                1 => format!("История {gn}"),
                2 => format!("Очерки {gn}"),
                _ => rng
                    .pick(&[
                        "Тихая гавань",
                        "Северный берег",
                        "Долгая зима",
                        "Открытое море",
                        "Последний рубеж",
                        "Далёкий сад",
                    ])
                    .to_string(),
            };
            (
                title,
                vec![
                    "Учебное пособие".into(),
                    "Очерки и статьи".into(),
                    "Теория и практика".into(),
                    "Роман".into(),
                    "Рассказы".into(),
                    "Методы и приложения".into(),
                    "Курс лекций".into(),
                ],
            )
        }
    };
    let subtitle = if rng.chance(0.6) {
        Some(rng.pick(&subs).clone())
    } else {
        None
    };
    (title, subtitle)
}

fn chapter_titles(rng: &mut Rng, lang: Lang, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            let (t, _) = title_and_subtitle(rng, lang);
            t
        })
        .collect()
}

pub fn book(rng: &mut Rng, id: String, lang: Lang) -> Book {
    let (title, subtitle) = title_and_subtitle(rng, lang);
    let role = if rng.chance(0.15) {
        Role::Editors
    } else {
        Role::Authors
    };
    let n_creators = match role {
        Role::Editors => rng.range(1, 3) as usize,
        Role::Authors => [1, 1, 1, 1, 2, 2, 3][rng.below(7)],
    };
    let creators: Vec<Person> = (0..n_creators).map(|_| person(rng, lang)).collect();
    let translators = if rng.chance(0.12) {
        vec![person(rng, lang)]
    } else {
        vec![]
    };
    let illustrator = rng.chance(0.1).then(|| person(rng, lang));
    let publisher = publisher_name(rng, lang);
    let mut places: Vec<String> = vec![rng.pick(cities(lang)).to_string()];
    if rng.chance(0.3) {
        let other = rng.pick(cities(lang)).to_string();
        if other != places[0] {
            places.push(other);
        }
    }
    let street = family_name(rng, lang);
    let address = match lang {
        Lang::En => format!("{} {street} Lane, {}", rng.range(2, 240), places[0]),
        Lang::De => format!(
            "{street}straße {}, {} {}",
            rng.range(1, 120),
            rng.range(10000, 99999),
            places[0]
        ),
        Lang::Fr => format!(
            "{}, rue {street}, {} {}",
            rng.range(1, 90),
            rng.range(10000, 95999),
            places[0]
        ),
        Lang::Ru => format!("{}, ул. {street}, д. {}", places[0], rng.range(1, 90)),
    };
    let year = rng.range(1972, 2025) as i32;
    let edition = if rng.chance(0.35) {
        Some(rng.range(2, 6) as u32)
    } else {
        None
    };
    let first_edition_stated = edition.is_none() && rng.chance(0.15);
    let first_year = edition.map(|e| (year - rng.range(2, 8) as i32 * (e as i32 - 1)).max(1950));
    let reprints: Vec<i32> = (0..rng.below(3))
        .map(|i| (year + 1 + i as i32 * rng.range(1, 3) as i32).min(2026))
        .collect();

    let (group, prefix) = match lang {
        Lang::En if rng.chance(0.25) && year >= 2010 => ("8", "979"),
        Lang::En => (*rng.pick(&["1", "0"]), "978"),
        Lang::De => ("3", "978"),
        Lang::Fr if rng.chance(0.3) && year >= 2010 => ("10", "979"),
        Lang::Fr => ("2", "978"),
        Lang::Ru => ("5", "978"),
    };
    let block = ident::registrant_block(rng, group, prefix);
    // ISBN-13 only since 2007; before that one or two formats at most.
    let n_formats = if year < 2007 {
        rng.range(1, 2)
    } else {
        rng.range(1, 4)
    } as usize;
    let mut kinds = vec![0usize, 1, 2, 3];
    if year < 2007 {
        kinds.truncate(2);
    }
    rng.shuffle(&mut kinds);
    let mut kinds: Vec<usize> = kinds.into_iter().take(n_formats).collect();
    kinds.sort();
    let base = block.publication_number() + 10;
    let formats: Vec<Format> = kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| Format {
            kind,
            isbn: block.sibling(base + i as u32),
        })
        .collect();
    let previous_isbn = edition.map(|_| block.sibling(base + 5 + rng.below(20) as u32));
    let also_by: Vec<OtherBook> = if role == Role::Authors && rng.chance(0.5) {
        (0..rng.range(1, 4))
            .map(|i| OtherBook {
                title: title_and_subtitle(rng, lang).0,
                year: year - rng.range(1, 12) as i32,
                isbn: block.sibling(base + 30 + i as u32 * 7),
            })
            .collect()
    } else {
        vec![]
    };
    let lccn_p = match lang {
        Lang::En => 0.55,
        _ => 0.08,
    };
    let lccn = rng.chance(lccn_p).then(|| ident::lccn(rng, year));
    let lccn_ebook = match &lccn {
        Some(l) if !l.old_style() && rng.chance(0.5) => Some(Lccn {
            year: l.year,
            serial: l.serial + 1,
        }),
        _ => None,
    };
    let doi = (year >= 2000 && rng.chance(0.25)).then(|| {
        let reg = rng.range(50000, 69999);
        match rng.below(3) {
            0 => format!("10.{reg}/{}", formats[0].isbn.isbn13()),
            1 => format!(
                "10.{reg}/{}.{year}.{:04}",
                publisher_initials(&publisher),
                rng.range(1, 9999)
            ),
            _ => format!("10.{reg}/b{}-{}", rng.range(10000, 99999), rng.range(1, 9)),
        }
    });
    let series = rng.chance(0.15).then(|| {
        let fam = family_name(rng, lang);
        match lang {
            Lang::En => format!(
                "{fam} Studies in {}",
                rng.pick(&["History", "Ecology", "Engineering", "Law"])
            ),
            Lang::De => format!("Schriftenreihe {fam}"),
            Lang::Fr => format!("Collection « {fam} »"),
            Lang::Ru => format!("Серия «{fam}»"),
        }
    });
    let n_chapters = rng.range(3, 9) as usize;
    let chapters = chapter_titles(rng, lang, n_chapters);
    let dedicatee = given_name(rng, lang);
    let typesetter = format!(
        "{} {}",
        family_name(rng, lang),
        match lang {
            Lang::En => "Editorial Services",
            Lang::De => "Satzstudio",
            Lang::Fr => "Composition",
            Lang::Ru => "Вёрстка",
        }
    );
    let printer = format!(
        "{} {}",
        family_name(rng, lang),
        match lang {
            Lang::En => "Print Ltd",
            Lang::De => "Druck GmbH",
            Lang::Fr => "Imprimerie",
            Lang::Ru => "Типография",
        }
    );
    let copyright_holder = if rng.chance(0.75) || role == Role::Editors {
        creators
            .iter()
            .map(Person::display)
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        publisher.clone()
    };
    Book {
        id,
        lang,
        title,
        subtitle,
        creators,
        role,
        translators,
        illustrator,
        publisher,
        places,
        address,
        year,
        first_year,
        reprints,
        edition,
        first_edition_stated,
        formats,
        previous_isbn,
        lccn,
        lccn_ebook,
        doi,
        also_by,
        series,
        dedicatee,
        chapters,
        typesetter,
        printer,
        copyright_holder,
    }
}

fn publisher_initials(p: &str) -> String {
    p.split_whitespace()
        .filter_map(|w| w.chars().find(|c| c.is_ascii_alphabetic()))
        .collect::<String>()
        .to_lowercase()
}
