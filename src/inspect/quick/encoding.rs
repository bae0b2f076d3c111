//! The predefined single-byte encodings as glyph names per code, in
//! pdfium's versions (`cpdf_fontencoding.cpp`: e.g. its WinAnsiEncoding
//! names the unassigned codes 127, 129, 141, 143, 144 and 157 `bullet`,
//! 160 `space` and 173 `hyphen`), and PDFDocEncoding for text strings.

use std::sync::OnceLock;

/// A predefined font encoding (ISO 32000-1, Annex D).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseEncoding {
    Standard,
    WinAnsi,
    MacRoman,
    MacExpert,
    PdfDoc,
    Symbol,
    ZapfDingbats,
}

impl BaseEncoding {
    /// The encoding a `/Encoding` or `/BaseEncoding` name gives, as pdfium
    /// knows them (it does not take `StandardEncoding` as a name).
    pub fn from_pdf_name(name: &[u8]) -> Option<BaseEncoding> {
        match name {
            b"WinAnsiEncoding" => Some(BaseEncoding::WinAnsi),
            b"MacRomanEncoding" => Some(BaseEncoding::MacRoman),
            b"MacExpertEncoding" => Some(BaseEncoding::MacExpert),
            b"PDFDocEncoding" => Some(BaseEncoding::PdfDoc),
            _ => None,
        }
    }

    /// The glyph name of `code`, `None` where the encoding has none.
    pub fn name(self, code: u8) -> Option<&'static str> {
        let (first, table) = match self {
            BaseEncoding::Standard => (32, tables().standard.as_slice()),
            BaseEncoding::WinAnsi => (32, tables().win_ansi.as_slice()),
            BaseEncoding::MacRoman => (32, tables().mac_roman.as_slice()),
            BaseEncoding::MacExpert => (32, tables().mac_expert.as_slice()),
            BaseEncoding::PdfDoc => (24, tables().pdf_doc.as_slice()),
            BaseEncoding::Symbol => (32, tables().symbol.as_slice()),
            BaseEncoding::ZapfDingbats => (32, tables().zapf.as_slice()),
        };
        let i = (code as usize).checked_sub(first)?;
        table.get(i).copied().flatten()
    }
}

/// Codes 32 to 126: the ASCII names (`quotesingle` and `grave`, as in
/// WinAnsi, MacRoman and PDFDoc).
const ASCII: &str = "space exclam quotedbl numbersign dollar percent ampersand quotesingle \
    parenleft parenright asterisk plus comma hyphen period slash zero one two three four \
    five six seven eight nine colon semicolon less equal greater question at A B C D E F G \
    H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright asciicircum \
    underscore grave a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar \
    braceright asciitilde";

/// Codes 192 to 255 of WinAnsi and PDFDoc (Latin-1).
const LATIN1_TAIL: &str = "Agrave Aacute Acircumflex Atilde Adieresis Aring AE Ccedilla \
    Egrave Eacute Ecircumflex Edieresis Igrave Iacute Icircumflex Idieresis Eth Ntilde \
    Ograve Oacute Ocircumflex Otilde Odieresis multiply Oslash Ugrave Uacute Ucircumflex \
    Udieresis Yacute Thorn germandbls agrave aacute acircumflex atilde adieresis aring ae \
    ccedilla egrave eacute ecircumflex edieresis igrave iacute icircumflex idieresis eth \
    ntilde ograve oacute ocircumflex otilde odieresis divide oslash ugrave uacute \
    ucircumflex udieresis yacute thorn ydieresis";

/// Standard codes 127 to 255 (`.` for none).
const STANDARD_HIGH: &str = ". . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . \
    exclamdown cent sterling fraction yen florin section currency quotesingle quotedblleft \
    guillemotleft guilsinglleft guilsinglright fi fl . endash dagger daggerdbl \
    periodcentered . paragraph bullet quotesinglbase quotedblbase quotedblright \
    guillemotright ellipsis perthousand . questiondown . grave acute circumflex tilde \
    macron breve dotaccent dieresis . ring cedilla . hungarumlaut ogonek caron emdash \
    . . . . . . . . . . . . . . . . AE . ordfeminine . . . . Lslash Oslash OE ordmasculine \
    . . . . . ae . . . dotlessi . . lslash oslash oe germandbls . . . .";

