//! Function-local types through the server: a field of a `type node struct { … }` declared
//! in a body goes to that declaration and hover names the local type.

mod support;

use serde_json::json;
use support::{opts, Client};

#[test]
fn fields_of_a_function_local_type_navigate_and_hover_names_the_type() {
    let mut c = Client::start(opts(), json!({}));
    let rel = "storage/memory/walk.go";
    let text = "package memory\n\nfunc depth(r *Repo) int {\n\ttype frame struct {\n\t\trepo  *Repo\n\t\tlevel int\n\t}\n\tf := frame{repo: r}\n\treturn f.level\n}\n";
    std::fs::write(c.root.join(rel), text).unwrap();
    c.open(rel);
    let def = c.ok("textDocument/definition", c.pos(rel, "f.level", 2));
    assert_eq!(c.loc(&def), "storage/memory/walk.go:6:2-7");
    let h = c.ok("textDocument/hover", c.pos(rel, "f.level", 2));
    let value = h["contents"]["value"].as_str().unwrap_or("(none)");
    assert!(value.starts_with("**field `level` of local type `frame`**"), "{value}");
    c.shutdown();
}
