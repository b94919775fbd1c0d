//! Type sniffing: what the leading bytes of a file say it is, and whether that
//! matches the declared binary type. (SVG is checked by parsing, see [`super::svg`].)

use super::FileType;

const JPEG_MAGIC: &[u8] = &[0xFF, 0xD8, 0xFF];
const PNG_MAGIC: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
/// ISO-BMFF major brands of still images (HEIF, AVIF): an `ftyp` box, but no MP4 video.
const IMAGE_BRANDS: &[&[u8; 4]] = &[b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis"];

/// What the leading bytes of a file look like, for error messages.
pub fn sniff(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(JPEG_MAGIC) {
        Some("image/jpeg")
    } else if head.starts_with(PNG_MAGIC) {
        Some("image/png")
    } else if head.len() >= 12 && &head[4..8] == b"ftyp" {
        if IMAGE_BRANDS.iter().any(|brand| &head[8..12] == *brand) {
            Some("a HEIF/AVIF image")
        } else {
            Some("video/mp4")
        }
    } else if head.starts_with(b"GIF8") {
        Some("image/gif")
    } else if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else if head.starts_with(b"%PDF") {
        Some("application/pdf")
    } else {
        let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
        let text = &text[text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len())..];
        text.starts_with(b"<").then_some("XML or HTML text")
    }
}

/// Checks the magic number of a binary type against the file's leading bytes.
/// (SVG is checked by parsing, see [`super::check_svg`].)
pub fn check_magic(declared: FileType, head: &[u8]) -> Result<(), String> {
    let matches = match declared {
        FileType::Jpeg => head.starts_with(JPEG_MAGIC),
        FileType::Png => head.starts_with(PNG_MAGIC),
        FileType::Mp4 => head.len() >= 12 && &head[4..8] == b"ftyp" && !IMAGE_BRANDS.iter().any(|b| &head[8..12] == *b),
        FileType::Svg => true,
    };
    if matches {
        return Ok(());
    }
    let expected = match declared {
        FileType::Jpeg => "a JPEG file must start with FF D8 FF",
        FileType::Png => "a PNG file must start with the PNG signature 89 50 4E 47 0D 0A 1A 0A",
        FileType::Mp4 => "an MP4 file must start with an 'ftyp' box of a video brand",
        FileType::Svg => "",
    };
    let looks_like = match sniff(head) {
        Some(kind) => format!(" (the content looks like {kind})"),
        None => String::new(),
    };
    Err(format!(
        "The file content does not match mime_type '{}': {expected}{looks_like}",
        declared.mime()
    ))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A PNG signature followed by `len - 8` filler bytes.
    pub(crate) fn png(len: usize) -> Vec<u8> {
        let mut bytes = PNG_MAGIC.to_vec();
        bytes.extend((0..len.saturating_sub(8)).map(|i| (i % 251) as u8));
        bytes
    }

    #[test]
    fn magic_numbers_match_declared_types() {
        assert!(check_magic(FileType::Jpeg, &[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]).is_ok());
        assert!(check_magic(FileType::Png, &png(16)).is_ok());
        assert!(check_magic(FileType::Mp4, b"\0\0\0\x20ftypisom\0\0\x02\0").is_ok());
        assert!(check_magic(FileType::Mp4, b"\0\0\0\x18ftypmp42\0\0\0\0").is_ok());

        let error = check_magic(FileType::Jpeg, &png(16)).unwrap_err();
        assert!(error.contains("image/jpeg") && error.contains("looks like image/png"), "{error}");
        assert!(check_magic(FileType::Png, &[0xFF, 0xD8, 0xFF]).is_err());
        assert!(check_magic(FileType::Png, &PNG_MAGIC[..7]).is_err());
        assert!(check_magic(FileType::Mp4, b"\0\0\0\x18moov").is_err());
        let error = check_magic(FileType::Mp4, b"\0\0\0\x18ftypheic\0\0\0\0").unwrap_err();
        assert!(error.contains("HEIF"), "{error}");
    }

    #[test]
    fn sniffing_names_what_the_bytes_look_like() {
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xDB]), Some("image/jpeg"));
        assert_eq!(sniff(b"GIF89a"), Some("image/gif"));
        assert_eq!(sniff(b"\xEF\xBB\xBF  <svg/>"), Some("XML or HTML text"));
        assert_eq!(sniff(b"hello"), None);
    }
}
