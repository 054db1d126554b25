//! The share methods that [`Party`](crate::Party) and
//! [`ActiveParty`](crate::ActiveParty) both offer, written once: each hands
//! its arguments to the party's `Sender`, which owns the protocol steps.

/// Defines `decryption_share`, `encryption_to_shares`,
/// `shares_to_encryption` and `key_switch_share` in an `impl` block of a
/// type with a method `fn sender(&self) -> Sender<'_, _>`, each with the doc
/// comment written before its name (a type states its own guarantees). A
/// macro, not a trait, so that the methods stay inherent: callers need no
/// import to use them.
macro_rules! share_methods {
    (
        $(#[$decryption:meta])* decryption_share;
        $(#[$to_shares:meta])* encryption_to_shares;
        $(#[$of_product:meta])* encryption_to_shares_of_product;
        $(#[$to_encryption:meta])* shares_to_encryption;
        $(#[$key_switch:meta])* key_switch_share;
    ) => {
        $crate::share_methods::share_methods!(@delegate $(#[$decryption])*
            decryption_share(ciphertext: &helib_rs::Ciphertext, smudging: &helib_rs::threshold::Smudging)
            -> $crate::message::ShareMessage);
        $crate::share_methods::share_methods!(@delegate $(#[$to_shares])*
            encryption_to_shares(ciphertext: &helib_rs::Ciphertext, smudging: &helib_rs::threshold::Smudging)
            -> ($crate::party::AdditiveShare, $crate::message::ShareMessage));
        $crate::share_methods::share_methods!(@delegate $(#[$of_product])*
            encryption_to_shares_of_product(product: &$crate::product::SwitchedProduct, relin_key: &helib_rs::RelinKey, smudging: &helib_rs::threshold::Smudging)
            -> ($crate::party::AdditiveShare, $crate::message::ShareMessage));
        $crate::share_methods::share_methods!(@delegate $(#[$to_encryption])*
            shares_to_encryption(level: usize, share: &$crate::party::AdditiveShare)
            -> $crate::message::ShareMessage);
        $crate::share_methods::share_methods!(@delegate $(#[$key_switch])*
            key_switch_share(ciphertext: &helib_rs::Ciphertext, target: &helib_rs::PublicKey, smudging: &helib_rs::threshold::Smudging)
            -> $crate::message::ShareMessage);
    };
    // One method of protocol run `run`: the same arguments to the sender.
    (@delegate $(#[$doc:meta])* $name:ident($($arg:ident: $type:ty),*) -> $output:ty) => {
        $(#[$doc])*
        pub fn $name(&self, run: u64, $($arg: $type),*) -> $crate::error::Result<$output> {
            self.sender().$name(run, $($arg),*)
        }
    };
}

pub(crate) use share_methods;
