//! The words of the four languages the generator writes: English, German,
//! French and Russian (the non-Latin script). Phrase tables only; which
//! phrase goes on which page is `pages.rs`'s business.

use super::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    En,
    De,
    Fr,
    Ru,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::Ru => "ru",
        }
    }

    /// Does the script need the embedded (non-base-14) font?
    pub fn needs_unicode_font(self) -> bool {
        self == Lang::Ru
    }
}

const EN_ORD: [&str; 9] = [
    "First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth",
];
const DE_ORD: [&str; 9] = [
    "Erste", "Zweite", "Dritte", "Vierte", "Fünfte", "Sechste", "Siebte", "Achte", "Neunte",
];
const FR_ORD: [&str; 9] = [
    "Première",
    "Deuxième",
    "Troisième",
    "Quatrième",
    "Cinquième",
    "Sixième",
    "Septième",
    "Huitième",
    "Neuvième",
];
const RU_ORD: [&str; 9] = [
    "первое",
    "второе",
    "третье",
    "четвёртое",
    "пятое",
    "шестое",
    "седьмое",
    "восьмое",
    "девятое",
];

/// An edition statement as a title or copyright page prints it.
pub fn edition_statement(rng: &mut Rng, lang: Lang, n: u32) -> String {
    let i = (n as usize - 1).min(8);
    match lang {
        Lang::En => {
            let suffix = match n {
                1 => "st",
                2 => "nd",
                3 => "rd",
                _ => "th",
            };
            match rng.below(5) {
                0 => format!("{} Edition", EN_ORD[i]),
                1 => format!("{} edition", EN_ORD[i]),
                2 => format!("{n}{suffix} edition"),
                3 => format!("{} Edition, Revised", EN_ORD[i]),
                _ => format!("{} revised and expanded edition", EN_ORD[i]),
            }
        }
        Lang::De => match rng.below(4) {
            0 => format!("{n}. Auflage"),
            1 => format!("{n}., überarbeitete Auflage"),
            2 => format!("{n}., erweiterte und aktualisierte Auflage"),
            _ => format!("{} Auflage", DE_ORD[i]),
        },
        Lang::Fr => match rng.below(4) {
            0 => format!("{} édition", FR_ORD[i]),
            1 => format!("{n}e édition"),
            2 => format!("{} édition revue et augmentée", FR_ORD[i]),
            _ => format!("{n}e édition mise à jour"),
        },
        Lang::Ru => match rng.below(3) {
            0 => {
                let w = RU_ORD[i];
                let mut c = w.chars();
                let cap: String = c
                    .next()
                    .into_iter()
                    .flat_map(char::to_uppercase)
                    .chain(c)
                    .collect();
                format!("{cap} издание")
            }
            1 => format!("{n}-е издание"),
            _ => format!("Изд. {n}-е, перераб. и доп."),
        },
    }
}

pub fn month(rng: &mut Rng, lang: Lang) -> &'static str {
    let m = rng.below(12);
    match lang {
        Lang::En => [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ][m],
        Lang::De => [
            "Januar",
            "Februar",
            "März",
            "April",
            "Mai",
            "Juni",
            "Juli",
            "August",
            "September",
            "Oktober",
            "November",
            "Dezember",
        ][m],
        Lang::Fr => [
            "janvier",
            "février",
            "mars",
            "avril",
            "mai",
            "juin",
            "juillet",
            "août",
            "septembre",
            "octobre",
            "novembre",
            "décembre",
        ][m],
        Lang::Ru => [
            "январь",
            "февраль",
            "март",
            "апрель",
            "май",
            "июнь",
            "июль",
            "август",
            "сентябрь",
            "октябрь",
            "ноябрь",
            "декабрь",
        ][m],
    }
}

pub struct Labels {
    pub contents: &'static [&'static str],
    pub also_by: &'static [&'static str],
    pub dedication: &'static [&'static str],
    pub about: &'static [&'static str],
    pub edited_by: &'static [&'static str],
    pub translated_by: &'static [&'static str],
    pub illustrated_by: &'static [&'static str],
    pub chapter: &'static str,
    pub rights: &'static [&'static str],
    pub printed_in: &'static [&'static str],
    pub published_by: &'static [&'static str],
    /// Publication lines of a first edition that do not state an edition.
    pub published_in: &'static [&'static str],
    pub first_published: &'static [&'static str],
    pub this_edition: &'static [&'static str],
    pub reprinted: &'static [&'static str],
    pub colophon: &'static [&'static str],
    pub formats: [&'static str; 4],
    pub and: &'static str,
}

