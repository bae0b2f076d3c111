//! Papers and reports typeset by pdflatex with the `article` class (one or
//! two columns, `\maketitle` or a hand-made title block), slide decks with
//! `beamer` when it is installed. The margin stamp uses eso-pic.

use std::fmt::Write as _;

use super::latex::{self, Tex, escape};
use super::paper::{Author, Kind, Paper};
use super::rng::Rng;

fn marks_tex(a: &Author, numbered: bool) -> String {
    let m: Vec<String> = a
        .marks(numbered)
        .iter()
        .map(|m| {
            if m == "\u{2020}" {
                "\\textdagger{}".to_string()
            } else {
                m.clone()
            }
        })
        .collect();
    if m.is_empty() {
        String::new()
    } else {
        format!("\\textsuperscript{{{}}}", m.join(","))
    }
}

fn and_join(items: &[String], and: &str) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} {and} {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

fn title_tex(p: &Paper, break_sub: bool) -> String {
    match &p.subtitle {
        Some(s) if break_sub => format!("{}:\\\\ {}", escape(&p.title), escape(s)),
        Some(s) => format!("{}: {}", escape(&p.title), escape(s)),
        None => escape(&p.title),
    }
}

/// The hand-made author block: names with marks on one or more lines,
/// then numbered affiliations; or a tabular with one column per author;
/// or one author per line with the affiliation after it.
fn author_block(rng: &mut Rng, p: &Paper) -> String {
    let mut t = String::new();
    let and = if rng.chance(0.5) { "and" } else { "\\&" };
    match rng.below(3) {
        0 => {
            let numbered = p.affiliations.len() > 1;
            let names: Vec<String> = p
                .authors
                .iter()
                .map(|a| format!("{}{}", escape(&a.name), marks_tex(a, numbered)))
                .collect();
            let per_line = if names.len() > 4 && rng.chance(0.6) {
                rng.range(2, 4) as usize
            } else {
                names.len()
            };
            let lines: Vec<String> = names.chunks(per_line).map(|c| c.join(", ")).collect();
            if lines.len() == 1 {
                let _ = writeln!(t, "{{\\large {}\\par}}", and_join(&names, and));
            } else {
                let _ = writeln!(t, "{{\\large {}\\par}}", lines.join(",\\\\\n"));
            }
            t.push_str("\\vspace{0.6em}{\\small\\itshape\n");
            for (i, a) in p.affiliations.iter().enumerate() {
                if numbered {
                    let _ = write!(t, "\\textsuperscript{{{}}}", i + 1);
                }
                let _ = writeln!(t, "{}\\\\", escape(a));
            }
            t.push_str("\\par}\n");
            let mails: Vec<String> = p
                .authors
                .iter()
                .filter_map(|a| {
                    a.email
                        .as_ref()
                        .map(|e| format!("\\texttt{{{}}}", escape(e)))
                })
                .collect();
            if !mails.is_empty() {
                let _ = writeln!(t, "{{\\small {}\\par}}", mails.join(", "));
            }
        }
        1 => {
            let cols = if p.authors.len() >= 3 {
                rng.range(2, 3) as usize
            } else {
                p.authors.len()
            };
            for chunk in p.authors.chunks(cols) {
                let _ = writeln!(t, "\\begin{{tabular}}{{{}}}", "c".repeat(chunk.len()));
                let row = |f: &dyn Fn(&Author) -> String| -> String {
                    chunk.iter().map(f).collect::<Vec<_>>().join(" & ")
                };
                let _ = writeln!(
                    t,
                    "{}\\\\",
                    row(&|a| format!("\\bfseries {}{}", escape(&a.name), marks_tex(a, false)))
                );
                let _ = writeln!(
                    t,
                    "{}\\\\",
                    row(&|a| format!(
                        "\\small\\begin{{tabular}}[t]{{@{{}}c@{{}}}}{}\\end{{tabular}}",
                        escape(&p.affiliations[a.affs[0]]).replace(", ", "\\\\ ")
                    ))
                );
                let _ = writeln!(
                    t,
                    "{}\\\\",
                    row(&|a| a
                        .email
                        .as_ref()
                        .map(|e| format!("\\small\\texttt{{{}}}", escape(e)))
                        .unwrap_or_default())
                );
                t.push_str("\\end{tabular}\\par\\vspace{0.5em}\n");
            }
        }
        _ => {
            for a in &p.authors {
                let aff: Vec<String> = a.affs.iter().map(|i| escape(&p.affiliations[*i])).collect();
                let _ = writeln!(
                    t,
                    "{{\\large {}}}{}\\\\ {{\\small\\itshape {}}}\\par\\smallskip",
                    escape(&a.name),
                    marks_tex(a, false),
                    aff.join("; ")
                );
            }
        }
    }
    t
}

fn masthead_tex(rng: &mut Rng, p: &Paper) -> String {
    let mut t = String::new();
    if p.masthead.is_empty() && p.label.is_none() && p.doi_line.is_none() {
        return t;
    }
    let align = if rng.chance(0.6) {
        "\\raggedright"
    } else {
        "\\centering"
    };
    let _ = writeln!(t, "{{\\small{align}\\sffamily");
    for m in &p.masthead {
        let _ = writeln!(t, "{}\\\\", escape(m));
    }
    if let Some(d) = &p.doi_line {
        if rng.chance(0.6) {
            let _ = writeln!(t, "{}\\\\", escape(d));
        }
    }
    t.push_str("\\par}\\noindent\\rule{\\linewidth}{0.4pt}\\par\n");
    if let Some(l) = &p.label {
        let _ = writeln!(t, "{{\\sffamily\\bfseries {}\\par}}\\medskip", escape(l));
    }
    t
}

fn footnotes_tex(p: &Paper, doi_in_foot: bool) -> String {
    let mut lines: Vec<String> = p.footnotes.iter().map(|f| escape(f)).collect();
    if doi_in_foot {
        if let Some(d) = &p.doi_line {
            lines.push(escape(d));
        }
    }
    for a in &p.authors {
        if let Some(o) = &a.orcid {
            lines.push(format!("ORCID ({}): {o}", escape(&a.name)));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "\\begingroup\\renewcommand{{\\thefootnote}}{{}}\\footnotetext{{{}}}\\endgroup\n",
        lines.join("\\\\ ")
    )
}

fn body_tex(p: &Paper, numbered_sections: bool, bib_env: bool) -> String {
    let mut t = String::new();
    let star = if numbered_sections { "" } else { "*" };
    for (h, paras) in &p.sections {
        let _ = writeln!(t, "\\section{star}{{{}}}", escape(h));
        for para in paras {
            let _ = writeln!(t, "{}\n", escape(para));
        }
    }
    if bib_env {
        let _ = writeln!(
            t,
            "\\renewcommand{{\\refname}}{{{}}}\n\\begin{{thebibliography}}{{99}}\\small",
            escape(&p.ref_head)
        );
        for (i, r) in p.references.iter().enumerate() {
            let r = r.split_once("] ").map_or(r.as_str(), |(_, b)| b);
            let _ = writeln!(t, "\\bibitem{{r{i}}} {}", escape(r));
        }
        t.push_str("\\end{thebibliography}\n");
    } else {
        let _ = writeln!(t, "\\section*{{{}}}\n{{\\small", escape(&p.ref_head));
        for r in &p.references {
            let _ = writeln!(t, "\\noindent {}\\par\\smallskip", escape(r));
        }
        t.push_str("}\n");
    }
    t
}

fn abstract_tex(p: &Paper, env: bool) -> String {
    let mut t = String::new();
    if env {
        let _ = writeln!(
            t,
            "\\renewcommand{{\\abstractname}}{{{}}}\n\\begin{{abstract}}\n{}\n\\end{{abstract}}",
            escape(&p.abstract_head),
            escape(&p.abstract_text)
        );
    } else {
        let _ = writeln!(
            t,
            "\\noindent{{\\bfseries {}.}} {}\\par",
            escape(&p.abstract_head),
            escape(&p.abstract_text)
        );
    }
    if let Some(k) = &p.keywords {
        let _ = writeln!(
            t,
            "\\smallskip\\noindent{{\\small\\itshape {}}}\\par",
            escape(k)
        );
    }
    t
}

fn preamble(rng: &mut Rng, tex: &Tex, opts: &str, class: &str) -> (String, String) {
    let font = *rng.pick(&tex.fonts);
    let mut t = String::new();
    let _ = writeln!(t, "\\documentclass[{opts}]{{{class}}}");
    t.push_str("\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{textcomp}\n");
    if class != "beamer" {
        let _ = writeln!(t, "\\usepackage{{{}}}", font.0);
        if font.0 == "helvet" {
            t.push_str("\\renewcommand{\\familydefault}{\\sfdefault}\n");
        }
    }
    t.push_str("\\usepackage{graphicx}\n\\pdfinfoomitdate=1\n\\pdftrailerid{}\n");
    (t, font.1.to_string())
}

fn stamp_tex(p: &Paper, tex: &Tex) -> String {
    match &p.stamp {
        Some(s) if tex.eso_pic => format!(
            "\\AddToShipoutPictureBG*{{\\put(22,230){{\\rotatebox{{90}}{{\\fontsize{{18}}{{20}}\\selectfont\\sffamily {}}}}}}}\n",
            escape(s)
        ),
        _ => String::new(),
    }
}

fn paper_source(rng: &mut Rng, p: &Paper, tex: &Tex) -> (String, String) {
    let two = p.kind == Kind::Paper && rng.chance(0.45);
    let size = rng.pick(&["10pt", "11pt", "12pt"]);
    let paper = rng.pick(&["a4paper", "letterpaper"]);
    let opts = format!("{size},{paper}{}", if two { ",twocolumn" } else { "" });
    let (mut t, font) = preamble(rng, tex, &opts, "article");
    let margin = rng.range(50, 80);
    let _ = writeln!(t, "\\usepackage[margin={margin}bp]{{geometry}}");
    if p.stamp.is_some() && tex.eso_pic {
        t.push_str("\\usepackage{eso-pic}\n");
    }
    if let Some(h) = &p.running_head {
        let _ = writeln!(t, "\\pagestyle{{myheadings}}\\markright{{{}}}", escape(h));
    }
    t.push_str("\\begin{document}\n");
    t.push_str(&stamp_tex(p, tex));
    let maketitle = p.kind == Kind::Paper && rng.chance(0.45);
    let doi_in_foot = rng.chance(0.5);
    let style;
    if maketitle {
        style = "\\maketitle";
        let mut title = String::new();
        let head = masthead_tex(rng, p);
        if !head.is_empty() {
            let _ = write!(title, "{{\\normalsize\\normalfont {head}}}\\vspace{{1em}}");
        }
        title.push_str(&title_tex(p, rng.chance(0.5)));
        let _ = writeln!(t, "\\title{{{title}}}");
        let numbered = p.affiliations.len() > 1 && rng.chance(0.5);
        let people: Vec<String> = p
            .authors
            .iter()
            .map(|a| {
                let mut s = format!("{}{}", escape(&a.name), marks_tex(a, numbered));
                if !numbered {
                    // Font changes end at each row of \author's tabular: no
                    // group may span a \\.
                    let _ = write!(
                        s,
                        "\\\\ \\small {}",
                        escape(&p.affiliations[a.affs[0]]).replace(", ", "\\\\ \\small ")
                    );
                    if let Some(e) = &a.email {
                        let _ = write!(s, "\\\\ \\small\\texttt{{{}}}", escape(e));
                    }
                }
                s
            })
            .collect();
        let mut author = people.join(" \\and ");
        if numbered {
            author.push_str("\\\\[1ex]\\normalsize ");
            for (i, a) in p.affiliations.iter().enumerate() {
                let _ = write!(author, "\\textsuperscript{{{}}}{}\\\\ ", i + 1, escape(a));
            }
        }
        let _ = writeln!(t, "\\author{{{author}}}");
        let _ = writeln!(
            t,
            "\\date{{{}}}",
            p.date_line.as_deref().map(escape).unwrap_or_default()
        );
        t.push_str("\\maketitle\n");
        t.push_str(&footnotes_tex(p, doi_in_foot));
        if !p.dates.is_empty() {
            let _ = writeln!(
                t,
                "{{\\footnotesize {}\\par}}",
                escape(&p.dates.join(" / "))
            );
        }
        if !doi_in_foot {
            if let Some(d) = &p.doi_line {
                let _ = writeln!(t, "{{\\footnotesize {}\\par}}", escape(d));
            }
        }
        t.push_str(&abstract_tex(p, rng.chance(0.7)));
    } else {
        style = "hand-made title block";
        let center = rng.chance(0.6);
        let mut block = String::new();
        block.push_str(&masthead_tex(rng, p));
        if let Some(r) = &p.report_line {
            let _ = writeln!(block, "{{\\sffamily {}\\par}}\\bigskip", escape(r));
        }
        let _ = writeln!(
            block,
            "{{{}\\fontsize{{{s}}}{{{l}}}\\selectfont\\bfseries {}\\par}}\\bigskip",
            if center {
                "\\centering"
            } else {
                "\\raggedright"
            },
            title_tex(p, rng.chance(0.5)),
            s = rng.range(16, 24),
            l = 28
        );
        let _ = writeln!(
            block,
            "{{{}\n{}}}",
            if center {
                "\\centering"
            } else {
                "\\raggedright"
            },
            author_block(rng, p)
        );
        if let Some(d) = &p.date_line {
            let _ = writeln!(block, "\\smallskip{{\\centering {}\\par}}", escape(d));
        }
        if !p.dates.is_empty() {
            let _ = writeln!(
                block,
                "\\smallskip{{\\footnotesize {}\\par}}",
                escape(&p.dates.join("; "))
            );
        }
        if !doi_in_foot {
            if let Some(d) = &p.doi_line {
                let _ = writeln!(block, "{{\\footnotesize {}\\par}}", escape(d));
            }
        }
        block.push_str("\\bigskip\n");
        block.push_str(&abstract_tex(p, false));
        block.push_str("\\bigskip\n");
        if two {
            let _ = writeln!(t, "\\twocolumn[{{\n{block}}}]");
        } else {
            t.push_str(&block);
        }
        t.push_str("\\thispagestyle{plain}\n");
        t.push_str(&footnotes_tex(p, doi_in_foot));
    }
    t.push_str(&body_tex(p, rng.chance(0.7), rng.chance(0.5)));
    t.push_str("\\end{document}\n");
    let producer = format!(
        "pdflatex (article class, {font}, {} column{}, {style})",
        if two { 2 } else { 1 },
        if two { "s" } else { "" }
    );
    (t, producer)
}

fn report_source(rng: &mut Rng, p: &Paper, tex: &Tex) -> (String, String) {
    let (mut t, font) = preamble(rng, tex, "11pt,a4paper", "article");
    t.push_str("\\usepackage[margin=72bp]{geometry}\n\\begin{document}\n");
    t.push_str("\\begin{titlepage}\\centering\n");
    for m in &p.masthead {
        let _ = writeln!(t, "{{\\Large\\sffamily {}\\par}}\\bigskip", escape(m));
    }
    if let Some(r) = &p.report_line {
        let _ = writeln!(t, "{{\\large {}\\par}}", escape(r));
    }
    t.push_str("\\vspace*{\\stretch{1}}\n");
    let _ = writeln!(
        t,
        "{{\\huge\\bfseries {}\\par}}\\bigskip",
        title_tex(p, true)
    );
    t.push_str("\\vspace*{\\stretch{0.5}}\n");
    t.push_str(&author_block(rng, p));
    if let Some(d) = &p.date_line {
        let _ = writeln!(t, "\\bigskip{{\\large {}\\par}}", escape(d));
    }
    if let Some(d) = &p.doi_line {
        let _ = writeln!(t, "{{\\small {}\\par}}", escape(d));
    }
    t.push_str("\\vspace*{\\stretch{2}}\n");
    for f in &p.footnotes {
        let _ = writeln!(t, "{{\\footnotesize {}\\par}}", escape(f));
    }
    t.push_str("\\end{titlepage}\n");
    t.push_str(&abstract_tex(p, true));
    t.push_str(&body_tex(p, true, rng.chance(0.5)));
    t.push_str("\\end{document}\n");
    (
        t,
        format!("pdflatex (article class, {font}, report title page)"),
    )
}

fn slides_source(rng: &mut Rng, p: &Paper, tex: &Tex) -> (String, String) {
    let theme = *rng.pick(&[
        "default",
        "Madrid",
        "Boadilla",
        "CambridgeUS",
        "Warsaw",
        "Berlin",
    ]);
    let ratio = if rng.chance(0.5) {
        "aspectratio=169"
    } else {
        ""
    };
    let (mut t, _) = preamble(rng, tex, ratio, "beamer");
    let _ = writeln!(t, "\\usetheme{{{theme}}}");
    let _ = writeln!(t, "\\title{{{}}}", escape(&p.title));
    if let Some(s) = &p.subtitle {
        let _ = writeln!(t, "\\subtitle{{{}}}", escape(s));
    }
    let names: Vec<String> = p.authors.iter().map(|a| escape(&a.name)).collect();
    let _ = writeln!(t, "\\author{{{}}}", names.join(" \\and "));
    let _ = writeln!(
        t,
        "\\institute{{{}}}",
        p.affiliations
            .iter()
            .map(|a| escape(a))
            .collect::<Vec<_>>()
            .join("\\\\ ")
    );
    let _ = writeln!(
        t,
        "\\date{{{}}}",
        p.event.as_deref().map(escape).unwrap_or_default()
    );
    t.push_str("\\begin{document}\n\\begin{frame}\n\\titlepage\n\\end{frame}\n");
    for (h, paras) in &p.sections {
        let _ = writeln!(t, "\\begin{{frame}}{{{}}}\n\\begin{{itemize}}", escape(h));
        for s in paras[0].split(". ").take(4) {
            let _ = writeln!(t, "\\item {}", escape(s.trim_end_matches('.')));
        }
        t.push_str("\\end{itemize}\n\\end{frame}\n");
    }
    t.push_str("\\end{document}\n");
    (t, format!("pdflatex (beamer, {theme} theme)"))
}

/// Typesets a paper, report or slide deck; returns the PDF and the
/// producer's description.
pub fn render(
    rng: &mut Rng,
    p: &Paper,
    tex: &Tex,
    epoch: i64,
) -> Result<(Vec<u8>, String), String> {
    let (src, producer) = match p.kind {
        Kind::Paper => paper_source(rng, p, tex),
        Kind::Report => report_source(rng, p, tex),
        Kind::Slides if tex.beamer => slides_source(rng, p, tex),
        Kind::Slides => return Err("beamer.cls not installed".into()),
    };
    latex::compile(&src, epoch).map(|pdf| (pdf, producer))
}
