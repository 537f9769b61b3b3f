//! Validation of a projection against the current graph: what the projected files say
//! (front matter, relations, links, IDs) and what the change does to the rest of the graph
//! (links into nodes it removes or moves). Findings are [`Issue`]s; errors keep a changeset
//! a `draft`. Overlap with other open changesets is a refusal ([`check_overlap`]).

use crate::graph::BaseGraph;
use crate::model::{Changeset, Issue, Severity, TouchedNode};
use crate::projection::Projection;
use crate::ProposalError;
use docforge_docs::{DocFacts, LinkTarget};
use docforge_model::Severity as DiagSeverity;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

struct Parsed {
    before: Option<Rc<DocFacts>>,
    after: Option<Rc<DocFacts>>,
}

/// Validate `p` against the base. Reads the index and, for links into moved documents, the
/// files that link to them.
pub fn validate(graph: &BaseGraph<'_>, p: &Projection) -> Result<Vec<Issue>, ProposalError> {
    let mut issues = p.notes.clone();
    if p.operations.is_empty() {
        issues.push(Issue::error("empty_changeset", "the changeset has no operations yet"));
    } else if p.files.values().all(|f| f.before == f.after) {
        issues.push(Issue::error("no_changes", "the operations change no file: there is nothing to apply"));
    }
    let parsed: BTreeMap<&str, Parsed> = p
        .files
        .iter()
        .filter(|(_, f)| f.before != f.after)
        .map(|(path, f)| {
            let parse = |b: &Option<Vec<u8>>| b.as_deref().map(|b| graph.parse(path, b));
            (path.as_str(), Parsed { before: parse(&f.before), after: parse(&f.after) })
        })
        .collect();
    // Nodes as the projection leaves them: ID → path, for the touched files.
    let mut defined: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut removed: BTreeSet<String> = BTreeSet::new();
    for (path, f) in &parsed {
        for id in f.after.iter().flat_map(|a| ids(a)) {
            defined.entry(id).or_default().push(path);
        }
        removed.extend(f.before.iter().flat_map(|b| ids(b)));
    }
    removed.retain(|id| !defined.contains_key(id));
    let known = |id: &str| -> Result<bool, ProposalError> {
        Ok(defined.contains_key(id) || !removed.contains(id) && graph.has_node(id)?)
    };
    // Documents whose file changes: a move, or a delete and a create of the same ID.
    let mut moved: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for (new, f) in &parsed {
        let Some(after) = &f.after else { continue };
        let old =
            parsed.iter().find(|(p, g)| p != &new && g.before.as_ref().is_some_and(|b| b.id == after.id));
        if let Some((old, _)) = old {
            moved.insert(after.id.as_str(), (*old, *new));
        }
    }
    // The projected facts that now hold a document, by its ID.
    let after_of = |doc: &str| parsed.values().filter_map(|f| f.after.as_ref()).find(|a| a.id == doc);

    for (path, f) in &parsed {
        let Some(after) = &f.after else { continue };
        new_diagnostics(path, f.before.as_deref(), after, &mut issues);
        // A document whose ID the change replaces in place (a body or front matter with
        // another `id`): nothing that names the old ID follows it.
        if let Some(before) = f.before.as_ref().filter(|b| b.id != after.id) {
            let message = format!(
                "the document's ID would change from {:?} to {:?}: links, relations and references to {:?} would not follow",
                before.id, after.id, before.id
            );
            issues.push(Issue::error("document_id_changed", message).node(&before.id).at(*path));
        }
        // IDs the projection defines twice, or that another (untouched) file already holds.
        for id in ids(after) {
            if defined[&id].len() > 1 {
                issues.push(
                    Issue::error(
                        "duplicate_id",
                        format!("{id:?} would be declared by {}", defined[&id].join(", ")),
                    )
                    .node(&id)
                    .at(*path),
                );
            } else if let Some(other) = graph.node(&id)? {
                let elsewhere = other.path != *path && !parsed.contains_key(other.path.as_str());
                if elsewhere {
                    issues.push(
                        Issue::error("duplicate_id", format!("{id:?} is already declared by {}", other.path))
                            .node(&id)
                            .at(*path),
                    );
                }
            }
        }
        // Relations the change adds.
        let old: BTreeSet<(&str, &str)> = f
            .before
            .iter()
            .flat_map(|b| b.relations.iter().map(|r| (r.name.as_str(), r.target.as_str())))
            .collect();
        for r in &after.relations {
            if old.contains(&(r.name.as_str(), r.target.as_str())) && !removed.contains(&r.target) {
                continue;
            }
            if known(&r.target)? {
                continue;
            }
            let message =
                format!("`{}` target `{}` is not a node of the graph or of this changeset", r.name, r.target);
            // Go nodes may be missing only because Go analysis is off or partial.
            let issue = if r.target.starts_with("go:") {
                Issue::warning("unknown_relation_target", message)
            } else {
                Issue::error("unknown_relation_target", message)
            };
            issues.push(issue.node(&after.id).at(*path));
        }
        // Links the change adds.
        let old_links: BTreeSet<(&str, &str)> = f
            .before
            .iter()
            .flat_map(|b| b.links.iter().map(|l| (l.source.as_str(), l.destination.as_str())))
            .collect();
        for l in &after.links {
            if old_links.contains(&(l.source.as_str(), l.destination.as_str())) {
                continue;
            }
            if let Some(issue) = check_link(graph, &parsed, &removed, &known, &l.target, &l.destination)? {
                issues.push(issue.node(&l.source).at(*path));
            }
        }
    }

    // Links elsewhere into nodes the change removes.
    let doc_paths: BTreeMap<&str, &str> =
        parsed.iter().filter_map(|(p, f)| f.before.as_ref().map(|b| (b.id.as_str(), *p))).collect();
    let mut seen = BTreeSet::new();
    for id in &removed {
        let doc = id.split('#').next().unwrap_or(id);
        if !seen.insert(doc.to_string()) {
            continue;
        }
        for e in graph.incoming_within(doc)? {
            if !removed.contains(&e.target) {
                continue;
            }
            let source_doc = e.source.split('#').next().unwrap_or(&e.source);
            let broken = match e.path.as_deref().and_then(|p| parsed.get(p)) {
                None => true,
                // The source's file changes: what it says now (wherever it moved) decides.
                Some(_) => {
                    after_of(source_doc).is_some_and(|a| still_links(a, &e.source, &e.target, &doc_paths))
                }
            };
            if broken {
                issues.push(
                    Issue::error(
                        "broken_link",
                        format!("`{}` {} `{}`, which this changeset removes", e.source, e.relation, e.target),
                    )
                    .node(&e.target)
                    .at(e.path.clone().unwrap_or_default()),
                );
            }
        }
    }
    // Links by path into documents the change moves.
    for (id, (old, new)) in &moved {
        for e in graph.incoming_within(id)? {
            if e.path.as_deref() == Some(*old) {
                continue;
            }
            let Some(src_path) = &e.path else { continue };
            let source_doc = e.source.split('#').next().unwrap_or(&e.source);
            let facts = match parsed.get(src_path.as_str()) {
                Some(_) => after_of(source_doc).cloned(),
                None => graph.read(src_path)?.map(|b| graph.parse(src_path, &b)),
            };
            let Some(facts) = facts else { continue };
            let by_path = facts
                .links
                .iter()
                .filter(|l| l.source == e.source)
                .any(|l| matches!(&l.target, LinkTarget::Path { path, .. } if path == old));
            if by_path {
                issues.push(
                    Issue::error(
                        "broken_link",
                        format!("`{}` links to {old} by path; the document moves to {new}", e.source),
                    )
                    .node(*id)
                    .at(src_path.clone()),
                );
            }
        }
    }
    // A section ID that now names another heading: its old section shifted to another slug
    // (a heading renamed onto an existing one's), so links to the ID lead elsewhere.
    for f in parsed.values() {
        let (Some(before), Some(after)) = (&f.before, &f.after) else { continue };
        for s in &after.sections {
            let Some(old) = before.sections.iter().find(|o| o.id == s.id) else { continue };
            // The section that had the ID is still there, unchanged, under another one.
            let same = |o: &docforge_docs::Section| {
                o.level == old.level && o.title == old.title && o.text == old.text
            };
            let Some(now) = after.sections.iter().find(|o| o.id != s.id && same(o)) else { continue };
            let linked = graph.incoming_within(&before.id)?.iter().any(|e| e.target == s.id);
            let message = format!(
                "`{}` would name another heading (\"{}\"); the section it names now becomes `{}`: links to `{}` would lead elsewhere",
                s.id, s.title, now.id, s.id
            );
            let issue = if linked {
                Issue::error("section_id_reassigned", message)
            } else {
                Issue::warning("section_id_reassigned", message)
            };
            issues.push(issue.node(&s.id).at(after.path.clone()));
        }
    }
    issues.sort_by(|a, b| {
        (a.severity != Severity::Error, &a.path, &a.node_id, &a.code, &a.message).cmp(&(
            b.severity != Severity::Error,
            &b.path,
            &b.node_id,
            &b.code,
            &b.message,
        ))
    });
    issues.dedup();
    Ok(issues)
}