/// WinAnsi codes 127 to 191.
const WIN_ANSI_HIGH: &str = "bullet Euro bullet quotesinglbase florin quotedblbase ellipsis \
    dagger daggerdbl circumflex perthousand Scaron guilsinglleft OE bullet Zcaron bullet \
    bullet quoteleft quoteright quotedblleft quotedblright bullet endash emdash tilde \
    trademark scaron guilsinglright oe bullet zcaron Ydieresis space exclamdown cent \
    sterling currency yen brokenbar section dieresis copyright ordfeminine guillemotleft \
    logicalnot hyphen registered macron degree plusminus twosuperior threesuperior acute \
    mu paragraph periodcentered cedilla onesuperior ordmasculine guillemotright onequarter \
    onehalf threequarters questiondown";

/// MacRoman codes 127 to 255.
const MAC_ROMAN_HIGH: &str = ". Adieresis Aring Ccedilla Eacute Ntilde Odieresis Udieresis \
    aacute agrave acircumflex adieresis atilde aring ccedilla eacute egrave ecircumflex \
    edieresis iacute igrave icircumflex idieresis ntilde oacute ograve ocircumflex \
    odieresis otilde uacute ugrave ucircumflex udieresis dagger degree cent sterling \
    section bullet paragraph germandbls registered copyright trademark acute dieresis \
    notequal AE Oslash infinity plusminus lessequal greaterequal yen mu partialdiff \
    summation product pi integral ordfeminine ordmasculine Omega ae oslash questiondown \
    exclamdown logicalnot radical florin approxequal Delta guillemotleft guillemotright \
    ellipsis space Agrave Atilde Otilde OE oe endash emdash quotedblleft quotedblright \
    quoteleft quoteright divide lozenge ydieresis Ydieresis fraction currency guilsinglleft \
    guilsinglright fi fl daggerdbl periodcentered quotesinglbase quotedblbase perthousand \
    Acircumflex Ecircumflex Aacute Edieresis Egrave Iacute Icircumflex Idieresis Igrave \
    Oacute Ocircumflex apple Ograve Uacute Ucircumflex Ugrave dotlessi circumflex tilde \
    macron breve dotaccent ring cedilla hungarumlaut ogonek caron";

/// MacExpert codes 32 to 255.
const MAC_EXPERT: &str = "space exclamsmall Hungarumlautsmall centoldstyle dollaroldstyle \
    dollarsuperior ampersandsmall Acutesmall parenleftsuperior parenrightsuperior \
    twodotenleader onedotenleader comma hyphen period fraction zerooldstyle oneoldstyle \
    twooldstyle threeoldstyle fouroldstyle fiveoldstyle sixoldstyle sevenoldstyle \
    eightoldstyle nineoldstyle colon semicolon . threequartersemdash . questionsmall . . . . \
    Ethsmall . . onequarter onehalf threequarters oneeighth threeeighths fiveeighths \
    seveneighths onethird twothirds . . . . . . ff fi fl ffi ffl parenleftinferior . \
    parenrightinferior Circumflexsmall hypheninferior Gravesmall Asmall Bsmall Csmall \
    Dsmall Esmall Fsmall Gsmall Hsmall Ismall Jsmall Ksmall Lsmall Msmall Nsmall Osmall \
    Psmall Qsmall Rsmall Ssmall Tsmall Usmall Vsmall Wsmall Xsmall Ysmall Zsmall \
    colonmonetary onefitted rupiah Tildesmall . . asuperior centsuperior . . . . \
    Aacutesmall Agravesmall Acircumflexsmall Adieresissmall Atildesmall Aringsmall \
    Ccedillasmall Eacutesmall Egravesmall Ecircumflexsmall Edieresissmall Iacutesmall \
    Igravesmall Icircumflexsmall Idieresissmall Ntildesmall Oacutesmall Ogravesmall \
    Ocircumflexsmall Odieresissmall Otildesmall Uacutesmall Ugravesmall Ucircumflexsmall \
    Udieresissmall . eightsuperior fourinferior threeinferior sixinferior eightinferior \
    seveninferior Scaronsmall . centinferior twoinferior . Dieresissmall . Caronsmall \
    Scaronsmall fiveinferior . commainferior periodinferior Yacutesmall . dollarinferior . \
    . Thornsmall . nineinferior zeroinferior Zcaronsmall AEsmall Oslashsmall \
    questiondownsmall oneinferior asuperior . . . . . . Cedillasmall . . . . . OEsmall \
    figuredash hyphensuperior . . . . exclamdownsmall . Ydieresissmall . onesuperior \
    twosuperior threesuperior foursuperior fivesuperior sixsuperior sevensuperior \
    ninesuperior zerosuperior . esuperior rsuperior . . . isuperior ssuperior dsuperior . \
    . . . . lsuperior Ogoneksmall Brevesmall Macronsmall bsuperior nsuperior msuperior \
    commasuperior periodsuperior Dotaccentsmall Ringsmall . . . .";

