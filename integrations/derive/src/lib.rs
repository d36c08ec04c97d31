//! # elicit-derive — the derives behind elicit-rmcp
//!
//! `#[derive(Elicit)]` turns an argument struct into an elicit declaration: plain fields
//! are the model's arguments (their `schemars` schema becomes the tool's `inputSchema`),
//! fields with `#[elicit(...)]` are asked of the user. `#[derive(Choice)]` makes a unit
//! enum a single-select answer. Use them through `elicit_rmcp` (which re-exports both);
//! the generated code names `::elicit_rmcp`. The crate docs of elicit-rmcp describe
//! every attribute.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    parse_macro_input, Data, DeriveInput, Expr, Fields, GenericArgument, Ident, LitStr, Path,
    PathArguments, Type,
};

/// Declares the struct's elicited parameters; see the elicit-rmcp crate docs.
#[proc_macro_derive(Elicit, attributes(elicit))]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    elicit(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// A unit enum as a single-select answer (values: the variants' names in snake_case,
/// or `#[elicit(rename = "...")]`); implements `Choice`, `Serialize` and `Deserialize`.
#[proc_macro_derive(Choice, attributes(elicit))]
pub fn derive_choice(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    choice(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

fn err<T>(span: Span, msg: impl std::fmt::Display) -> syn::Result<T> {
    Err(syn::Error::new(span, msg))
}

/// `CamelCase` → `camel_case`.
fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// How a field is asked.
enum Kind {
    Argument,
    Literal,
    Resolver(Path, Vec<Ident>, Ident),
    Url(Expr),
    Sampling(Expr),
    Roots,
}

#[derive(Default)]
struct Attrs {
    message: Option<Expr>,
    title: Option<Expr>,
    description: Option<Expr>,
    resolver: Option<Path>,
    needs: Vec<Ident>,
    kind: Option<Ident>,
    url: Option<Expr>,
    sampling: Option<Expr>,
    roots: bool,
    default: Option<Expr>,
    outcome: bool,
    rename: Option<LitStr>,
    /// Struct: `fallback_arguments` (true) or `fallback_arguments = <bool expression>`.
    fallback_arguments: Option<Expr>,
    /// Field: `no_fallback`.
    no_fallback: bool,
    any: bool,
}

fn attrs(list: &[syn::Attribute]) -> syn::Result<Attrs> {
    let mut a = Attrs::default();
    for attr in list.iter().filter(|a| a.path().is_ident("elicit")) {
        a.any = true;
        attr.parse_nested_meta(|m| {
            let key = m.path.get_ident().map(Ident::to_string).unwrap_or_default();
            match key.as_str() {
                "message" => a.message = Some(m.value()?.parse()?),
                "title" => a.title = Some(m.value()?.parse()?),
                "description" => a.description = Some(m.value()?.parse()?),
                "resolver" => a.resolver = Some(m.value()?.parse()?),
                "kind" => a.kind = Some(m.value()?.parse()?),
                "url" => a.url = Some(m.value()?.parse()?),
                "sampling" => a.sampling = Some(m.value()?.parse()?),
                "default" => a.default = Some(m.value()?.parse()?),
                "rename" | "name" => a.rename = Some(m.value()?.parse()?),
                "roots" => a.roots = true,
                "outcome" => a.outcome = true,
                "no_fallback" => a.no_fallback = true,
                "fallback_arguments" => {
                    a.fallback_arguments = Some(if m.input.peek(syn::Token![=]) {
                        m.value()?.parse()?
                    } else {
                        syn::parse_quote!(true)
                    })
                }
                "needs" => {
                    let value = m.value()?;
                    let content;
                    syn::bracketed!(content in value);
                    let idents = content
                        .parse_terminated(<Ident as syn::parse::Parse>::parse, syn::Token![,])?;
                    a.needs = idents.into_iter().collect();
                }
                _ => {
                    return Err(m.error(
                        "unknown elicit attribute; use message, title, description, resolver, \
                         needs, kind, url, sampling, roots, default, outcome, rename, \
                         no_fallback or (on the struct) fallback_arguments",
                    ))
                }
            }
            Ok(())
        })?;
    }
    Ok(a)
}

/// `#[serde(rename = "...")]` on a field, which the body's `Deserialize` follows too.
fn serde_rename(list: &[syn::Attribute]) -> Option<LitStr> {
    let mut found = None;
    for attr in list.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|m| {
            if m.path.is_ident("rename") {
                found = Some(m.value()?.parse()?);
            } else if m.input.peek(syn::Token![=]) {
                let _: Expr = m.value()?.parse()?;
            }
            Ok(())
        });
    }
    found
}