fn ids(f: &DocFacts) -> Vec<String> {
    std::iter::once(f.id.clone()).chain(f.sections.iter().map(|s| s.id.clone())).collect()
}

/// Whether the projected file still links `source` to `target` (a node the change removes):
/// by a relation, a wiki link naming it, or a path link to the file it was in.
fn still_links(after: &DocFacts, source: &str, target: &str, doc_paths: &BTreeMap<&str, &str>) -> bool {
    let (target_doc, target_slug) = match target.split_once('#') {
        Some((d, s)) => (d, Some(s)),
        None => (target, None),
    };
    let names = |id: &str, fragment: &Option<String>| id == target_doc && fragment.as_deref() == target_slug;
    (after.id == source && after.relations.iter().any(|r| r.target == target))
        || after.links.iter().filter(|l| l.source == source).any(|l| match &l.target {
            LinkTarget::Id { id, fragment } => names(id, fragment),
            LinkTarget::Go(id) => id == target,
            LinkTarget::Path { path, fragment } => {
                doc_paths.get(target_doc).is_some_and(|p| p == path) && names(target_doc, fragment)
            }
        })
}

/// Diagnostics the projected file has and its base version did not (by code and message).
fn new_diagnostics(path: &str, before: Option<&DocFacts>, after: &DocFacts, issues: &mut Vec<Issue>) {
    let mut old: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for d in before.iter().flat_map(|b| &b.diagnostics) {
        *old.entry((d.code.as_str(), d.message.as_str())).or_default() += 1;
    }
    for d in &after.diagnostics {
        if let Some(n) = old.get_mut(&(d.code.as_str(), d.message.as_str())) {
            if *n > 0 {
                *n -= 1;
                continue;
            }
        }
        let issue = match d.severity {
            DiagSeverity::Error => Issue::error(&d.code, d.message.clone()),
            _ => Issue::warning(&d.code, d.message.clone()),
        };
        issues.push(issue.node(d.node.clone().unwrap_or_else(|| after.id.clone())).at(path));
    }
}

