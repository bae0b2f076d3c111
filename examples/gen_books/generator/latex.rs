//! Producer 2: the same composed pages typeset by pdflatex, with a choice
//! of document classes and PostScript font packages (whichever of them
//! `kpsewhich` finds). Each page of the composition becomes one TeX page;
//! the self-check catches a page that overflowed. Russian books stay with
//! the lopdf producer (pdflatex's Cyrillic fonts are bitmaps here).
//! SOURCE_DATE_EPOCH and \pdfinfoomitdate keep the output reproducible.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use super::fonts::Family;
use super::layout::{Align, Block, Geometry, PageSpec};
use super::rng::Rng;

/// What this machine's TeX installation offers.
#[derive(Clone, Debug, Default)]
pub struct Tex {
    pub classes: Vec<&'static str>,
    /// (package, description)
    pub fonts: Vec<(&'static str, &'static str)>,
    /// beamer.cls is there (slide decks).
    pub beamer: bool,
    /// eso-pic.sty is there (margin stamps on papers).
    pub eso_pic: bool,
}

fn kpsewhich(file: &str) -> bool {
    Command::new("kpsewhich")
        .arg(file)
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
}

impl Tex {
    /// `None` when pdflatex is missing (the generator then notes it and
    /// uses lopdf only).
    pub fn probe() -> Option<Tex> {
        let ok = Command::new("pdflatex")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            return None;
        }
        let classes: Vec<&str> = ["book", "report", "article", "scrbook", "scrreprt", "memoir"]
            .into_iter()
            .filter(|c| kpsewhich(&format!("{c}.cls")))
            .collect();
        let fonts: Vec<(&str, &str)> = [
            ("mathptmx", "Times"),
            ("mathpazo", "Palatino"),
            ("bookman", "Bookman"),
            ("charter", "Charter"),
            ("newcent", "New Century Schoolbook"),
            ("helvet", "Helvetica sans"),
            ("tgtermes", "TeX Gyre Termes"),
            ("tgpagella", "TeX Gyre Pagella"),
        ]
        .into_iter()
        .filter(|(p, _)| kpsewhich(&format!("{p}.sty")))
        .collect();
        let needed = ["geometry.sty", "graphicx.sty", "multicol.sty", "t1enc.def"];
        if classes.is_empty() || fonts.is_empty() || !needed.iter().all(|f| kpsewhich(f)) {
            return None;
        }
        let beamer = kpsewhich("beamer.cls") && kpsewhich("pgfmath.sty");
        let eso_pic = kpsewhich("eso-pic.sty");
        Some(Tex {
            classes,
            fonts,
            beamer,
            eso_pic,
        })
    }
}

pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                o.push('\\');
                o.push(c);
            }
            '~' => o.push_str("\\textasciitilde{}"),
            '^' => o.push_str("\\textasciicircum{}"),
            '\u{00a0}' => o.push('~'),
            '\n' => o.push_str("\\\\\n"),
            '«' => o.push_str("\\guillemotleft{}"),
            '»' => o.push_str("\\guillemotright{}"),
            '·' => o.push_str("\\textperiodcentered{}"),
            '©' => o.push_str("\\textcopyright{}"),
            // Keep hyphens in numbers as hyphens (no en-dash ligature "--").
            '-' => o.push_str("-{}"),
            _ => o.push(c),
        }
    }
    o
}

fn align_cmd(a: Align) -> &'static str {
    match a {
        Align::Left => "\\raggedright",
        Align::Center => "\\centering",
        Align::Right => "\\raggedleft",
        Align::Justify => "",
    }
}

fn box_pos(a: Align) -> &'static str {
    match a {
        Align::Left | Align::Justify => "l",
        Align::Center => "c",
        Align::Right => "r",
    }
}

fn family_cmd(f: Family) -> &'static str {
    match f {
        Family::Times | Family::Serif => "\\rmfamily",
        Family::Helvetica | Family::Sans => "\\sffamily",
        Family::Courier => "\\ttfamily",
    }
}

/// The choices of one LaTeX book, for the truth's `source`.
pub struct TexChoice {
    pub class: &'static str,
    pub font: (&'static str, &'static str),
}

impl TexChoice {
    pub fn describe(&self) -> String {
        format!("pdflatex ({} class, {})", self.class, self.font.1)
    }
}

pub fn choose(tex: &Tex, rng: &mut Rng) -> TexChoice {
    TexChoice {
        class: tex.classes[rng.below(tex.classes.len())],
        font: *rng.pick(&tex.fonts),
    }
}