/// Symbol codes 32 to 255.
const SYMBOL: &str = "space exclam universal numbersign existential percent ampersand \
    suchthat parenleft parenright asteriskmath plus comma minus period slash zero one two \
    three four five six seven eight nine colon semicolon less equal greater question \
    congruent Alpha Beta Chi Delta Epsilon Phi Gamma Eta Iota theta1 Kappa Lambda Mu Nu \
    Omicron Pi Theta Rho Sigma Tau Upsilon sigma1 Omega Xi Psi Zeta bracketleft therefore \
    bracketright perpendicular underscore radicalex alpha beta chi delta epsilon phi gamma \
    eta iota phi1 kappa lambda mu nu omicron pi theta rho sigma tau upsilon omega1 omega xi \
    psi zeta braceleft bar braceright similar . . . . . . . . . . . . . . . . . . . . . . . \
    . . . . . . . . . . Euro Upsilon1 minute lessequal fraction infinity florin club \
    diamond heart spade arrowboth arrowleft arrowup arrowright arrowdown degree plusminus \
    second greaterequal multiply proportional partialdiff bullet divide notequal \
    equivalence approxequal ellipsis arrowvertex arrowhorizex carriagereturn aleph \
    Ifraktur Rfraktur weierstrass circlemultiply circleplus emptyset intersection union \
    propersuperset reflexsuperset notsubset propersubset reflexsubset element notelement \
    angle gradient registerserif copyrightserif trademarkserif product radical dotmath \
    logicalnot logicaland logicalor arrowdblboth arrowdblleft arrowdblup arrowdblright \
    arrowdbldown lozenge angleleft registersans copyrightsans trademarksans summation \
    parenlefttp parenleftex parenleftbt bracketlefttp bracketleftex bracketleftbt \
    bracelefttp braceleftmid braceleftbt braceex . angleright integral integraltp \
    integralex integralbt parenrighttp parenrightex parenrightbt bracketrighttp \
    bracketrightex bracketrightbt bracerighttp bracerightmid bracerightbt .";

/// ZapfDingbats codes 32 to 255 (names the glyph list does not know, so
/// they give no text in pdfium either).
const ZAPF: &str = "space a1 a2 a202 a3 a4 a5 a119 a118 a117 a11 a12 a13 a14 a15 a16 a105 \
    a17 a18 a19 a20 a21 a22 a23 a24 a25 a26 a27 a28 a6 a7 a8 a9 a10 a29 a30 a31 a32 a33 \
    a34 a35 a36 a37 a38 a39 a40 a41 a42 a43 a44 a45 a46 a47 a48 a49 a50 a51 a52 a53 a54 \
    a55 a56 a57 a58 a59 a60 a61 a62 a63 a64 a65 a66 a67 a68 a69 a70 a71 a72 a73 a74 a203 \
    a75 a204 a76 a77 a78 a79 a81 a82 a83 a84 a97 a98 a99 a100 . a89 a90 a93 a94 a91 a92 \
    a205 a85 a206 a86 a87 a88 a95 a96 . . . . . . . . . . . . . . . . . . . a101 a102 a103 \
    a104 a106 a107 a108 a112 a111 a110 a109 a120 a121 a122 a123 a124 a125 a126 a127 a128 \
    a129 a130 a131 a132 a133 a134 a135 a136 a137 a138 a139 a140 a141 a142 a143 a144 a145 \
    a146 a147 a148 a149 a150 a151 a152 a153 a154 a155 a156 a157 a158 a159 a160 a161 a163 \
    a164 a196 a165 a192 a166 a167 a168 a169 a170 a171 a172 a173 a162 a174 a175 a176 a177 \
    a178 a179 a193 a180 a199 a181 a200 a182 . a201 a183 a184 a197 a185 a194 a198 a186 \
    a195 a187 a188 a189 a190 a191 .";

