//! Producer 1: writes laid-out pages as a PDF with lopdf. Base-14 faces use
//! WinAnsiEncoding; DejaVu faces are embedded whole as CIDFontType2 with
//! Identity-H and a ToUnicode CMap, so that text extraction gives back
//! Cyrillic. Images are Flate-compressed grey. Nothing time-dependent is
//! written, so a seed gives the same bytes.

use std::collections::{BTreeMap, BTreeSet};

use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream, StringFormat, dictionary};

use super::fonts::{Face, Fonts, winansi};
use super::layout::{Item, Page};

/// The document information dictionary entries to write.
#[derive(Clone, Default)]
pub struct Info {
    pub title: Option<String>,
    pub author: Option<String>,
    pub producer: String,
    pub creator: Option<String>,
}

fn text_string(s: &str) -> Object {
    // PDFDocEncoding for ASCII, UTF-16BE with a BOM for anything else.
    if s.is_ascii() {
        Object::String(s.as_bytes().to_vec(), StringFormat::Literal)
    } else {
        let mut b = vec![0xFE, 0xFF];
        for u in s.encode_utf16() {
            b.extend_from_slice(&u.to_be_bytes());
        }
        Object::String(b, StringFormat::Hexadecimal)
    }
}

fn encode(
    fonts: &Fonts,
    face: Face,
    text: &str,
    used: &mut BTreeMap<Face, BTreeMap<u16, char>>,
) -> Object {
    if face.family.embedded() {
        let f = fonts.ttf(face).expect("embedded face loaded");
        let mut bytes = Vec::with_capacity(text.len() * 2);
        let set = used.entry(face).or_default();
        for c in text.chars() {
            let (gid, _) = f.glyph(c).or_else(|| f.glyph('?')).unwrap_or((0, 0.0));
            set.entry(gid).or_insert(c);
            bytes.extend_from_slice(&gid.to_be_bytes());
        }
        Object::String(bytes, StringFormat::Hexadecimal)
    } else {
        used.entry(face).or_default();
        let bytes: Vec<u8> = text.chars().map(|c| winansi(c).unwrap_or(b'?')).collect();
        Object::String(bytes, StringFormat::Literal)
    }
}

fn to_unicode_cmap(map: &BTreeMap<u16, char>) -> Vec<u8> {
    let mut s = String::from(
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
         /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
         /CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
         1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n",
    );
    let entries: Vec<_> = map.iter().collect();
    for chunk in entries.chunks(100) {
        s.push_str(&format!("{} beginbfchar\n", chunk.len()));
        for (gid, c) in chunk {
            let mut u = String::new();
            for unit in c.encode_utf16(&mut [0u16; 2]) {
                u.push_str(&format!("{unit:04X}"));
            }
            s.push_str(&format!("<{gid:04X}> <{u}>\n"));
        }
        s.push_str("endbfchar\n");
    }
    s.push_str("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
    s.into_bytes()
}

fn embedded_font(
    doc: &mut Document,
    fonts: &Fonts,
    face: Face,
    used: &BTreeMap<u16, char>,
) -> ObjectId {
    let f = fonts.ttf(face).expect("embedded face loaded");
    let mut file = Stream::new(
        dictionary! { "Length1" => f.data.len() as i64 },
        f.data.clone(),
    );
    let _ = file.compress();
    let file_id = doc.add_object(file);
    let name = f.postscript_name.clone();
    let descriptor = doc.add_object(dictionary! {
        "Type" => "FontDescriptor",
        "FontName" => Object::Name(name.clone().into_bytes()),
        "Flags" => if face.family == super::fonts::Family::Serif { 34 } else { 32 },
        "FontBBox" => f.bbox.iter().map(|v| Object::Real(*v)).collect::<Vec<_>>(),
        "ItalicAngle" => Object::Real(f.italic_angle),
        "Ascent" => Object::Real(f.ascender),
        "Descent" => Object::Real(f.descender),
        "CapHeight" => Object::Real(f.cap_height),
        "StemV" => if face.bold { 140 } else { 80 },
        "FontFile2" => file_id,
    });
    let mut w = Vec::new();
    let by_gid: BTreeMap<u16, f32> = used
        .iter()
        .map(|(g, c)| (*g, f.glyph(*c).map_or(0.0, |x| x.1)))
        .collect();
    for (g, adv) in &by_gid {
        w.push(Object::Integer(*g as i64));
        w.push(Object::Array(vec![Object::Real(*adv)]));
    }
    let cid = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "CIDFontType2",
        "BaseFont" => Object::Name(name.clone().into_bytes()),
        "CIDSystemInfo" => dictionary! {
            "Registry" => Object::string_literal("Adobe"),
            "Ordering" => Object::string_literal("Identity"),
            "Supplement" => 0,
        },
        "FontDescriptor" => descriptor,
        "DW" => 600,
        "W" => w,
        "CIDToGIDMap" => "Identity",
    });
    let tu = doc.add_object(Stream::new(dictionary! {}, to_unicode_cmap(used)));
    doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type0",
        "BaseFont" => Object::Name(name.into_bytes()),
        "Encoding" => "Identity-H",
        "DescendantFonts" => vec![Object::Reference(cid)],
        "ToUnicode" => tu,
    })
}