/// The LaTeX source of the pages; pictures are written into `dir`.
fn source(
    specs: &[PageSpec],
    g: &Geometry,
    choice: &TexChoice,
    dir: &Path,
) -> Result<String, String> {
    let mut t = String::new();
    let opts = match choice.class {
        "memoir" => "oneside,openany,10pt",
        "book" | "report" | "scrbook" | "scrreprt" => "oneside,openany",
        _ => "",
    };
    let _ = writeln!(t, "\\documentclass[{opts}]{{{}}}", choice.class);
    let _ = writeln!(
        t,
        "\\usepackage[T1]{{fontenc}}\n\\usepackage[utf8]{{inputenc}}\n\\usepackage{{textcomp}}"
    );
    let _ = writeln!(t, "\\usepackage{{{}}}", choice.font.0);
    if choice.font.0 == "helvet" {
        t.push_str("\\renewcommand{\\familydefault}{\\sfdefault}\n");
    }
    let _ = writeln!(
        t,
        "\\usepackage[paperwidth={}bp,paperheight={}bp,left={m}bp,right={m}bp,top={}bp,bottom={}bp,footskip={}bp]{{geometry}}",
        g.w,
        g.h,
        g.margin_top,
        g.margin_bottom,
        g.margin_bottom * 0.5,
        m = g.margin_x
    );
    t.push_str(
        "\\usepackage{graphicx}\n\\usepackage{multicol}\n\\pdfinfoomitdate=1\n\\pdftrailerid{}\n",
    );
    t.push_str("\\setlength{\\parindent}{0pt}\n\\setlength{\\parskip}{0pt}\n\\raggedbottom\n\\begin{document}\n");
    let mut pictures = 0;
    for spec in specs {
        match &spec.folio {
            Some(f) if f.chars().all(|c| c.is_ascii_digit()) => {
                let _ = writeln!(
                    t,
                    "\\pagestyle{{plain}}\\pagenumbering{{arabic}}\\setcounter{{page}}{{{f}}}"
                );
            }
            Some(f) => {
                let n = super::ident::roman_value(f);
                let _ = writeln!(
                    t,
                    "\\pagestyle{{plain}}\\pagenumbering{{roman}}\\setcounter{{page}}{{{n}}}"
                );
            }
            None => t.push_str("\\thispagestyle{empty}\\pagestyle{empty}\n"),
        }
        let body = spec.columns > 1;
        // Body filler flows freely in TeX: keep it short so it stays on its page.
        let mut texts_left = if spec.truncate { 3 } else { usize::MAX };
        if body {
            t.push_str("\\begin{multicols}{2}\n");
        }
        for b in &spec.blocks {
            match b {
                Block::Fill(w) => {
                    if !body && *w > 0.0 {
                        let _ = writeln!(t, "\\vspace*{{\\stretch{{{w:.2}}}}}");
                    }
                }
                Block::Text {
                    text,
                    face,
                    size,
                    align,
                    before,
                } => {
                    if texts_left == 0 {
                        continue;
                    }
                    texts_left -= 1;
                    let mut style = family_cmd(face.family).to_string();
                    if face.bold {
                        style.push_str("\\bfseries");
                    }
                    if face.italic {
                        style.push_str("\\itshape");
                    }
                    let _ = writeln!(
                        t,
                        "\\vspace{{{before:.1}bp}}{{\\fontsize{{{size:.1}}}{{{:.1}}}\\selectfont{style}{} {}\\par}}",
                        size * 1.2,
                        align_cmd(*align),
                        escape(text)
                    );
                }
                Block::Barcode {
                    digits,
                    height,
                    align,
                } => {
                    let modules = super::ident::ean13_modules(digits);
                    let mut bars = String::new();
                    let mut i = 0;
                    while i < modules.len() {
                        let mut j = i;
                        while j < modules.len() && modules[j] == modules[i] {
                            j += 1;
                        }
                        let w = 1.1 * (j - i) as f32;
                        if modules[i] {
                            let _ = write!(bars, "\\rule{{{w:.2}bp}}{{{height}bp}}");
                        } else {
                            let _ = write!(bars, "\\hspace*{{{w:.2}bp}}");
                        }
                        i = j;
                    }
                    let _ = writeln!(
                        t,
                        "\\vspace{{4bp}}\\noindent\\makebox[\\linewidth][{}]{{{bars}}}\\par",
                        box_pos(*align)
                    );
                }
                Block::Picture { image, w, h, align } => {
                    pictures += 1;
                    let name = format!("im{pictures}.png");
                    image
                        .save(dir.join(&name))
                        .map_err(|e| format!("writing {name}: {e}"))?;
                    let _ = writeln!(
                        t,
                        "\\noindent\\makebox[\\linewidth][{}]{{\\includegraphics[width={w:.1}bp,height={h:.1}bp]{{{name}}}}}\\par",
                        box_pos(*align)
                    );
                }
                Block::Rule { frac, align } => {
                    let _ = writeln!(
                        t,
                        "\\vspace{{4bp}}\\noindent\\makebox[\\linewidth][{}]{{\\rule{{{frac:.2}\\linewidth}}{{0.6bp}}}}\\par",
                        box_pos(*align)
                    );
                }
            }
        }
        if body {
            t.push_str("\\end{multicols}\n");
        }
        t.push_str("\\clearpage\n");
    }
    t.push_str("\\end{document}\n");
    Ok(t)
}

/// Typesets the pages with pdflatex and returns the PDF bytes.
pub fn render(
    specs: &[PageSpec],
    g: &Geometry,
    choice: &TexChoice,
    epoch: i64,
) -> Result<Vec<u8>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
    let src = source(specs, g, choice, dir.path())?;
    run(dir.path(), &src, epoch)
}

/// Typesets a complete LaTeX source (no pictures) and returns the PDF bytes.
pub fn compile(src: &str, epoch: i64) -> Result<Vec<u8>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
    run(dir.path(), src, epoch)
}

fn run(dir: &Path, src: &str, epoch: i64) -> Result<Vec<u8>, String> {
    std::fs::write(dir.join("book.tex"), src).map_err(|e| e.to_string())?;
    let out = Command::new("pdflatex")
        .args(["-interaction=batchmode", "-halt-on-error", "book.tex"])
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", epoch.to_string())
        .env("FORCE_SOURCE_DATE", "1")
        .output()
        .map_err(|e| format!("running pdflatex: {e}"))?;
    if !out.status.success() {
        let log = std::fs::read_to_string(dir.join("book.log")).unwrap_or_default();
        let err: Vec<&str> = log.lines().filter(|l| l.starts_with('!')).take(3).collect();
        return Err(format!("pdflatex failed: {}", err.join(" / ")));
    }
    std::fs::read(dir.join("book.pdf")).map_err(|e| format!("reading book.pdf: {e}"))
}