pub fn labels(lang: Lang) -> &'static Labels {
    match lang {
        Lang::En => &EN,
        Lang::De => &DE,
        Lang::Fr => &FR,
        Lang::Ru => &RU,
    }
}

static EN: Labels = Labels {
    contents: &["Contents", "CONTENTS", "Table of Contents"],
    also_by: &[
        "Also by {}",
        "ALSO BY {}",
        "By the same author",
        "Other books by {}",
    ],
    dedication: &["For {}", "To {}", "For {}, who waited", "In memory of {}"],
    about: &["About the Author", "ABOUT THE AUTHOR", "The Author"],
    edited_by: &["Edited by", "EDITED BY", "Editors:"],
    translated_by: &[
        "Translated by",
        "Translated from the German by",
        "Translated from the French by",
    ],
    illustrated_by: &["Illustrated by", "With illustrations by", "Photographs by"],
    chapter: "Chapter",
    rights: &[
        "All rights reserved. No part of this publication may be reproduced, stored in a retrieval system, or transmitted, in any form or by any means, without the prior permission in writing of the publisher.",
        "All rights reserved.",
        "All rights reserved. No part of this book may be reprinted or reproduced or utilised in any form or by any electronic, mechanical, or other means, now known or hereafter invented, without permission in writing from the publishers.",
    ],
    printed_in: &[
        "Printed in Great Britain by {}",
        "Printed and bound in the United States of America",
        "Printed in the United Kingdom by {}",
        "Printed on acid-free paper",
    ],
    published_by: &[
        "Published by {}",
        "Published in {place} by {}",
        "{} is an imprint of {}",
    ],
    published_in: &[
        "First published {}",
        "First published in {}",
        "Published {}",
    ],
    first_published: &[
        "First published {}",
        "First published in {}",
        "First edition published {}",
    ],
    this_edition: &[
        "This edition published {}",
        "{ed} published {}",
        "This edition first published {}",
    ],
    reprinted: &[
        "Reprinted {}",
        "Reprinted with corrections {}",
        "Paperback edition reprinted {}",
    ],
    colophon: &[
        "This book was set in {font} by {typesetter} and printed by {printer}.",
        "Typeset in {font} by {typesetter}. Printed and bound by {printer}.",
        "A note on the type. This book is set in {font}. Composed by {typesetter}; printed by {printer}.",
    ],
    formats: ["hardback", "pbk.", "ebook", "PDF"],
    and: "and",
};

static DE: Labels = Labels {
    contents: &["Inhalt", "Inhaltsverzeichnis", "INHALT"],
    also_by: &[
        "Von {} sind außerdem erschienen:",
        "Weitere Titel von {}",
        "Ebenfalls von {}",
    ],
    dedication: &[
        "Für {}",
        "Meiner Mutter",
        "{} gewidmet",
        "In Erinnerung an {}",
    ],
    about: &["Über den Autor", "Zur Person", "Die Autorin", "Der Autor"],
    edited_by: &["Herausgegeben von", "Hrsg. von", "Herausgegeben von"],
    translated_by: &[
        "Aus dem Englischen von",
        "Übersetzt von",
        "Aus dem Französischen übersetzt von",
    ],
    illustrated_by: &["Mit Illustrationen von", "Illustriert von"],
    chapter: "Kapitel",
    rights: &[
        "Alle Rechte vorbehalten. Das Werk einschließlich aller seiner Teile ist urheberrechtlich geschützt. Jede Verwertung außerhalb der engen Grenzen des Urheberrechtsgesetzes ist ohne Zustimmung des Verlages unzulässig.",
        "Alle Rechte vorbehalten.",
        "Dieses Werk ist urheberrechtlich geschützt. Alle Rechte, auch die der Übersetzung, des Nachdrucks und der Vervielfältigung, vorbehalten.",
    ],
    printed_in: &[
        "Printed in Germany",
        "Druck und Bindung: {}",
        "Gedruckt auf säurefreiem Papier",
        "Printed in Austria",
    ],
    published_by: &["Verlag: {}", "Erschienen bei {}", "{}, {place}"],
    published_in: &[
        "Erschienen {}",
        "Veröffentlicht {}",
        "Originalausgabe erschienen {}",
    ],
    first_published: &["1. Auflage {}", "Erstausgabe {}", "Erste Auflage {}"],
    this_edition: &["{ed} {}", "Diese Ausgabe erschien {}", "{ed}, {}"],
    reprinted: &["Nachdruck {}", "Unveränderter Nachdruck {}"],
    colophon: &[
        "Gesetzt aus der {font} von {typesetter}. Druck und Bindung: {printer}.",
        "Satz: {typesetter}. Schrift: {font}. Druck: {printer}.",
    ],
    formats: ["gebunden", "Broschur", "E-Book", "PDF"],
    and: "und",
};

