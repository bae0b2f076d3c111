//! Stream filters (ISO 32000-1, 7.4): Flate, LZW, ASCII85, ASCIIHex and
//! RunLength, with the PNG and TIFF predictors of Flate and LZW. Image
//! filters (DCT, JPX, JBIG2, CCITT) and `/Crypt` are [`Unsupported`]:
//! text extraction never needs an image's pixels, and encrypted files are
//! left to pdfium.
//!
//! Damaged data is read as pdfium reads it: a truncated or corrupt Flate or
//! LZW stream gives what was decoded before the damage. Output is capped at
//! [`MAX_DECODED`] so that a small hostile stream cannot take the memory.

use super::Unsupported;
use super::object::Dict;

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
    match step.name {
        b"FlateDecode" | b"Fl" => predict(inflate(data)?, step.params),
        b"LZWDecode" | b"LZW" => predict(lzw(data, early_change(step.params))?, step.params),
        b"ASCII85Decode" | b"A85" => Ok(ascii85(data)),
        b"ASCIIHexDecode" | b"AHx" => Ok(ascii_hex(data)),
        b"RunLengthDecode" | b"RL" => run_length(data),
        other => Err(Unsupported::new(format!(
            "stream filter {}",
            String::from_utf8_lossy(other)
        ))),
    }
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

/// `/EarlyChange` of LZW parameters: 1 unless given as 0.
fn early_change(params: Option<&Dict>) -> bool {
    params.and_then(|p| p.number(b"EarlyChange")) != Some(0.0)
}

/// LZW data (most significant bit first, 8-bit symbols). Like Flate,
/// damage ends the data rather than failing it.
fn lzw(data: &[u8], early_change: bool) -> Result<Vec<u8>, Unsupported> {
    use weezl::{BitOrder, LzwStatus, decode::Decoder};
    let mut decoder = if early_change {
        Decoder::with_tiff_size_switch(BitOrder::Msb, 8)
    } else {
        Decoder::new(BitOrder::Msb, 8)
    };
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut input = data;
    loop {
        let result = decoder.decode_bytes(input, &mut buf);
        input = &input[result.consumed_in..];
        out.extend_from_slice(&buf[..result.consumed_out]);
        if out.len() > MAX_DECODED {
            return Err(too_large());
        }
        match result.status {
            Ok(LzwStatus::Ok) if result.consumed_in + result.consumed_out > 0 => {}
            _ => break,
        }
    }
    if out.is_empty() && !data.is_empty() {
        return Err(Unsupported::new("LZW data that decodes to nothing"));
    }
    Ok(out)
}

/// ASCIIHex: pairs of hex digits up to `>`, white space ignored, an odd
/// last digit followed by 0. Any other byte ends the data (pdfium).
fn ascii_hex(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 2);
    let mut high: Option<u8> = None;
    for &c in data {
        if super::lexer::is_white(c) {
            continue;
        }
        let Some(v) = (c as char).to_digit(16) else {
            break;
        };
        match high.take() {
            Some(h) => out.push(h * 16 + v as u8),
            None => high = Some(v as u8),
        }
    }
    if let Some(h) = high {
        out.push(h * 16);
    }
    out
}

/// ASCII85: groups of five digits `!`..`u` to four bytes, `z` for four
/// zeros, up to `~>`; a last partial group gives one byte fewer than its
/// digits. Other bytes end the data.
fn ascii85(data: &[u8]) -> Vec<u8> {
    let data = data.strip_prefix(b"<~").unwrap_or(data);
    let mut out = Vec::with_capacity(data.len() / 5 * 4 + 4);
    let mut group = [0u8; 5];
    let mut filled = 0;
    for &c in data {
        match c {
            b'!'..=b'u' => {
                group[filled] = c - b'!';
                filled += 1;
                if filled == 5 {
                    out.extend_from_slice(&ascii85_group(&group));
                    filled = 0;
                }
            }
            b'z' if filled == 0 => out.extend_from_slice(&[0; 4]),
            c if super::lexer::is_white(c) => {}
            _ => break,
        }
    }
    if filled > 1 {
        for digit in &mut group[filled..] {
            *digit = 84;
        }
        out.extend_from_slice(&ascii85_group(&group)[..filled - 1]);
    }
    out
}

fn ascii85_group(digits: &[u8; 5]) -> [u8; 4] {
    let value = digits
        .iter()
        .fold(0u32, |acc, &d| acc.wrapping_mul(85).wrapping_add(d as u32));
    value.to_be_bytes()
}

/// RunLength: a length byte n, then n+1 bytes to copy (n < 128) or one
/// byte to repeat 257-n times (n > 128); 128 ends the data.
fn run_length(data: &[u8]) -> Result<Vec<u8>, Unsupported> {
    let mut out = Vec::with_capacity(data.len() * 2);
    let mut i = 0;
    while let Some(&n) = data.get(i) {
        i += 1;
        match n {
            0..=127 => {
                let end = (i + n as usize + 1).min(data.len());
                out.extend_from_slice(&data[i..end]);
                i = end;
            }
            128 => break,
            _ => {
                let Some(&b) = data.get(i) else { break };
                i += 1;
                out.resize(out.len() + 257 - n as usize, b);
            }
        }
        if out.len() > MAX_DECODED {
            return Err(too_large());
        }
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

/// Undoes `/Predictor` of Flate or LZW parameters: 1 (none), 2 (TIFF) or
/// 10 to 15 (PNG; each row says its own filter).
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
        Ok(png_predictor(&data, &layout))
    } else {
        Err(Unsupported::new("unknown predictor"))
    }
}

/// PNG predictors: each row starts with a tag byte naming its filter
/// (None, Sub, Up, Average, Paeth). A last row cut short is kept as far
/// as it goes; an unknown tag leaves the row as it is.
fn png_predictor(data: &[u8], layout: &Layout) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let zeros = vec![0u8; layout.row];
    for chunk in data.chunks(layout.row + 1) {
        let (&tag, raw) = chunk.split_first().expect("chunks are not empty");
        // Each row is undone in place, the row above read from `out`.
        let start = out.len();
        out.extend_from_slice(raw);
        let (done, row) = out.split_at_mut(start);
        let prev = done.get(start.wrapping_sub(layout.row)..).unwrap_or(&zeros);
        unfilter_png_row(tag, row, prev, layout.pixel);
    }
    out
}

/// One row of PNG filter `tag` undone; `prev` is the row above (zeros
/// for the first), `pixel` the bytes per pixel.
fn unfilter_png_row(tag: u8, row: &mut [u8], prev: &[u8], pixel: usize) {
    let n = row.len();
    match tag {
        1 => {
            for i in pixel..n {
                row[i] = row[i].wrapping_add(row[i - pixel]);
            }
        }
        2 => {
            for (b, &up) in row.iter_mut().zip(prev) {
                *b = b.wrapping_add(up);
            }
        }
        3 => {
            for i in 0..n {
                let left = if i >= pixel { row[i - pixel] } else { 0 };
                row[i] = row[i].wrapping_add(((left as u16 + prev[i] as u16) / 2) as u8);
            }
        }
        4 => {
            for i in 0..n {
                let (left, up_left) = if i >= pixel {
                    (row[i - pixel], prev[i - pixel])
                } else {
                    (0, 0)
                };
                row[i] = row[i].wrapping_add(paeth(left, prev[i], up_left));
            }
        }
        _ => {}
    }
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = a as i16 + b as i16 - c as i16;
    let (pa, pb, pc) = (
        (p - a as i16).abs(),
        (p - b as i16).abs(),
        (p - c as i16).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
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
