//! Local type names in type expressions: a function-local struct type, interface type or
//! alias stands for the type it spells (local types declare no methods, so a value of one
//! selects the same fields and promoted methods as a value of that type); any other local
//! name in a type (a variable shadowing a package name, another local type) makes it
//! [`TypeExpr::Invalid`], so it never resolves to the package-level type it spells.

use super::{Binding, Walker};
use crate::body::Expr;
use crate::extract::text::text;
use crate::sig::{FuncSig, InterfaceElem, TypeExpr};
use docforge_syntax::tree_sitter::Node;

impl Walker<'_> {
    /// A local type named in an expression (a conversion's callee, …): what it spells, or
    /// [`Expr::LocalType`] when that is not known.
    pub(super) fn local_type(&self, id: u32, node: Node<'_>) -> Expr {
        match &self.local_types[id as usize] {
            TypeExpr::Invalid(_) => Expr::LocalType(text(node, self.src)),
            spelled => Expr::Type(spelled.clone()),
        }
    }

    pub(super) fn guard(&self, t: TypeExpr) -> TypeExpr {
        self.subst(t).unwrap_or_else(|n| TypeExpr::Invalid(format!("local name {n}")))
    }

    /// Each parameter and result on its own (see [`Walker::subst`]).
    pub(super) fn guard_sig(&self, sig: FuncSig) -> FuncSig {
        let guard = |p: crate::sig::Param| crate::sig::Param { name: p.name, ty: self.guard(p.ty) };
        FuncSig {
            params: sig.params.into_iter().map(guard).collect(),
            results: sig.results.into_iter().map(guard).collect(),
            variadic: sig.variadic,
        }
    }

    /// `t` with every local type name replaced by what its declaration spells (a struct type,
    /// or an alias's type: local types have no methods, so a struct value selects the same
    /// fields and promoted methods as the local type's); `Err(name)` when it mentions a
    /// local name it cannot stand for (a variable shadowing a package name, a local type of
    /// another kind or one still being declared). A struct field's type is guarded on its
    /// own, so a self-referential field (`next *node`) leaves the struct's other fields.
    fn subst(&self, t: TypeExpr) -> Result<TypeExpr, String> {
        let boxed = |e: Box<TypeExpr>| self.subst(*e).map(Box::new);
        let sig = |s: FuncSig| -> Result<FuncSig, String> {
            let param = |p: crate::sig::Param| Ok(crate::sig::Param { name: p.name, ty: self.subst(p.ty)? });
            Ok(FuncSig {
                params: s.params.into_iter().map(param).collect::<Result<_, String>>()?,
                results: s.results.into_iter().map(param).collect::<Result<_, String>>()?,
                variadic: s.variadic,
            })
        };
        Ok(match t {
            TypeExpr::Name(n) => match self.lookup(n.as_bytes()) {
                Some(Binding::Var(_)) => return Err(n),
                Some(Binding::Type(id)) => match &self.local_types[id as usize] {
                    TypeExpr::Invalid(_) => return Err(n),
                    spelled => spelled.clone(),
                },
                _ => TypeExpr::Name(n),
            },
            TypeExpr::Qualified { pkg, name } => match self.lookup(pkg.as_bytes()) {
                Some(Binding::Var(_) | Binding::Type(_)) => return Err(pkg),
                _ => TypeExpr::Qualified { pkg, name },
            },
            TypeExpr::Invalid(s) => TypeExpr::Invalid(s),
            TypeExpr::Pointer(e) => TypeExpr::Pointer(boxed(e)?),
            TypeExpr::Slice(e) => TypeExpr::Slice(boxed(e)?),
            TypeExpr::Array { len, elem } => TypeExpr::Array { len, elem: boxed(elem)? },
            TypeExpr::Chan { dir, elem } => TypeExpr::Chan { dir, elem: boxed(elem)? },
            TypeExpr::Map { key, value } => TypeExpr::Map { key: boxed(key)?, value: boxed(value)? },
            TypeExpr::Func(s) => TypeExpr::Func(Box::new(sig(*s)?)),
            TypeExpr::Struct(fields) => TypeExpr::Struct(
                fields.into_iter().map(|f| crate::sig::FieldExpr { ty: self.guard(f.ty), ..f }).collect(),
            ),
            TypeExpr::Interface(elems) => TypeExpr::Interface(
                elems
                    .into_iter()
                    .map(|e| {
                        Ok(match e {
                            InterfaceElem::Method { name, sig: s } => {
                                InterfaceElem::Method { name, sig: sig(s)? }
                            }
                            InterfaceElem::Embed(t) => InterfaceElem::Embed(self.subst(t)?),
                            InterfaceElem::Union(terms) => InterfaceElem::Union(
                                terms
                                    .into_iter()
                                    .map(|t| Ok(crate::sig::Term { tilde: t.tilde, ty: self.subst(t.ty)? }))
                                    .collect::<Result<_, String>>()?,
                            ),
                        })
                    })
                    .collect::<Result<_, String>>()?,
            ),
            TypeExpr::Generic { base, args } => TypeExpr::Generic {
                base: boxed(base)?,
                args: args.into_iter().map(|a| self.subst(a)).collect::<Result<_, String>>()?,
            },
        })
    }
}
