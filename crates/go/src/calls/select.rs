//! What editor navigation asks of inference: the field, declared method or interface method
//! a selector or literal key of a function body selects.

use super::{Infer, Val};
use crate::body::{ElemStep, Expr, ExprId};
use crate::calls::lookup::{lookup, Lookup};
use crate::calls::CallTarget;
use crate::sig::TypeExpr;
use crate::types::NamedRef;
use crate::types::{Key, Type};
use std::sync::Arc;

impl Infer<'_, '_> {
    /// The field that `x.sel` selects on a value (directly or promoted through embedded
    /// fields): the defined type whose struct declares it, or the field names of the unnamed
    /// struct type that does; `None` when the selector is no field or the operand's type is
    /// not established.
    pub(crate) fn selected_field(&self, x: ExprId, sel: &str) -> Option<FieldOf> {
        let Val::Value(t) = self.operand(x) else { return None };
        match lookup(self.ctx, &t, &self.key(&t, sel)) {
            Lookup::Field { owner: Some(owner), .. } => Some(FieldOf::Defined(owner)),
            Lookup::Field { owner: None, .. } => unnamed_fields(&t),
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

    /// The field a composite literal of type `ty` (the element type `steps` reach) names
    /// with the key `name`: declared by that defined struct type itself, or by that unnamed
    /// struct type (`None` otherwise).
    pub(crate) fn key_field(&self, ty: &TypeExpr, steps: &[ElemStep], name: &str) -> Option<FieldOf> {
        let t = self.key_type(ty, steps)?;
        match (lookup(self.ctx, &t, &self.key(&t, name)), &t) {
            (Lookup::Field { owner: Some(owner), .. }, Type::Named(n))
                if owner.path == n.path && owner.name == n.name =>
            {
                Some(FieldOf::Defined(owner))
            }
            (Lookup::Field { owner: None, .. }, _) => unnamed_fields(&t),
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

/// What declares a selected field.
pub(crate) enum FieldOf {
    /// The defined type whose struct declares it.
    Defined(Arc<NamedRef>),
    /// An unnamed struct type (`struct{ … }` spelled in place), by its field names in order.
    Unnamed(Vec<String>),
}

/// The field names of an unnamed struct type (or a pointer to one).
fn unnamed_fields(t: &Type) -> Option<FieldOf> {
    let under = match t {
        Type::Pointer(inner) => &**inner,
        t => t,
    };
    let Type::Struct(fields) = under else { return None };
    Some(FieldOf::Unnamed(fields.iter().map(|f| f.key.name.to_string()).collect()))
}