fn check_link(
    graph: &BaseGraph<'_>,
    parsed: &BTreeMap<&str, Parsed>,
    removed: &BTreeSet<String>,
    known: &dyn Fn(&str) -> Result<bool, ProposalError>,
    target: &LinkTarget,
    destination: &str,
) -> Result<Option<Issue>, ProposalError> {
    let broken = |why: String| Some(Issue::error("broken_link", format!("link `{destination}`: {why}")));
    match target {
        LinkTarget::Go(id) => Ok((!known(id)?).then(|| {
            Issue::warning(
                "unknown_go_target",
                format!("link `{destination}`: `{id}` is not a known Go node"),
            )
        })),
        LinkTarget::Id { id, fragment } => {
            if !known(id)? {
                return Ok(broken(format!("no node `{id}`")));
            }
            match fragment {
                Some(f) if removed.contains(&format!("{id}#{f}")) => {
                    Ok(broken(format!("the section `{id}#{f}` is removed by this changeset")))
                }
                Some(f) => {
                    if known(&format!("{id}#{f}"))? {
                        return Ok(None);
                    }
                    // Anchors are not in the index: the target's own facts, as projected.
                    let path =
                        match parsed.iter().find(|(_, g)| g.after.as_ref().is_some_and(|a| &a.id == id)) {
                            Some((p, _)) => Some(p.to_string()),
                            None => graph.node(id)?.map(|n| n.path),
                        };
                    Ok(fragment_issue(graph, parsed, path.as_deref(), destination, f)?)
                }
                None => Ok(None),
            }
        }
        LinkTarget::Path { path, fragment } => {
            let doc = match parsed.get(path.as_str()) {
                Some(f) => f.after.as_ref().map(|a| {
                    (a.id.clone(), a.sections.iter().map(|s| s.slug.clone()).collect::<BTreeSet<_>>())
                }),
                None => match graph.document_at(path)? {
                    Some(n) if !removed.contains(&n.id) => {
                        let entry = graph.entry_for_id(&n.id)?;
                        Some((n.id, entry.map(|e| e.slugs).unwrap_or_default()))
                    }
                    _ => None,
                },
            };
            let Some((doc_id, slugs)) = doc else { return Ok(broken(format!("no document at {path}"))) };
            match fragment {
                Some(f) if removed.contains(&format!("{doc_id}#{f}")) => {
                    Ok(broken(format!("the section `{doc_id}#{f}` is removed by this changeset")))
                }
                Some(f) if !slugs.contains(f.as_str()) => {
                    Ok(fragment_issue(graph, parsed, Some(path), destination, f)?)
                }
                _ => Ok(None),
            }
        }
    }
}

