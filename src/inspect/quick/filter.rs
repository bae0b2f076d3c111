//! Stream filters (ISO 32000-1, 7.4): Flate, LZW, ASCII85, ASCIIHex and
//! RunLength, with the PNG and TIFF predictors of Flate and LZW. Image
//! filters (DCT, JPX, JBIG2, CCITT), `/Crypt` and anything else are
//! [`Unsupported`]: text extraction never needs an image's pixels, and
//! encrypted files are left to pdfium.
//!
//! LZW, ASCII85, ASCIIHex and RunLength are `lopdf`'s
//! (`lopdf::Stream::decompressed_content_with_limit`), and so are the PNG
//! predictors (`lopdf::filters::png`). Flate and the TIFF predictor stay
//! here, measured against lopdf over every stream of the real library and
//! pdf.js's problem files (`examples/lopdf_measure.rs filters`; figures in
//! `docs/history/performance.md`, 2026-11-28): the same speed, but
//! lopdf's Flate decoder drops what it decoded in the read that meets the
//! damage (2 of pdf.js's 10,709 streams came out shorter than pdfium
//! reads them, one by 14 KB), where a page's text must be read up to the
//! damage as pdfium does; lopdf keeps the TIFF predictor to itself.
//!
//! lopdf is stricter than pdfium on damaged data (a PNG row cut short or
//! an unknown row tag, a bad ASCIIHex digit, a `z` inside an ASCII85
//! group): such a stream is [`Unsupported`] and pdfium reads its page, so
//! the text stays pdfium's. A refusal for size is
//! [`Unsupported::too_large`] (the worker fails the document on it rather
//! than handing a bomb to pdfium). Each filter of a chain is decoded on its
//! own, its parameters paired with it as pdfium pairs them (`super::file`).

use super::Unsupported;
use super::object::{Dict, Object};

/// Decoded output larger than this is a decompression bomb, not a page.
pub const MAX_DECODED: usize = 64 << 20;

/// One filter of a stream's `/Filter` chain and its `/DecodeParms`
/// (already resolved by the caller).
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    pub name: &'a [u8],
    pub params: Option<&'a Dict>,
}

/// Applies `steps` in order to `data`.
pub fn decode(data: &[u8], steps: &[Step]) -> Result<Vec<u8>, Unsupported> {
    let Some((first, rest)) = steps.split_first() else {
        return Ok(data.to_vec());
    };
    let mut out = decode_step(data, first)?;
    for step in rest {
        out = decode_step(&out, step)?;
    }
    Ok(out)
}

fn decode_step(data: &[u8], step: &Step) -> Result<Vec<u8>, Unsupported> {
    let name = match step.name {
        b"FlateDecode" | b"Fl" => return predict(inflate(data)?, step.params),
        b"LZWDecode" | b"LZW" => "LZWDecode",
        b"ASCII85Decode" | b"A85" => "ASCII85Decode",
        b"ASCIIHexDecode" | b"AHx" => "ASCIIHexDecode",
        b"RunLengthDecode" | b"RL" => "RunLengthDecode",
        other => {
            return Err(Unsupported::new(format!(
                "stream filter {}",
                String::from_utf8_lossy(other)
            )));
        }
    };
    // lopdf would take ASCII85's opening `<~` for two digits.
    let data = match name {
        "ASCII85Decode" => data.strip_prefix(b"<~").unwrap_or(data),
        _ => data,
    };
    let mut dict = lopdf::Dictionary::new();
    dict.set("Filter", lopdf::Object::Name(name.as_bytes().to_vec()));
    if let Some(params) = step.params {
        dict.set("DecodeParms", numbers(params));
    }
    let out = lopdf::Stream::new(dict, data.to_vec())
        .decompressed_content_with_limit(MAX_DECODED)
        .map_err(|e| lopdf_error(name, e))?;
    if name == "LZWDecode" && out.is_empty() && !data.is_empty() {
        return Err(Unsupported::new("LZW data that decodes to nothing"));
    }
    Ok(out)
}

/// What a refusal of lopdf's decoders becomes.
fn lopdf_error(filter: &str, e: lopdf::Error) -> Unsupported {
    match e {
        lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { .. }) => too_large(),
        e => Unsupported::new(format!("damaged {filter} data ({e})")),
    }
}

