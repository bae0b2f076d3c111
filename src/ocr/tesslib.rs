//! libtesseract, loaded at run time with `dlopen`, through its C API
//! (`tesseract/capi.h`): only the calls the OCR server needs to read an
//! image file into hOCR exactly as the `tesseract` program does.
//!
//! Loaded, not linked: building colophon needs no libtesseract-dev, and a
//! machine without the library (another soname, another system) still
//! reads scans through the program (see `engine`).
//!
//! Only the OCR server process (`server`) uses this module. It runs one
//! image at a time, in a process started with `OMP_THREAD_LIMIT=1`, which
//! is why the library's OpenMP threads stay at one (see the module docs
//! of `ocr`).

use anyhow::{Result, bail};
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

/// Library names tried in order (Debian and Ubuntu, then a plain link).
const NAMES: [&str; 2] = ["libtesseract.so.5", "libtesseract.so"];

/// The setting `OCR_LIBTESSERACT`, by its name: `auto` loads one of
/// [`NAMES`], `off` keeps libtesseract out (scans are then read by the
/// `tesseract` program), any other value is the path of the library.
pub const LIBRARY_KEY: &str = "OCR_LIBTESSERACT";

/// The coordinator's resolved `OCR_LIBTESSERACT` ([`configure`]).
static CHOICE: OnceLock<String> = OnceLock::new();

/// Sets the resolved `OCR_LIBTESSERACT` for this process (a run does so
/// once, before its first OCR); the OCR servers it starts are given it in
/// their environment.
pub fn configure(value: &str) {
    let _ = CHOICE.set(value.to_string());
}

/// `OCR_LIBTESSERACT` as configured, else as the environment gives the
/// setting (an OCR server process, whose coordinator put it there; the
/// unit tests), else `auto`.
pub fn choice() -> String {
    CHOICE
        .get()
        .cloned()
        .or_else(|| crate::settings::process_env(LIBRARY_KEY))
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "auto".to_string())
}

/// Whether `OCR_LIBTESSERACT` turns the library off.
pub fn turned_off() -> bool {
    choice() == "off"
}

/// `OEM_DEFAULT`: what the traineddata holds (LSTM for Debian's models),
/// as the program chooses without `--oem`.
const OEM_DEFAULT: c_int = 3;

type Handle = *mut c_void;

/// The C functions used, resolved once.
pub struct TessLib {
    create: unsafe extern "C" fn() -> Handle,
    delete: unsafe extern "C" fn(Handle),
    init1: unsafe extern "C" fn(
        Handle,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        c_int,
    ) -> c_int,
    set_psm: unsafe extern "C" fn(Handle, c_int),
    set_variable: unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int,
    hocr_renderer: unsafe extern "C" fn(*const c_char) -> Handle,
    delete_renderer: unsafe extern "C" fn(Handle),
    process_pages:
        unsafe extern "C" fn(Handle, *const c_char, *const c_char, c_int, Handle) -> c_int,
}

impl TessLib {
    /// Opens libtesseract and resolves its functions; fails with the
    /// loader's message when the library or a function is missing.
    pub fn load() -> Result<TessLib> {
        let choice = choice();
        let given = (choice != "auto").then_some(choice);
        if turned_off() {
            bail!("libtesseract is turned off ({LIBRARY_KEY} = \"off\")");
        }
        let names = match &given {
            Some(path) => vec![path.as_str()],
            None => NAMES.to_vec(),
        };
        let mut why = Vec::new();
        for name in names {
            let c = CString::new(name)?;
            // SAFETY: dlopen(3) of a NUL-terminated name; the handle is
            // never closed, so the resolved functions stay valid for the
            // life of the process.
            let lib = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
            if lib.is_null() {
                why.push(dl_error());
                continue;
            }
            return Self::resolve(lib);
        }
        bail!("libtesseract could not be loaded: {}", why.join("; "))
    }

    fn resolve(lib: *mut c_void) -> Result<TessLib> {
        // SAFETY: each field's type spells out the signature of the C API
        // function of that name (tesseract/capi.h, stable since 4.0).
        unsafe {
            Ok(TessLib {
                create: symbol(lib, "TessBaseAPICreate")?,
                delete: symbol(lib, "TessBaseAPIDelete")?,
                init1: symbol(lib, "TessBaseAPIInit1")?,
                set_psm: symbol(lib, "TessBaseAPISetPageSegMode")?,
                set_variable: symbol(lib, "TessBaseAPISetVariable")?,
                hocr_renderer: symbol(lib, "TessHOcrRendererCreate")?,
                delete_renderer: symbol(lib, "TessDeleteResultRenderer")?,
                process_pages: symbol(lib, "TessBaseAPIProcessPages")?,
            })
        }
    }
}

