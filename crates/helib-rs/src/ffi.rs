//! The bridge to the C interface: status translation and owned handles.

use std::ffi::CStr;
use std::ptr::NonNull;

use helib_sys as sys;

use crate::error::{Error, Result, Status};

/// Turns an engine status into a `Result`, reading the engine's typed detail
/// and message on failure.
///
/// Both are copied at once: they live in thread-local storage of the engine
/// and are overwritten by the next failing call on this thread.
pub(crate) fn check(status: sys::helib_status) -> Result<()> {
    if status == sys::HELIB_OK {
        return Ok(());
    }
    let detail = last_error_detail().filter(|detail| detail.status == status);
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
        other => match detail.and_then(typed) {
            Some(error) => error,
            None => Error::Engine {
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
        },
    })
}

/// The typed error an engine failure's detail describes, if it has one.
fn typed(detail: sys::helib_error_detail) -> Option<Error> {
    Some(match detail.kind {
        sys::HELIB_DETAIL_MISSING_GALOIS_KEY => Error::MissingGaloisKey {
            step: (detail.has_step != 0).then_some(detail.step),
            element: detail.element,
        },
        sys::HELIB_DETAIL_LEVEL_MISMATCH => Error::LevelMismatch {
            left: detail.left,
            right: detail.right,
        },
        sys::HELIB_DETAIL_LEVEL_OUT_OF_RANGE => Error::InvalidLevel {
            level: detail.left,
            max: detail.right,
        },
        sys::HELIB_DETAIL_CHAIN_EXHAUSTED => Error::ModulusChainExhausted,
        _ => return None,
    })
}

/// A copy of the engine's typed detail of the last failure on this thread.
fn last_error_detail() -> Option<sys::helib_error_detail> {
    let mut detail = sys::helib_error_detail {
        status: sys::HELIB_OK,
        kind: sys::HELIB_DETAIL_NONE,
        element: 0,
        step: 0,
        has_step: 0,
        left: 0,
        right: 0,
    };
    // SAFETY: `detail` is a valid, writable out-pointer for the call.
    let status = unsafe { sys::helib_last_error_detail(&mut detail) };
    (status == sys::HELIB_OK).then_some(detail)
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
    helib_residue_import => helib_residue_import_free,
    helib_ciphertext => helib_ciphertext_free,
    helib_relin_key => helib_relin_key_free,
    helib_galois_keys => helib_galois_keys_free,
    helib_secret_share => helib_secret_share_free,
    helib_field_ntt => helib_field_ntt_free,
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

/// Reads a variable-length list with the engine's two-call protocol.
pub(crate) fn read_list<T: Default + Clone>(
    mut call: impl FnMut(*mut T, *mut usize) -> sys::helib_status,
) -> Result<Vec<T>> {
    let mut len = 0usize;
    check(call(std::ptr::null_mut(), &mut len))?;
    let mut buf = vec![T::default(); len];
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
    use crate::{Ciphertext, Context, GaloisKeys, Parameters, Plaintext, SecretKey};

    /// N = 1024, t = 65537, three 50-bit chain primes (level 0 holds a
    /// switched ciphertext) and one special prime; insecure, for speed.
    fn small_context() -> Context {
        let params = Parameters::builder()
            .ring_degree(1024)
            .plaintext_modulus(65537u32.into())
            .chain_bits(&[50, 50, 50])
            .special_bits(&[60])
            .threads(1)
            .allow_insecure()
            .build()
            .unwrap();
        Context::new(&params).unwrap()
    }

    fn fresh(context: &Context, sk: &SecretKey) -> Ciphertext {
        sk.encrypt(&Plaintext::from_u64s(context, &[1, 2]).unwrap())
            .unwrap()
    }

    /// Runs an engine call writing into a new ciphertext and translates its status.
    fn run(
        context: &Context,
        call: impl FnOnce(*mut sys::helib_ciphertext) -> sys::helib_status,
    ) -> Result<()> {
        Ciphertext::produce(context, call).map(drop)
    }

    // Each engine call below goes straight to the C interface, past every
    // check of the safe API, so the error comes from the engine's own detail.

    #[test]
    fn engine_level_errors_arrive_typed() {
        let context = small_context();
        let sk = SecretKey::generate(&context).unwrap();
        let top = fresh(&context, &sk);
        let lower = top.mod_switch().unwrap();
        let (a, b) = (top.as_ptr(), lower.as_ptr());
        // SAFETY: all handles are live; the engine only reads `a` and `b`.
        let mismatch = run(&context, |dst| unsafe {
            sys::helib_ciphertext_add(a, b, dst)
        });
        assert_eq!(
            mismatch,
            Err(Error::LevelMismatch {
                left: top.level(),
                right: lower.level(),
            })
        );
        let bottom = top.mod_switch_to(0).unwrap();
        let z = bottom.as_ptr();
        // SAFETY: as above.
        let exhausted = run(&context, |dst| unsafe {
            sys::helib_ciphertext_mod_switch(z, dst)
        });
        assert_eq!(exhausted, Err(Error::ModulusChainExhausted));
        // SAFETY: as above.
        let above = run(&context, |dst| unsafe {
            sys::helib_ciphertext_mod_switch_to(b, 5, dst)
        });
        assert_eq!(
            above,
            Err(Error::InvalidLevel {
                level: 5,
                max: lower.level(),
            })
        );
    }

    #[test]
    fn engine_missing_keys_arrive_typed_with_their_step() {
        let context = small_context();
        let sk = SecretKey::generate(&context).unwrap();
        let ct = fresh(&context, &sk);
        // Only the key for -1: a rotation by 7 = 8 - 1 lacks the one for 8.
        let keys = GaloisKeys::for_steps(&sk, &[-1]).unwrap();
        let (k, a) = (keys.as_ptr(), ct.as_ptr());
        // SAFETY: all handles are live; the engine only reads `k` and `a`.
        let composed = run(&context, |dst| unsafe {
            sys::helib_ciphertext_rotate_rows(k, a, 7, 1, dst)
        });
        assert_eq!(
            composed,
            Err(Error::MissingGaloisKey {
                step: Some(8),
                element: GaloisKeys::element_for_step(&context, 8),
            })
        );
        // SAFETY: as above.
        let exact = run(&context, |dst| unsafe {
            sys::helib_ciphertext_rotate_rows(k, a, 7, 0, dst)
        });
        assert_eq!(
            exact,
            Err(Error::MissingGaloisKey {
                step: Some(7),
                element: GaloisKeys::element_for_step(&context, 7),
            })
        );
        // SAFETY: as above.
        let direct = run(&context, |dst| unsafe {
            sys::helib_ciphertext_apply_galois(k, a, 5, dst)
        });
        assert_eq!(
            direct,
            Err(Error::MissingGaloisKey {
                step: None,
                element: 5,
            })
        );
    }

    #[test]
    fn failures_without_detail_keep_their_status() {
        let context = small_context();
        let sk = SecretKey::generate(&context).unwrap();
        let ct = fresh(&context, &sk);
        let a = ct.as_ptr();
        // A typed failure first, then one without detail: the stale detail must not leak.
        // SAFETY: the handle is live; the engine only reads it.
        let _ = run(&context, |dst| unsafe {
            sys::helib_ciphertext_mod_switch_to(a, 99, dst)
        });
        // SAFETY: a null destination is refused before anything is read or written.
        let null = check(unsafe { sys::helib_ciphertext_copy(a, std::ptr::null_mut()) });
        assert!(matches!(
            null,
            Err(Error::Engine {
                status: Status::NullPointer,
                ..
            })
        ));
    }
}