/// PDFDoc codes 24 to 31 and 127 to 191 (pdfium's names, some of them
/// odd: `bullet3`, `Zcaron2`, `guillemotleft4`).
const PDF_DOC_LOW: &str = "breve caron circumflex dotaccent hungarumlaut ogonek ring tilde";
const PDF_DOC_HIGH: &str = ". bullet3 dagger daggerdbl ellipsis emdash endash florin fraction \
    guilsinglleft guilsinglright minus perthousand quotedblbase quotedblleft quotedblright \
    quoteleft quoteright quotesinglbase trademark fi fl Lslash OE Scaron Ydieresis Zcaron2 \
    dotlessi lslash oe scaron zcaron2 . Euro exclamdown cent sterling currency yen \
    brokenbar section dieresis copyright ordfeminine guillemotleft4 logicalnot . registered \
    macron degree plusminus twosuperior threesuperior acute mu paragraph periodcentered \
    cedilla onesuperior ordmasculine guillemotright4 onequarter onehalf threequarters \
    questiondown";

type Table = Vec<Option<&'static str>>;

struct Tables {
    standard: Table,
    win_ansi: Table,
    mac_roman: Table,
    mac_expert: Table,
    pdf_doc: Table,
    symbol: Table,
    zapf: Table,
}

/// The names of `parts` in order, `.` for none.
fn table(parts: &[&'static str]) -> Table {
    parts
        .iter()
        .flat_map(|p| p.split_whitespace())
        .map(|n| (n != ".").then_some(n))
        .collect()
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut standard = table(&[ASCII, STANDARD_HIGH]);
        standard[(b'\'' - 32) as usize] = Some("quoteright");
        standard[(b'`' - 32) as usize] = Some("quoteleft");
        Tables {
            standard,
            win_ansi: table(&[ASCII, WIN_ANSI_HIGH, LATIN1_TAIL]),
            mac_roman: table(&[ASCII, MAC_ROMAN_HIGH]),
            mac_expert: table(&[MAC_EXPERT]),
            pdf_doc: table(&[PDF_DOC_LOW, ASCII, PDF_DOC_HIGH, LATIN1_TAIL]),
            symbol: table(&[SYMBOL]),
            zapf: table(&[ZAPF]),
        }
    })
}

/// PDFDocEncoding where it differs from Latin-1 (codes 0x18 to 0x1F and
/// 0x80 to 0xA0); undefined codes (0x9F, 0xAD) are kept as Latin-1. Also
/// what `write::pdf` encodes Info strings with.
pub const PDF_DOC_SPECIAL: [(u8, char); 41] = [
    (0x18, '\u{02D8}'),
    (0x19, '\u{02C7}'),
    (0x1A, '\u{02C6}'),
    (0x1B, '\u{02D9}'),
    (0x1C, '\u{02DD}'),
    (0x1D, '\u{02DB}'),
    (0x1E, '\u{02DA}'),
    (0x1F, '\u{02DC}'),
    (0x80, '\u{2022}'),
    (0x81, '\u{2020}'),
    (0x82, '\u{2021}'),
    (0x83, '\u{2026}'),
    (0x84, '\u{2014}'),
    (0x85, '\u{2013}'),
    (0x86, '\u{0192}'),
    (0x87, '\u{2044}'),
    (0x88, '\u{2039}'),
    (0x89, '\u{203A}'),
    (0x8A, '\u{2212}'),
    (0x8B, '\u{2030}'),
    (0x8C, '\u{201E}'),
    (0x8D, '\u{201C}'),
    (0x8E, '\u{201D}'),
    (0x8F, '\u{2018}'),
    (0x90, '\u{2019}'),
    (0x91, '\u{201A}'),
    (0x92, '\u{2122}'),
    (0x93, '\u{FB01}'),
    (0x94, '\u{FB02}'),
    (0x95, '\u{0141}'),
    (0x96, '\u{0152}'),
    (0x97, '\u{0160}'),
    (0x98, '\u{0178}'),
    (0x99, '\u{017D}'),
    (0x9A, '\u{0131}'),
    (0x9B, '\u{0142}'),
    (0x9C, '\u{0153}'),
    (0x9D, '\u{0161}'),
    (0x9E, '\u{017E}'),
    (0xA0, '\u{20AC}'),
    (0x7F, '\u{007F}'),
];