static FR: Labels = Labels {
    contents: &["Table des matières", "Sommaire", "TABLE DES MATIÈRES"],
    also_by: &["Du même auteur", "DU MÊME AUTEUR", "Chez le même éditeur"],
    dedication: &["À {}", "Pour {}", "À la mémoire de {}"],
    about: &["L'auteur", "À propos de l'auteur", "Biographie"],
    edited_by: &["Sous la direction de", "Textes réunis par", "Édité par"],
    translated_by: &[
        "Traduit de l'anglais par",
        "Traduit de l'allemand par",
        "Traduction de",
    ],
    illustrated_by: &["Illustrations de", "Dessins de"],
    chapter: "Chapitre",
    rights: &[
        "Tous droits de traduction, de reproduction et d'adaptation réservés pour tous pays.",
        "Tous droits réservés.",
        "Le Code de la propriété intellectuelle interdit les copies ou reproductions destinées à une utilisation collective.",
    ],
    printed_in: &[
        "Imprimé en France",
        "Achevé d'imprimer par {}",
        "Imprimé en Belgique",
        "Imprimé sur papier recyclé",
    ],
    published_by: &["Publié par {}", "{}, {place}", "Édité par {}"],
    published_in: &["Publié en {}", "Parution : {}", "Paru en {}"],
    first_published: &[
        "Première édition {}",
        "Première publication {}",
        "1re édition : {}",
    ],
    this_edition: &["{ed} : {}", "Cette édition {}", "{ed}, {}"],
    reprinted: &["Réimpression {}", "Nouveau tirage {}"],
    colophon: &[
        "Cet ouvrage a été composé en {font} par {typesetter} et achevé d'imprimer par {printer}.",
        "Composition : {typesetter}. Impression : {printer}.",
    ],
    formats: ["relié", "broché", "ebook", "PDF"],
    and: "et",
};

static RU: Labels = Labels {
    contents: &["Содержание", "Оглавление", "СОДЕРЖАНИЕ"],
    also_by: &[
        "Другие книги автора",
        "Книги {} в нашем издательстве",
        "Того же автора",
    ],
    dedication: &["Посвящается {}", "Моим родителям", "Памяти {}"],
    about: &["Об авторе", "Сведения об авторе"],
    edited_by: &["Под редакцией", "Ответственный редактор", "Составители"],
    translated_by: &["Перевод с английского", "Перевод с немецкого", "Перевод"],
    illustrated_by: &["Художник", "Иллюстрации"],
    chapter: "Глава",
    rights: &[
        "Все права защищены. Никакая часть данной книги не может быть воспроизведена в какой бы то ни было форме без письменного разрешения владельцев авторских прав.",
        "Все права защищены.",
    ],
    printed_in: &[
        "Отпечатано в типографии «{}»",
        "Подписано в печать",
        "Тираж 1000 экз.",
    ],
    published_by: &["Издатель: {}", "{}, {place}", "Выпущено {}"],
    published_in: &["Опубликовано в {}", "Выпуск {}"],
    first_published: &["Первое издание {}", "Впервые опубликовано в {}"],
    this_edition: &["{ed}, {}", "Настоящее издание {}"],
    reprinted: &["Дополнительный тираж {}", "Переиздание {}"],
    colophon: &[
        "Набрано гарнитурой {font}. Вёрстка {typesetter}. Отпечатано {printer}.",
        "Компьютерная вёрстка {typesetter}. Печать {printer}.",
    ],
    formats: ["в пер.", "обл.", "электронная книга", "PDF"],
    and: "и",
};