/// Writes the pages as one PDF.
pub fn write(fonts: &Fonts, pages: &[Page], info: &Info) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut used: BTreeMap<Face, BTreeMap<u16, char>> = BTreeMap::new();
    // Faces get resource names in order of first use, fixed before the
    // font objects exist; the page dictionaries point at a shared font
    // dictionary filled at the end.
    let mut names: BTreeMap<Face, String> = BTreeMap::new();
    let mut kids = Vec::new();
    let mut page_contents = Vec::new();
    for page in pages {
        let mut ops = Vec::new();
        let mut images = Dictionary::new();
        let mut faces_here = BTreeSet::new();
        let mut tw = 0.0f32;
        for item in &page.items {
            match item {
                Item::Text { .. } | Item::Sideways { .. } => {
                    let (x, y, face, size, text, word_spacing, turned) = match item {
                        Item::Text {
                            x,
                            y,
                            face,
                            size,
                            text,
                            word_spacing,
                        } => (*x, *y, *face, *size, text, *word_spacing, false),
                        Item::Sideways {
                            x,
                            y,
                            face,
                            size,
                            text,
                        } => (*x, *y, *face, *size, text, 0.0, true),
                        _ => unreachable!(),
                    };
                    let n = names.len();
                    let name = names
                        .entry(face)
                        .or_insert_with(|| format!("F{}", n + 1))
                        .clone();
                    faces_here.insert(face);
                    ops.push(Operation::new("BT", vec![]));
                    ops.push(Operation::new(
                        "Tf",
                        vec![Object::Name(name.into_bytes()), Object::Real(size)],
                    ));
                    // Tw is graphics state: it outlives ET, so set it on every change.
                    if word_spacing != tw {
                        ops.push(Operation::new("Tw", vec![Object::Real(word_spacing)]));
                        tw = word_spacing;
                    }
                    if turned {
                        ops.push(Operation::new(
                            "Tm",
                            vec![
                                0.into(),
                                1.into(),
                                (-1).into(),
                                0.into(),
                                Object::Real(x),
                                Object::Real(y),
                            ],
                        ));
                    } else {
                        ops.push(Operation::new("Td", vec![Object::Real(x), Object::Real(y)]));
                    }
                    ops.push(Operation::new(
                        "Tj",
                        vec![encode(fonts, face, text, &mut used)],
                    ));
                    ops.push(Operation::new("ET", vec![]));
                }
                Item::Rect { x, y, w, h } => {
                    ops.push(Operation::new(
                        "re",
                        vec![
                            Object::Real(*x),
                            Object::Real(*y),
                            Object::Real(*w),
                            Object::Real(*h),
                        ],
                    ));
                    ops.push(Operation::new("f", vec![]));
                }
                Item::Image { x, y, w, h, image } => {
                    let name = format!("Im{}", images.len() + 1);
                    let mut s = Stream::new(
                        dictionary! {
                            "Type" => "XObject",
                            "Subtype" => "Image",
                            "Width" => image.width() as i64,
                            "Height" => image.height() as i64,
                            "ColorSpace" => "DeviceGray",
                            "BitsPerComponent" => 8,
                        },
                        image.as_raw().clone(),
                    );
                    let _ = s.compress();
                    let id = doc.add_object(s);
                    images.set(name.clone(), id);
                    ops.push(Operation::new("q", vec![]));
                    ops.push(Operation::new(
                        "cm",
                        vec![
                            Object::Real(*w),
                            0.into(),
                            0.into(),
                            Object::Real(*h),
                            Object::Real(*x),
                            Object::Real(*y),
                        ],
                    ));
                    ops.push(Operation::new("Do", vec![Object::Name(name.into_bytes())]));
                    ops.push(Operation::new("Q", vec![]));
                }
            }
        }
        let content = Content { operations: ops };
        let mut stream = Stream::new(dictionary! {}, content.encode().expect("content encodes"));
        let _ = stream.compress();
        let content_id = doc.add_object(stream);
        let page_id = doc.new_object_id();
        page_contents.push((page_id, content_id, images, faces_here, page.w, page.h));
        kids.push(Object::Reference(page_id));
    }
    let mut font_ids = BTreeMap::new();
    for (face, name) in &names {
        let id = if face.family.embedded() {
            embedded_font(&mut doc, fonts, *face, &used[face])
        } else {
            doc.add_object(dictionary! {
                "Type" => "Font",
                "Subtype" => "Type1",
                "BaseFont" => Object::Name(face.base14_name().as_bytes().to_vec()),
                "Encoding" => "WinAnsiEncoding",
            })
        };
        font_ids.insert(*face, (name.clone(), id));
    }
    for (page_id, content_id, images, faces_here, w, h) in page_contents {
        let mut font_dict = Dictionary::new();
        for f in faces_here {
            let (name, id) = &font_ids[&f];
            font_dict.set(name.clone(), *id);
        }
        let mut resources = dictionary! { "Font" => font_dict };
        if !images.is_empty() {
            resources.set("XObject", images);
        }
        doc.objects.insert(
            page_id,
            Object::Dictionary(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "MediaBox" => vec![0.into(), 0.into(), Object::Real(w), Object::Real(h)],
                "Contents" => content_id,
                "Resources" => resources,
            }),
        );
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    finish(doc, pages_id, info)
}