/// The numbers of a `/DecodeParms` dictionary (the only values the
/// predictors and `/EarlyChange` read) as lopdf holds them.
fn numbers(params: &Dict) -> lopdf::Dictionary {
    let mut out = lopdf::Dictionary::new();
    for (key, value) in &params.entries {
        let value = match *value {
            Object::Int(i) => lopdf::Object::Integer(i),
            Object::Real(r) if r.fract() == 0.0 && r.abs() < 1e9 => {
                lopdf::Object::Integer(r as i64)
            }
            Object::Real(r) => lopdf::Object::Real(r as f32),
            _ => continue,
        };
        out.set(key.to_vec(), value);
    }
    out
}

fn too_large() -> Unsupported {
    Unsupported::too_large(format!(
        "a stream decodes to more than {} MiB (a decompression bomb)",
        MAX_DECODED >> 20
    ))
}

/// Flate (zlib) data. A stream cut short or damaged gives what came out
/// before the damage, as pdfium does; nothing at all is an error.
fn inflate(data: &[u8]) -> Result<Vec<u8>, Unsupported> {
    use flate2::{Decompress, FlushDecompress, Status};
    let mut z = Decompress::new(true);
    let mut out: Vec<u8> = Vec::with_capacity((data.len() * 4).clamp(1024, 1 << 20));
    loop {
        if out.len() == out.capacity() {
            if out.len() >= MAX_DECODED {
                return Err(too_large());
            }
            out.reserve(out.len().min(MAX_DECODED - out.len()).max(1024));
        }
        let consumed = z.total_in() as usize;
        let before = out.len();
        let status = z.decompress_vec(
            &data[consumed.min(data.len())..],
            &mut out,
            FlushDecompress::None,
        );
        match status {
            Ok(Status::StreamEnd) => break,
            Ok(Status::Ok) | Ok(Status::BufError) => {
                let stuck = out.len() == before && z.total_in() as usize == consumed;
                if stuck && out.len() < out.capacity() {
                    // Input used up without the end of the stream: truncated.
                    break;
                }
            }
            Err(_) => break,
        }
    }
    if out.len() > MAX_DECODED {
        return Err(too_large());
    }
    if out.is_empty() && !data.is_empty() {
        return Err(Unsupported::new("Flate data that decodes to nothing"));
    }
    Ok(out)
}

/// The layout `/DecodeParms` gives a predictor.
struct Layout {
    /// Bytes per row of samples (without the PNG tag byte).
    row: usize,
    /// Bytes per pixel, at least 1: the distance PNG filters look back.
    pixel: usize,
    colors: usize,
    bits: usize,
    columns: usize,
}

impl Layout {
    fn of(params: &Dict) -> Result<Layout, Unsupported> {
        let get = |key: &[u8], default: f64| params.number(key).unwrap_or(default);
        let colors = get(b"Colors", 1.0);
        let bits = get(b"BitsPerComponent", 8.0);
        let columns = get(b"Columns", 1.0);
        let valid_bits = [1.0, 2.0, 4.0, 8.0, 16.0].contains(&bits);
        if !(1.0..=32.0).contains(&colors) || !valid_bits || !(1.0..=1e6).contains(&columns) {
            return Err(Unsupported::new("predictor parameters out of range"));
        }
        let (colors, bits, columns) = (colors as usize, bits as usize, columns as usize);
        Ok(Layout {
            row: (colors * bits * columns).div_ceil(8),
            pixel: (colors * bits).div_ceil(8),
            colors,
            bits,
            columns,
        })
    }
}

/// Undoes `/Predictor` of Flate parameters: 1 (none), 2 (TIFF) or 10 to
/// 15 (PNG; each row says its own filter).
fn predict(data: Vec<u8>, params: Option<&Dict>) -> Result<Vec<u8>, Unsupported> {
    let Some(params) = params else {
        return Ok(data);
    };
    let predictor = params.number(b"Predictor").unwrap_or(1.0);
    if predictor == 1.0 {
        return Ok(data);
    }
    let layout = Layout::of(params)?;
    if predictor == 2.0 {
        tiff_predictor(data, &layout)
    } else if predictor >= 10.0 {
        lopdf::filters::png::decode_frame(&data, layout.pixel, layout.row)
            .map_err(|e| Unsupported::new(format!("damaged PNG predictor data ({e})")))
    } else {
        Err(Unsupported::new("unknown predictor"))
    }
}