/// The function `name` of the library `lib` as the function pointer type
/// `F`.
///
/// # Safety
/// `F` must be an `extern "C"` function pointer type with the symbol's
/// real signature.
unsafe fn symbol<F: Copy>(lib: *mut c_void, name: &str) -> Result<F> {
    assert_eq!(
        size_of::<F>(),
        size_of::<*mut c_void>(),
        "{name}: not a pointer"
    );
    let c = CString::new(name)?;
    // SAFETY: dlsym(3) on a handle dlopen returned.
    let f = unsafe { libc::dlsym(lib, c.as_ptr()) };
    if f.is_null() {
        bail!("libtesseract has no {name}: {}", dl_error());
    }
    // SAFETY: a function's address read as the caller's function pointer
    // type (same size, checked above), which the caller vouches for.
    Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&f) })
}

/// The loader's last error message.
fn dl_error() -> String {
    // SAFETY: dlerror(3) returns NULL or a NUL-terminated message.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: non-null, NUL-terminated, valid until the next dl call.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// One Tesseract instance with its languages' models loaded, reused for
/// every image: loading the models is most of the program's start-up.
pub struct Api<'l> {
    lib: &'l TessLib,
    handle: Handle,
    languages: String,
}

impl<'l> Api<'l> {
    /// An instance for `languages` ("eng", "eng+deu"), set up as the
    /// program's `hocr` configuration sets it up.
    pub fn new(lib: &'l TessLib, languages: &str) -> Result<Api<'l>> {
        let lang = CString::new(languages)?;
        let config = CString::new("hocr")?;
        let configs = [config.as_ptr()];
        // SAFETY: create/init1 per capi.h; the strings outlive the call
        // (Tesseract copies them), and a failed init is deleted by Drop.
        let api = unsafe {
            Api {
                lib,
                handle: (lib.create)(),
                languages: languages.to_string(),
            }
        };
        if api.handle.is_null() {
            bail!("libtesseract could not create an instance");
        }
        // SAFETY: as above; a NULL data path is Tesseract's default, as
        // for the program.
        let rc = unsafe {
            (lib.init1)(
                api.handle,
                std::ptr::null(),
                lang.as_ptr(),
                OEM_DEFAULT,
                configs.as_ptr(),
                1,
            )
        };
        if rc != 0 {
            bail!(
                "Tesseract could not load the language data for {languages:?} (is each \
                 language's traineddata installed, e.g. tesseract-ocr-eng?)"
            );
        }
        Ok(api)
    }

    pub fn languages(&self) -> &str {
        &self.languages
    }

    /// Reads the image file `image` (one page or a multi-page TIFF) with
    /// page segmentation mode `psm` and, when given, `dpi` as the
    /// program's `--dpi`; returns its hOCR document. The renderer writes it
    /// to `out_base` + ".hocr", which is read and removed.
    pub fn hocr(
        &mut self,
        image: &Path,
        psm: u8,
        dpi: Option<u32>,
        out_base: &Path,
    ) -> Result<String> {
        let c_image = CString::new(image.as_os_str().as_bytes())?;
        let c_base = CString::new(out_base.as_os_str().as_bytes())?;
        let name = CString::new("user_defined_dpi")?;
        let value = CString::new(dpi.unwrap_or(0).to_string())?;
        let out = rendered_file(out_base);
        // SAFETY: calls per capi.h on a live instance; every string is
        // NUL-terminated and outlives the call; the renderer is deleted
        // once, after ProcessPages finished with it.
        let ok = unsafe {
            (self.lib.set_psm)(self.handle, c_int::from(psm));
            (self.lib.set_variable)(self.handle, name.as_ptr(), value.as_ptr());
            let renderer = (self.lib.hocr_renderer)(c_base.as_ptr());
            if renderer.is_null() {
                bail!("libtesseract could not create an hOCR renderer");
            }
            let ok = (self.lib.process_pages)(
                self.handle,
                c_image.as_ptr(),
                std::ptr::null(),
                0,
                renderer,
            );
            (self.lib.delete_renderer)(renderer);
            ok
        };
        let text = std::fs::read_to_string(&out);
        let _ = std::fs::remove_file(&out);
        if ok == 0 {
            bail!(
                "Tesseract could not read the page image {}",
                image.display()
            );
        }
        Ok(text?)
    }
}

/// The file the hOCR renderer writes for `out_base`.
pub fn rendered_file(out_base: &Path) -> std::path::PathBuf {
    let mut out = out_base.as_os_str().to_owned();
    out.push(".hocr");
    out.into()
}

impl Drop for Api<'_> {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            // SAFETY: deletes the instance created in `new`, once.
            unsafe { (self.lib.delete)(self.handle) };
        }
    }
}