/// A link's fragment that names no section slug, checked as the index checks it against the
/// target document at `path` (its projected bytes when the changeset touches it): an anchor
/// or a `user-content-` name resolves; nothing else does, and that is the index's
/// `broken_link` error. A target that cannot be read stays [`unverified_fragment`].
fn fragment_issue(
    graph: &BaseGraph<'_>,
    parsed: &BTreeMap<&str, Parsed>,
    path: Option<&str>,
    destination: &str,
    fragment: &str,
) -> Result<Option<Issue>, ProposalError> {
    let Some(path) = path else { return Ok(Some(unverified_fragment(destination, fragment))) };
    let facts = match parsed.get(path) {
        Some(p) => p.after.clone(),
        None => graph.read(path)?.map(|bytes| graph.parse(path, &bytes)),
    };
    Ok(match facts {
        Some(f) if f.has_fragment(fragment) => None,
        Some(f) => Some(Issue::error(
            "broken_link",
            format!("link `{destination}`: document `{}` ({path}) has no heading `#{fragment}`", f.id),
        )),
        None => Some(unverified_fragment(destination, fragment)),
    })
}

fn unverified_fragment(destination: &str, fragment: &str) -> Issue {
    Issue::warning(
        "unverified_fragment",
        format!(
            "link `{destination}`: `#{fragment}` could not be checked (the target document cannot be read)"
        ),
    )
}

/// Refuse when another open changeset touches one of the same nodes or sources.
pub fn check_overlap(
    id: &str,
    touched: &[TouchedNode],
    paths: &BTreeSet<String>,
    others: &[Changeset],
) -> Result<(), ProposalError> {
    let nodes: BTreeSet<&str> = touched.iter().map(|t| t.node_id.as_str()).collect();
    let mine: BTreeSet<&str> =
        paths.iter().map(String::as_str).chain(touched.iter().map(|t| t.path.as_str())).collect();
    for other in others.iter().filter(|o| o.changeset_id != id && o.status.is_open()) {
        let node = other.touched_nodes.iter().find(|t| nodes.contains(t.node_id.as_str()));
        let mut theirs = other.paths().chain(other.touched_nodes.iter().map(|t| t.path.as_str()));
        let path = theirs.find(|p| mine.contains(*p));
        if node.is_some() || path.is_some() {
            let what = match (node, path) {
                (Some(n), _) => format!("node {:?}", n.node_id),
                (None, Some(p)) => format!("source {p}"),
                _ => unreachable!(),
            };
            return Err(ProposalError::new(
                "conflict",
                // Not its status: the stored one may be out of date (stale is worked out
                // from the sources, not here).
                format!("changeset {}, still open, also touches {what}", other.changeset_id),
            )
            .detail("conflicting_changeset_id", other.changeset_id.as_str())
            .remediation("wait for it to be applied or abandoned, or change other nodes"));
        }
    }
    Ok(())
}