fn pdf_doc_char(b: u8) -> char {
    PDF_DOC_SPECIAL
        .iter()
        .find(|(code, _)| *code == b)
        .map_or(b as char, |&(_, c)| c)
}

/// A text string (ISO 32000-1, 7.9.2.2) as pdfium decodes it: UTF-16BE
/// after a `FE FF` byte order mark, UTF-16LE after `FF FE`, UTF-8 after
/// `EF BB BF`, PDFDocEncoding otherwise. Unpaired surrogates become
/// U+FFFD.
pub fn pdf_doc_decode(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(rest, u16::from_be_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    bytes.iter().map(|&b| pdf_doc_char(b)).collect()
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> String {
    let units = bytes.chunks_exact(2).map(|p| unit([p[0], p[1]]));
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_every_code() {
        let t = tables();
        for (table, len) in [
            (&t.standard, 224),
            (&t.win_ansi, 224),
            (&t.mac_roman, 224),
            (&t.mac_expert, 224),
            (&t.symbol, 224),
            (&t.zapf, 224),
            (&t.pdf_doc, 232),
        ] {
            assert_eq!(table.len(), len);
        }
    }

    #[test]
    fn names_at_known_codes() {
        use BaseEncoding::*;
        assert_eq!(Standard.name(b'\''), Some("quoteright"));
        assert_eq!(Standard.name(0xAE), Some("fi"));
        assert_eq!(Standard.name(0xFB), Some("germandbls"));
        assert_eq!(Standard.name(0xE1), Some("AE"));
        assert_eq!(Standard.name(0x80), None);
        assert_eq!(Standard.name(31), None);
        assert_eq!(WinAnsi.name(0x80), Some("Euro"));
        assert_eq!(WinAnsi.name(0xA0), Some("space"));
        assert_eq!(WinAnsi.name(0xE9), Some("eacute"));
        assert_eq!(WinAnsi.name(0x27), Some("quotesingle"));
        assert_eq!(MacRoman.name(0x8E), Some("eacute"));
        assert_eq!(MacRoman.name(0xFF), Some("caron"));
        assert_eq!(MacExpert.name(0x56), Some("ff"));
        assert_eq!(Symbol.name(0x61), Some("alpha"));
        assert_eq!(Symbol.name(0xFE), Some("bracerightbt"));
        assert_eq!(ZapfDingbats.name(0x21), Some("a1"));
        assert_eq!(ZapfDingbats.name(0xFE), Some("a191"));
        assert_eq!(PdfDoc.name(0x18), Some("breve"));
        assert_eq!(PdfDoc.name(0xE9), Some("eacute"));
    }

    #[test]
    fn text_strings() {
        assert_eq!(pdf_doc_decode(b"Caf\xe9 \x84 x"), "Café — x");
        assert_eq!(
            pdf_doc_decode(b"\xfe\xff\x00A\xd8\x35\xdc\x00"),
            "A\u{1D400}"
        );
        assert_eq!(pdf_doc_decode(b"\xff\xfeA\x00"), "A");
        assert_eq!(pdf_doc_decode(b"\xef\xbb\xbfh\xc3\xa9"), "hé");
        assert_eq!(pdf_doc_decode(b"\x93"), "\u{FB01}");
    }
}