/// Filler vocabulary for body pages: (nouns, verbs, adjectives, joiners).
pub fn filler_words(
    lang: Lang,
) -> (
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
) {
    match lang {
        Lang::En => (
            &[
                "record",
                "river",
                "method",
                "harbour",
                "question",
                "account",
                "ledger",
                "map",
                "settlement",
                "archive",
                "source",
                "measure",
                "pattern",
                "witness",
                "season",
                "boundary",
                "network",
                "practice",
                "custom",
                "evidence",
            ],
            &[
                "suggests", "reveals", "obscures", "shapes", "follows", "records", "replaces",
                "explains", "limits", "supports",
            ],
            &[
                "early",
                "local",
                "common",
                "careful",
                "uneven",
                "distant",
                "formal",
                "modern",
                "rural",
                "practical",
            ],
        ),
        Lang::De => (
            &[
                "Quelle",
                "Methode",
                "Hafen",
                "Frage",
                "Bericht",
                "Karte",
                "Siedlung",
                "Archiv",
                "Ordnung",
                "Grenze",
                "Praxis",
                "Erfahrung",
                "Messung",
                "Landschaft",
                "Werkstatt",
            ],
            &[
                "zeigt",
                "verändert",
                "begrenzt",
                "erklärt",
                "folgt",
                "prägt",
                "ersetzt",
                "stützt",
            ],
            &[
                "frühe",
                "lokale",
                "genaue",
                "ferne",
                "moderne",
                "ländliche",
                "praktische",
                "alte",
            ],
        ),
        Lang::Fr => (
            &[
                "source",
                "méthode",
                "rivière",
                "question",
                "mémoire",
                "carte",
                "frontière",
                "archive",
                "pratique",
                "mesure",
                "saison",
                "coutume",
                "preuve",
                "société",
            ],
            &[
                "montre", "explique", "suit", "limite", "remplace", "révèle", "façonne", "soutient",
            ],
            &[
                "ancienne",
                "locale",
                "précise",
                "lointaine",
                "moderne",
                "rurale",
                "pratique",
                "commune",
            ],
        ),
        Lang::Ru => (
            &[
                "источник",
                "метод",
                "вопрос",
                "архив",
                "граница",
                "практика",
                "карта",
                "мера",
                "река",
                "память",
                "опыт",
                "порядок",
            ],
            &[
                "показывает",
                "объясняет",
                "ограничивает",
                "заменяет",
                "определяет",
                "раскрывает",
            ],
            &[
                "ранний",
                "местный",
                "точный",
                "далёкий",
                "новый",
                "сельский",
                "общий",
                "старый",
            ],
        ),
    }
}

/// One filler sentence.
pub fn sentence(rng: &mut Rng, lang: Lang) -> String {
    let (nouns, verbs, adjs) = filler_words(lang);
    let n = rng.range(6, 14) as usize;
    let mut words = Vec::with_capacity(n);
    for i in 0..n {
        let w = match i % 4 {
            0 | 2 => *rng.pick(nouns),
            1 => *rng.pick(adjs),
            _ => *rng.pick(verbs),
        };
        words.push(w.to_string());
    }
    let mut s = words.join(" ");
    if let Some(c) = s.chars().next() {
        let up: String = c.to_uppercase().collect();
        s = format!("{up}{}", &s[c.len_utf8()..]);
    }
    s.push('.');
    s
}

/// The words of papers, reports and slide decks.
pub struct PaperLabels {
    pub abstract_: &'static [&'static str],
    pub keywords: &'static [&'static str],
    pub references: &'static [&'static str],
    pub received: &'static str,
    pub revised: &'static str,
    pub accepted: &'static str,
    pub published: &'static str,
    pub article: &'static [&'static str],
    pub corresponding: &'static str,
    pub report: &'static [&'static str],
    pub sections: &'static [&'static str],
    pub thanks: &'static [&'static str],
    pub university: &'static [&'static str],
    pub department: &'static [&'static str],
    pub institute: &'static [&'static str],
}

pub fn paper_labels(lang: Lang) -> &'static PaperLabels {
    match lang {
        Lang::En => &PAPER_EN,
        Lang::De => &PAPER_DE,
        Lang::Fr => &PAPER_FR,
        Lang::Ru => &PAPER_RU,
    }
}