/// TIFF predictor 2: each sample is the difference from the sample of the
/// same colour to its left. 8- and 16-bit samples only.
fn tiff_predictor(mut data: Vec<u8>, layout: &Layout) -> Result<Vec<u8>, Unsupported> {
    let colors = layout.colors;
    match layout.bits {
        8 => {
            for row in data.chunks_mut(layout.row) {
                for i in colors..row.len() {
                    row[i] = row[i].wrapping_add(row[i - colors]);
                }
            }
        }
        16 => {
            for row in data.chunks_mut(layout.row) {
                let samples = (row.len() / 2).min(layout.columns * colors);
                for s in colors..samples {
                    let left =
                        u16::from_be_bytes([row[2 * (s - colors)], row[2 * (s - colors) + 1]]);
                    let here = u16::from_be_bytes([row[2 * s], row[2 * s + 1]]);
                    row[2 * s..2 * s + 2].copy_from_slice(&here.wrapping_add(left).to_be_bytes());
                }
            }
        }
        _ => return Err(Unsupported::new("TIFF predictor with samples under 8 bits")),
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::quick::object::Object;
    use std::io::Write;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn params(entries: &[(&str, i64)]) -> Dict {
        Dict {
            entries: entries
                .iter()
                .map(|(k, v)| (k.as_bytes().into(), Object::Int(*v)))
                .collect(),
        }
    }

    fn one(data: &[u8], name: &str, params: Option<&Dict>) -> Result<Vec<u8>, Unsupported> {
        decode(
            data,
            &[Step {
                name: name.as_bytes(),
                params,
            }],
        )
    }

    #[test]
    fn flate_whole_and_truncated() {
        let text: Vec<u8> = (0..20000u32)
            .flat_map(|i| i.to_string().into_bytes())
            .collect();
        let z = zlib(&text);
        assert_eq!(one(&z, "FlateDecode", None).unwrap(), text);
        // Cut short: what came out before the cut, a prefix of the text.
        let part = one(&z[..z.len() / 2], "Fl", None).unwrap();
        assert!(!part.is_empty() && text.starts_with(&part));
        assert!(one(b"garbage!", "FlateDecode", None).is_err());
        assert!(one(b"", "FlateDecode", None).unwrap().is_empty());
    }

    #[test]
    fn flate_bomb_is_refused() {
        let zeros = vec![0u8; MAX_DECODED + 1];
        let z = zlib(&zeros);
        drop(zeros);
        let err = one(&z, "FlateDecode", None).unwrap_err();
        assert!(err.is_too_large(), "{err}");
        // Nested: a kilobyte that would decode to the whole 64 MiB and
        // more (the shape of the 1.8 KB bomb of issue 38).
        let twice = zlib(&z);
        assert!(twice.len() < 4096, "{}", twice.len());
        let steps = [b"FlateDecode", b"FlateDecode"].map(|name| Step { name, params: None });
        assert!(decode(&twice, &steps).unwrap_err().is_too_large());
    }

    /// Issue 38: pdfium aborts on an LZW bomb; the quick reader refuses it
    /// as too large (the worker then fails the document, and pdfium never
    /// reads it).
    #[test]
    fn lzw_bomb_is_refused() {
        let zeros = vec![0u8; MAX_DECODED + 1];
        let coded = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
            .encode(&zeros)
            .unwrap();
        drop(zeros);
        let err = one(&coded, "LZWDecode", None).unwrap_err();
        assert!(err.is_too_large(), "{err}");
        assert_eq!(
            err.too_large.as_deref(),
            Some("a stream decodes to more than 64 MiB (a decompression bomb)")
        );
    }

    #[test]
    fn lzw_with_and_without_early_change() {
        // The example of ISO 32000-1, 7.4.4.2: "-----A---B".
        let coded = [0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01];
        assert_eq!(one(&coded, "LZWDecode", None).unwrap(), b"-----A---B");
        let text: Vec<u8> = (0..3000u32)
            .flat_map(|i| (i % 251).to_string().into_bytes())
            .collect();
        for early in [false, true] {
            let mut enc = if early {
                weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
            } else {
                weezl::encode::Encoder::new(weezl::BitOrder::Msb, 8)
            };
            let coded = enc.encode(&text).unwrap();
            let p = params(&[("EarlyChange", early as i64)]);
            assert_eq!(one(&coded, "LZW", Some(&p)).unwrap(), text);
        }
    }

    #[test]
    fn ascii_filters_and_run_length() {
        assert_eq!(
            one(b"48 65 6c6C 6>", "ASCIIHexDecode", None).unwrap(),
            b"Hell`"
        );
        assert_eq!(one(b"<~87cURDZ~>", "A85", None).unwrap(), b"Hello");
        assert_eq!(
            one(b"z!!*-'~>", "ASCII85Decode", None).unwrap(),
            [0, 0, 0, 0, 0, 1, 2, 3]
        );
        assert_eq!(one(b"\x02abc\xfdx\x80zz", "RL", None).unwrap(), b"abcxxxx");
        assert!(one(b"data", "DCTDecode", None).is_err());
        assert!(one(b"data", "Crypt", None).is_err());
    }

    #[test]
    fn png_and_tiff_predictors() {
        // Two rows of three bytes, the first with Sub, the second with Up.
        let rows = [1, 1, 1, 1, 2, 1, 2, 3];
        let p = params(&[("Predictor", 12), ("Columns", 3)]);
        let out = one(&zlib(&rows), "FlateDecode", Some(&p)).unwrap();
        assert_eq!(out, [1, 2, 3, 2, 4, 6]);
        // Paeth and Average on two-byte pixels.
        let p = params(&[("Predictor", 15), ("Columns", 2), ("Colors", 2)]);
        let rows = [3, 10, 20, 5, 5, 4, 1, 1, 2, 2];
        let out = one(&zlib(&rows), "FlateDecode", Some(&p)).unwrap();
        assert_eq!(out, [10, 20, 10, 15, 11, 21, 13, 17]);
        let p = params(&[("Predictor", 2), ("Columns", 3)]);
        assert_eq!(
            one(&zlib(&[5, 1, 1, 7, 2, 2]), "Fl", Some(&p)).unwrap(),
            [5, 6, 7, 7, 9, 11]
        );
    }

    /// lopdf refuses some damage pdfium reads past: the stream is then
    /// unsupported (pdfium reads the page), never a refusal for size.
    #[test]
    fn damage_lopdf_refuses_is_unsupported() {
        let bad_hex = one(b"48 65 xx 6c >", "ASCIIHexDecode", None).unwrap_err();
        assert!(!bad_hex.is_too_large());
        assert!(
            bad_hex.why.starts_with("damaged ASCIIHexDecode data"),
            "{bad_hex}"
        );
        // Two rows of three bytes announced, a row and a half given.
        let p = params(&[("Predictor", 12), ("Columns", 3)]);
        let short = one(&zlib(&[0, 1, 2, 3, 2, 1]), "FlateDecode", Some(&p)).unwrap_err();
        assert!(
            short.why.starts_with("damaged PNG predictor data"),
            "{short}"
        );
        // RunLength bombs are caught by lopdf's limit too.
        let bomb: Vec<u8> = std::iter::repeat_n([129u8, 7], MAX_DECODED / 128 + 1)
            .flatten()
            .collect();
        assert!(one(&bomb, "RL", None).unwrap_err().is_too_large());
    }

    #[test]
    fn chains_apply_in_order() {
        let hex: Vec<u8> = zlib(b"BT ET")
            .iter()
            .flat_map(|b| format!("{b:02x}").into_bytes())
            .collect();
        let steps = [
            Step {
                name: b"AHx",
                params: None,
            },
            Step {
                name: b"FlateDecode",
                params: None,
            },
        ];
        assert_eq!(decode(&hex, &steps).unwrap(), b"BT ET");
    }
}
