//! Go-like rendering of [`Type`]s (`*example.com/p.T`, `func(int, ...string) error`), for
//! diagnostics and tests. Unresolved parts render as `?{reason}`.

use super::{ArrayLen, ChanDir, Field, Signature, Type};
use std::fmt::{self, Display, Formatter, Write};

fn list(f: &mut Formatter<'_>, types: &[Type], variadic: bool) -> fmt::Result {
    for (i, t) in types.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        match t {
            Type::Slice(elem) if variadic && i + 1 == types.len() => write!(f, "...{elem}")?,
            t => write!(f, "{t}")?,
        }
    }
    Ok(())
}

impl Display for Signature {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('(')?;
        list(f, &self.params, self.variadic)?;
        f.write_char(')')?;
        match self.results.as_slice() {
            [] => Ok(()),
            [one] if !matches!(one, Type::Func(_)) => write!(f, " {one}"),
            many => {
                f.write_str(" (")?;
                list(f, many, false)?;
                f.write_char(')')
            }
        }
    }
}

fn field(f: &mut Formatter<'_>, x: &Field) -> fmt::Result {
    if x.embedded {
        write!(f, "{}", x.ty)?;
    } else {
        write!(f, "{} {}", x.key, x.ty)?;
    }
    match &x.tag {
        Some(tag) => write!(f, " {tag:?}"),
        None => Ok(()),
    }
}

impl Display for Type {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Type::Basic(super::Basic::UnsafePointer) => f.write_str("unsafe.Pointer"),
            Type::Basic(b) => write!(f, "{}", format!("{b:?}").to_lowercase()),
            Type::Named(n) => {
                match n.path.is_empty() {
                    true => f.write_str(&n.name)?,
                    false => write!(f, "{}.{}", n.path, n.name)?,
                }
                if !n.args.is_empty() {
                    f.write_char('[')?;
                    list(f, &n.args, false)?;
                    f.write_char(']')?;
                }
                Ok(())
            }
            Type::Pointer(t) => write!(f, "*{t}"),
            Type::Slice(t) => write!(f, "[]{t}"),
            Type::Array { len: ArrayLen::Known(n), elem } => write!(f, "[{n}]{elem}"),
            Type::Array { len: ArrayLen::Unknown(u), elem } => write!(f, "[?{{{u}}}]{elem}"),
            Type::Map(k, v) => write!(f, "map[{k}]{v}"),
            Type::Chan(ChanDir::Both, t) => write!(f, "chan {t}"),
            Type::Chan(ChanDir::Send, t) => write!(f, "chan<- {t}"),
            Type::Chan(ChanDir::Recv, t) => write!(f, "<-chan {t}"),
            Type::Func(sig) => write!(f, "func{sig}"),
            Type::Struct(fields) => {
                f.write_str("struct{")?;
                for (i, x) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    field(f, x)?;
                }
                f.write_char('}')
            }
            Type::Interface(it) => {
                f.write_str("interface{")?;
                for (i, (k, sig)) in it.methods.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{k}{sig}")?;
                }
                if it.constraint {
                    f.write_str("; <type set>")?;
                }
                if let Some(u) = &it.incomplete {
                    write!(f, "; ?{{{u}}}")?;
                }
                f.write_char('}')
            }
            Type::TypeParam { owner, index } => write!(f, "{owner}#{index}"),
            Type::Unresolved(u) => write!(f, "?{{{u}}}"),
        }
    }
}