static PAPER_EN: PaperLabels = PaperLabels {
    abstract_: &["Abstract", "ABSTRACT", "Summary"],
    keywords: &["Keywords", "Key words", "KEYWORDS", "Index Terms"],
    references: &["References", "REFERENCES", "Bibliography"],
    received: "Received",
    revised: "Revised",
    accepted: "Accepted",
    published: "Published",
    article: &[
        "Research Article",
        "Original Paper",
        "ORIGINAL ARTICLE",
        "Full Paper",
        "Regular Article",
    ],
    corresponding: "Corresponding author",
    report: &["Technical Report", "Research Report", "Working Paper"],
    sections: &[
        "Introduction",
        "Related Work",
        "Methods",
        "Data and Setup",
        "Results",
        "Discussion",
        "Conclusion",
    ],
    thanks: &["Thank you", "Questions?", "Thank you for your attention"],
    university: &[
        "University of {}",
        "{} University",
        "{} Institute of Technology",
    ],
    department: &[
        "Department of Computer Science",
        "School of Mathematics",
        "Department of Physics",
        "Faculty of Economics",
        "Department of Earth Sciences",
        "School of Engineering",
    ],
    institute: &[
        "{} Research Laboratory",
        "{} Labs",
        "{} Systems Inc.",
        "{} Institute",
    ],
};

static PAPER_DE: PaperLabels = PaperLabels {
    abstract_: &["Zusammenfassung", "Kurzfassung", "Abstract"],
    keywords: &["Schlüsselwörter", "Schlagwörter"],
    references: &["Literatur", "Literaturverzeichnis", "Quellen"],
    received: "Eingegangen",
    revised: "Überarbeitet",
    accepted: "Angenommen",
    published: "Online publiziert",
    article: &["Originalarbeit", "Fachbeitrag", "Forschungsbeitrag"],
    corresponding: "Korrespondenzautor",
    report: &["Technischer Bericht", "Forschungsbericht", "Arbeitspapier"],
    sections: &[
        "Einleitung",
        "Verwandte Arbeiten",
        "Methoden",
        "Ergebnisse",
        "Diskussion",
        "Fazit",
    ],
    thanks: &["Vielen Dank", "Fragen?"],
    university: &[
        "Universität {}",
        "Technische Universität {}",
        "Hochschule {}",
    ],
    department: &[
        "Institut für Informatik",
        "Fakultät für Mathematik",
        "Lehrstuhl für Statistik",
        "Institut für Geowissenschaften",
    ],
    institute: &["{}-Institut", "Forschungszentrum {}", "{} GmbH"],
};

static PAPER_FR: PaperLabels = PaperLabels {
    abstract_: &["Résumé", "RÉSUMÉ"],
    keywords: &["Mots-clés", "Mots clés"],
    references: &["Références", "Bibliographie"],
    received: "Reçu le",
    revised: "Révisé le",
    accepted: "Accepté le",
    published: "Publié le",
    article: &["Article de recherche", "Article original"],
    corresponding: "Auteur correspondant",
    report: &[
        "Rapport technique",
        "Rapport de recherche",
        "Document de travail",
    ],
    sections: &[
        "Introduction",
        "Travaux connexes",
        "Méthodes",
        "Résultats",
        "Discussion",
        "Conclusion",
    ],
    thanks: &["Merci", "Questions ?"],
    university: &["Université de {}", "Université {}", "École normale de {}"],
    department: &[
        "Laboratoire d'informatique",
        "Département de mathématiques",
        "Institut de physique",
        "Laboratoire de géosciences",
    ],
    institute: &["Laboratoire {}", "Centre de recherche {}", "{} SA"],
};

static PAPER_RU: PaperLabels = PaperLabels {
    abstract_: &["Аннотация", "Резюме"],
    keywords: &["Ключевые слова"],
    references: &["Литература", "Список литературы"],
    received: "Поступила",
    revised: "После доработки",
    accepted: "Принята",
    published: "Опубликована",
    article: &["Научная статья", "Оригинальная статья"],
    corresponding: "Автор для переписки",
    report: &["Технический отчёт", "Препринт"],
    sections: &[
        "Введение",
        "Обзор литературы",
        "Методы",
        "Результаты",
        "Обсуждение",
        "Заключение",
    ],
    thanks: &["Спасибо за внимание", "Вопросы?"],
    university: &["{} государственный университет", "Университет {}"],
    department: &[
        "Кафедра информатики",
        "Факультет математики",
        "Кафедра физики",
    ],
    institute: &["Институт {}", "НИИ {}", "ООО «{}»"],
};
