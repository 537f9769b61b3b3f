//! go.mod / go.work parsing and import paths.

use docforge_go::{import_path, parse_go_mod, parse_go_work, GoMod, GoWork};

#[test]
fn go_mod_ok() {
    let text = "// comment\nmodule example.com/shop // trailing\n\ngo 1.22.3\n\ntoolchain go1.23.0\n\nrequire (\n\tgolang.org/x/mod v0.20.0\n\t// note\n)\nreplace a => ../a\n";
    assert_eq!(
        parse_go_mod(text).unwrap(),
        GoMod {
            module: "example.com/shop".into(),
            go_version: Some("1.22.3".into()),
            local_replaces: vec!["../a".into()],
            requires: vec![("golang.org/x/mod".into(), "v0.20.0".into())],
            module_replaces: vec![],
            dir_replaced: vec![("a".into(), None)],
        }
    );
    assert_eq!(parse_go_mod("module \"quoted/path\"\n").unwrap().module, "quoted/path");
    assert_eq!(
        parse_go_mod("module std\n\ngo 1.26\n").unwrap(),
        GoMod {
            module: "std".into(),
            go_version: Some("1.26".into()),
            local_replaces: vec![],
            requires: vec![],
            module_replaces: vec![],
            dir_replaced: vec![],
        }
    );
}

/// The version a build uses for a required module: its requirement, or what a matching
/// module replacement names; none for a module replaced by a directory or not required.
#[test]
fn go_mod_selects_required_versions_through_replacements() {
    let text = "module m\n\nrequire (\n\texample.com/a v1.2.0\n\texample.com/b v0.3.0 // indirect\n\texample.com/c v1.0.0\n\texample.com/d v2.0.0\n)\nrequire example.com/e v0.0.1\n\nreplace example.com/b => example.com/fork/b v0.3.1\nreplace example.com/c v0.9.0 => example.com/c2 v1.0.0\nreplace example.com/d => ../d\n";
    let m = parse_go_mod(text).unwrap();
    let sel = |p: &str| m.selected(p).map(|(p, v)| format!("{p}@{v}"));
    assert_eq!(sel("example.com/a").as_deref(), Some("example.com/a@v1.2.0"));
    assert_eq!(sel("example.com/b").as_deref(), Some("example.com/fork/b@v0.3.1"));
    // The replacement names another version: it does not apply.
    assert_eq!(sel("example.com/c").as_deref(), Some("example.com/c@v1.0.0"));
    assert_eq!(sel("example.com/d"), None);
    assert_eq!(sel("example.com/e").as_deref(), Some("example.com/e@v0.0.1"));
    assert_eq!(sel("example.com/zzz"), None);
    assert_eq!(
        parse_go_mod("module m\nrequire a\n").unwrap_err(),
        "line 2: usage: require module/path v1.2.3"
    );
}

#[test]
fn go_mod_local_replaces_are_the_directory_targets() {
    let text = "module m\n\nreplace (\n\ta v1.0.0 => ./vendor/a\n\tb => example.com/b v1.2.0\n\tc => /abs/c\n)\nreplace d => ..\n";
    assert_eq!(parse_go_mod(text).unwrap().local_replaces, ["./vendor/a", "/abs/c", ".."]);
    assert_eq!(
        parse_go_mod("module m\nreplace a\n").unwrap_err(),
        "line 2: usage: replace module/path [v1.2.3] => other/module v1.4"
    );
    assert_eq!(parse_go_mod("module m\nreplace a =>\n").unwrap_err(), "line 2: replace without a target");
}

#[test]
fn go_mod_errors() {
    let cases = [
        ("go 1.21\n", "no module statement"),
        ("module a\nmodule b\n", "line 2: repeated module statement (first on line 1)"),
        ("module\n", "line 1: usage: module module/path"),
        ("module a b\n", "line 1: usage: module module/path"),
        ("module a\ngo one\n", "line 2: invalid go version \"one\""),
        ("module a\ngo 1.21\ngo 1.22\n", "line 3: repeated go statement"),
        ("module a\nfrobnicate x\n", "line 2: unknown directive: frobnicate"),
        ("module a\nrequire (\n\tx v1\n", "line 2: unterminated require block"),
        ("module \"a\n", "line 1: unterminated quoted string"),
    ];
    for (text, want) in cases {
        assert_eq!(parse_go_mod(text).unwrap_err(), want, "{text:?}");
    }
}

#[test]
fn go_work() {
    let text = "go 1.22\n\nuse (\n\t./api\n\t./svc // the service\n)\nuse ./tools\n";
    assert_eq!(
        parse_go_work(text).unwrap(),
        GoWork { uses: vec!["./api".into(), "./svc".into(), "./tools".into()] }
    );
    assert_eq!(parse_go_work("use (\n./a\n").unwrap_err(), "line 1: unterminated use block");
    assert_eq!(parse_go_work("use\n").unwrap_err(), "line 1: usage: use local/dir");
    assert_eq!(parse_go_work("module x\n").unwrap_err(), "line 1: unknown directive: module");
    assert_eq!(parse_go_work("").unwrap(), GoWork { uses: vec![] });
}

#[test]
fn import_paths() {
    let cases = [
        ("example.com/m", "", "", "example.com/m"),
        ("example.com/m", "", "internal/auth", "example.com/m/internal/auth"),
        ("example.com/m", "svc", "svc", "example.com/m"),
        ("example.com/m", "svc", "svc/api/v1", "example.com/m/api/v1"),
        ("example.com/m", "./svc/", "svc/api", "example.com/m/api"),
        ("std", "", "net/http", "net/http"),
        ("std", "", "vendor/golang.org/x/net/dns/dnsmessage", "vendor/golang.org/x/net/dns/dnsmessage"),
        ("std", "src", "src/net/http", "net/http"),
        ("cmd", "cmd", "cmd/go/internal/load", "cmd/go/internal/load"),
        ("cmd", "cmd", "cmd/vendor/golang.org/x/mod/module", "cmd/vendor/golang.org/x/mod/module"),
        ("cmd", "cmd", "cmd", "cmd"),
    ];
    for (m, md, pd, want) in cases {
        assert_eq!(import_path(m, md, pd), want, "{m} {md} {pd}");
    }
}

#[test]
fn go_list_exclusions() {
    use docforge_go::{go_list_excluded, BuildContext};
    let off = BuildContext::default();
    let on = BuildContext { cgo_enabled: true, ..Default::default() };
    assert!(go_list_excluded(&off, "builtin", Some("builtin")).is_some());
    assert!(go_list_excluded(&off, "runtime/cgo", Some("cgo")).is_some());
    assert!(go_list_excluded(&on, "runtime/cgo", Some("cgo")).is_none());
    assert!(go_list_excluded(&off, "cmd/vendor/golang.org/x/tools/cmd/bisect", Some("main")).is_some());
    assert!(go_list_excluded(&off, "cmd/vendor/golang.org/x/mod/module", Some("module")).is_none());
    assert!(go_list_excluded(&off, "cmd/go", Some("main")).is_none());
    assert!(go_list_excluded(&off, "example.com/m/builtin", Some("builtin")).is_none());
}
