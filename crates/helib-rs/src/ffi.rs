//! The bridge to the C interface: status translation and owned handles.

use std::ffi::CStr;
use std::ptr::NonNull;

use helib_sys as sys;

use crate::error::{Error, Result, Status};

/// Turns an engine status into a `Result`, reading the engine's message on failure.
///
/// The message is copied at once: it lives in thread-local storage of the
/// engine and is overwritten by the next call on this thread.
pub(crate) fn check(status: sys::helib_status) -> Result<()> {
    if status == sys::HELIB_OK {
        return Ok(());
    }
    let message = last_error_message();
    Err(match status {
        sys::HELIB_ERR_INVALID_ARGUMENT => Error::InvalidArgument(message),
        // Only the context constructor reports it; the message has the numbers.
        sys::HELIB_ERR_INSECURE_PARAMETERS => Error::InvalidParameters(message),
        sys::HELIB_ERR_CONTEXT_MISMATCH => Error::ContextMismatch,
        sys::HELIB_ERR_FACTOR_MISMATCH => Error::CorrectionFactorMismatch,
        sys::HELIB_ERR_NOISE_BUDGET_EXHAUSTED => Error::NoiseBudgetExhausted,
        sys::HELIB_ERR_RANDOMNESS => Error::Randomness(message),
        sys::HELIB_ERR_OUT_OF_MEMORY => Error::OutOfMemory(message),
        sys::HELIB_ERR_MALFORMED_INPUT => Error::Malformed(
            message
                .strip_prefix("malformed input: ")
                .unwrap_or(&message)
                .to_owned(),
        ),
        // The safe API checks for missing keys itself; this names the element
        // when the engine finds one missing all the same.
        sys::HELIB_ERR_MISSING_KEY => match named_element(&message) {
            Some(element) => Error::MissingGaloisKey {
                step: None,
                element,
            },
            None => Error::Engine {
                status: Status::Unknown(status),
                message,
            },
        },
        other => Error::Engine {
            status: match other {
                sys::HELIB_ERR_NULL_POINTER => Status::NullPointer,
                sys::HELIB_ERR_INVALID_LEVEL => Status::InvalidLevel,
                sys::HELIB_ERR_LEVEL_MISMATCH => Status::LevelMismatch,
                sys::HELIB_ERR_BUFFER_TOO_SMALL => Status::BufferTooSmall,
                sys::HELIB_ERR_INTERNAL => Status::Internal,
                unknown => Status::Unknown(unknown),
            },
            message,
        },
    })
}

/// The Galois element a missing-key message names: the number after its
/// last "element " (the engine names the missing key last).
fn named_element(message: &str) -> Option<u64> {
    let (_, rest) = message.rsplit_once("element ")?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..digits].parse().ok()
}

/// A copy of the engine's last error message on this thread.
fn last_error_message() -> String {
    // SAFETY: the function takes no arguments and returns either null or a
    // pointer to a NUL-terminated thread-local string that stays valid until
    // the next engine call on this thread; no call happens before the copy.
    let ptr = unsafe { sys::helib_last_error_message() };
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: non-null, NUL-terminated and valid for the duration of this read (see above).
    unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}

/// An engine object type with a matching `*_free` function.
pub(crate) trait RawObject {
    /// Releases an object made by the engine.
    ///
    /// # Safety
    /// `ptr` must come from the engine's constructor for this type and must
    /// not be used afterwards.
    unsafe fn free(ptr: *mut Self);
}

macro_rules! raw_object {
    ($($ty:ident => $free:ident),* $(,)?) => {$(
        impl RawObject for sys::$ty {
            unsafe fn free(ptr: *mut Self) {
                // SAFETY: forwarded from the caller's contract.
                unsafe { sys::$free(ptr) }
            }
        }
    )*};
}

raw_object! {
    helib_context => helib_context_free,
    helib_secret_key => helib_secret_key_free,
    helib_public_key => helib_public_key_free,
    helib_encoded_plaintext => helib_encoded_plaintext_free,
    helib_ciphertext => helib_ciphertext_free,
    helib_relin_key => helib_relin_key_free,
    helib_galois_keys => helib_galois_keys_free,
}

/// Sole ownership of one engine object, released on drop.
///
/// `Owned` is neither `Send` nor `Sync`; each public wrapper states why it may be.
pub(crate) struct Owned<T: RawObject>(NonNull<T>);

impl<T: RawObject> Owned<T> {
    /// Runs an engine constructor that writes its result through an out-pointer.
    pub(crate) fn create(make: impl FnOnce(*mut *mut T) -> sys::helib_status) -> Result<Self> {
        let mut raw: *mut T = std::ptr::null_mut();
        check(make(&mut raw))?;
        NonNull::new(raw).map(Owned).ok_or_else(|| Error::Engine {
            status: Status::Internal,
            message: "the engine reported success but returned no object".into(),
        })
    }

    /// The handle, for engine functions taking the object as `const`.
    pub(crate) fn as_ptr(&self) -> *const T {
        self.0.as_ptr()
    }

    /// The handle, for engine functions writing to the object.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut T {
        self.0.as_ptr()
    }
}

impl<T: RawObject> Drop for Owned<T> {
    fn drop(&mut self) {
        // SAFETY: the pointer came from the engine's constructor, is owned
        // solely by `self` and is never used again.
        unsafe { T::free(self.0.as_ptr()) }
    }
}

/// Reads a variable-length `u64` list with the engine's two-call protocol.
pub(crate) fn read_list(
    mut call: impl FnMut(*mut u64, *mut usize) -> sys::helib_status,
) -> Result<Vec<u64>> {
    let mut len = 0usize;
    check(call(std::ptr::null_mut(), &mut len))?;
    let mut buf = vec![0u64; len];
    check(call(buf.as_mut_ptr(), &mut len))?;
    buf.truncate(len);
    Ok(buf)
}

/// Reads one value that the engine writes through an out-pointer.
pub(crate) fn query<T: Default>(call: impl FnOnce(*mut T) -> sys::helib_status) -> Result<T> {
    let mut value = T::default();
    check(call(&mut value))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_key_messages_name_the_last_element() {
        assert_eq!(named_element("no Galois key for element 81"), Some(81));
        assert_eq!(
            named_element(
                "cannot compose a rotation by 5: no Galois key for the step 4 (element 81)"
            ),
            Some(81)
        );
        assert_eq!(named_element("no Galois key"), None);
        assert_eq!(named_element("element x"), None);
    }
}
