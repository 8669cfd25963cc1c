//! Builder-style setters, written as what each sets: a by-value builder
//! has many of them, and each is the same three lines.

/// Builder-style setters inside an `impl` block: each
/// `fn name(arg: Type) => field.path = value;` becomes a documented
/// `pub fn name(mut self, arg: Type) -> Self` that sets the field and
/// returns the builder.
macro_rules! setters {
    ($($(#[$meta:meta])* fn $name:ident($arg:ident: $ty:ty) => $($field:ident).+ = $value:expr;)*) => {
        $(
            $(#[$meta])*
            pub fn $name(mut self, $arg: $ty) -> Self {
                self.$($field).+ = $value;
                self
            }
        )*
    };
}
pub(crate) use setters;