/// The type inside `Option<...>`, if it is one.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Option" {
        return None;
    }
    match &seg.arguments {
        PathArguments::AngleBracketed(a) => match a.args.first()? {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The elicit-core answer type of a Rust type; `None` when it has none of its own.
fn scalar(ty: &Type) -> Option<Tokens> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    let at = quote!(::elicit_rmcp::core::decl::AnswerType);
    Some(match seg.ident.to_string().as_str() {
        "String" => quote!(#at::String),
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "isize" | "usize" => {
            quote!(#at::Integer)
        }
        "f32" | "f64" => quote!(#at::Number),
        "bool" => quote!(#at::Boolean),
        _ => return None,
    })
}

/// The answer type a question of `ty` asks for: a scalar, or a `Choice` enum (a plain
/// path without generics, checked by the trait bound); anything else cannot be asked.
/// A literal question's default field title: the parameter's name with `_` as spaces and
/// its first letter upper-cased (`party_size` -> "Party size"; Python's
/// `elicit_mcp.declare.default_title`).
fn default_title(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Value".to_string(),
    }
}

fn answer(ty: &Type, field: &Ident) -> syn::Result<Tokens> {
    if let Some(t) = scalar(ty) {
        return Ok(t);
    }
    let plain = match ty {
        Type::Path(p) => {
            p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_empty())
        }
        _ => false,
    };
    if !plain {
        return err(
            ty.span(),
            format!(
                "field `{field}`: this type cannot be asked; use String, an integer, f64, bool, \
                 a #[derive(Choice)] enum or an Option of one"
            ),
        );
    }
    Ok(quote_spanned! {ty.span()=>
        ::elicit_rmcp::core::decl::AnswerType::choice(
            <#ty as ::elicit_rmcp::Choice>::CHOICES.iter().copied()
        )
    })
}

fn elicit(input: &DeriveInput) -> syn::Result<Tokens> {
    let ident = &input.ident;
    let Data::Struct(data) = &input.data else {
        return err(
            ident.span(),
            "#[derive(Elicit)] needs a struct with named fields",
        );
    };
    let Fields::Named(fields) = &data.fields else {
        return err(
            ident.span(),
            "#[derive(Elicit)] needs a struct with named fields",
        );
    };
    let top = attrs(&input.attrs)?;
    let fallback = top
        .fallback_arguments
        .as_ref()
        .map(|e| quote!(.fallback_arguments(#e)));
    let tool = match top.rename {
        Some(n) => n.value(),
        None => snake(&ident.to_string()),
    };
    // Rust name → parameter name, checked for duplicates first.
    let mut names: Vec<(Ident, String)> = Vec::new();
    for f in &fields.named {
        let Some(fid) = &f.ident else { continue };
        let name = serde_rename(&f.attrs).map_or_else(|| fid.to_string(), |l| l.value());
        if names.iter().any(|(_, n)| *n == name) {
            return err(
                f.span(),
                format!("field `{fid}`: parameter name {name:?} is declared twice; rename one"),
            );
        }
        names.push((fid.clone(), name));
    }
    let name_of = |id: &Ident| names.iter().find(|(f, _)| f == id).map(|(_, n)| n.clone());
    let mut params = Vec::new();
    let mut resolvers = Vec::new();
    let mut schemas = Vec::new();
    for f in &fields.named {
        let Some(fid) = &f.ident else { continue };
        let name = name_of(fid).unwrap_or_default();
        let a = attrs(&f.attrs)?;
        let inner = option_inner(&f.ty);
        let ty = inner.unwrap_or(&f.ty);
        let kind = if !a.any {
            Kind::Argument
        } else if let Some(r) = a.resolver.clone() {
            if a.message.is_some() {
                return err(
                    fid.span(),
                    format!(
                        "field `{fid}`: a literal question (message) and a resolver; keep one \
                         (a resolver returns its question)"
                    ),
                );
            }
            for n in &a.needs {
                if name_of(n).is_none() {
                    return err(
                        n.span(),
                        format!(
                            "field `{fid}`: `needs` names `{n}`, which is no field of `{ident}`"
                        ),
                    );
                }
            }
            let k = a.kind.clone().unwrap_or_else(|| format_ident!("form"));
            Kind::Resolver(r, a.needs.clone(), k)
        } else if let Some(u) = a.url.clone() {
            Kind::Url(u)
        } else if let Some(s) = a.sampling.clone() {
            Kind::Sampling(s)
        } else if a.roots {
            Kind::Roots
        } else if a.message.is_some() {
            Kind::Literal
        } else {
            return err(
                fid.span(),
                format!(
                    "field `{fid}`: say how it is asked: message = ..., resolver = ..., url = ..., \
                     sampling = ... or roots"
                ),
            );
        };
        let text = |e: &Expr| quote!(::core::convert::AsRef::<str>::as_ref(&(#e)));
        let msg = a.message.as_ref().map(text);
        let mut p = match &kind {
            Kind::Argument => {
                let fty = &f.ty;
                schemas.push(quote!((#name, ::elicit_rmcp::schema_of::<#fty>())));
                let t = scalar(&f.ty).map(|t| quote!(.ty(#t)));
                quote!(Param::argument(#name) #t)
            }
            Kind::Literal => {
                let t = answer(ty, fid)?;
                quote!(Param::ask(#name, #msg).ty(#t))
            }
            Kind::Resolver(path, needs, k) => {
                let needs: Vec<String> = needs.iter().filter_map(name_of).collect();
                resolvers.push(quote!((#name, ::elicit_rmcp::resolver(#path))));
                let input_kind = match k.to_string().as_str() {
                    "form" => quote!(Form),
                    "url" => quote!(Url),
                    "sampling" => quote!(Sampling),
                    "roots" => quote!(Roots),
                    other => {
                        return err(
                            k.span(),
                            format!(
                                "field `{fid}`: kind {other:?}: use form, url, sampling or roots"
                            ),
                        )
                    }
                };
                let t = if k == "form" && !a.outcome {
                    let t = answer(ty, fid)?;
                    quote!(.ty(#t))
                } else {
                    quote!()
                };
                quote!(Param::resolver(#name, &[#(#needs),*])
                    .kind(::elicit_rmcp::core::InputKind::#input_kind) #t)
            }
            Kind::Url(u) => {
                let u = text(u);
                let m = msg.unwrap_or_else(|| quote!(""));
                quote!(Param::url(#name, #m, #u))
            }
            Kind::Sampling(s) => {
                let s = text(s);
                quote!(Param::sampling(#name, #s))
            }
            Kind::Roots => quote!(Param::roots(#name)),
        };
        if let Some(t) = &a.title {
            let t = text(t);
            p = quote!(#p.title(#t));
        } else if matches!(kind, Kind::Literal) {
            // The default: the field's name, titled (`party_size` -> "Party size"), as
            // elicit_mcp's decorator titles it; `title = "Value"` keeps the reference's.
            let t = default_title(&name);
            p = quote!(#p.title(#t));
        }
        if let Some(d) = &a.description {
            let d = text(d);
            p = quote!(#p.description(#d));
        }
        if let Some(d) = &a.default {
            p = quote!(#p.default_json(
                &::elicit_rmcp::serde_json::to_string(&(#d)).unwrap_or_default()));
        } else if inner.is_some() && !matches!(kind, Kind::Argument) {
            p = quote!(#p.default_json("null"));
        }
        if a.outcome {
            p = quote!(#p.outcome());
        }
        if a.no_fallback {
            p = quote!(#p.no_fallback());
        }
        params.push(p);
    }
    Ok(quote! {
        impl ::elicit_rmcp::ElicitArgs for #ident {
            fn declared() -> &'static ::core::result::Result<::elicit_rmcp::Declared, ::std::string::String> {
                static DECLARED: ::std::sync::OnceLock<
                    ::core::result::Result<::elicit_rmcp::Declared, ::std::string::String>,
                > = ::std::sync::OnceLock::new();
                DECLARED.get_or_init(|| {
                    use ::elicit_rmcp::core::decl::Param;
                    ::elicit_rmcp::Declared::build(
                        ::elicit_rmcp::core::decl::Tool::new(#tool) #fallback #(.param(#params))* .to_json(),
                        ::std::vec![#(#resolvers),*],
                        ::std::vec![#(#schemas),*],
                    )
                })
            }
        }
    })
}

fn choice(input: &DeriveInput) -> syn::Result<Tokens> {
    let ident = &input.ident;
    let Data::Enum(data) = &input.data else {
        return err(
            ident.span(),
            "#[derive(Choice)] needs an enum of unit variants",
        );
    };
    let mut values = Vec::new();
    let mut variants = Vec::new();
    for v in &data.variants {
        if !matches!(v.fields, Fields::Unit) {
            return err(
                v.span(),
                format!("variant `{}`: a choice has unit variants only", v.ident),
            );
        }
        let a = attrs(&v.attrs)?;
        values.push(
            a.rename
                .map_or_else(|| snake(&v.ident.to_string()), |l| l.value()),
        );
        variants.push(&v.ident);
    }
    let list = values.join(", ");
    Ok(quote! {
        impl ::elicit_rmcp::Choice for #ident {
            const CHOICES: &'static [&'static str] = &[#(#values),*];
        }
        impl ::elicit_rmcp::serde::Serialize for #ident {
            fn serialize<S: ::elicit_rmcp::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                s.serialize_str(match self { #(Self::#variants => #values),* })
            }
        }
        impl<'de> ::elicit_rmcp::serde::Deserialize<'de> for #ident {
            fn deserialize<D: ::elicit_rmcp::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let s = <::std::string::String as ::elicit_rmcp::serde::Deserialize>::deserialize(d)?;
                match s.as_str() {
                    #(#values => Ok(Self::#variants),)*
                    other => Err(<D::Error as ::elicit_rmcp::serde::de::Error>::custom(
                        ::std::format!("{other:?} is not one of {}", #list))),
                }
            }
        }
    })
}
