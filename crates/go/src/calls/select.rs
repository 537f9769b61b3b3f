//! What editor navigation asks of inference: the field, declared method or interface method
//! a selector or literal key of a function body selects.

use super::{Infer, Val};
use crate::body::{ElemStep, Expr, ExprId};
use crate::calls::lookup::{lookup, Lookup};
use crate::calls::CallTarget;
use crate::sig::TypeExpr;
use crate::types::{Key, Type};
use std::sync::Arc;

impl Infer<'_, '_> {
    /// The defined type whose struct declares the field that `x.sel` selects on a value
    /// (directly or promoted through embedded fields); `None` when the selector is not a
    /// field of a defined struct type or the operand's type is not established.
    pub(crate) fn field_owner(&self, x: ExprId, sel: &str) -> Option<Arc<crate::types::NamedRef>> {
        let vx = match self.body.exprs.get(x as usize) {
            Some(Expr::Global(name)) => self.global(name, true),
            _ => self.eval(x),
        };
        let Val::Value(t) = vx else { return None };
        match lookup(self.ctx, &t, &self.key(&t, sel)) {
            Lookup::Field { owner, .. } => owner,
            _ => None,
        }
    }

    /// The declared method a selector expression denotes statically (`x.M` on a value of a
    /// defined type or a pointer to one, promoted methods included; a method expression
    /// `T.M`), as a symbol ID.
    pub(crate) fn static_method(&self, selector: ExprId) -> Option<String> {
        match self.eval(selector) {
            Val::Method(CallTarget::Static { callee, .. }, _) | Val::MethodExpr(callee, _) => Some(callee),
            _ => None,
        }
    }

    /// The defined interface type and method key of a selector that selects an interface
    /// method (`x.M` on a value of a defined interface type, or promoted from an interface
    /// embedded in a struct).
    pub(crate) fn interface_method(&self, selector: ExprId) -> Option<(Arc<crate::types::NamedRef>, Key)> {
        match self.eval(selector) {
            Val::Method(CallTarget::Interface { iface: Type::Named(n), method }, _) => Some((n, method)),
            _ => None,
        }
    }

    /// The method names, sorted, of the unnamed interface type (`interface{ … }` spelled in
    /// place) of the value whose method the selector `x.M` selects.
    pub(crate) fn anon_interface_method(&self, selector: ExprId) -> Option<Vec<String>> {
        match self.eval(selector) {
            Val::Method(CallTarget::Interface { iface: Type::Interface(it), .. }, _) => {
                let mut names: Vec<String> = it.methods.iter().map(|(k, _)| k.name.to_string()).collect();
                names.sort();
                Some(names)
            }
            _ => None,
        }
    }

    /// The type parameter and method key of a selector `x.M` on a value whose type is a
    /// type parameter (its method set is its constraint's; `*T` has no methods). Calls
    /// stay unresolved: this is for navigation.
    pub(crate) fn type_param_method(&self, selector: ExprId) -> Option<(Arc<str>, u32, Key)> {
        let Some(Expr::Selector { x, sel, .. }) = self.body.exprs.get(selector as usize) else { return None };
        match self.eval(*x) {
            Val::Value(t @ Type::TypeParam { .. }) => {
                let key = self.key(&t, sel);
                let Type::TypeParam { owner, index } = t else { return None };
                Some((owner, index, key))
            }
            _ => None,
        }
    }

    /// The defined type whose struct declares the field a composite literal of type `ty`
    /// names with the key `name` (`None` when `ty` is no defined struct type declaring it).
    pub(crate) fn key_owner(
        &self,
        ty: &TypeExpr,
        steps: &[ElemStep],
        name: &str,
    ) -> Option<Arc<crate::types::NamedRef>> {
        let t = self.key_type(ty, steps)?;
        let Type::Named(n) = &t else { return None };
        match lookup(self.ctx, &t, &self.key(&t, name)) {
            Lookup::Field { owner: Some(owner), .. } if owner.path == n.path && owner.name == n.name => {
                Some(owner)
            }
            _ => None,
        }
    }

    /// The field names, in order, of the unnamed struct type (`struct{ … }` spelled in place,
    /// or a pointer to one) whose field `name` the literal key `name:` (with `ty`/`steps` as
    /// for [`Infer::key_owner`]) or the selector `x.name` selects.
    pub(crate) fn anon_key_fields(
        &self,
        ty: &TypeExpr,
        steps: &[ElemStep],
        name: &str,
    ) -> Option<Vec<String>> {
        self.anon_fields(&self.key_type(ty, steps)?, name)
    }

    pub(crate) fn anon_selector_fields(&self, x: ExprId, sel: &str) -> Option<Vec<String>> {
        let vx = match self.body.exprs.get(x as usize) {
            Some(Expr::Global(name)) => self.global(name, true),
            _ => self.eval(x),
        };
        let Val::Value(t) = vx else { return None };
        self.anon_fields(&t, sel)
    }

    fn anon_fields(&self, t: &Type, name: &str) -> Option<Vec<String>> {
        let under = match t {
            Type::Pointer(inner) => (**inner).clone(),
            t => t.clone(),
        };
        let Type::Struct(fields) = &under else { return None };
        match lookup(self.ctx, &under, &self.key(&under, name)) {
            Lookup::Field { owner: None, .. } => {
                Some(fields.iter().map(|f| f.key.name.to_string()).collect())
            }
            _ => None,
        }
    }

    /// The type of a composite literal's element that the key belongs to.
    fn key_type(&self, ty: &TypeExpr, steps: &[ElemStep]) -> Option<Type> {
        let mut t = self.resolve(ty);
        for step in steps {
            let under = match &t {
                Type::Named(n) => self.ctx.underlying(n).ok()?,
                t => t.clone(),
            };
            t = match (step, under) {
                (ElemStep::Elem, Type::Slice(e) | Type::Array { elem: e, .. } | Type::Map(_, e)) => {
                    (*e).clone()
                }
                (ElemStep::Key, Type::Map(k, _)) => (*k).clone(),
                _ => return None,
            };
        }
        if !steps.is_empty() {
            // An element literal `{…}` of type `*T` is `&T{…}`.
            if let Type::Pointer(inner) = &t {
                t = (**inner).clone();
            }
        }
        Some(t)
    }
}
