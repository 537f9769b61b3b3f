//! Integer constant evaluation, enough for array lengths: integer literals, `iota`,
//! package consts (also of other packages and through dot imports), `+ - * / % << >> & |
//! ^ &^`, unary `+`/`-`, conversions to integer types and `len` of a string literal.
//! Anything else (floats, `unsafe.Sizeof`, typed complement `^x`) is unresolved.

use super::resolve::{PkgEnv, Scope, TypeCtx};
use super::Unresolved;
use crate::sig::{ConstExpr, ValueInit, ValueKind};
use std::sync::Arc;

const INT_CONVERSIONS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
    "byte", "rune",
];

fn unsupported(e: &ConstExpr) -> Unresolved {
    Unresolved::other("unevaluated constant", format!("{e:?}"))
}

/// The value of an integer literal (`0x1F`, `0o17`, `017`, `0b101`, `1_000`).
fn parse_int(lit: &str) -> Option<i128> {
    let s = lit.replace('_', "");
    let (digits, radix) = match s.get(..2) {
        Some("0x") | Some("0X") => (&s[2..], 16),
        Some("0o") | Some("0O") => (&s[2..], 8),
        Some("0b") | Some("0B") => (&s[2..], 2),
        _ if s.len() > 1 && s.starts_with('0') => (&s[1..], 8),
        _ => (s.as_str(), 10),
    };
    i128::from_str_radix(digits, radix).ok()
}

fn binary(op: &str, x: i128, y: i128) -> Option<i128> {
    match op {
        "+" => x.checked_add(y),
        "-" => x.checked_sub(y),
        "*" => x.checked_mul(y),
        "/" => x.checked_div(y),
        "%" => x.checked_rem(y),
        "<<" => u32::try_from(y).ok().filter(|s| *s < 127).and_then(|s| x.checked_mul(1i128 << s)),
        ">>" => u32::try_from(y).ok().map(|s| x >> s.min(127)),
        "&" => Some(x & y),
        "|" => Some(x | y),
        "^" => Some(x ^ y),
        "&^" => Some(x & !y),
        _ => None,
    }
}

impl TypeCtx<'_> {
    /// The integer value of a constant expression in scope `sc` (`iota` when inside a const
    /// declaration).
    pub(crate) fn eval_const(
        &self,
        sc: Scope<'_>,
        e: &ConstExpr,
        iota: Option<u32>,
    ) -> Result<i128, Unresolved> {
        match e {
            ConstExpr::Int(lit) => parse_int(lit).ok_or_else(|| unsupported(e)),
            ConstExpr::Ident(n) if n == "iota" && sc.pkg.sigs.decl(n).is_none() => {
                iota.map(i128::from).ok_or_else(|| unsupported(e))
            }
            ConstExpr::Ident(n) => {
                if sc.pkg.sigs.decl(n).is_some() {
                    return self.const_value(sc.pkg, n);
                }
                match self.dot_const(sc, n) {
                    Some(r) => r,
                    None => Err(Unresolved::other("unknown identifier", n.as_str())),
                }
            }
            ConstExpr::Qualified { pkg, name } => match self.qualified_env(sc, pkg) {
                Ok(env) => self.const_value(&env, name),
                Err(u) => Err(u),
            },
            ConstExpr::Unary { op, x } => {
                let v = self.eval_const(sc, x, iota)?;
                match op.as_str() {
                    "+" => Ok(v),
                    "-" => v.checked_neg().ok_or_else(|| unsupported(e)),
                    _ => Err(unsupported(e)),
                }
            }
            ConstExpr::Binary { op, x, y } => {
                let (x, y) = (self.eval_const(sc, x, iota)?, self.eval_const(sc, y, iota)?);
                binary(op, x, y).ok_or_else(|| unsupported(e))
            }
            ConstExpr::Call { fun, args } if args.len() == 1 => match (fun.as_str(), &args[0]) {
                (f, arg) if INT_CONVERSIONS.contains(&f) && sc.pkg.sigs.decl(f).is_none() => {
                    self.eval_const(sc, arg, iota)
                }
                ("len", ConstExpr::Lit(s))
                    if s.starts_with('`') || (s.starts_with('"') && !s.contains('\\')) =>
                {
                    Ok(s.len().saturating_sub(2) as i128)
                }
                _ => Err(unsupported(e)),
            },
            _ => Err(unsupported(e)),
        }
    }

    fn dot_const(&self, sc: Scope<'_>, name: &str) -> Option<Result<i128, Unresolved>> {
        let env = self.dot_env(sc, name)?;
        Some(env.and_then(|env| self.const_value(&env, name)))
    }

    /// The value of the package-level const `name` of `env` (memoised; cycles unresolved).
    fn const_value(&self, env: &Arc<PkgEnv>, name: &str) -> Result<i128, Unresolved> {
        let key = (env.path.clone(), Arc::<str>::from(name));
        match self.consts.borrow().get(&key) {
            Some(Some(r)) => return r.clone(),
            Some(None) => return Err(Unresolved::other("constant cycle", format!("{}.{name}", env.path))),
            None => {}
        }
        self.consts.borrow_mut().insert(key.clone(), None);
        let r = match env.sigs.value_decl(name) {
            Some((file, v)) => match (&v.kind, &v.init) {
                (ValueKind::Const, ValueInit::Const { expr, iota }) => {
                    self.eval_const(Scope { pkg: env, file, tparams: &[] }, expr, Some(*iota))
                }
                _ => Err(Unresolved::other("not a constant", format!("{}.{name}", env.path))),
            },
            None => Err(Unresolved::other("not a constant", format!("{}.{name}", env.path))),
        };
        self.consts.borrow_mut().insert(key, Some(r.clone()));
        r
    }
}