/// Catalog, Info and serialisation, shared with the scanned-variant writer.
pub fn finish(mut doc: Document, pages_id: ObjectId, info: &Info) -> Vec<u8> {
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    let mut d = dictionary! { "Producer" => text_string(&info.producer) };
    if let Some(t) = &info.title {
        d.set("Title", text_string(t));
    }
    if let Some(a) = &info.author {
        d.set("Author", text_string(a));
    }
    if let Some(c) = &info.creator {
        d.set("Creator", text_string(c));
    }
    let info_id = doc.add_object(d);
    doc.trailer.set("Root", catalog);
    doc.trailer.set("Info", info_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).expect("writing a PDF to memory");
    out
}

/// An image-only PDF: one JPEG per page, drawn over the whole page.
pub fn write_jpeg_pages(pages: &[(Vec<u8>, u32, u32, f32, f32)], info: &Info) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut kids = Vec::new();
    for (jpeg, pw, ph, w, h) in pages {
        let img = doc.add_object(
            Stream::new(
                dictionary! {
                    "Type" => "XObject",
                    "Subtype" => "Image",
                    "Width" => *pw as i64,
                    "Height" => *ph as i64,
                    "ColorSpace" => "DeviceGray",
                    "BitsPerComponent" => 8,
                    "Filter" => "DCTDecode",
                },
                jpeg.clone(),
            )
            .with_compression(false),
        );
        let ops = format!("q {w} 0 0 {h} 0 0 cm /Im1 Do Q");
        let content = doc.add_object(Stream::new(dictionary! {}, ops.into_bytes()));
        let page = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "MediaBox" => vec![0.into(), 0.into(), Object::Real(*w), Object::Real(*h)],
            "Contents" => content,
            "Resources" => dictionary! { "XObject" => dictionary! { "Im1" => img } },
        });
        kids.push(Object::Reference(page));
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    finish(doc, pages_id, info)
}
